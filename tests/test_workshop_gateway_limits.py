"""The workshop gateway against a participant who sends odd header lines or keeps asking to count.

Same scripted upstream as tests/test_workshop_gateway.py (loopback, started by the test): it
records every request that reaches it, so each test counts what the shared key was used for.
"""

from __future__ import annotations

import json
import threading

import pytest
import test_workshop_gateway as base
from test_workshop_gateway import (
    ADA,
    BOB,
    COUNTED,
    WAIT,
    ask,
    is_envelope,
    post,
    raw,
    send_raw,
    url_of,
)

from course_helpers.client import MODEL
from course_tools.gateway_head import MALFORMED_HEADER
from course_tools.gateway_requests import CallRate

COUNT_PATH = "/v1/messages/count_tokens"
# The fixtures of the gateway's own tests, used here by name.
tokens, upstream, gateway = base.tokens, base.upstream, base.gateway


def counts_seen(upstream) -> int:
    return sum(1 for _, path, _ in upstream.seen if path == COUNT_PATH)


def head(extra: bytes, body: bytes) -> bytes:
    return (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: " + ADA.encode() + b"\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n" + extra + b"\r\n" + body
    )


@pytest.mark.parametrize(
    "extra",
    [
        b"Transfer-Encoding : chunked\r\n",  # whitespace before the colon (RFC 9112 5.1)
        b"anthropic-beta: x\r\n\tauthorization: Bearer evil\r\n",  # obs-fold (RFC 9112 5.2)
        b"anthropic-beta: x\r\n x-api-key: ws-other\r\n",  # obs-fold with a space
        b"no colon at all\r\n",
    ],
    ids=["space before colon", "folded with a tab", "folded with a space", "no colon"],
)
def test_a_malformed_header_line_is_a_400_and_nothing_is_forwarded(upstream, gateway, extra):
    server = gateway(url_of(upstream))
    answer = send_raw(server, head(extra, ask()))
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 400 ")
    envelope = json.loads(rest.split(b"\r\n\r\n", 1)[1])
    assert is_envelope(envelope, "invalid_request_error")
    assert envelope["error"]["message"] == MALFORMED_HEADER
    assert upstream.seen == [], "nothing reached the API"
    assert "ada:" in server.log.text(), "the refusal is still logged by name"


def test_an_ordinary_header_line_still_goes_through(upstream, gateway):
    server = gateway(url_of(upstream))
    answer = send_raw(server, head(b"anthropic-beta:x\r\nconnection: close\r\n", ask()))
    assert answer.startswith(b"HTTP/1.1 200 ")


def test_a_spent_budget_is_refused_without_counting_upstream(upstream, gateway):
    """Every refused request used to cost one count_tokens call with the room's key."""
    server = gateway(url_of(upstream), budget=100)
    assert post(server, ask(max_tokens=50))[0] == 200  # COUNTED + 50 spent: 70 of 100
    assert counts_seen(upstream) == 1
    for _ in range(30):
        status, answer = post(server, ask(max_tokens=50))
        assert status == 403 and is_envelope(answer, "permission_error")
        assert "30 of your 100 are left" in answer["error"]["message"]
    assert counts_seen(upstream) == 1
    assert upstream.messages_seen() == 1
    # What still fits is counted and forwarded as before.
    assert post(server, ask(max_tokens=5))[0] == 200
    assert counts_seen(upstream) == 2


def count_as(server, token: str) -> tuple[int, dict, dict]:
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}).encode()
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    headers["content-length"] = str(len(body))
    return raw(server, "POST", COUNT_PATH, headers, body)


def test_direct_count_tokens_calls_are_limited_per_participant(upstream, gateway):
    server = gateway(url_of(upstream), count_tokens_per_minute=3)
    for _ in range(3):
        status, _, answer = count_as(server, ADA)
        assert (status, answer) == (200, {"input_tokens": COUNTED})
    for _ in range(5):
        status, headers, answer = count_as(server, ADA)
        assert status == 429 and is_envelope(answer, "rate_limit_error")
        assert "at most 3 count_tokens calls a minute" in answer["error"]["message"]
        assert 1 <= int(headers["retry-after"]) <= 60
    assert counts_seen(upstream) == 3
    assert count_as(server, BOB)[0] == 200, "another participant is not held back"
    assert counts_seen(upstream) == 4


def test_a_participant_whose_budget_is_spent_counts_nothing_upstream(upstream, gateway):
    server = gateway(url_of(upstream), budget=70)
    assert post(server, ask(max_tokens=50))[0] == 200  # COUNTED + 50: all 70 spent
    for _ in range(5):
        status, _, answer = count_as(server, ADA)
        assert status == 403 and is_envelope(answer, "permission_error")
        assert "none of your 70 tokens are left" in answer["error"]["message"]
    assert counts_seen(upstream) == 1  # the Messages call's own count
    assert count_as(server, BOB)[0] == 200


