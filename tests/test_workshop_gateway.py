"""The workshop guide's shared-key gateway, over loopback: a cap, an allow-list, a ledger.

Two upstreams stand in for the API, both on loopback and both started by the test: the course
model (as `python -m course_helpers.offline serve` serves it), and a scripted upstream that
records every request it receives and, when told to, holds its answers until the test releases
them (every wait is bounded, so it always stops by itself). Participants use the course's own
`make_client()` pointed at the gateway, as the guide tells them to, or raw HTTP for the
requests no SDK would send.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anthropic
import pytest

from course_helpers.client import MODEL, make_client
from course_helpers.offline.serve import start_server
from course_tools.gateway_ledger import Ledger
from course_tools.workshop_gateway import Gateway
from course_tools.workshop_usage import report

ROOT = Path(__file__).resolve().parents[1]
ADA, BOB = "ws-ada-7f3k0c2e", "ws-bob-91d0e2b7"
REAL_KEY = "sk-real-key-for-the-test"
WAIT = 30  # seconds: the bound on every wait, never a measure of anything
COUNTED = 20  # the input tokens the scripted upstream's count_tokens reports


def start(server: ThreadingHTTPServer) -> str:
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


class Upstream(ThreadingHTTPServer):
    """A scripted API: records what reaches it; can hold its Messages answers until released."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ScriptedApi)
        self.seen: list[tuple[str, str, dict]] = []  # (method, path, headers)
        self.bodies: list[dict] = []
        self.raw_bodies: list[bytes] = []
        self.arrived = threading.Condition()
        self.holding = False
        self.release = threading.Event()
        self.status = 200
        self.stream_cut = False
        self.overuse = 0  # output tokens reported beyond max_tokens (a count that fell short)
        self.cut: str | None = None  # "count", "body" or "chunk": an answer that breaks off

    def messages_seen(self) -> int:
        return sum(1 for _, path, _ in self.seen if path == "/v1/messages")


class ScriptedApi(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Upstream

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else b""
        body = json.loads(data) if length else {}
        path = self.path.split("?")[0]
        with self.server.arrived:
            self.server.seen.append((self.command, path, dict(self.headers.items())))
            self.server.bodies.append(body)
            self.server.raw_bodies.append(data)
            self.server.arrived.notify_all()
        cut = self.server.cut
        if path == "/v1/messages/count_tokens":
            if cut == "count":
                return self._broken_off(b'{"input_toke')
            return self._json(200, {"input_tokens": COUNTED})
        if cut == "silent":  # the whole request read, then the connection closed, no answer
            self.close_connection = True
            return None
        if cut == "body":
            return self._broken_off(b'{"id": "msg_scr')
        if cut == "chunk":
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            event = b'event: ping\ndata: {"type": "ping"}\n\n'
            self.wfile.write(f"{len(event):X}\r\n".encode() + event + b"\r\n")
            self.wfile.write(b"100\r\nevent: message_st")  # a chunk of 256 bytes, cut at 17
            self.close_connection = True
            return
        if path.startswith("/v1/models"):
            return self._json(200, {"data": [], "has_more": False, "first_id": None})
        if self.server.holding:
            self.server.release.wait(WAIT)
        if self.server.status != 200:
            return self._json(
                self.server.status,
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            )
        if self.server.stream_cut:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")  # the stream ends before message_stop
            self.end_headers()
            self.wfile.write(b'event: ping\ndata: {"type": "ping"}\n\n')
            self.close_connection = True
            return
        # The worst case: the whole input, and every one of max_tokens written.
        usage = {"input_tokens": COUNTED, "output_tokens": body["max_tokens"] + self.server.overuse}
        self._json(
            200,
            {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": "scripted"}],
                "stop_reason": "max_tokens",
                "stop_sequence": None,
                "usage": usage,
            },
        )

    def _broken_off(self, start: bytes) -> None:
        """A JSON answer that announces 500 bytes and closes after the first few."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "500")
        self.end_headers()
        self.wfile.write(start)
        self.close_connection = True

    def _json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.txt"
    path.write_text(f"# name token\nada {ADA}\nbob {BOB}\n")
    return path


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    start(server)
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def course_model() -> Iterator[str]:
    with start_server() as server:
        yield server.url


class Log(list):
    """The gateway's log lines, kept for the test to read."""

    def __call__(self, line: str) -> None:
        self.append(line)

    def text(self) -> str:
        return "\n".join(self)


@pytest.fixture
def gateway(tokens: Path, tmp_path: Path) -> Iterator:
    """A factory: a gateway in front of an upstream URL, started; all are stopped at the end."""
    started: list[Gateway] = []

    def make(upstream_url: str, **options) -> Gateway:
        settings = {
            "budget": 10_000_000,
            "max_tokens": 16_000,
            "ledger": tmp_path / "ledger.json",
            "log": Log(),
            **options,
        }
        server = Gateway(
            ("127.0.0.1", 0), upstream=upstream_url, api_key=REAL_KEY, tokens=tokens, **settings
        )
        start(server)
        started.append(server)
        return server

    yield make
    for server in started:
        server.shutdown()
        server.server_close()


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


@pytest.fixture
def participant(monkeypatch):
    """Point the course's client at the gateway the way the guide tells participants to."""

    def client_for(server: Gateway, token: str = ADA) -> anthropic.Anthropic:
        monkeypatch.delenv("COURSE_BACKEND", raising=False)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url_of(server))
        monkeypatch.setenv("ANTHROPIC_API_KEY", token)
        return make_client(quiet=True, max_retries=0)

    return client_for


def raw(server: Gateway, method: str, path: str, headers: dict, body: bytes = b""):
    """Send one request exactly as written (no path clean-up); (status, headers, JSON)."""
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=WAIT)
    try:
        connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body or None)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), json.loads(answer.read())
    finally:
        connection.close()


