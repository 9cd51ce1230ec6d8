"""Notebook 11's MCP server and client: writes refused by the database, failures as results.

The server (`course_helpers.lessons.mcp_server`) runs as a real subprocess over stdio, started by
`McpServer` (`course_helpers.lessons.mcp_tools`) as the notebook starts it. Every database and
every server lives in a temporary folder, whose path marks the processes so that the tests can
check by pid that none is left behind.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from processes import gone_within, kill_all, living
from time_limit import time_limit

from course_helpers.fixtures.shop_db import (
    ORDERS,
    TOP_CUSTOMER,
    TOP_SPENT_CENTS,
    build_shop_db,
)
from course_helpers.lessons.loop import agent_loop
from course_helpers.lessons.mcp_server import RESULT_CHARS, ToolError, build_server, run_read
from course_helpers.lessons.mcp_tools import McpServer, mcp_run_tool, shop_server

HOSTILE = {
    "delete": "DELETE FROM orders",
    "update": "UPDATE orders SET status = 'delivered'",
    "drop": "DROP TABLE orders",
    "attach": "ATTACH DATABASE '{folder}/attached.db' AS other",
    "writable_schema": "PRAGMA writable_schema = ON",
    "vacuum_into": "VACUUM INTO '{folder}/copy.db'",
    "second_statement": "SELECT 1; DELETE FROM orders",
    "temp_table": "CREATE TEMP TABLE t AS SELECT * FROM orders",
}

# A server with tools that misbehave, written to the test's folder and run with this Python.
BAD_SERVER = textwrap.dedent(
    """
    import os, sys, time
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bad")

    def fine() -> str:
        "Answer at once."
        return "fine"

    def hang() -> str:
        "Never answer."
        time.sleep(3600)
        return "late"

    def crash() -> str:
        "Kill the server in the middle of the call."
        os._exit(3)

    for function in (fine, hang, crash):
        server.add_tool(function, structured_output=False)
    print("bad server: starting, this line goes to stderr", file=sys.stderr, flush=True)
    server.run("stdio")
    """
)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def shop_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcp-shop")
    build_shop_db(folder)
    return folder


@pytest.fixture(scope="module")
def shop(shop_folder: Path):
    db = shop_folder / "shop.db"
    # McpServer bounds its own start (START_SECONDS) and stop (STOP_SECONDS).
    with shop_server(db, shop_folder / "server.log") as server:
        yield server
    assert gone_within(str(shop_folder), 10), "the shop server outlived its with block"


def call(name: str, arguments, call_id: str = "toolu_test") -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text_of(result: dict) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "\n".join(b["text"] for b in content)


# -- the database refuses writes, in process ---------------------------------------------------


@pytest.mark.parametrize("label", sorted(HOSTILE))
def test_the_database_refuses_a_write(label: str, tmp_path: Path) -> None:
    db = build_shop_db(tmp_path)
    before = digest(db)
    with pytest.raises(ToolError, match="The database refused this SQL"):
        run_read(db, HOSTILE[label].format(folder=tmp_path))
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop.db"], "a statement made a file"


def test_mode_ro_alone_lets_attach_create_a_file(tmp_path: Path) -> None:
    """Why the authorizer is there: the lesson's first attempt, shown to fail."""
    db = build_shop_db(tmp_path)
    connection = sqlite3.connect(db.as_uri() + "?mode=ro", uri=True)
    try:
        connection.execute(f"ATTACH DATABASE '{tmp_path}/made.db' AS other")
    finally:
        connection.close()
    assert (tmp_path / "made.db").exists()


def test_an_endless_query_is_interrupted(tmp_path: Path) -> None:
    db = build_shop_db(tmp_path)
    endless = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    with time_limit(30), pytest.raises(ToolError, match="interrupted"):
        run_read(db, endless, seconds=0.2)


def test_reads_work_and_rows_are_limited(tmp_path: Path) -> None:
    db = build_shop_db(tmp_path)
    text = run_read(db, "SELECT id FROM orders")
    assert text.splitlines()[0] == "id"
    assert text.endswith(f"({len(ORDERS)} rows)")
    recursive = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 80) SELECT i FROM n"
    )
    limited = run_read(db, recursive).splitlines()
    assert len(limited) == 1 + 50 + 1 and limited[-1].startswith("(only the first 50 rows")


