"""Notebook 10 reaches its end against a server whose model is not the course model.

Notebook 10 measures one long task, an audit that reads 22 delivery logs. The course model reads
them all; another model may read fewer and answer early. Its budget demo (section 7) must still
show a budget stopping a run, on any model that reads logs at all: its limit is half of what the
same audit cost on the model you run, so it never depends on how many logs that is.

Here a small Messages-API server of its own (not the course model, not its code) answers on
loopback, reached the way any compatible server is (`ANTHROPIC_BASE_URL` and a dummy key, the
real SDK over HTTP). Its model lists the shipments, reads `logs` of them (`per_turn` at a time),
then reports what those logs say, whatever the system prompt asks. Like many local servers it
has no prompt cache (no cache fields in its usage) and no `count_tokens` (404). It refuses a
history that breaks the pairing rules with a 400, as the API does.

The whole notebook is run (in `tests/notebook_runner.py`'s runner: a fresh IPython shell in a
warmed-up process, no kernel), every cell even after an error, and the test reads what the
budget cells printed.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from notebook_runner import NotebookRunner, cells_of

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "10_count_the_cost.ipynb"
ORDER_ID = re.compile(r"\bA\d{4}\b")
# Cells of notebook 10 read below, by id: the naive run, the budget run, the final report.
NAIVE_CELL, BUDGET_CELL, REPORT_CELL = "8f6934a0", "3059749b", "9a9f603f"


def _tokens(value) -> int:
    """A rough token count (four characters a token), at least 1."""
    return max(1, len(json.dumps(value)) // 4)


@dataclass
class LogReader:
    """A model that reads `logs` delivery logs, `per_turn` at a time, then reports."""

    logs: int
    per_turn: int = 1
    ids: Iterator[int] = field(default_factory=itertools.count)
    # Per request with tools: how many logs its history had read when it came in.
    reads_seen: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, request: dict) -> dict:
        messages = request["messages"]
        calls = [
            block
            for message in messages
            if message["role"] == "assistant" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_use"
        ]
        results = [
            block
            for message in messages
            if message["role"] == "user" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        names = {tool.get("name") for tool in request.get("tools", [])}
        may_call = (request.get("tool_choice") or {}).get("type") != "none"
        read = [c["input"].get("order_id") for c in calls if c["name"] == "read_delivery_log"]
        if {"list_shipments", "read_delivery_log"} <= names:
            with self.lock:
                self.reads_seen.append(len(read))
        if (
            may_call
            and "list_shipments" in names
            and not any(c["name"] == "list_shipments" for c in calls)
        ):
            return self._calls([("list_shipments", {"week": "last"})])
        if may_call and "read_delivery_log" in names and len(read) < self.logs:
            listed = [i for r in results for i in ORDER_ID.findall(_text(r)) if i not in read]
            batch = list(dict.fromkeys(listed))[: min(self.per_turn, self.logs - len(read))]
            if batch:
                return self._calls([("read_delivery_log", {"order_id": i}) for i in batch])
        return self._text(_report(read, results))

    def _calls(self, calls: list[tuple[str, dict]]) -> dict:
        content = [
            {"type": "tool_use", "id": f"toolu_other{next(self.ids):04d}", "name": n, "input": i}
            for n, i in calls
        ]
        return {"content": content, "stop_reason": "tool_use"}

    def _text(self, text: str) -> dict:
        return {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}


def _text(result: dict) -> str:
    content = result.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def _report(read: list[str], results: list[dict]) -> str:
    """What the logs read say: each one's final status line, or that nothing was read."""
    if not read:
        return "Hello. I have read no delivery log."
    lines = [f"I read {len(read)} delivery logs."]
    for result in results:
        for line in _text(result).splitlines():
            if "FINAL STATUS" in line or "EXCEPTION" in line:
                lines.append(line.strip())
    return "\n".join(lines)


def _pairing_error(messages: list[dict]) -> str | None:
    """The API's rule: every tool_use is answered by a tool_result in the next message."""
    for index, message in enumerate(messages):
        if message["role"] != "assistant" or not isinstance(message["content"], list):
            continue
        asked = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        if not asked:
            continue
        following = messages[index + 1]["content"] if index + 1 < len(messages) else []
        answered = [
            b.get("tool_use_id")
            for b in (following if isinstance(following, list) else [])
            if b.get("type") == "tool_result"
        ]
        missing = [i for i in asked if i not in answered]
        if missing and index + 1 < len(messages):
            return (
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}."
            )
    return None


def _handler(model: LogReader):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            path = self.path.split("?", 1)[0]
            if path != "/v1/messages":
                return self._send(404, _error("not_found_error", f"Not found: {path}"))
            if body.get("stream"):
                return self._send(400, _error("invalid_request_error", "stream: not served"))
            problem = _pairing_error(body["messages"])
            if problem:
                return self._send(400, _error("invalid_request_error", problem))
            reply = model.answer(body)
            usage = {
                "input_tokens": _tokens([body.get("system"), body.get("tools"), body["messages"]]),
                "output_tokens": _tokens(reply["content"]),
            }
            message = {
                "id": f"msg_other{next(model.ids):04d}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "stop_sequence": None,
                "usage": usage,
                **reply,
            }
            self._send(200, message)

        def do_GET(self) -> None:  # GET /v1/models/{id}: this server lists no models
            self._send(404, _error("not_found_error", f"Not found: {self.path}"))

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.fixture
def other_server():
    """Start a server for a LogReader; yields a function model -> base URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(model: LogReader) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}).start()
        servers.append(server)
        host, port = server.server_address[:2]
        return f"http://{host}:{port}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _printed(outcome: dict, cell_id: str) -> str:
    index = next(i for i, c in enumerate(cells_of(NOTEBOOK)) if c.get("id") == cell_id)
    return next(o["stdout"] for o in outcome["outputs"] if o["cell"] == index)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("logs", "per_turn"),
    [(2, 1), (1, 1), (2, 2)],
    ids=["two logs, one a turn", "one log", "two logs at once"],
)
def test_notebook_10_ends_with_its_budget_stopping_the_run(
    logs, per_turn, other_server, notebook_executor, tmp_path
) -> None:
    model = LogReader(logs=logs, per_turn=per_turn)
    env = notebook_executor.offline_environment()
    env.pop("COURSE_BACKEND", None)
    env.update(ANTHROPIC_BASE_URL=other_server(model), ANTHROPIC_API_KEY="dummy-key")
    runner = NotebookRunner(env, tmp_path)
    try:
        outcome = runner.run(NOTEBOOK, keep_going=True, timeout=300)
    finally:
        runner.close()
    failed = [
        f"cell {o['cell']}: {e['ename']}: {e['evalue']}"
        for o in outcome["outputs"]
        for e in o["errors"]
    ]
    assert failed == [], f"notebook 10 against a model reading {logs} log(s): {failed}"
    # The model read what it was made to read, not 22 logs: this is not the course model's run.
    assert max(model.reads_seen) == logs
    assert "I read" in _printed(outcome, NAIVE_CELL)
    budget = _printed(outcome, BUDGET_CELL)
    assert "ending: budget_limit" in budget, budget
    assert "history keeps the pairing rules: True" in budget, budget
    report = _printed(outcome, REPORT_CELL)
    assert report.startswith("end_turn\n"), report
    print(f"{logs} log(s), {per_turn} a turn: {outcome['seconds']} s")