def ask(max_tokens: int = 100, **extra) -> bytes:
    request = {"model": MODEL, "max_tokens": max_tokens, **extra}
    request.setdefault("messages", [{"role": "user", "content": "Hi"}])
    return json.dumps(request).encode()


def post(server: Gateway, body: bytes, token: str = ADA, **headers) -> tuple[int, dict]:
    sent = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    sent["content-length"] = str(len(body))
    sent.update(headers)
    status, _, answer = raw(server, "POST", "/v1/messages", sent, body)
    return status, answer


def is_envelope(answer: dict, kind: str) -> bool:
    return answer.get("type") == "error" and answer["error"]["type"] == kind


# --- the path a participant takes ---------------------------------------------------------------


def test_a_participant_reaches_the_course_model_through_the_gateway(
    course_model, gateway, participant
):
    server = gateway(course_model)
    client = participant(server)
    response = client.messages.create(
        model=MODEL, max_tokens=200, messages=[{"role": "user", "content": "Hello!"}]
    )
    text = "".join(b.text for b in response.content if b.type == "text")
    assert "offline course model" in text
    with client.messages.stream(
        model=MODEL, max_tokens=200, messages=[{"role": "user", "content": "Count from 1 to 5."}]
    ) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed.startswith("1, 2, 3, 4, 5")
    counted = client.messages.count_tokens(
        model=MODEL, messages=[{"role": "user", "content": "Hello!"}]
    )
    assert counted.input_tokens > 0
    expected = sum(u.input_tokens + u.output_tokens for u in (response.usage, final.usage))
    assert server.ledger.spent("ada") == expected, "every token of ada's answers is counted"
    assert server.ledger.held("ada") == 0, "nothing stays held once the answers are in"
    calls = server.ledger.snapshot()["participants"]["ada"]["calls"]
    assert calls == {"messages": 2, "count_tokens": 1}


def test_the_real_key_replaces_the_token_and_the_body_goes_on_unchanged(
    upstream, gateway, participant
):
    server = gateway(url_of(upstream))
    response = participant(server).messages.create(
        model=MODEL, max_tokens=300, messages=[{"role": "user", "content": "Hi"}]
    )
    assert response.content[-1].text == "scripted"
    assert [path for _, path, _ in upstream.seen] == ["/v1/messages/count_tokens", "/v1/messages"]
    for _, _, headers in upstream.seen:
        lowered = {k.lower(): v for k, v in headers.items()}
        assert lowered["authorization"] == f"Bearer {REAL_KEY}"
        assert lowered["anthropic-version"]
        assert ADA not in json.dumps(headers)
    counted, sent = upstream.bodies
    assert "max_tokens" not in counted, "count_tokens gets the input only"
    assert sent["max_tokens"] == 300


# --- the budget is a cap ---------------------------------------------------------------------------


def test_concurrent_requests_never_take_a_participant_past_the_budget(
    upstream, gateway, participant
):
    upstream.holding = True  # every Messages answer waits until the test releases it
    server = gateway(url_of(upstream), budget=1_000)
    worst = COUNTED + 300  # what each request may use: its input plus max_tokens
    client = participant(server)
    outcomes: list[str] = []
    done = threading.Condition()

    def one_request() -> None:
        try:
            client.messages.create(
                model=MODEL, max_tokens=300, messages=[{"role": "user", "content": "Hi"}]
            )
            outcome = "answered"
        except anthropic.PermissionDeniedError as refused:
            assert "workshop budget" in str(refused)
            outcome = "refused"
        with done:
            outcomes.append(outcome)
            done.notify_all()

    threads = [threading.Thread(target=one_request, daemon=True) for _ in range(10)]
    for thread in threads:
        thread.start()
    admitted = 1_000 // worst
    # Wait (bounded) until every request is either refused or held at the upstream.
    with done:
        assert done.wait_for(lambda: outcomes.count("refused") == 10 - admitted, WAIT)
    with upstream.arrived:
        assert upstream.arrived.wait_for(lambda: upstream.messages_seen() == admitted, WAIT)
    assert server.ledger.held("ada") == admitted * worst
    upstream.release.set()
    for thread in threads:
        thread.join(WAIT)
    assert sorted(outcomes) == ["answered"] * admitted + ["refused"] * (10 - admitted)
    assert upstream.messages_seen() == admitted, "a refused request never reaches the API"
    assert server.ledger.spent("ada") == admitted * worst <= 1_000
    assert server.ledger.held("ada") == 0


def test_one_large_request_is_refused_before_it_can_pass_the_budget(upstream, gateway):
    server = gateway(url_of(upstream), budget=3_000)
    status, answer = post(server, ask(max_tokens=4_000))
    assert status == 403 and is_envelope(answer, "permission_error")
    # max_tokens alone passes the budget: refused before the input is counted upstream.
    assert (
        "may use up to 4,000 tokens out (max_tokens) plus its input" in answer["error"]["message"]
    )
    assert upstream.seen == []
    status, _ = post(server, ask(max_tokens=2_000))
    assert status == 200
    assert server.ledger.spent("ada") == 2_020
    status, _ = post(server, ask(max_tokens=2_000))  # 2,020 + 2,020 would pass 3,000
    assert status == 403
    status, _ = post(server, ask(max_tokens=2_000), token=BOB)  # bob's budget is his own
    assert status == 200


def test_usage_above_the_hold_is_charged_and_logged(upstream, gateway):
    upstream.overuse = 50
    server = gateway(url_of(upstream), budget=1_000)
    assert post(server, ask(max_tokens=300))[0] == 200
    assert server.ledger.spent("ada") == COUNTED + 300 + 50
    assert "50 above the hold" in server.log[-1]


