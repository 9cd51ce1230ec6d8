"""The course model over a real loopback socket: the SDK works, and bad clients do no harm."""

from __future__ import annotations

import json
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_helpers.client import make_client
from course_helpers.offline import CourseModelApp
from course_helpers.offline.serve import RunningServer, start_server


@dataclass
class Served:
    running: RunningServer
    errors: list = field(default_factory=list)  # exceptions that escaped a request handler
    threads_before: set = field(default_factory=lambda: set(_handler_threads()))
    clients: list = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.running.url

    @property
    def address(self) -> tuple[str, int]:
        return self.running.server.server_address[:2]

    @property
    def app(self) -> CourseModelApp:
        return self.running.server.RequestHandlerClass.app


@pytest.fixture
def served():
    running = start_server()
    served = Served(running)
    running.server.handle_error = lambda request, address: served.errors.append(sys.exc_info())
    yield served
    for client in served.clients:
        client.close()
    running.stop()


def _handler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "process_request_thread" in t.name]


def assert_still_serving(served: Served, kit) -> None:
    """A normal SDK request still gets its answer, and no handler thread failed or hangs."""
    client = sdk_client(served)
    assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"
    for client in served.clients:
        client.close()

    def still_running() -> set:
        return set(_handler_threads()) - served.threads_before

    deadline = time.monotonic() + 3
    while still_running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert still_running() == set()
    assert served.errors == []


def sdk_client(served: Served, **kwargs) -> anthropic.Anthropic:
    """A strict SDK client on the served URL, closed by the fixture (or assert_still_serving)."""
    client = anthropic.Anthropic(
        api_key="any-key",
        base_url=served.url,
        _strict_response_validation=True,
        max_retries=0,
        **kwargs,
    )
    served.clients.append(client)
    return client


# -- the SDK over HTTP ------------------------------------------------------------------------


def test_sdk_create_stream_and_count_tokens(served, kit):
    client = sdk_client(served)
    kwargs = kit.ask(kit.WEATHER_QUESTION, tools=[kit.GET_WEATHER])
    in_process = CourseModelApp().client(**kit.STRICT).messages.create(**kwargs)

    message = client.messages.create(**kwargs)
    assert message.model_dump() == in_process.model_dump()
    with client.messages.stream(**kwargs) as stream:
        deltas = sum(1 for event in stream if event.type == "content_block_delta")
        streamed = stream.get_final_message()
    assert deltas > 3
    assert streamed.model_dump(exclude={"content": {"__all__": {"parsed_output"}}}) == (
        message.model_dump()
    )
    counted = client.messages.count_tokens(
        model=kit.MODEL, messages=kwargs["messages"], tools=[kit.GET_WEATHER]
    )
    assert counted.input_tokens == message.usage.input_tokens
    assert_still_serving(served, kit)


def test_sdk_errors_over_http(served, kit):
    client = sdk_client(served)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=kit.MODEL, max_tokens=10, messages=[])
    assert caught.value.body["error"]["message"] == "messages: at least one message is required"
    assert caught.value.request_id.startswith("req_01")
    served.app.faults.inject("overloaded")
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**kit.ask("Hello"))
    served.app.faults.inject("stream_error")
    with (
        pytest.raises(anthropic.APIStatusError) as caught,
        client.messages.stream(**kit.ask("Hello")) as s,
    ):
        s.get_final_message()
    assert caught.value.status_code == 200
    assert_still_serving(served, kit)


def test_disconnect_fault_over_http_is_a_connection_error(served, kit):
    served.app.faults.inject("disconnect")
    with pytest.raises(anthropic.APIConnectionError):
        sdk_client(served).messages.create(**kit.ask("Hello"))
    assert_still_serving(served, kit)


def test_make_client_picks_the_compatible_backend(served, kit, monkeypatch, capsys):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "COURSE_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", served.url)

    client = make_client(max_retries=0)
    served.clients.append(client)
    assert f"compatible server at {served.url}" in capsys.readouterr().out
    assert str(client.base_url).rstrip("/") == served.url
    # the fault is queued on the served app, not the in-process default: it proves the route
    served.app.faults.inject("overloaded")
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**kit.ask("Hello"))
    assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"
    assert_still_serving(served, kit)


# -- raw sockets --------------------------------------------------------------------------------


