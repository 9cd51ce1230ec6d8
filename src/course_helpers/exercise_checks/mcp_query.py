"""Course machinery (exercise checks): notebook 11, exercise 3 (a read-only query tool).

One job: `check_read_only_query`, with the requirements listed in `exercise_checks.mcp_tools`.
"""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from course_helpers.exercise_checks.common import NotWrittenYet, fail, passed, short_repr
from course_helpers.fixtures.shop_db import build_shop_db

HOSTILE = {
    "DELETE": "DELETE FROM orders",
    "UPDATE": "UPDATE orders SET status = 'delivered'",
    "ATTACH": "ATTACH DATABASE '{folder}/attached.db' AS other",
    "PRAGMA writable_schema": "PRAGMA writable_schema = ON",
    "a second statement": "SELECT 1; DELETE FROM orders",
}


READS = [
    "SELECT id, name, city FROM customers ORDER BY id",
    "WITH big AS (SELECT * FROM orders WHERE total_cents > 10000) SELECT count(*) AS n FROM big",
]


def _expected(db: Path, sql: str) -> tuple[list[str], list[tuple]]:
    """The header and the rows sqlite itself gives for a read (on a copy: db stays untouched)."""
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as connection:
        cursor = connection.execute(sql)
        rows = cursor.fetchall()
        return [column[0] for column in cursor.description], rows


def _check_read(db: Path, sql: str, text: Any) -> None:
    """Every row of the read, each on a line of its own, after a header naming every column."""
    __tracebackhide__ = True
    header, rows = _expected(db, sql)
    if not isinstance(text, str):
        fail(
            f"safe_query({sql!r}) returned {short_repr(text)}, not text.",
            "return the rows as text (a header line, then one line per row).",
        )
    lines = text.splitlines()
    top = next((i for i, line in enumerate(lines) if all(n in line for n in header)), None)
    if top is None:
        fail(
            f"safe_query({sql!r}) returned {short_repr(text)}: no header line naming the columns "
            f"{header}.",
            "start with a header line: the column names are in cursor.description "
            "(column[0] for column in cursor.description).",
        )
    found, rest = 0, lines[top + 1 :]
    for row in rows:
        values = [str(value) for value in row]
        where = next((i for i, line in enumerate(rest) if all(v in line for v in values)), None)
        if where is None:
            fail(
                f"safe_query({sql!r}) returned {found} of the {len(rows)} rows the database has "
                f"for it: the row {' | '.join(values)!r} is missing (it returned "
                f"{short_repr(text)}).",
                "return every row, one line each: cursor.fetchall() (or fetchmany with a limit "
                "well above a small answer), not fetchone() or a slice.",
            )
        found, rest = found + 1, rest[where + 1 :]


def check_read_only_query(safe_query: Callable) -> None:
    """11 · `safe_query(db_path, sql)`: reads run, every write is refused by the database."""
    __tracebackhide__ = True
    with tempfile.TemporaryDirectory(prefix="mcp-check-") as name:
        folder = Path(name)
        db = build_shop_db(folder)
        digest = hashlib.sha256(db.read_bytes()).hexdigest()
        for sql in READS:
            try:
                text = safe_query(db, sql)
            except NotWrittenYet:
                fail(
                    "safe_query is not written yet (it still raises NotWrittenYet).",
                    "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
                )
            except Exception as error:
                if "not authorized" in str(error):
                    fail(
                        f"safe_query refused a read, {sql!r}: your authorizer denied it ({error}).",
                        "the authorizer must return sqlite3.SQLITE_OK (0) for SQLITE_SELECT, "
                        "SQLITE_READ, SQLITE_FUNCTION, SQLITE_RECURSIVE; True is 1, SQLITE_DENY.",
                    )
                fail(
                    f"safe_query refused a read, {sql!r}: {type(error).__name__}: {error}.",
                    "let sqlite decide what is a write (mode=ro and an authorizer), not the SQL's first word.",
                )
            _check_read(db, sql, text)
        wordless: list[tuple[str, ToolError]] = []  # refusals without sqlite's words, said last
        for label, template in HOSTILE.items():
            sql = template.format(folder=folder)
            try:
                returned = safe_query(db, sql)
            except ToolError as refused:
                wordless += [(label, refused)] if _without_words(refused) else []
                returned = None
            except Exception as error:
                fail(
                    f"{label} was refused with {type(error).__name__}: {error}.",
                    "raise ToolError(...) with the database's words: the SDK reports any other "
                    "exception to the model as 'Error executing tool' and nothing more.",
                )
            if isinstance(returned, str) and any(
                word in returned.lower() for word in ("not authorized", "denied", "one statement")
            ):
                fail(
                    f"{label} was refused, but safe_query returned the refusal as text: "
                    f"{short_repr(returned)}.",
                    "raise ToolError(...) with the database's words: a returned text is a "
                    "success to the client (is_error false), not an error result.",
                )
            attached = (folder / "attached.db").exists()
            unchanged = hashlib.sha256(db.read_bytes()).hexdigest() == digest and not attached
            if returned is not None and unchanged and label != "PRAGMA writable_schema":
                fail(
                    f"{label} raised nothing: safe_query({sql[:40]!r}) returned "
                    f"{short_repr(returned)}, and the database did not change. The write did not "
                    "happen, but no error says so: the model reads a success.",
                    "let sqlite refuse it with an error (an authorizer that answers SQLITE_DENY, "
                    "not SQLITE_IGNORE) and raise ToolError with its words; never catch the "
                    "sqlite3.Error and return text in its place.",
                )
            if returned is not None:
                fail(
                    f"{label} ran: safe_query({sql[:40]!r}) returned {short_repr(returned)}.",
                    "open the file with mode=ro and set an authorizer that allows only reads.",
                )
            if attached:
                fail(
                    "ATTACH created a new file next to the database.",
                    "mode=ro alone does not stop ATTACH: add an authorizer that denies it.",
                )
        if wordless:
            _fail_without_words(*wordless[0])
        _check_missing_file(safe_query, folder)
        _check_ctrl_c(safe_query, db)
        if hashlib.sha256(db.read_bytes()).hexdigest() != digest:
            fail("the database file changed.", "open it read-only: file:...?mode=ro with uri=True.")
    passed("check_read_only_query")