def test_an_error_from_the_api_releases_the_hold(upstream, gateway, participant):
    upstream.status = 529
    server = gateway(url_of(upstream), budget=1_000)
    with pytest.raises(anthropic.APIStatusError) as failed:
        participant(server).messages.create(
            model=MODEL, max_tokens=300, messages=[{"role": "user", "content": "Hi"}]
        )
    assert failed.value.status_code == 529
    assert server.ledger.spent("ada") == 0 and server.ledger.held("ada") == 0


def test_a_stream_cut_off_keeps_the_whole_hold_as_spent(upstream, gateway):
    upstream.stream_cut = True
    server = gateway(url_of(upstream), budget=1_000)
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=WAIT)
    body = ask(max_tokens=300, stream=True)
    headers = {"authorization": f"Bearer {ADA}", "content-length": str(len(body))}
    connection.request("POST", "/v1/messages", body, headers)
    answer = connection.getresponse()
    with pytest.raises(http.client.IncompleteRead):  # the participant sees the stream cut too
        answer.read()
    connection.close()
    assert server.ledger.spent("ada") == COUNTED + 300, "usage unknown: the worst case is spent"
    assert server.ledger.held("ada") == 0


# --- only what it means to forward -------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/messages/batches"),
        ("POST", "/v1/messages/batches"),
        ("POST", "/v1/messages/../../v1/files"),
        ("POST", "/v1/messages/%2e%2e/%2e%2e/v1/files"),
        ("GET", "/v1/models/../files"),
        ("GET", "/v1/models/claude%2F..%2Ffiles"),
        ("GET", "/v1/files"),
        ("POST", "/v1//messages"),
        ("POST", "/v1/messages/"),
        ("GET", "/v1/messages"),
        ("POST", "/v1/models"),
        ("DELETE", "/v1/models/claude-sonnet-5-5"),
        ("POST", "/v1/messages?beta=true&extra=../files"),
    ],
)
def test_paths_off_the_list_are_refused_and_never_reach_the_api(upstream, gateway, method, path):
    server = gateway(url_of(upstream))
    body = ask()
    headers = {"authorization": f"Bearer {ADA}", "content-length": str(len(body))}
    status, _, answer = raw(server, method, path, headers, body)
    assert status in (400, 404)
    assert is_envelope(answer, "not_found_error" if status == 404 else "invalid_request_error")
    assert upstream.seen == [], f"{method} {path} reached the API"
    assert server.ledger.snapshot()["participants"]["ada"]["refused"] == 1


def test_every_forwarded_call_is_metered(upstream, gateway, participant):
    server = gateway(url_of(upstream))
    client = participant(server)
    client.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "Hi"}])
    client.models.list()
    client.models.retrieve("claude-sonnet-5-5")
    client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
    client.beta.messages.create(
        model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
    )
    calls = server.ledger.snapshot()["participants"]["ada"]["calls"]
    assert calls == {"count_tokens": 1, "models": 1, "model": 1, "messages": 2}
    forwarded = [p for _, p, _ in upstream.seen if p != "/v1/messages/count_tokens"]
    assert len(forwarded) == sum(calls.values()) - calls["count_tokens"]
    assert server.ledger.spent("ada") == 2 * (COUNTED + 10)


# --- revocation, restart, report, log ----------------------------------------------------------


def test_deleting_a_line_of_the_token_file_revokes_that_token(upstream, gateway, tokens):
    server = gateway(url_of(upstream))
    assert post(server, ask())[0] == 200
    tokens.write_text(f"bob {BOB}\n")
    status, answer = post(server, ask())
    assert status == 401 and is_envelope(answer, "authentication_error")
    tokens.write_text(f"bob {BOB}\nada ws-ada-new-token-51c2\n")  # a new token, the same name
    assert post(server, ask(), token="ws-ada-new-token-51c2")[0] == 200
    assert server.ledger.spent("ada") == 2 * (COUNTED + 100), "the spending stays with the name"


def test_the_ledger_survives_a_restart(upstream, gateway, tmp_path):
    first = gateway(url_of(upstream), budget=1_000)
    assert post(first, ask(max_tokens=900))[0] == 200
    assert post(first, ask(max_tokens=900))[0] == 403
    first.shutdown()
    first.server_close()
    again = gateway(url_of(upstream), budget=1_000)
    assert again.ledger.spent("ada") == 920
    assert ADA not in again.ledger.path.read_text(), "the ledger keeps names, never tokens"
    status, answer = post(again, ask(max_tokens=900))
    assert status == 403, "a restart does not forgive"
    assert "workshop budget" in answer["error"]["message"]


