"""The workshop guide's shared-key gateway, over loopback, with the course's own client.

The course model is served on loopback (as `python -m course_helpers.offline serve` does), the
gateway of `docs/workshop.md` (`course_tools.workshop_gateway`) forwards to it, and a
participant's `make_client()` is pointed at the gateway with ANTHROPIC_BASE_URL and a workshop
token, exactly as the guide tells participants to do.
"""

from __future__ import annotations

import json
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
from course_tools.workshop_gateway import Gateway

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "ws-ada-7f3k"
REAL_KEY = "sk-real-key-for-the-test"


def start(server: ThreadingHTTPServer) -> str:
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


def gateway_to(upstream: str, **options) -> Gateway:
    settings = {"budget": 10_000_000, "max_tokens": 16_000, **options}
    return Gateway(
        ("127.0.0.1", 0), upstream=upstream, api_key=REAL_KEY, tokens={TOKEN, "ws-bob"}, **settings
    )


@pytest.fixture
def course_model() -> Iterator[str]:
    with start_server() as server:
        yield server.url


@pytest.fixture
def participant(monkeypatch):
    """Point the course's client at a URL the way the guide tells participants to."""

    def client_for(url: str, token: str = TOKEN) -> anthropic.Anthropic:
        monkeypatch.delenv("COURSE_BACKEND", raising=False)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", token)
        return make_client(quiet=True, max_retries=0)

    return client_for


def test_a_participant_reaches_the_course_model_through_the_gateway(course_model, participant):
    gateway = gateway_to(course_model)
    try:
        client = participant(start(gateway))
        response = client.messages.create(
            model=MODEL, max_tokens=200, messages=[{"role": "user", "content": "Hello!"}]
        )
        text = "".join(b.text for b in response.content if b.type == "text")
        assert "offline course model" in text
        with client.messages.stream(
            model=MODEL,
            max_tokens=200,
            messages=[{"role": "user", "content": "Count from 1 to 5."}],
        ) as stream:
            streamed = "".join(stream.text_stream)
            final = stream.get_final_message()
        assert streamed.startswith("1, 2, 3, 4, 5")
        counted = client.messages.count_tokens(
            model=MODEL, messages=[{"role": "user", "content": "Hello!"}]
        )
        assert counted.input_tokens > 0
        used = gateway.ledger.spent(TOKEN)
        expected = sum(u.input_tokens + u.output_tokens for u in (response.usage, final.usage))
        assert used == expected, "the gateway counts every token of the participant's answers"
    finally:
        gateway.shutdown()
        gateway.server_close()


def test_an_unknown_token_gets_the_apis_401(course_model, participant):
    gateway = gateway_to(course_model)
    try:
        client = participant(start(gateway), token="sk-ant-guessed")
        with pytest.raises(anthropic.AuthenticationError) as refused:
            client.messages.create(
                model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "Hello!"}]
            )
        assert refused.value.status_code == 401
        assert gateway.ledger.used == {}
    finally:
        gateway.shutdown()
        gateway.server_close()


def test_a_participant_over_budget_is_refused(course_model, participant):
    gateway = gateway_to(course_model, budget=1)
    try:
        client = participant(start(gateway))
        ask = {"model": MODEL, "max_tokens": 50, "messages": [{"role": "user", "content": "Hi"}]}
        client.messages.create(**ask)  # the first request spends more than the budget
        with pytest.raises(anthropic.PermissionDeniedError, match="budget used up"):
            client.messages.create(**ask)
        other = participant(gateway_url(gateway), token="ws-bob")
        other.messages.create(**ask)  # one participant's budget does not stop another
    finally:
        gateway.shutdown()
        gateway.server_close()


def gateway_url(gateway: Gateway) -> str:
    host, port = gateway.server_address[:2]
    return f"http://{host}:{port}"


class Recording(BaseHTTPRequestHandler):
    """An upstream that records what it receives and answers one fixed message."""

    seen: list[dict] = []

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append({"headers": dict(self.headers.items()), "body": body})
        answer = json.dumps(
            {
                "id": "msg_recorded",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": "recorded"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 3, "output_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("request-id", "req_recorded")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def test_the_real_key_replaces_the_token_and_max_tokens_is_capped(participant):
    Recording.seen = []
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Recording)
    gateway = gateway_to(start(upstream), max_tokens=1000)
    try:
        client = participant(start(gateway))
        response = client.messages.create(
            model=MODEL, max_tokens=20_000, messages=[{"role": "user", "content": "Hi"}]
        )
        assert response.content[-1].text == "recorded"
        [seen] = Recording.seen
        headers = {k.lower(): v for k, v in seen["headers"].items()}
        assert headers["authorization"] == f"Bearer {REAL_KEY}"
        assert TOKEN not in json.dumps(seen)
        assert headers["anthropic-version"]
        assert seen["body"]["max_tokens"] == 1000
    finally:
        for server in (gateway, upstream):
            server.shutdown()
            server.server_close()


def test_the_gateway_command_refuses_to_start_without_the_real_key(tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"{TOKEN}\n")
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