def test_the_count_tokens_limit_frees_a_call_as_the_minute_slides():
    now = [1000.0]
    rate = CallRate(2, clock=lambda: now[0])
    assert rate.admit("ada") == 0 and rate.admit("ada") == 0
    assert rate.admit("ada") == pytest.approx(60.0)
    now[0] += 59.0
    assert rate.admit("ada") == pytest.approx(1.0)
    now[0] += 1.0
    assert rate.admit("ada") == 0
    assert rate.admit("bob") == 0


def test_messages_refused_after_counting_use_the_count_tokens_limit(upstream, gateway):
    """A Messages call whose counted input does not fit is a free upstream count: limited too."""
    server = gateway(url_of(upstream), budget=100, count_tokens_per_minute=3)
    assert post(server, ask(max_tokens=70))[0] == 200  # COUNTED + 70 spent: 10 of 100 left
    assert counts_seen(upstream) == 1
    for _ in range(3):  # max_tokens 1 fits what is left; the counted input does not
        status, answer = post(server, ask(max_tokens=1))
        assert status == 403 and is_envelope(answer, "permission_error")
    assert counts_seen(upstream) == 4
    for _ in range(20):
        status, headers, answer = raw(
            server,
            "POST",
            "/v1/messages",
            {"x-api-key": ADA, "content-type": "application/json"} | length_of(ask(max_tokens=1)),
            ask(max_tokens=1),
        )
        assert status == 429 and is_envelope(answer, "rate_limit_error")
        assert 1 <= int(headers["retry-after"]) <= 60
    assert counts_seen(upstream) == 4, "no more upstream counts"
    assert count_as(server, ADA)[0] == 429, "the direct route shares the same limit"
    assert upstream.messages_seen() == 1


def test_messages_that_are_served_do_not_use_up_the_count_tokens_limit(upstream, gateway):
    server = gateway(url_of(upstream), budget=10_000, count_tokens_per_minute=2)
    for _ in range(6):
        assert post(server, ask(max_tokens=5))[0] == 200
    assert counts_seen(upstream) == 6 and upstream.messages_seen() == 6
    assert count_as(server, ADA)[0] == 200 and count_as(server, ADA)[0] == 200
    assert count_as(server, ADA)[0] == 429


def length_of(body: bytes) -> dict:
    return {"content-length": str(len(body))}


def test_a_refund_gives_back_the_latest_call():
    rate = CallRate(1, clock=lambda: 5.0)
    assert rate.admit("ada") == 0
    rate.refund("ada")
    rate.refund("bob")  # nothing to give back: no error
    assert rate.admit("ada") == 0 and rate.admit("ada") > 0


def test_a_head_that_carries_a_valid_token_line_is_not_evicted(upstream, gateway):
    """A participant on a slow link: the token line arrived, the head has not ended yet."""
    server = gateway(url_of(upstream), max_connections=1, client_timeout=WAIT, evict_after=0)
    slow = base.from_address(server, "127.0.0.2")
    try:
        slow.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nx-api-key: " + ADA.encode() + b"\r\n")
        for _ in range(600):  # until the gateway has read the token line (bounded: 30 s)
            if any(held.trusted for held in server.slots._held.values()):
                break
            threading.Event().wait(0.05)
        with base.from_address(server, "127.0.0.3") as newcomer:
            newcomer.sendall(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
            assert base.answer_of(newcomer).startswith(b"HTTP/1.1 529"), "it waits its turn"
        slow.sendall(b"connection: close\r\n\r\n")
        assert base.answer_of(slow).startswith(b"HTTP/1.1 200")
    finally:
        slow.close()
    assert server.slots.evicted == 0


@pytest.mark.parametrize(
    "line", [b"x-api-key: ws-not-a-token\r\n", b"authorization: Basic " + ADA.encode() + b"\r\n"]
)
def test_a_head_with_no_valid_token_line_is_still_evicted(upstream, gateway, line):
    server = gateway(url_of(upstream), max_connections=1, client_timeout=WAIT, evict_after=0)
    slow = base.from_address(server, "127.0.0.2")
    try:
        slow.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n" + line)
        for _ in range(600):
            if server.slots.open == 1:
                break
            threading.Event().wait(0.05)
        status, _, _ = raw(server, "GET", "/v1/models", {"authorization": f"Bearer {ADA}"})
    finally:
        slow.close()
    assert status == 200 and server.slots.evicted == 1