def test_holds_open_when_the_gateway_stopped_count_as_spent(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = Ledger(1_000, path)
    assert ledger.reserve("ada", 700) is not None  # a request in flight when the gateway died
    restarted = Ledger(1_000, path)
    assert restarted.spent("ada") == 700 and restarted.held("ada") == 0
    assert restarted.reserve("ada", 400) is None


def test_refusals_are_logged_with_the_name_and_never_a_token(upstream, gateway, tokens):
    server = gateway(url_of(upstream), budget=1_000, max_tokens=500)
    post(server, ask(max_tokens=900))  # above the cap
    post(server, b"{not json")
    post(server, ask(max_tokens=450))
    post(server, ask(max_tokens=450))
    post(server, ask(max_tokens=450))  # over budget
    raw(server, "GET", f"/v1/files/{ADA}?key={ADA}", {"authorization": f"Bearer {ADA}"})
    post(server, ask(), token="sk-ant-someone-pasted-a-real-key")
    log = server.log.text()
    assert ADA not in log and "sk-ant-someone" not in log and REAL_KEY not in log
    ada = [line for line in server.log if line.startswith("ada:")]
    assert len(ada) == 6
    assert sum("refused" in line for line in ada) == 4
    assert any("budget" in line for line in ada)
    assert any(line.startswith("unknown token from 127.0.0.1") for line in server.log)


def test_the_usage_report_shows_names_and_spending(upstream, gateway):
    server = gateway(url_of(upstream), budget=1_000)
    post(server, ask(max_tokens=100))
    post(server, ask(max_tokens=2_000))
    text = report(json.loads((server.ledger.path).read_text()))
    assert "ada" in text and ADA not in text
    [row] = [line for line in text.splitlines() if line.startswith("ada")]
    assert row.split()[1:5] == ["120", "0", "880", "1"]


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "status", "kind"),
    [
        ("-5", 400, "invalid_request_error"),
        ("ten", 400, "invalid_request_error"),
        ("1e3", 400, "invalid_request_error"),
        ("600000000", 413, "request_too_large"),
    ],
)
def test_a_bad_content_length_gets_the_error_envelope(upstream, gateway, length, status, kind):
    server = gateway(url_of(upstream), max_body=1_000_000)
    headers = {"authorization": f"Bearer {ADA}", "content-length": length}
    got, _, answer = raw(server, "POST", "/v1/messages", headers)
    assert got == status and is_envelope(answer, kind)
    assert upstream.seen == []


def test_the_token_is_checked_before_the_body_is_read(upstream, gateway):
    server = gateway(url_of(upstream))
    headers = {"authorization": "Bearer nobody", "content-length": "600000000"}
    status, answer_headers, answer = raw(server, "POST", "/v1/messages", headers)
    assert status == 401 and is_envelope(answer, "authentication_error")
    assert answer_headers.get("connection") == "close"


def test_a_client_that_stalls_mid_body_is_answered_and_let_go(upstream, gateway):
    server = gateway(url_of(upstream), client_timeout=0.2)
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=WAIT) as stalled:
        stalled.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: gateway\r\n"
            + f"Authorization: Bearer {ADA}\r\nContent-Length: 100\r\n\r\n".encode()
            + b'{"model": '
        )
        received = b""
        while chunk := stalled.recv(65536):  # the gateway answers, then closes
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    assert is_envelope(json.loads(body), "timeout_error")
    assert upstream.seen == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (ask(max_tokens="lots"), "whole number"),
        (ask(max_tokens="100"), "whole number"),
        (ask(max_tokens=1.5), "whole number"),
        (ask(max_tokens=True), "whole number"),
        (ask(max_tokens=0), "whole number"),
        (ask(max_tokens=-1), "whole number"),
        (json.dumps({"model": MODEL, "messages": []}).encode(), "max_tokens: Field required"),
        (ask(max_tokens=20_000), "above this workshop's cap of 16,000"),
        (ask(tools=[{"type": "web_search_20260318", "name": "web_search"}]), "server tools"),
        (ask(mcp_servers=[{"type": "url", "url": "http://x", "name": "x"}]), "server tools"),
    ],
)
def test_a_malformed_request_gets_the_error_envelope_and_never_reaches_the_api(
    upstream, gateway, body, says
):
    server = gateway(url_of(upstream))
    status, answer = post(server, body)
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert says in answer["error"]["message"]
    assert upstream.seen == []
    assert post(server, ask())[0] == 200, "the gateway still answers after it"


def test_a_server_side_thread_is_refused_the_way_the_sdk_falls_back_from(upstream, gateway):
    server = gateway(url_of(upstream))
    status, answer = post(server, ask(thread={"type": "create"}))
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert answer["error"]["details"] == {"error_code": "thread_unsupported_request"}
    assert upstream.seen == [], "a thread's history is not in the request: it cannot be counted"


def test_max_tokens_above_the_cap_is_refused_with_the_sdk_error(upstream, gateway, participant):
    server = gateway(url_of(upstream), max_tokens=1_000)
    with pytest.raises(anthropic.BadRequestError, match="cap of 1,000; ask for 1,000 or fewer"):
        participant(server).messages.create(
            model=MODEL, max_tokens=20_000, messages=[{"role": "user", "content": "Hi"}]
        )
    assert upstream.seen == []


def test_a_malformed_request_line_gets_the_error_envelope(upstream, gateway):
    server = gateway(url_of(upstream))
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=WAIT) as client:
        client.sendall(b"NONSENSE\r\n\r\n")
        received = b""
        while chunk := client.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert is_envelope(json.loads(body), "invalid_request_error")


# --- what the hold bounds: only fields it knows, the bytes it checked ---------------------------


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        # A fallback model with a max_tokens of its own could write far past the hold.
        ({"fallbacks": [{"model": "claude-opus-5-5", "max_tokens": 128_000}]}, "`fallbacks`"),
        # Compaction is billed apart from the top-level usage the gateway settles with.
        (
            {"context_management": {"edits": [{"type": "compact_20260112"}]}},
            "`context_management`",
        ),
        ({"container": "container_1"}, "`container`"),
        ({"workspace_id": "wrkspc_other"}, "`workspace_id`"),
        ({"a_field_from_next_year": 1}, "`a_field_from_next_year`"),
    ],
)
def test_a_field_the_hold_cannot_bound_is_refused_before_anything_is_held(
    upstream, gateway, extra, named
):
    server = gateway(url_of(upstream), budget=1_000)
    status, answer = post(server, ask(max_tokens=10, **extra))
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert named in answer["error"]["message"] and "does not forward" in answer["error"]["message"]
    assert upstream.seen == [], "nothing reaches the API, not even count_tokens"
    assert server.ledger.spent("ada") == 0 and server.ledger.held("ada") == 0


