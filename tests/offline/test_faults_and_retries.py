"""Faults on demand, as the real SDK sees them: what it retries, what it raises, and with what."""

from __future__ import annotations

import re

import anthropic
import pytest

from course_helpers.offline import scenarios
from course_helpers.offline.app import CourseModelApp

REQ_ID = re.compile(r"^req_01[0-9A-Za-z]{24}$")

RETRIED = [
    ("rate_limit", 429, anthropic.RateLimitError, "rate_limit_error"),
    ("overloaded", 529, anthropic.OverloadedError, "overloaded_error"),
    ("server_error", 500, anthropic.InternalServerError, "api_error"),
]


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """Record the SDK's waits between retries, and make its backoff (no retry-after) short."""
    waited: list[float] = []
    real_sleep = anthropic._base_client.time.sleep

    def sleep(seconds: float) -> None:
        waited.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(anthropic._base_client, "INITIAL_RETRY_DELAY", 0.002)
    monkeypatch.setattr(anthropic._base_client.time, "sleep", sleep)
    return waited


def _assert_error_envelope(error: anthropic.APIStatusError, status: int, error_type: str) -> None:
    assert error.status_code == status
    assert error.body["type"] == "error"
    assert error.body["error"]["type"] == error_type == error.type
    assert REQ_ID.match(error.request_id)
    assert error.body["request_id"] == error.request_id


@pytest.mark.parametrize(("kind", "status", "error_class", "error_type"), RETRIED)
def test_retried_until_success(
    kind, status, error_class, error_type, app, wire, make_client, kit, sleeps
):
    app.faults.inject(kind, times=2, retry_after=0.01)
    client = make_client(max_retries=2)
    message = client.messages.create(**kit.ask("Hello"))

    assert message.stop_reason == "end_turn"
    assert len(wire.requests) == 3
    assert [r.headers["x-stainless-retry-count"] for r in wire.requests] == ["0", "1", "2"]
    assert len(sleeps) == 2
    assert len(app.faults) == 0
    fresh = CourseModelApp().client(**kit.STRICT).messages.create(**kit.ask("Hello"))
    assert message.model_dump() == fresh.model_dump()


@pytest.mark.parametrize(("kind", "status", "error_class", "error_type"), RETRIED)
def test_raised_when_faults_exceed_retries(
    kind, status, error_class, error_type, app, wire, make_client, kit, sleeps
):
    app.faults.inject(kind, times=3, retry_after=0.01)
    client = make_client(max_retries=2)
    with pytest.raises(error_class) as caught:
        client.messages.create(**kit.ask("Hello"))

    _assert_error_envelope(caught.value, status, error_type)
    assert len(wire.requests) == 3
    assert len(app.faults) == 0


def test_retry_after_is_honoured(app, make_client, kit, sleeps):
    app.faults.inject("rate_limit", times=2, retry_after=0.01)
    make_client(max_retries=2).messages.create(**kit.ask("Hello"))
    assert sleeps == [0.01, 0.01]


def test_without_retry_after_the_sdk_backs_off(app, make_client, kit, sleeps):
    app.faults.inject("overloaded", times=2)
    make_client(max_retries=2).messages.create(**kit.ask("Hello"))
    # exponential backoff from the (shortened) initial delay, with up to 25 % jitter
    assert 0.0015 <= sleeps[0] <= 0.002 and 0.003 <= sleeps[1] <= 0.004


def test_rate_limit_response_carries_retry_after(app, client, kit):
    app.faults.inject("rate_limit", retry_after=0.25)
    with pytest.raises(anthropic.RateLimitError) as caught:
        client.messages.create(**kit.ask("Hello"))
    assert caught.value.response.headers["retry-after"] == "0.25"
    assert caught.value.body["error"]["message"].startswith("This request would exceed the rate")


def test_a_bad_request_is_not_retried(app, wire, make_client, kit, sleeps):
    app.faults.inject("overloaded")
    client = make_client(max_retries=2)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=kit.MODEL, max_tokens=100, messages=[])
    _assert_error_envelope(caught.value, 400, "invalid_request_error")
    assert caught.value.body["error"]["message"] == "messages: at least one message is required"
    assert len(wire.requests) == 1 and sleeps == []
    assert len(app.faults) == 1  # an invalid request does not reach the fault queue


def test_prompt_too_long_fault(app, wire, make_client, kit):
    app.faults.inject("prompt_too_long")
    with pytest.raises(anthropic.BadRequestError) as caught:
        make_client(max_retries=2).messages.create(**kit.ask("Hello"))
    _assert_error_envelope(caught.value, 400, "invalid_request_error")
    assert caught.value.body["error"]["message"] == (
        "prompt is too long: 1000001 tokens > 1000000 maximum"  # the default model's window
    )
    assert len(wire.requests) == 1


def test_a_prompt_longer_than_the_context_window_is_refused(wire, client, kit):
    # About 206k tokens: above a 200k window (Claude 4.5), within a 1M one (the default model).
    kwargs = kit.ask("Summarise this: " + "agent loop " * 75_000, model="claude-haiku-4-5")
    counted = client.messages.count_tokens(model=kwargs["model"], messages=kwargs["messages"])
    assert 200_000 < counted.input_tokens < 1_000_000
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**kwargs)
    assert caught.value.body["error"]["message"] == (
        f"prompt is too long: {counted.input_tokens} tokens > 200000 maximum"
    )
    assert client.messages.create(**{**kwargs, "model": kit.MODEL}).stop_reason == "end_turn"