def test_a_result_is_bounded_in_size_not_only_in_rows(tmp_path: Path) -> None:
    """One huge value is refused by sqlite before it is built; many wide rows are cut."""
    db = build_shop_db(tmp_path)
    with pytest.raises(ToolError, match="too big"):
        run_read(db, "SELECT hex(randomblob(1000000)) AS noise")
    wide = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 40) "
        "SELECT i, hex(randomblob(4000)) AS noise FROM n"
    )
    text = run_read(db, wide)
    assert len(text) <= RESULT_CHARS + 100
    assert text.splitlines()[-1].startswith("(cut after ") and "characters" in text.splitlines()[-1]


def test_the_fixture_answer(tmp_path: Path) -> None:
    db = build_shop_db(tmp_path)
    rows = run_read(
        db,
        "SELECT c.name, SUM(o.total_cents) FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.status = 'delivered' GROUP BY c.id ORDER BY 2 DESC LIMIT 1",
    )
    assert rows.splitlines()[1] == f"{TOP_CUSTOMER} | {TOP_SPENT_CENTS}"


def test_the_server_describes_its_tools_as_prompts(tmp_path: Path) -> None:
    import asyncio

    tools = asyncio.run(build_server(build_shop_db(tmp_path)).list_tools())
    assert [t.name for t in tools] == ["list_tables", "describe_table", "query"]
    query = tools[2]
    assert "refused by" in query.description and "50 rows" in query.description
    assert query.input_schema["required"] == ["sql"]


# -- through the subprocess ---------------------------------------------------------------------


def test_tools_list_and_a_query(shop: McpServer) -> None:
    assert [t.name for t in shop.list_tools()] == ["list_tables", "describe_table", "query"]
    result = mcp_run_tool(shop)(call("query", {"sql": "SELECT count(*) AS n FROM orders"}))
    assert result["is_error"] is False
    assert result["content"] == [{"type": "text", "text": f"n\n{len(ORDERS)}\n(1 row)"}]


@pytest.mark.parametrize("label", ["delete", "attach", "writable_schema", "second_statement"])
def test_writes_through_tools_call_are_refused(
    label: str, shop: McpServer, shop_folder: Path
) -> None:
    before = digest(shop_folder / "shop.db")
    result = mcp_run_tool(shop)(call("query", {"sql": HOSTILE[label].format(folder=shop_folder)}))
    assert result["is_error"] is True
    assert "The database refused this SQL" in text_of(result)
    assert digest(shop_folder / "shop.db") == before
    assert not (shop_folder / "attached.db").exists()


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("drop_everything", {}, "Unknown tool"),
        ("query", {}, "sql"),  # a required argument missing: the server's own check
        ("query", {"sql": 42}, "sql"),
        ("query", "DELETE FROM orders", "MCP server's query failed"),  # not an object at all
        ("describe_table", {"table": "nope"}, "There is no table 'nope'"),
    ],
)
def test_a_malformed_tools_call_is_an_error_result(
    shop: McpServer, name, arguments, expected
) -> None:
    result = mcp_run_tool(shop)(call(name, arguments))
    assert result["is_error"] is True
    assert expected in text_of(result)
    # the session survives it
    assert mcp_run_tool(shop)(call("list_tables", {}))["is_error"] is False


# -- servers that crash or hang -------------------------------------------------------------------


@pytest.fixture
def bad_server(tmp_path: Path):
    script = tmp_path / "bad_server.py"
    script.write_text(BAD_SERVER, encoding="utf-8")
    log = tmp_path / "bad.log"
    server = McpServer(sys.executable, [script], log_path=log, cwd=tmp_path, call_seconds=1.0)
    with server:
        yield server, tmp_path
    try:
        assert gone_within(str(script), 15), "the bad server outlived its with block"
    finally:
        kill_all(str(script))


class Scripted:
    """A stand-in for the model: one turn per item; a name means a call to that tool."""

    def __init__(self, turns: list[str | None]) -> None:
        self.turns = list(turns)

    def __call__(self, messages):
        from types import SimpleNamespace

        name = self.turns.pop(0)
        if name is None:
            return SimpleNamespace(
                stop_reason="end_turn", content=[SimpleNamespace(type="text", text="done")]
            )
        use = SimpleNamespace(type="tool_use", id=f"toolu_{len(messages)}", name=name, input={})
        return SimpleNamespace(stop_reason="tool_use", content=[use])


def test_stderr_goes_to_a_real_file(bad_server) -> None:
    server, folder = bad_server
    assert "bad server: starting" in (folder / "bad.log").read_text(encoding="utf-8")