def test_the_sdks_fallbacks_are_refused(upstream, gateway, participant):
    server = gateway(url_of(upstream), budget=1_000)
    with pytest.raises(anthropic.BadRequestError, match="`fallbacks`"):
        participant(server).beta.messages.create(
            model=MODEL,
            max_tokens=10,
            messages=[{"role": "user", "content": "Hi"}],
            extra_body={"fallbacks": [{"model": "claude-opus-5-5", "max_tokens": 128_000}]},
        )
    assert upstream.seen == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            b'{"model": "m", "max_tokens": 99999, "max_tokens": 10, "messages": []}',
            "names 'max_tokens' twice",
        ),
        (
            b'{"model": "m", "max_tokens": 10, "messages": [{"role": "user", '
            b'"content": "a", "content": "b"}]}',
            "names 'content' twice",
        ),
        (ask().decode().encode("utf-16"), "not UTF-8"),
        (b'{"model": "m", "max_tokens": 10, "temperature": NaN, "messages": []}', "NaN"),
    ],
)
def test_a_body_that_reads_two_ways_is_refused(upstream, gateway, body, says):
    server = gateway(url_of(upstream))
    status, answer = post(server, body)
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert says in answer["error"]["message"]
    assert upstream.seen == []


def test_the_api_gets_the_body_the_gateway_checked_re_serialised(upstream, gateway):
    server = gateway(url_of(upstream))
    sent = (
        b'{ "model" : "claude-sonnet-5-5",\n "max_tokens":   10,'
        b' "messages": [{"role": "user", "content": "caf\\u00e9 \xe2\x98\x95"}] }'
    )
    assert post(server, sent)[0] == 200
    counted, forwarded = upstream.raw_bodies
    expected = json.dumps(json.loads(sent), ensure_ascii=False).encode()
    assert forwarded == expected, "one serialisation of the checked object, not the raw bytes"
    assert json.loads(counted) == {k: v for k, v in json.loads(sent).items() if k != "max_tokens"}


# --- an answer that breaks off -------------------------------------------------------------------


def test_an_answer_cut_mid_body_is_answered_logged_and_settled(upstream, gateway):
    upstream.cut = "body"
    server = gateway(url_of(upstream), budget=1_000)
    status, answer = post(server, ask(max_tokens=300))
    assert status == 502 and is_envelope(answer, "api_error")
    assert "broke off" in answer["error"]["message"]
    assert server.ledger.held("ada") == 0, "no hold is left open"
    assert server.ledger.spent("ada") == COUNTED + 300, "usage unknown: the hold is spent"
    assert any(line.startswith("ada:") and "cut off" in line for line in server.log)
    upstream.cut = None
    assert post(server, ask(max_tokens=300))[0] == 200, "the gateway still answers after it"


def test_a_stream_cut_mid_chunk_is_cut_for_the_participant_and_settled(upstream, gateway):
    upstream.cut = "chunk"
    server = gateway(url_of(upstream), budget=1_000)
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=WAIT)
    body = ask(max_tokens=300, stream=True)
    headers = {"authorization": f"Bearer {ADA}", "content-length": str(len(body))}
    connection.request("POST", "/v1/messages", body, headers)
    answer = connection.getresponse()
    assert answer.status == 200
    with pytest.raises(http.client.IncompleteRead) as cut:
        answer.read()
    assert b'"ping"' in cut.value.partial, "what arrived before the cut was relayed"
    connection.close()
    assert server.ledger.held("ada") == 0
    assert server.ledger.spent("ada") == COUNTED + 300
    assert any(line.startswith("ada:") and "cut off" in line for line in server.log)


def test_a_count_cut_mid_answer_is_refused_and_holds_nothing(upstream, gateway):
    upstream.cut = "count"
    server = gateway(url_of(upstream), budget=1_000)
    status, answer = post(server, ask(max_tokens=300))
    assert status == 502 and is_envelope(answer, "api_error")
    assert upstream.messages_seen() == 0
    assert server.ledger.held("ada") == 0 and server.ledger.spent("ada") == 0
    assert any(line.startswith("ada:") and "502" in line for line in server.log)


# --- a slow or crowded room -------------------------------------------------------------------------


def trickle(server: Gateway, head: bytes, every: float = 0.05, most: int = 600) -> bytes:
    """Send `head`, then one byte every `every` s until the gateway closes (at most `most`)."""
    host, port = server.server_address[:2]
    closed = threading.Event()
    received = bytearray()
    with socket.create_connection((host, port), timeout=WAIT) as client:

        def read() -> None:
            try:
                while chunk := client.recv(65536):
                    received.extend(chunk)
            except OSError:
                pass
            closed.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        client.sendall(head)
        for _ in range(most):  # 30 s at most: a bound that tells "closed" from "hung"
            if closed.wait(every):
                break
            try:
                client.sendall(b"a")
            except OSError:
                break
        assert closed.wait(WAIT), "the gateway kept the trickling connection open"
    return bytes(received)


def test_a_request_head_sent_a_byte_at_a_time_is_cut_at_the_deadline(upstream, gateway):
    server = gateway(url_of(upstream), client_timeout=0.5)
    received = trickle(server, b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    assert is_envelope(json.loads(body), "timeout_error")
    assert upstream.seen == []


def test_past_the_connection_cap_a_connection_is_turned_away_then_served(upstream, gateway):
    server = gateway(url_of(upstream), max_connections=2, client_timeout=WAIT, evict_after=WAIT)
    host, port = server.server_address[:2]
    held = [socket.create_connection((host, port), timeout=WAIT) for _ in range(2)]
    for client in held:
        client.sendall(b"GET /v1/models HTTP/1.1\r\n")  # a head that never ends
    with socket.create_connection((host, port), timeout=WAIT) as third:
        received = b""
        while chunk := third.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 529")
    assert is_envelope(json.loads(body), "overloaded_error")
    for client in held:
        client.close()
    headers = {"authorization": f"Bearer {ADA}"}
    for _ in range(300):  # the two slots come back once the gateway sees them closed
        try:
            status, _, _ = raw(server, "GET", "/v1/models", headers)
        except (ConnectionError, http.client.HTTPException):
            status = 0
        if status == 200:
            break
        threading.Event().wait(0.05)
    assert status == 200


# --- the log never holds a token; every request has a name when it can -----------------------


def send_raw(server: Gateway, data: bytes) -> bytes:
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=WAIT) as client:
        client.sendall(data)
        received = b""
        while chunk := client.recv(65536):
            received += chunk
    return received