def _connect(served: Served, *, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(5)
    sock.connect(served.address)
    return sock


def _reset(sock: socket.socket) -> None:
    """Close abruptly (RST), as a killed client would."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def exchange(served: Served, data: bytes, *, finish: bool = True) -> tuple[int, dict, dict]:
    """Send raw bytes, read the reply until the server closes; (status, headers, JSON body)."""
    with _connect(served) as sock:
        sock.sendall(data)
        if finish:
            sock.shutdown(socket.SHUT_WR)
        raw = _read_all(sock)
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    assert status_line.startswith("HTTP/1.1 ")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    assert int(headers["content-length"]) == len(body)
    return int(status_line.split()[1]), headers, json.loads(body)


def _assert_envelope(body: dict, headers: dict, error_type: str) -> None:
    assert body["type"] == "error" and body["error"]["type"] == error_type
    assert body["request_id"] == headers["request-id"]
    assert headers["content-type"] == "application/json"


def test_garbage_bytes(served, kit):
    status, headers, body = exchange(served, b"\x00\xffGARBAGE\r\n\r\n")
    assert status == 400
    _assert_envelope(body, headers, "invalid_request_error")
    assert body["error"]["message"].startswith("Bad request syntax")
    assert headers["connection"] == "close"
    assert_still_serving(served, kit)


def test_request_line_without_headers(served, kit):
    status, headers, body = exchange(served, b"POST /v1/messages HTTP/1.1\r\n\r\n")
    assert status == 401
    _assert_envelope(body, headers, "authentication_error")
    assert body["error"]["message"] == "x-api-key header is required"
    assert_still_serving(served, kit)


def test_oversized_body_gets_413_without_being_read(served, kit):
    announced = 32 * 1024 * 1024 + 1
    head = (
        "POST /v1/messages HTTP/1.1\r\nx-api-key: k\r\ncontent-type: application/json\r\n"
        f"content-length: {announced}\r\n\r\n"
    )
    started = time.monotonic()
    # Only a few bytes of the announced 32 MB are sent, and the socket stays open for writing:
    # the answer can only come if the server does not wait for the body.
    status, headers, body = exchange(served, head.encode() + b'{"model": ', finish=False)
    assert time.monotonic() - started < 2
    assert status == 413
    _assert_envelope(body, headers, "request_too_large")
    assert body["error"]["message"] == "Request exceeds the maximum allowed number of bytes."
    assert headers["connection"] == "close"
    assert_still_serving(served, kit)


def _post(path: str, body: bytes) -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nhost: localhost\r\nx-api-key: k\r\n"
        "anthropic-version: 2023-06-01\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def test_invalid_json_body(served, kit):
    status, headers, body = exchange(served, _post("/v1/messages", b"{not json"))
    assert status == 400
    _assert_envelope(body, headers, "invalid_request_error")
    assert body["error"]["message"].startswith("The request body is not valid JSON: ")
    assert_still_serving(served, kit)


def test_unknown_route(served, kit):
    status, headers, body = exchange(served, _post("/v1/chat/completions", b"{}"))
    assert status == 404
    _assert_envelope(body, headers, "not_found_error")
    assert body["error"]["message"] == "Not Found"
    assert_still_serving(served, kit)


def test_client_disconnects_mid_request(served, kit):
    sock = _connect(served)
    head = _post("/v1/messages", b"x" * 5000)[:-5000]
    sock.sendall(head + b'{"model": "claude-sonnet-5-5", "max_')
    _reset(sock)
    assert_still_serving(served, kit)


def test_client_disconnects_mid_stream(served, kit):
    body = json.dumps(kit.ask("Write a long essay about agents.", max_tokens=4096, stream=True))
    # The reset lands either while the server writes the stream or, once it is all buffered,
    # while it waits for the next request on the connection: a few rounds meet both.
    for _ in range(5):
        sock = _connect(served, rcvbuf=4096)
        sock.sendall(_post("/v1/messages", body.encode()))
        first = sock.recv(2048)
        assert first.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in first
        _reset(sock)
    assert_still_serving(served, kit)


# -- python -m course_helpers.offline serve ----------------------------------------------------


# Generous bounds: they only tell "stopped" from "hung" on a loaded machine, never measure speed.
STARTUP_BOUND = 120
STOP_BOUND = 60


def test_serve_command_prints_its_address_and_stops_on_ctrl_c(kit):
    process = subprocess.Popen(
        [sys.executable, "-m", "course_helpers.offline", "serve", "--port", "0", "--verbose"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # Wait for the readiness line (printed once the socket listens), not for a fixed time.
        ready, _, _ = select.select([process.stdout], [], [], STARTUP_BOUND)
        assert ready, f"the server printed nothing in {STARTUP_BOUND} s"
        first = process.stdout.readline().decode()
        assert first.startswith("Offline course model listening on http://127.0.0.1:")
        url = first.split()[-1]
        assert not url.endswith(":0")

        client = anthropic.Anthropic(
            api_key="any", base_url=url, _strict_response_validation=True, max_retries=0
        )
        assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"
        client.close()

        # The answered request proves the main thread is inside serve_forever(): Ctrl-C now
        # can only land where the server handles it.
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=STOP_BOUND)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert "Stopped." in out.decode()
    assert '"POST /v1/messages HTTP/1.1" 200' in err.decode()  # --verbose logs requests


# -- what real clients send ---------------------------------------------------------------------


def _chunked(path: str, body: bytes, *, sizes: tuple[int, ...] = (7, 50)) -> bytes:
    """A POST whose body is sent with `Transfer-Encoding: chunked`, in pieces of these sizes."""
    head = (
        f"POST {path} HTTP/1.1\r\nhost: localhost\r\nx-api-key: k\r\n"
        "anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n"
        "transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    ).encode()
    chunks, rest, turn = b"", body, 0
    while rest:
        size = sizes[turn % len(sizes)]
        piece, rest = rest[:size], rest[size:]
        extension = b";note=1" if turn == 0 else b""  # chunk extensions are allowed
        chunks += b"%x%s\r\n%s\r\n" % (len(piece), extension, piece)
        turn += 1
    return head + chunks + b"0\r\nx-trailer: yes\r\n\r\n"


def _read_http(sock: socket.socket) -> tuple[int, dict, bytes]:
    raw = _read_all(sock)
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def test_chunked_request_body_is_read(served, kit):
    body = json.dumps(kit.ask("Hello")).encode()
    with _connect(served) as sock:
        sock.sendall(_chunked("/v1/messages", body))
        status, headers, reply = _read_http(sock)
    assert status == 200, reply
    message = anthropic.types.Message.model_validate_json(reply)
    in_process = CourseModelApp().client(**kit.STRICT).messages.create(**kit.ask("Hello"))
    assert message.model_dump() == in_process.model_dump()
    assert_still_serving(served, kit)


def test_broken_chunked_body_gets_the_envelope(served, kit):
    head = _chunked("/v1/messages", b"{}").split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    status, headers, body = exchange(served, head + b"zz\r\n{}\r\n0\r\n\r\n")
    assert status == 400
    _assert_envelope(body, headers, "invalid_request_error")
    assert body["error"]["message"] == "Invalid chunked request body."
    assert_still_serving(served, kit)


def test_chunked_body_above_the_limit_gets_413(served, kit):
    head = _chunked("/v1/messages", b"{}").split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    status, headers, body = exchange(
        served, head + b"%x\r\n" % (32 * 1024 * 1024 + 1), finish=False
    )
    assert status == 413
    _assert_envelope(body, headers, "request_too_large")
    assert_still_serving(served, kit)


def test_models_endpoints_over_http(served, kit):
    client = sdk_client(served)
    listed = [model.id for model in client.models.list()]
    # Newest first by created_at: haiku 5.5 (2026-10-07), sonnet 5.5, opus 5.5.
    assert listed[:3] == ["claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"]
    assert kit.MODEL in listed and len(listed) == len(set(listed))
    info = client.models.retrieve(kit.MODEL)
    assert info.id == kit.MODEL and info.max_input_tokens == 1_000_000
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.models.retrieve("claude-imaginary-9")
    assert caught.value.body["error"]["message"] == "model: claude-imaginary-9"
    assert_still_serving(served, kit)


def test_missing_version_header_is_refused_over_http(served, kit):
    body = json.dumps(kit.ask("Hello")).encode()
    raw = _post("/v1/messages", body).replace(b"anthropic-version: 2023-06-01\r\n", b"")
    status, headers, reply = exchange(served, raw)
    assert status == 400
    _assert_envelope(reply, headers, "invalid_request_error")
    assert reply["error"]["message"] == "anthropic-version: header is required"
    assert_still_serving(served, kit)


# Request lines, headers and bodies a broken or hostile client may send.
_METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW", ""])
_PATHS = st.sampled_from(
    ["/v1/messages", "/v1/messages/count_tokens", "/v1/models", "/v1/models/x", "/", "*", "/%"]
)
_HEADER_LINES = st.lists(
    st.sampled_from(
        [
            "x-api-key: k",
            "anthropic-version: 2023-06-01",
            "anthropic-version: 1999",
            "anthropic-beta: nope",
            "anthropic-beta: prompt-caching-2024-07-31",
            "content-length: 5",
            "content-length: -3",
            "content-length: many",
            "transfer-encoding: chunked",
            "expect: 100-continue",
            "course-fault: unknown",
            "\x00\xff: \x01",
        ]
    ),
    max_size=6,
)
_BODIES = st.one_of(
    st.binary(max_size=200),
    st.sampled_from([b"{}", b"[]", b'{"model": 1}', b"null", b"0\r\n\r\n", b"5\r\nab"]),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=_METHODS, path=_PATHS, header_lines=_HEADER_LINES, body=_BODIES)
def test_garbage_never_crashes_serve(served, kit, method, path, header_lines, body):
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{h}\r\n" for h in header_lines) + "\r\n"
    with _connect(served) as sock:
        sock.sendall(head.encode("latin-1") + body)
        sock.shutdown(socket.SHUT_WR)
        raw = _read_all(sock)
    # Always HTTP answers (several when the garbage holds several requests); every error is the
    # API's JSON envelope.
    assert raw.startswith(b"HTTP/1.1 "), raw[:80]
    while raw:
        head, _, raw = raw.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        assert status_line.startswith("HTTP/1.1 "), status_line
        status = int(status_line.split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        if status == 100:
            continue
        length = int(headers["content-length"])
        payload, raw = raw[:length], raw[length:]
        if status != 200:
            _assert_envelope(json.loads(payload), headers, json.loads(payload)["error"]["type"])
    assert served.errors == []
