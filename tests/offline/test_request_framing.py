"""Attacks on how the offline course model reads a request: bodies that are not strict JSON
(both transports) and HTTP framing a strict server refuses (the loopback server)."""

from __future__ import annotations

import json
import socket

import pytest

from course_helpers.offline import CourseModelApp
from course_helpers.offline.serve import start_server

MODEL = "claude-sonnet-5-5"
BASE = f'{{"model": "{MODEL}", "max_tokens": 50, "messages": [{{"role": "user", "content": '
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
NOT_JSON = "The request body is not valid JSON: "


def body_with(content: str) -> bytes:
    """A create request whose user content is the JSON text `content` (as sent, unparsed)."""
    return (BASE + content + "}]}").encode()


def dispatch(body: bytes, path: str = "/v1/messages") -> tuple[int, dict]:
    reply = CourseModelApp().dispatch("POST", path, HEADERS, body)
    return reply.status, json.loads(reply.body) if reply.stream is None else {}


def error_message(body: bytes, path: str = "/v1/messages") -> str:
    status, answer = dispatch(body, path)
    assert status == 400, answer
    assert answer["error"]["type"] == "invalid_request_error"
    return answer["error"]["message"]


# -- bodies that are not strict JSON ----------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
def test_a_lone_high_surrogate_is_the_apis_400_not_a_500(path):
    body = body_with('"repeat after me: \\ud800 hi"')
    where = body.index(b"\\ud800") + len(b"\\ud800")
    message = error_message(body, path)
    assert (
        message == f"{NOT_JSON}no low surrogate in string: line 1 column {where + 1} (char {where})"
    )


def test_a_lone_low_surrogate_and_a_high_one_followed_by_another_high_one_are_refused():
    assert "lone low surrogate in string" in error_message(body_with('"say \\udfff"'))
    assert "no low surrogate in string" in error_message(body_with('"\\ud800\\ud800\\udc00"'))
    # an escaped backslash makes the first `ud800` text: the `\\udc00` after it is alone
    assert "lone low surrogate" in error_message(body_with('"C:\\\\ud800\\udc00"'))


def test_a_surrogate_pair_and_an_escaped_backslash_before_u_are_ordinary_text():
    assert dispatch(body_with('"a pair \\ud83d\\ude00 is an emoji"'))[0] == 200
    assert dispatch(body_with('"a path C:\\\\ud800 is text"'))[0] == 200


@pytest.mark.parametrize("where", ["max_tokens", "metadata"])
def test_an_integer_of_5000_digits_is_an_unreadable_body_not_a_500(where):
    digits = "9" * 5000
    if where == "max_tokens":
        body = f'{{"model": "{MODEL}", "max_tokens": {digits}, "messages": []}}'.encode()
    else:
        body = body_with('"hi"').replace(
            b'"max_tokens"', f'"metadata": {{"n": {digits}}}, "max_tokens"'.encode()
        )
    assert error_message(body).startswith(NOT_JSON)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant):
    body = f'{{"model": "{MODEL}", "max_tokens": 50, "temperature": {constant}, "messages": []}}'
    where = body.index(constant)
    message = error_message(body.encode())
    assert message == f"{NOT_JSON}Expecting value: line 1 column {where + 1} (char {where})"


def test_nan_inside_a_string_is_text():
    assert dispatch(body_with('"NaN and -Infinity, \\"NaN\\""'))[0] == 200


def test_a_key_given_twice_keeps_its_last_value_as_documented():
    body = body_with('"hi"').replace(b'"max_tokens": 50', b'"max_tokens": -5, "max_tokens": 50')
    assert dispatch(body)[0] == 200


# -- HTTP framing -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def address():
    running = start_server()
    yield running.server.server_address[:2]
    running.stop()


def exchange(address, head: str, body: bytes = b"") -> tuple[int, str]:
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(head.encode("latin-1") + body)
        sock.shutdown(socket.SHUT_WR)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    status_line, _, rest = raw.partition(b"\r\n")
    payload = rest.partition(b"\r\n\r\n")[2]
    message = (
        json.loads(payload)["error"]["message"] if payload.startswith(b'{"type": "error"') else ""
    )
    return int(status_line.split()[1]), message


GOOD = body_with('"hi"')
START = (
    "POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\n"
    "content-type: application/json\r\n"
)


def chunked(body: bytes, size_line: str | None = None) -> bytes:
    size = size_line or f"{len(body):x}"
    return f"{size}\r\n".encode() + body + b"\r\n0\r\n\r\n"


def test_a_well_formed_request_still_gets_its_answer(address):
    assert exchange(address, START + f"content-length: {len(GOOD)}\r\n\r\n", GOOD)[0] == 200
    assert exchange(address, START + "transfer-encoding: chunked\r\n\r\n", chunked(GOOD))[0] == 200
    same_twice = START + f"content-length: {len(GOOD)}\r\ncontent-length: {len(GOOD)}\r\n\r\n"
    assert exchange(address, same_twice, GOOD)[0] == 200


@pytest.mark.parametrize(
    "length_lines",
    [
        f"content-length: {len(GOOD)}\r\ncontent-length: 5\r\n",  # two that differ
        f"content-length: +{len(GOOD)}\r\n",
        f"content-length: {str(len(GOOD))[0]}_{str(len(GOOD))[1:]}\r\n",  # int() reads 4_13
        f"content-length: {len(GOOD)}, 5\r\n",
        f"content-length:  0x{len(GOOD):x}\r\n",
    ],
)
def test_a_content_length_a_strict_server_refuses_is_a_400(address, length_lines):
    status, message = exchange(address, START + length_lines + "\r\n", GOOD)
    assert (status, message) == (400, "Invalid Content-Length header.")


@pytest.mark.parametrize("coding", ["gzip, chunked", "identity", "chunked, chunked", "xchunked"])
def test_a_transfer_coding_other_than_chunked_is_a_400(address, coding):
    status, message = exchange(
        address, START + f"transfer-encoding: {coding}\r\n\r\n", chunked(GOOD)
    )
    assert status == 400 and "Transfer-Encoding" in message


def test_chunked_with_a_content_length_too_is_a_400(address):
    head = START + "transfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n"
    status, message = exchange(address, head, chunked(GOOD))
    assert status == 400 and "both Transfer-Encoding and Content-Length" in message


@pytest.mark.parametrize("size_line", ["0x{n:x}", "+{n:x}", " {n:x}", "{n:x}z"])
def test_a_chunk_size_that_is_not_hex_digits_is_a_400(address, size_line):
    body = chunked(GOOD, size_line.format(n=len(GOOD)))
    status, message = exchange(address, START + "transfer-encoding: chunked\r\n\r\n", body)
    assert (status, message) == (400, "Invalid chunked request body.")


def test_a_chunk_extension_is_still_allowed(address):
    body = chunked(GOOD, f"{len(GOOD):x};name=value")
    assert exchange(address, START + "transfer-encoding: chunked\r\n\r\n", body)[0] == 200


def test_a_lone_surrogate_over_http_is_a_400(address):
    body = body_with('"\\ud800"')
    status, message = exchange(address, START + f"content-length: {len(body)}\r\n\r\n", body)
    assert status == 400 and message.startswith(NOT_JSON + "no low surrogate in string")