def test_a_token_in_the_request_line_never_reaches_the_log(upstream, gateway):
    server = gateway(url_of(upstream))
    received = send_raw(server, f"POST /v1/messages HTTP/1.1 extra {BOB}\r\n\r\n".encode())
    assert received.startswith(b"HTTP/1.1 400")
    assert BOB not in server.log.text()
    assert BOB.encode() not in received.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("HEAD /v1/models HTTP/1.1", 404),
        ("OPTIONS /v1/messages HTTP/1.1", 404),
        ("post /v1/messages HTTP/1.1", 404),
        ("POST /v1/messages HTTP/2.0", 505),
        ("GET /v1/models", 400),  # HTTP/0.9
        ("GET /v1/models HTTP/1.1 trailing", 400),
    ],
)
def test_an_odd_request_with_a_valid_token_is_logged_and_counted_by_name(
    upstream, gateway, line, status
):
    server = gateway(url_of(upstream))
    received = send_raw(
        server, f"{line}\r\nAuthorization: Bearer {ADA}\r\nConnection: close\r\n\r\n".encode()
    )
    assert received.startswith(f"HTTP/1.1 {status}".encode())
    body = received.partition(b"\r\n\r\n")[2]
    if line.startswith("HEAD"):
        assert body == b"", "an answer to HEAD has no body"
    else:
        kind = "not_found_error" if status == 404 else "invalid_request_error"
        assert is_envelope(json.loads(body), kind)
    assert [entry for entry in server.log if entry.startswith("ada:")], server.log
    assert server.ledger.snapshot()["participants"]["ada"]["refused"] == 1
    assert ADA not in server.log.text() and upstream.seen == []


def test_too_many_headers_after_a_valid_token_are_counted_by_name(upstream, gateway):
    server = gateway(url_of(upstream))
    padding = "".join(f"X-Pad-{n}: {n}\r\n" for n in range(150))
    received = send_raw(
        server, f"GET /v1/models HTTP/1.1\r\nAuthorization: Bearer {ADA}\r\n{padding}\r\n".encode()
    )
    assert received.startswith(b"HTTP/1.1 431")
    assert server.ledger.snapshot()["participants"]["ada"]["refused"] == 1
    assert any(entry.startswith("ada: 431") for entry in server.log)
    assert ADA not in server.log.text()


# --- a budget of one's own ---------------------------------------------------------------------------


def test_the_token_file_gives_one_participant_more_or_less(upstream, gateway, tokens):
    tokens.write_text(f"ada {ADA}\nbob {BOB} 5_000\n")
    server = gateway(url_of(upstream), budget=1_000)
    assert post(server, ask(max_tokens=2_000), token=BOB)[0] == 200, "bob has 5,000"
    status, answer = post(server, ask(max_tokens=2_000))
    assert status == 403 and "of your 1,000 are left" in answer["error"]["message"]
    text = report(json.loads(server.ledger.path.read_text()))
    [row] = [line for line in text.splitlines() if line.startswith("bob")]
    assert row.split()[1:4] == ["2,020", "0", "2,980*"]
    assert "bob 5,000" in text
    tokens.write_text(f"ada {ADA}\nbob {BOB} 2_500\n")  # lowered: from bob's next request
    status, answer = post(server, ask(max_tokens=1_000), token=BOB)
    assert status == 403 and "480 of your 2,500 are left" in answer["error"]["message"]
    tokens.write_text(f"ada {ADA}\nbob {BOB}\n")  # the column removed: the gateway's budget
    assert post(server, ask(max_tokens=10), token=BOB)[0] == 403
    assert server.ledger.budget_of("bob") == 1_000


def test_a_budget_column_that_is_not_a_number_skips_the_line_and_says_where(
    upstream, gateway, tokens
):
    tokens.write_text(f"ada {ADA}\nbob {BOB} lots\n")
    server = gateway(url_of(upstream))
    assert post(server, ask(), token=BOB)[0] == 401
    assert "token file line 2: expected 'name token [budget]'" in server.log.text()
    assert BOB not in server.log.text()


# --- the command -----------------------------------------------------------------------------------


def test_the_gateway_command_refuses_to_start_without_the_real_key(tokens):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "course_tools.workshop_gateway", "--tokens", str(tokens)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr


# --- an upstream that goes silent; what reaches the log; the token file's encoding -----------


def test_an_api_that_reads_the_request_and_closes_keeps_the_hold_as_spent(upstream, gateway):
    upstream.cut = "silent"
    server = gateway(url_of(upstream), budget=1_000)
    status, answer = post(server, ask(max_tokens=300))
    assert status == 502 and is_envelope(answer, "api_error")
    assert upstream.messages_seen() == 1, "the request reached the API"
    assert server.ledger.held("ada") == 0
    assert server.ledger.spent("ada") == COUNTED + 300, "the outcome is unknown: the hold is spent"


