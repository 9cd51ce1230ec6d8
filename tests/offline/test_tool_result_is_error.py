"""`is_error` in a tool_result: a boolean, as the SDK types it, or left out.

The SDK's `ToolResultBlockParam` declares `is_error: bool` and validates nothing client-side:
whatever a `run_tool` puts there goes on the wire as it is. The course model refuses a value
that is not a boolean with the API's pydantic wording; `null` (what the SDK sends for `None`)
counts as the field left out, as `cache_control: null` does.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest

from course_helpers.offline import CourseModelApp

MODEL = "claude-opus-4-8"  # does not think unless asked: the assistant turn below has no thinking
READ_FILE = {
    "name": "read_file",
    "description": "Read a file of the repository.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}


def _messages(is_error: Any) -> list[dict]:
    call = {"type": "tool_use", "id": "toolu_A", "name": "read_file", "input": {"path": "a.py"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_A", "content": "No such file a.py"}
    return [
        {"role": "user", "content": "Read a.py"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [{**result, "is_error": is_error}]},
    ]


def _send(is_error: Any) -> tuple[dict, Any]:
    """What the SDK put on the wire, and the course model's answer (a Message or the error)."""
    app = CourseModelApp()
    sent: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return app.handle(request)

    client = app.client(
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), max_retries=0
    )
    try:
        answer: Any = client.messages.create(
            model=MODEL, max_tokens=256, tools=[READ_FILE], messages=_messages(is_error)
        )
    except anthropic.APIStatusError as error:
        answer = error
    return sent[0], answer


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, [], {}])
def test_an_is_error_that_is_not_a_boolean_is_a_400(value):
    sent, answer = _send(value)
    assert sent["messages"][2]["content"][0]["is_error"] == value  # the SDK sent it as it was
    assert isinstance(answer, anthropic.BadRequestError), answer
    assert answer.body["error"]["message"] == (
        "messages.2.content.0.tool_result.is_error: Input should be a valid boolean"
    )


@pytest.mark.parametrize("value", [True, False, None])
def test_a_boolean_or_null_is_error_is_accepted(value):
    sent, answer = _send(value)
    assert sent["messages"][2]["content"][0]["is_error"] is value  # null goes on the wire
    assert isinstance(answer, anthropic.types.Message), answer
