"""An MCP server over the shop's SQLite database (built in notebook 11).

`build_server(path)` is an `MCPServer` (the `mcp` SDK's high-level server, `FastMCP` in mcp 1.x)
with three tools: `list_tables`, `describe_table` and `query` (one read-only SELECT, at most
`ROW_LIMIT` rows, results as text). The database refuses writes itself: `open_read_only` opens
it with `mode=ro` and an authorizer that allows only what a read does, so a DELETE, an ATTACH,
a PRAGMA or a second statement is refused by sqlite, not by a promise in a description.

Run it as `python -m course_helpers.lessons.mcp_server shop.db`: it speaks MCP over stdio
(stdout carries the protocol, logs go to stderr).
"""

from __future__ import annotations

import inspect
import os
import sqlite3
import sys
import time
from contextlib import closing
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.mcp_server`. Edit those cells, then run `make promote`.


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
ROW_LIMIT = 50  # rows one query returns at most: every row is resent on every later turn
QUERY_SECONDS = 2.0  # a query still running after this is stopped by the database
RESULT_CHARS = 20_000  # characters one result holds at most: rows can be wide, too

# What a read does: read a table's columns, call a function, recurse (WITH RECURSIVE).
READS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


def only_reads(action: int, *details) -> int:
    """sqlite's authorizer: asked about each action of a statement while it is compiled."""
    return sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY


def open_read_only(path: str | Path) -> sqlite3.Connection:
    """Open the database so that sqlite itself refuses anything but a read.

    `mode=ro` opens the file read-only; the authorizer refuses every other action when the
    statement is compiled: ATTACH (which can create a file), PRAGMA, VACUUM INTO, temp tables.
    """
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None)  # no implicit BEGIN
    connection.set_authorizer(only_reads)
    # No string or blob longer than a whole result: sqlite refuses to build it.
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, RESULT_CHARS)
    return connection


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
def as_table(cursor: sqlite3.Cursor, row_limit: int = ROW_LIMIT) -> str:
    """The rows as text: a header line, one line per row, then how many rows there were."""
    rows = cursor.fetchmany(row_limit + 1)
    lines = [" | ".join(column[0] for column in cursor.description or ())]
    size = len(lines[0])
    for row in rows[:row_limit]:
        line = " | ".join(str(value) for value in row)
        size += len(line) + 1
        if size > RESULT_CHARS:
            lines.append(
                f"(cut after {len(lines) - 1} rows: the result passed {RESULT_CHARS} characters)"
            )
            return "\n".join(lines)
        lines.append(line)
    if len(rows) > row_limit:
        lines.append(f"(only the first {row_limit} rows: aggregate, or add a WHERE or a LIMIT)")
    else:
        lines.append(f"({len(rows)} row{'' if len(rows) == 1 else 's'})")
    return "\n".join(lines)


def run_read(
    path: str | Path, sql: str, parameters: tuple = (), seconds: float = QUERY_SECONDS
) -> str:
    """Run one statement on a fresh read-only connection; what sqlite refuses is a ToolError."""
    deadline = time.monotonic() + seconds
    with closing(open_read_only(path)) as connection:
        connection.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        try:
            return as_table(connection.execute(sql, parameters))
        except sqlite3.Error as problem:  # refused, misspelt, interrupted, two statements...
            raise ToolError(f"The database refused this SQL: {problem}") from problem


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
SERVER_NAME = "shop-db"


def build_server(path: str | Path) -> MCPServer:
    """An MCP server with three read-only tools over the SQLite database at `path`."""
    path = Path(path).resolve()
    server = MCPServer(SERVER_NAME, instructions="Read-only access to the shop's database.")

    def list_tables() -> str:
        """List the tables in the shop's database (SQLite), one per line.

        Call this first when you do not know the tables. Then call describe_table on each
        table you need before you write a query: do not guess column names.
        """
        return run_read(
            path, "SELECT name AS table_name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
        )

    def describe_table(table: str) -> str:
        """Show how one table is defined: its CREATE TABLE statement, with every column, its
        type and its constraints (allowed values, references to other tables).

        Use the exact column names you see here. Money is stored in cents (integers).
        """
        sql = "SELECT sql AS definition FROM sqlite_schema WHERE type = 'table' AND name = ?"
        found = run_read(path, sql, (table,))
        if found.endswith("(0 rows)"):
            raise ToolError(f"There is no table {table!r}. Call list_tables to see the tables.")
        return found

    def query(sql: str) -> str:
        """Run one read-only SQL SELECT on the shop's database (SQLite) and return the rows as
        text: a header line, one line per row, then the row count.

        One statement only. Writes (INSERT, UPDATE, DELETE), ATTACH and PRAGMA are refused by
        the database. At most 50 rows come back: aggregate (COUNT, SUM, GROUP BY) or add a
        WHERE or a LIMIT instead of reading whole tables. If a query fails, read the error:
        it names the problem, such as a column that does not exist.
        """
        return run_read(path, sql)

    for function in (list_tables, describe_table, query):
        description = inspect.cleandoc(function.__doc__)
        server.add_tool(function, description=description, structured_output=False)
    return server


def main(argv: list[str] | None = None) -> None:
    """Serve one database over stdio: `python -m course_helpers.lessons.mcp_server shop.db`."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m course_helpers.lessons.mcp_server DATABASE")
    # stdout carries the protocol; a log line goes to stderr.
    print(
        f"{SERVER_NAME}: serving {Path(args[0]).name} read-only, pid {os.getpid()}",
        file=sys.stderr,
        flush=True,
    )
    build_server(args[0]).run("stdio")


# `python -m` runs this module as "__main__" with a __spec__; a notebook cell runs as
# "__main__" too, but without one, so running this cell defines the server without starting it.
if __name__ == "__main__" and __spec__ is not None:
    main()
