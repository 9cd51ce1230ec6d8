"""Faults from the course model against the reference loop: it survives or ends cleanly.

The SDK retries 429, 529, 5xx and dropped connections by itself (`max_retries`); the loop
retries a turn whose stream broke. When retries run out, the run ends with ending "error",
a clear detail, and a history that is still valid. Retry waits are kept tiny.
"""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.pairing import pairing_problems
from course_helpers.lessons.tools import tool
from course_helpers.offline import CourseModelApp


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Errors without retry-after wait 0.5 s, 1 s... by default: make the backoff tiny."""
    monkeypatch.setattr(anthropic._base_client, "INITIAL_RETRY_DELAY", 0.001)


class Counting:
    """The app behind a transport that counts the requests reaching it (retries included)."""

    def __init__(self) -> None:
        self.app = CourseModelApp()
        self.requests = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        return self.app.handle(request)


@pytest.fixture
def server() -> Counting:
    return Counting()


def make_client(server: Counting, max_retries: int) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="offline-test-key",
        base_url="http://course-model.test",
        http_client=httpx2.Client(transport=httpx2.MockTransport(server.handle)),
        _strict_response_validation=True,
        max_retries=max_retries,
    )


@tool
def get_diff(pr: int) -> str:
    """Return the diff of pull request `pr`."""
    return "diff --git a/README.md b/README.md\n+++ b/README.md\n+More docs.\n"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return "text"


TOOLS = [get_diff, read_file]


def review(client: anthropic.Anthropic, **options):
    messages = [{"role": "user", "content": "Review PR #483."}]
    turns: list[list[str]] = []

    def checked(sample):
        def sample_checked(history, **changes):
            turns.append(pairing_problems(history))
            return sample(history, **changes)

        return sample_checked

    run = run_agent(client, messages=messages, tools=TOOLS, wrap_sample=checked, **options)
    assert all(problems == [] for problems in turns)
    assert pairing_problems(messages) == []
    return run


@pytest.mark.parametrize("kind", ["rate_limit", "overloaded", "server_error", "disconnect"])
def test_retried_faults_are_survived(server: Counting, kind: str) -> None:
    server.app.faults.inject(kind, times=2, retry_after=0.01)
    run = review(make_client(server, max_retries=2))
    assert run.ending == "end_turn" and run.steps == 2
    assert server.requests == 4  # two failed attempts, then the two turns
    assert len(server.app.faults) == 0


@pytest.mark.parametrize(
    ("kind", "error", "status"),
    [
        ("rate_limit", anthropic.RateLimitError, 429),
        ("overloaded", anthropic.OverloadedError, 529),
        ("server_error", anthropic.InternalServerError, 500),
    ],
)
def test_faults_beyond_max_retries_end_the_run_cleanly(
    server: Counting, kind: str, error: type, status: int
) -> None:
    server.app.faults.inject(kind, times=5, retry_after=0.01)
    run = review(make_client(server, max_retries=1))
    assert run.ending == "error" and isinstance(run.error, error)
    assert run.detail.startswith(f"an API error the retries did not fix: {status} ")
    assert server.requests == 2 and run.steps == 1  # one call to the model, retried by the SDK
    assert len(run.messages) == 1


def test_a_fault_in_the_middle_of_a_run_keeps_the_history(server: Counting) -> None:
    client = make_client(server, max_retries=0)
    messages = [{"role": "user", "content": "Review PR #483."}]
    first = run_agent(client, messages=messages, tools=TOOLS, max_steps=1)
    assert first.ending == "step_limit" and len(messages) == 3
    server.app.faults.inject("overloaded")
    failed = run_agent(client, messages=messages, tools=TOOLS)
    assert failed.ending == "error" and len(messages) == 3
    assert pairing_problems(messages) == []
    finished = run_agent(client, messages=messages, tools=TOOLS)  # same history, next attempt
    assert finished.ending == "end_turn" and len(messages) == 4


def test_dropped_connection_beyond_retries_ends_the_run(server: Counting) -> None:
    server.app.faults.inject("disconnect", times=3)
    run = review(make_client(server, max_retries=1))
    assert run.ending == "error" and isinstance(run.error, anthropic.APIConnectionError)
    assert run.detail.startswith("connection failed after retries")


def test_stream_error_is_not_retried_by_the_sdk_but_by_the_loop(server: Counting) -> None:
    server.app.faults.inject("stream_error")
    pieces: list[str] = []
    run = review(make_client(server, max_retries=2), on_text=pieces.append)
    assert run.log[0].startswith("step 1: stream error")
    assert run.ending == "end_turn" and run.steps == 3  # the broken call counts too
    assert server.requests == 3


def test_stream_errors_every_time_end_the_run(server: Counting) -> None:
    server.app.faults.inject("stream_error", times=10)
    run = review(make_client(server, max_retries=2), on_text=lambda _: None)
    assert run.ending == "error" and run.error.status_code == 200
    assert len(run.messages) == 1


def test_prompt_too_long_without_anything_to_compact_is_an_error(server: Counting) -> None:
    server.app.faults.inject("prompt_too_long")
    run = review(make_client(server, max_retries=2))
    assert run.ending == "error" and "prompt is too long" in run.detail
    assert server.requests == 1  # a 400 is never retried by the SDK


def test_streamed_turns_are_separated_by_a_new_line(server: Counting) -> None:
    pieces: list[str] = []
    run = review(make_client(server, max_retries=2), on_text=pieces.append)
    said = [
        "".join(b.text for b in m["content"] if getattr(b, "type", None) == "text")
        for m in run.messages
        if m["role"] == "assistant"
    ]
    said = [text for text in said if text]
    assert len(said) >= 2  # a turn with a call, then the answer
    assert "".join(pieces) == "\n".join(said)  # a new line between turns, none inside one
    assert pieces.count("\n") == len(said) - 1