def test_an_api_that_cannot_be_reached_releases_the_hold(gateway):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    host, port = closed.getsockname()[:2]
    closed.close()  # nothing listens there: the request never leaves
    server = gateway(f"http://{host}:{port}", budget=1_000)

    class CountedAlready(server.RequestHandlerClass):
        def _count_input(self, route, counted):  # count_tokens would not be reached either
            return COUNTED

    server.RequestHandlerClass = CountedAlready
    status, answer = post(server, ask(max_tokens=300))
    assert status == 502 and is_envelope(answer, "api_error")
    assert server.ledger.held("ada") == 0 and server.ledger.spent("ada") == 0


@pytest.mark.parametrize(
    "line",
    [
        b"\x1b[2J\x1b[H\rbob:\x07 /v1/messages HTTP/1.1",
        b"POST\r" + BOB.encode() + b" /v1/messages HTTP/1.1",
        BOB.encode() + b" /v1/messages HTTP/1.1",
        b"POST /v1/messages\x0b HTTP/1.1",
    ],
)
def test_the_method_word_writes_nothing_of_its_own_into_the_log(upstream, gateway, line):
    server = gateway(url_of(upstream))
    received = send_raw(server, line + f"\r\nauthorization: Bearer {ADA}\r\n\r\n".encode())
    assert received.startswith((b"HTTP/1.1 400", b"HTTP/1.1 404"))
    assert BOB not in server.log.text()
    assert all(line.isprintable() for line in server.log), server.log
    assert server.log[-1].startswith("ada:"), server.log
    assert upstream.seen == []


def test_a_server_tool_refusal_logs_a_fixed_text(upstream, gateway):
    server = gateway(url_of(upstream))
    forged = f"web_search\nbob: POST messages 200, 5 tokens {BOB}"
    status, answer = post(server, ask(tools=[{"type": forged, "name": "x"}]))
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert all(line.isprintable() for line in server.log), server.log
    assert BOB not in server.log.text() and "web_search" not in server.log.text()