def test_a_hung_server_times_out_and_the_loop_goes_on(bad_server) -> None:
    server, _ = bad_server
    messages = [{"role": "user", "content": "go"}]
    with time_limit(60):
        agent_loop(Scripted(["hang", "fine", None]), mcp_run_tool(server), messages)
    hung, after = messages[2]["content"][0], messages[4]["content"][0]
    assert hung["is_error"] is True and "timed out" in text_of(hung)
    assert after["is_error"] is False and text_of(after) == "fine"


def test_a_server_that_crashes_mid_call_is_an_error_and_the_loop_goes_on(bad_server) -> None:
    server, folder = bad_server
    messages = [{"role": "user", "content": "go"}]
    with time_limit(60):
        response = agent_loop(Scripted(["crash", "fine", None]), mcp_run_tool(server), messages)
    assert response.stop_reason == "end_turn"
    crashed, after = messages[2]["content"][0], messages[4]["content"][0]
    assert crashed["is_error"] is True and "Connection closed" in text_of(crashed)
    assert after["is_error"] is True, "a call to a dead server must be an error result too"
    assert gone_within(str(folder / "bad_server.py"), 10)


def test_no_process_is_left_behind_by_a_hung_call(tmp_path: Path) -> None:
    script = tmp_path / "bad_server.py"
    script.write_text(BAD_SERVER, encoding="utf-8")
    try:
        with time_limit(120):
            with McpServer(
                sys.executable, [script], log_path=tmp_path / "log", call_seconds=0.5
            ) as server:
                pids = living(str(script))
                assert len(pids) == 1
                assert mcp_run_tool(server)(call("hang", {}))["is_error"] is True
            assert gone_within(str(script), 15), f"pid {pids[0]} is still running"
    finally:
        kill_all(str(script))


def test_a_server_that_fails_to_start_is_reported_and_leaves_nothing(tmp_path: Path) -> None:
    script = tmp_path / "broken_server.py"
    script.write_text("raise SystemExit('broken: no database given')\n", encoding="utf-8")
    log = tmp_path / "broken.log"
    with (
        time_limit(60),
        pytest.raises(Exception),  # noqa: B017 (whatever the SDK raises for a dead server)
        McpServer(sys.executable, [script], log_path=log),
    ):
        pass
    assert "broken: no database given" in log.read_text(encoding="utf-8")
    assert gone_within(str(script), 10)


def test_a_server_that_never_answers_initialize_is_stopped(tmp_path: Path) -> None:
    script = tmp_path / "silent_server.py"
    script.write_text("import time\ntime.sleep(3600)\n", encoding="utf-8")
    try:
        with (
            time_limit(60),
            pytest.raises(TimeoutError) as stuck,  # from waiting for the session to open
            McpServer(sys.executable, [script], log_path=tmp_path / "log", start_seconds=1),
        ):
            pass
        assert "test took more than" not in str(stuck.value)
        assert gone_within(str(script), 15), "a server stuck before initialize was left behind"
    finally:
        kill_all(str(script))


def _pid_alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def test_running_the_notebooks_servers_cell_again_stops_the_first_server(tmp_path: Path) -> None:
    """A learner runs a cell twice: the server its first run started must not run on."""
    import json
    import re
    import time

    from course_helpers.lessons.mcp_tools import anthropic_tool

    notebook = (
        Path(__file__).resolve().parents[1] / "notebooks/11_take_tools_from_an_mcp_server.ipynb"
    )
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    source = next(
        "".join(c["source"]) for c in cells if "servers = ExitStack()" in "".join(c["source"])
    )
    log = tmp_path / "server.log"
    namespace = {
        "shop_server": shop_server,
        "anthropic_tool": anthropic_tool,
        "db_path": build_shop_db(tmp_path),
        "server_log": log,
    }
    try:
        with time_limit(120):
            exec(source, namespace)  # the cell, as the notebook runs it
            first = int(re.findall(r"pid (\d+)", log.read_text(encoding="utf-8"))[-1])
            exec(source, namespace)  # ... and again
            second = int(re.findall(r"pid (\d+)", log.read_text(encoding="utf-8"))[-1])
            assert second != first and _pid_alive(second)
            deadline = time.monotonic() + 15
            while _pid_alive(first) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not _pid_alive(first), f"the first run's server (pid {first}) is still running"
    finally:
        if "servers" in namespace:
            namespace["servers"].close()