def _cause(refused: ToolError) -> sqlite3.Error | None:
    cause = refused.__cause__ or refused.__context__
    while cause is not None and not isinstance(cause, sqlite3.Error):
        cause = cause.__cause__ or cause.__context__
    return cause


def _without_words(refused: ToolError) -> bool:
    """True unless the ToolError holds the words of the sqlite3.Error it was raised from."""
    cause = _cause(refused)
    return cause is None or str(cause) not in str(refused)


def _fail_without_words(label: str, refused: ToolError) -> None:
    __tracebackhide__ = True
    cause = _cause(refused)
    said = f"sqlite said {str(cause)!r}" if cause is not None else "no sqlite3.Error behind it"
    fail(
        f"{label} was refused with ToolError({str(refused)!r}), without the database's words "
        f"({said}): the model cannot tell what was wrong with its SQL.",
        "raise it from the sqlite3.Error you caught, with its text: "
        "except sqlite3.Error as error: raise ToolError(f'... {error}') from error.",
    )


def _check_missing_file(safe_query: Callable, folder: Path) -> None:
    """A path with no database: refused, and no empty database file left there."""
    __tracebackhide__ = True
    missing = folder / "no-such-shop.db"
    try:
        returned = safe_query(missing, "SELECT 1")
    except Exception:  # noqa: BLE001 (any refusal will do; the file must not appear)
        returned = None
    if missing.exists():
        fail(
            "safe_query on a path with no database created an empty database file there "
            f"({missing.name}, and the query {'ran' if returned is not None else 'failed'} on "
            "it): sqlite3.connect(path) creates a missing file, so the file was not opened "
            "read-only.",
            "open it read-only: sqlite3.connect(f'{Path(db_path).resolve().as_uri()}?mode=ro', "
            "uri=True), which refuses a missing file.",
        )


class _Interrupted:
    """A connection whose statements are interrupted by Ctrl-C (everything else is the real one's)."""

    def __init__(self, connection: sqlite3.Connection, hit: list) -> None:
        self._connection, self._hit = connection, hit

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def __enter__(self) -> _Interrupted:
        self._connection.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._connection.__exit__(*exc)

    def _interrupt(self, *args: Any, **kwargs: Any) -> Any:
        self._hit.append(True)
        raise KeyboardInterrupt

    execute = executemany = executescript = _interrupt

    def cursor(self, *args: Any, **kwargs: Any) -> Any:
        outer = self

        class _Cursor:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            execute = executemany = executescript = outer._interrupt

        real = self._connection.cursor(*args, **kwargs)
        return _Cursor()


def _check_ctrl_c(safe_query: Callable, db: Path) -> None:
    """Ctrl-C during a query reaches the person: safe_query does not turn it into an error."""
    __tracebackhide__ = True
    real_connect, hit, opened = sqlite3.connect, [], []

    def connect(*args: Any, **kwargs: Any) -> Any:
        connection = real_connect(*args, **kwargs)
        opened.append(connection)
        return _Interrupted(connection, hit)

    sqlite3.connect = connect  # type: ignore[assignment]
    try:
        try:
            returned = safe_query(db, "SELECT count(*) FROM orders")
        except KeyboardInterrupt:
            return
        except Exception as error:  # noqa: BLE001
            returned = f"{type(error).__name__}: {error}"
    finally:
        sqlite3.connect = real_connect  # type: ignore[assignment]
        for connection in opened:
            connection.close()
    if hit:  # it ran the statement on the connection given: Ctrl-C came and was kept
        fail(
            "a Ctrl-C (KeyboardInterrupt) during the query did not get through safe_query: it "
            f"gave {short_repr(returned)} instead. The person who pressed Ctrl-C to stop the "
            "agent cannot.",
            "catch sqlite3.Error (or Exception), never BaseException nor a bare except:.",
        )