class QuotingApi(ScriptedApi):
    """An API whose count_tokens error quotes the request's model back, as the real one does."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        model = json.loads(self.rfile.read(length))["model"]
        message = f"model: {model}"
        self._json(400, {"type": "error", "error": {"type": "not_found_error", "message": message}})


def test_an_api_error_that_quotes_the_request_is_not_logged_as_it_is(gateway):
    quoting = Upstream()
    quoting.RequestHandlerClass = QuotingApi
    start(quoting)
    try:
        server = gateway(url_of(quoting))
        forged = f"x\nbob: POST messages 200, 5 tokens {BOB}"
        status, answer = post(server, ask(model=forged))
        assert status == 400 and is_envelope(answer, "not_found_error")
        assert forged in answer["error"]["message"], "the participant still sees the API's words"
        assert all(line.isprintable() for line in server.log), server.log
        assert BOB not in server.log.text()
    finally:
        quoting.shutdown()
        quoting.server_close()


def test_a_byte_order_mark_in_the_token_file_is_no_part_of_the_first_name(
    upstream, gateway, tokens
):
    tokens.write_bytes(b"\xef\xbb\xbf" + f"ada {ADA}\nbob {BOB}\n".encode())
    server = gateway(url_of(upstream))
    assert post(server, ask(max_tokens=300))[0] == 200
    assert server.ledger.spent("ada") == COUNTED + 300
    assert server.log[-1].startswith("ada:"), server.log


# --- connections that send nothing -----------------------------------------------------------------


def test_a_flood_past_the_connection_cap_is_logged_in_summary(upstream, gateway):
    server = gateway(url_of(upstream), max_connections=1, client_timeout=WAIT, idle_timeout=WAIT)
    host, port = server.server_address[:2]
    held = socket.create_connection((host, port), timeout=WAIT)
    held.sendall(b"GET /v1/models HTTP/1.1\r\n")  # a head that never ends: the one slot
    try:
        for _ in range(200):
            with socket.create_connection((host, port), timeout=WAIT) as other:
                assert other.recv(12).startswith(b"HTTP/1.1 529")
    finally:
        held.close()
    refused = [line for line in server.log if "refused" in line]
    assert refused, "the refusals are logged"
    assert len(refused) < 200, "one line per refused connection would let a flood fill the disk"


def test_a_kept_alive_connection_that_goes_quiet_gives_up_its_slot(upstream, gateway):
    server = gateway(url_of(upstream), client_timeout=WAIT * 2, idle_timeout=0.2)
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=WAIT) as client:
        client.sendall(f"GET /v1/models HTTP/1.1\r\nauthorization: Bearer {ADA}\r\n\r\n".encode())
        received = b""
        while chunk := client.recv(65536):  # the gateway closes it long before WAIT
            received += chunk
    assert received.startswith(b"HTTP/1.1 200")
    assert received.count(b"HTTP/1.1") == 1


# --- count_tokens is checked like Messages; bodies that cannot be forwarded -----------------


def count(server: Gateway, body: bytes) -> tuple[int, dict]:
    headers = {"authorization": f"Bearer {ADA}", "content-type": "application/json"}
    headers["content-length"] = str(len(body))
    status, _, answer = raw(server, "POST", "/v1/messages/count_tokens", headers, body)
    return status, answer


@pytest.mark.parametrize(
    "extra",
    [
        {"tools": [{"type": "web_search_20250305", "name": "web_search"}]},
        {"mcp_servers": [{"type": "url", "url": "http://127.0.0.1:9", "name": "x"}]},
        {"thread": {"id": "thr_1"}},
        {"fallbacks": [{"model": MODEL}]},
        {"container": "c_1"},
    ],
)
def test_count_tokens_refuses_what_messages_refuses(upstream, gateway, extra):
    server = gateway(url_of(upstream))
    request = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}], **extra}
    status, answer = count(server, json.dumps(request).encode())
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert upstream.seen == [], "nothing reached the API"
    ok = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    assert count(server, json.dumps(ok).encode()) == (200, {"input_tokens": COUNTED})


@pytest.mark.parametrize(
    "body",
    [
        b'{"model": "\\ud800", "max_tokens": 10, "messages": []}',  # a lone surrogate
        b'{"model": "m", "max_tokens": 10, "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
    ids=["lone surrogate", "nested 100,000 deep"],
)
def test_a_body_that_cannot_be_forwarded_is_a_400(upstream, gateway, body):
    server = gateway(url_of(upstream), max_body=1_000_000)
    status, answer = post(server, body)
    assert status == 400 and is_envelope(answer, "invalid_request_error")
    assert count(server, body)[0] == 400
    assert upstream.seen == []


def test_a_connection_that_never_speaks_gives_up_its_slot(upstream, gateway):
    server = gateway(url_of(upstream), client_timeout=WAIT * 2, idle_timeout=0.2)
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=WAIT) as client:
        assert client.recv(65536) == b"", "closed, long before --client-timeout"


# --- before any token: a bounded head, a short deadline for it, slots per address -----------


def from_address(server: Gateway, source: str) -> socket.socket:
    """A connection to the gateway from another loopback address (127.0.0.0/8 is all loopback)."""
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.settimeout(WAIT)
    client.bind((source, 0))
    client.connect(server.server_address[:2])
    return client


def answer_of(client: socket.socket) -> bytes:
    received = b""
    try:
        while chunk := client.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def test_a_request_head_is_capped_as_a_whole_before_any_token(upstream, gateway):
    """Many header lines, each under the line cap and fewer than the count cap, no token: the
    gateway stops reading at about 64 KiB of head and answers 431, whatever the lines hold."""
    server = gateway(url_of(upstream), client_timeout=WAIT)
    line = b"X-Filler: " + b"a" * 4000 + b"\r\n"
    head = b"GET /v1/models HTTP/1.1\r\n" + line * 20 + b"\r\n"  # 80 KB, 20 lines
    with socket.create_connection(server.server_address[:2], timeout=WAIT) as client:
        client.sendall(head)
        received = answer_of(client)
    status, _, body = received.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431"), status[:40]
    assert is_envelope(json.loads(body), "invalid_request_error")
    assert upstream.seen == []


def test_clients_without_a_token_cannot_take_every_slot(upstream, gateway):
    """Four connections from one address that never finish their head, on a gateway of four
    slots: a participant from another address with a valid token is still served."""
    server = gateway(url_of(upstream), max_connections=4, client_timeout=WAIT, idle_timeout=WAIT)
    slow = [from_address(server, "127.0.0.2") for _ in range(4)]
    try:
        for client in slow:
            client.sendall(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
        headers = {"authorization": f"Bearer {ADA}"}
        status, _, _ = raw(server, "GET", "/v1/models", headers)
        turned_away = [answer_of(client)[:12] for client in slow[2:]]
    finally:
        for client in slow:
            client.close()
    assert status == 200, "a participant got no slot"
    assert turned_away == [b"HTTP/1.1 429"] * 2, turned_away


def test_a_head_that_does_not_finish_has_a_short_deadline(upstream, gateway):
    server = gateway(url_of(upstream), client_timeout=WAIT, idle_timeout=WAIT, head_timeout=0.3)
    with socket.create_connection(server.server_address[:2], timeout=WAIT) as client:
        client.sendall(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")  # then silence
        received = answer_of(client)  # long before WAIT, or recv raises
    assert received.startswith(b"HTTP/1.1 408")


def test_token_less_clients_from_several_addresses_cannot_take_every_slot(upstream, gateway):
    """Four slow heads from two addresses (two each, within the per-address cap) fill a gateway
    of four slots: a participant with a valid token still gets one, the oldest slow head's."""
    server = gateway(
        url_of(upstream), max_connections=4, client_timeout=WAIT, idle_timeout=WAIT,
        head_timeout=WAIT, evict_after=0.2,
    )  # fmt: skip
    slow = [from_address(server, source) for source in ("127.0.0.2", "127.0.0.3") * 2]
    try:
        for client in slow:
            client.sendall(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
        for _ in range(600):  # until the gateway holds all four (bounded: 30 s)
            if server.slots.open == 4:
                break
            threading.Event().wait(0.05)
        assert server.slots.open == 4
        threading.Event().wait(0.3)  # every slow head is now older than evict_after
        headers = {"authorization": f"Bearer {ADA}"}
        status, _, _ = raw(server, "GET", "/v1/models", headers)
        first = answer_of(slow[0])  # the oldest was closed to make room
    finally:
        for client in slow:
            client.close()
    assert status == 200, "a participant got no slot"
    assert server.slots.evicted == 1 and not first.startswith(b"HTTP/1.1 200")
    assert "1 connection(s) without a valid token closed to make room" in server.log.text()


def test_a_participant_keeps_its_slot_once_its_token_has_arrived(upstream, gateway):
    """Slots held by participants are never taken: a newcomer then waits (529), as before."""
    server = gateway(url_of(upstream), max_connections=1, client_timeout=WAIT, evict_after=0)
    host, port = server.server_address[:2]
    keep = http.client.HTTPConnection(host, port, timeout=WAIT)
    try:
        keep.request("GET", "/v1/models", headers={"authorization": f"Bearer {ADA}"})
        assert keep.getresponse().read() and server.slots.open == 1  # kept alive
        with from_address(server, "127.0.0.2") as newcomer:
            newcomer.sendall(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
            assert answer_of(newcomer).startswith(b"HTTP/1.1 529")
        keep.request("GET", "/v1/models", headers={"authorization": f"Bearer {ADA}"})
        assert keep.getresponse().status == 200
    finally:
        keep.close()
    assert server.slots.evicted == 0