def test_stream_error_is_raised_with_status_200_and_not_retried(app, wire, make_client, kit):
    app.faults.inject("stream_error")
    client = make_client(max_retries=2)
    received = []
    with (
        pytest.raises(anthropic.APIStatusError) as caught,
        client.messages.stream(**kit.ask("Write a long essay about agents.")) as stream,
    ):
        for text in stream.text_stream:
            received.append(text)

    error = caught.value
    assert type(error) is anthropic.APIStatusError
    assert error.status_code == 200
    assert error.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert REQ_ID.match(error.request_id)
    assert received  # the stream failed in the middle, after some text
    assert len(wire.requests) == 1
    # the next request is served normally
    assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"


def test_stream_error_in_a_raw_stream(app, client, kit):
    app.faults.inject("stream_error")
    seen = []
    with pytest.raises(anthropic.APIStatusError) as caught:
        for event in client.messages.create(**kit.ask("Hello"), stream=True):
            seen.append(event.type)
    assert caught.value.status_code == 200
    assert seen[0] == "message_start" and "message_stop" not in seen


def test_disconnect_is_retried_as_a_connection_error(app, wire, make_client, kit, sleeps):
    app.faults.inject("disconnect")
    message = make_client(max_retries=1).messages.create(**kit.ask("Hello"))
    assert message.stop_reason == "end_turn"
    assert len(wire.requests) == 2 and len(sleeps) == 1


def test_disconnect_without_retries_raises_a_connection_error(app, wire, client, kit):
    app.faults.inject("disconnect")
    with pytest.raises(anthropic.APIConnectionError) as caught:
        client.messages.create(**kit.ask("Hello"))
    assert type(caught.value) is anthropic.APIConnectionError
    assert len(wire.requests) == 1


@pytest.mark.anyio
async def test_async_client_retries_too(app, wire, make_async_client, kit, monkeypatch):
    monkeypatch.setattr(anthropic._base_client, "INITIAL_RETRY_DELAY", 0.002)
    app.faults.inject("overloaded")
    app.faults.inject("disconnect")
    client = make_async_client(max_retries=2)
    message = await client.messages.create(**kit.ask("Hello"))
    assert message.stop_reason == "end_turn" and len(wire.requests) == 3
    app.faults.inject("rate_limit", times=2, retry_after=0.01)
    with pytest.raises(anthropic.RateLimitError):
        await make_async_client(max_retries=1).messages.create(**kit.ask("Hello"))
    assert len(wire.requests) == 5


def test_context_window_fault(app, client, kit):
    app.faults.inject("context_window")
    message = client.messages.create(**kit.ask("Write a long essay about agents."))
    assert message.stop_reason == "model_context_window_exceeded"
    assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"


def test_course_fault_header_asks_for_a_fault_on_one_request(wire, client, kit):
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**kit.ask("Hello"), extra_headers={"course-fault": "overloaded"})
    assert client.messages.create(**kit.ask("Hello")).stop_reason == "end_turn"
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**kit.ask("Hello"), extra_headers={"course-fault": "no_such_fault"})
    assert caught.value.body["error"]["message"].startswith(
        "course-fault header: unknown fault 'no_such_fault'; choose one of: rate_limit,"
    )
    assert len(wire.requests) == 3


def test_count_tokens_does_not_take_a_fault(app, client, kit):
    app.faults.inject("overloaded")
    counted = client.messages.count_tokens(model=kit.MODEL, messages=[kit.user("Hello")])
    assert counted.input_tokens > 0
    assert len(app.faults) == 1


def test_unknown_fault_kind_is_refused(app):
    with pytest.raises(ValueError, match="unknown fault 'meteor'"):
        app.faults.inject("meteor")


def test_a_bug_in_a_scenario_becomes_a_500_envelope(wire, make_client, kit, monkeypatch):
    hello = next(s for s in scenarios.registered() if s.name == "hello")

    def broken(conv):
        raise RuntimeError("boom")

    monkeypatch.setattr(hello, "respond", broken)
    with pytest.raises(anthropic.InternalServerError) as caught:
        make_client(max_retries=2).messages.create(**kit.ask("Hello"))
    _assert_error_envelope(caught.value, 500, "api_error")
    assert caught.value.body["error"]["message"] == (
        "Internal server error in the offline course model: RuntimeError('boom')"
    )
    assert len(wire.requests) == 1  # x-should-retry: false, a bug does not go away on retry


def test_thread_requests_are_refused_so_the_tool_runner_falls_back(kit) -> None:
    """The SDK's tool runner asks for a server-side thread; the course model says it keeps none,
    with the error code the SDK recognises, and the runner goes on without a thread."""
    import anthropic

    from course_helpers.offline import CourseModelApp

    app = CourseModelApp()
    client = app.client(max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(
            model=kit.MODEL,
            max_tokens=100,
            messages=[{"role": "user", "content": "Hello"}],
            extra_body={"thread": {"type": "create"}},
        )
    assert refused.value.body["error"]["details"] == {"error_code": "thread_unsupported_request"}

    @anthropic.beta_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return "18°C, light rain"

    runner = client.beta.messages.tool_runner(
        model=kit.MODEL,
        max_tokens=500,
        tools=[get_weather],
        messages=[{"role": "user", "content": "What's the weather in Paris?"}],
    )
    final = runner.until_done()
    assert final.stop_reason == "end_turn"
    assert "18°C" in final.content[-1].text
