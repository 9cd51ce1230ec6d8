"""course_helpers.lessons.pairing: `pairing_problems` agrees with the API, `results_message` keeps the rules.

Every broken history below is proven both ways: `pairing_problems` reports it, and the offline
course model (which validates like the real API) rejects it. Every good history passes both.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message

from course_helpers.lessons.pairing import pairing_problems, results_message
from course_helpers.offline.errors import ApiError
from course_helpers.offline.validation import validate_messages_request

# A model that does not think by default: the hand-written turns below carry no thinking block.
MODEL = "claude-opus-4-8"
WEATHER = {
    "name": "get_weather",
    "description": "Current weather for one city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
QUESTION = {"role": "user", "content": "What's the weather in Paris and Tokyo?"}


def call(tool_id: str, city: str = "Paris") -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "get_weather", "input": {"city": city}}


def result(tool_id: str, content: Any = "18°C", **extra: Any) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def user(*blocks: dict) -> dict:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict) -> dict:
    return {"role": "assistant", "content": list(blocks)}


TURN = assistant(text("I'll check both."), call("toolu_A", "Paris"), call("toolu_B", "Tokyo"))
FINAL = assistant(text("Paris: 18°C. Tokyo: 24°C."))

GOOD = {
    "no tools at all": [{"role": "user", "content": "Hello"}],
    "parallel calls answered in one message": [
        QUESTION,
        TURN,
        user(result("toolu_A"), result("toolu_B")),
    ],
    "results in another order": [QUESTION, TURN, user(result("toolu_B"), result("toolu_A"))],
    "text after the results": [
        QUESTION,
        TURN,
        user(result("toolu_A"), result("toolu_B"), text("Be brief.")),
    ],
    "content as a list of blocks, and an error": [
        QUESTION,
        TURN,
        user(result("toolu_A", [text("18°C")]), result("toolu_B", "timeout", is_error=True)),
    ],
    "two full rounds": [
        QUESTION,
        TURN,
        user(result("toolu_A"), result("toolu_B")),
        assistant(call("toolu_C", "Oslo")),
        user(result("toolu_C")),
        FINAL,
        {"role": "user", "content": "Thanks!"},
    ],
}

# name -> (history, words that must appear in pairing_problems's report)
BROKEN = {
    "assistant text kept, tool_use dropped": (
        [QUESTION, assistant(text("I'll check both.")), user(result("toolu_A"), result("toolu_B"))],
        ["messages[2]", "toolu_A", "answers no tool_use", "no tool_use has this id"],
    ),
    "one result missing": (
        [QUESTION, TURN, user(result("toolu_A"))],
        ["messages[1]", "toolu_B", "has no tool_result in the next message"],
    ),
    "a question instead of results": (
        [QUESTION, TURN, {"role": "user", "content": "Well?"}],
        ["messages[1]", "toolu_A", "toolu_B"],
    ),
    "text before the results": (
        [QUESTION, TURN, user(text("Here:"), result("toolu_A"), result("toolu_B"))],
        ["messages[2]", "toolu_A", "must come first"],
    ),
    "parallel results split over two messages": (
        [QUESTION, TURN, user(result("toolu_A")), user(result("toolu_B"))],
        ["messages[1]", "toolu_B", "messages[3]", "right after its tool_use"],
    ),
    "wrong id": (
        [QUESTION, TURN, user(result("toolu_A"), result("toolu_X"))],
        ["messages[2]", "toolu_X", "no tool_use has this id"],
    ),
    "two results for one call": (
        [QUESTION, TURN, user(result("toolu_A"), result("toolu_B"), result("toolu_A"))],
        ["messages[2]", "more than one tool_result for toolu_A"],
    ),
    "a tool_use id used twice": (
        [
            QUESTION,
            TURN,
            user(result("toolu_A"), result("toolu_B")),
            assistant(call("toolu_A")),
            user(result("toolu_A")),
        ],
        ["messages[3]", "toolu_A", "already used in messages[1]"],
    ),
    "a tool_result in an assistant message": (
        [QUESTION, TURN, user(result("toolu_A"), result("toolu_B")), assistant(result("toolu_A"))],
        ["messages[3]", "tool_result blocks belong in user messages"],
    ),
}


def api_rejects(messages: list[dict]) -> str | None:
    """The offline API's error message for this history, or None when it is accepted."""
    body = {"model": MODEL, "max_tokens": 1024, "messages": messages, "tools": [WEATHER]}
    try:
        validate_messages_request(body)
    except ApiError as error:
        return error.message
    return None


@pytest.mark.parametrize("name", list(GOOD))
def test_good_histories_have_no_problems(name: str) -> None:
    assert pairing_problems(GOOD[name]) == []
    assert api_rejects(GOOD[name]) is None


@pytest.mark.parametrize("name", list(BROKEN))
def test_each_broken_history_is_reported(name: str) -> None:
    history, words = BROKEN[name]
    problems = pairing_problems(history)
    assert problems, f"{name}: not reported"
    report = "\n".join(problems)
    for word in words:
        assert word in report, f"{name}: {word!r} not in {report!r}"


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_api_rejects_each_broken_history_too(name: str) -> None:
    history, _ = BROKEN[name]
    assert api_rejects(history) is not None, f"{name}: the offline API accepted it"


def test_each_problem_is_reported_once() -> None:
    history, _ = BROKEN["text before the results"]
    assert len(pairing_problems(history)) == 2  # one per late result, nothing else
    history, _ = BROKEN["one result missing"]
    assert len(pairing_problems(history)) == 1


def test_a_history_ending_in_a_tool_use_is_not_ready_to_send() -> None:
    problems = pairing_problems([QUESTION, TURN])
    assert len(problems) == 2
    assert all("has no tool_result yet" in p for p in problems)


def test_sdk_objects_are_read_like_dicts() -> None:
    response = sdk_message(TURN["content"])
    history = [QUESTION, {"role": "assistant", "content": response.content}]
    assert len(pairing_problems(history)) == 2
    history.append(user(result("toolu_A"), result("toolu_B")))
    assert pairing_problems(history) == []
    history[-1] = user(result("toolu_A"))
    assert pairing_problems(history) == [
        "messages[1]: tool_use toolu_B (get_weather) has no tool_result in the next message, "
        "messages[2]"
    ]


def sdk_message(content: list[dict], stop_reason: str = "tool_use") -> Message:
    """An SDK Message, built the way the SDK builds one from the API's JSON."""
    return Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": stop_reason,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    )


def echo(block: Any) -> dict:
    """A run_tool that answers with the city it was asked about."""
    return {"type": "tool_result", "tool_use_id": block.id, "content": block.input["city"]}


def test_results_message_answers_every_call_in_order() -> None:
    response = sdk_message(TURN["content"])
    message = results_message(response, echo)
    assert message == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_A", "content": "Paris"},
            {"type": "tool_result", "tool_use_id": "toolu_B", "content": "Tokyo"},
        ],
    }
    history = [QUESTION, {"role": "assistant", "content": response.content}, message]
    assert pairing_problems(history) == []
    assert api_rejects([QUESTION, TURN, message]) is None


def test_results_message_calls_run_tool_once_per_tool_use() -> None:
    seen = []

    def run_tool(block: Any) -> dict:
        seen.append(block.id)
        return {"type": "tool_result", "tool_use_id": block.id, "content": "ok"}

    results_message(sdk_message(TURN["content"]), run_tool)
    assert seen == ["toolu_A", "toolu_B"]


def test_results_message_accepts_a_plain_dict_response() -> None:
    def run_tool(block: dict) -> dict:
        return {"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}

    message = results_message(TURN, run_tool)
    assert [r["tool_use_id"] for r in message["content"]] == ["toolu_A", "toolu_B"]


def test_results_message_refuses_a_result_with_the_wrong_id() -> None:
    def wrong(block: Any) -> dict:
        return {"type": "tool_result", "tool_use_id": "toolu_X", "content": "ok"}

    with pytest.raises(ValueError, match="tool_use_id 'toolu_A'"):
        results_message(sdk_message(TURN["content"]), wrong)


def test_results_message_refuses_a_response_without_tool_use() -> None:
    with pytest.raises(ValueError, match="no tool_use"):
        results_message(sdk_message([text("Done.")], "end_turn"), echo)


def test_a_result_written_with_id_instead_of_tool_use_id_is_named() -> None:
    asked = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {}}],
    }
    wrong = {"type": "tool_result", "id": "toolu_w", "content": "Sunny"}
    history = [{"role": "user", "content": "Weather?"}, asked, {"role": "user", "content": [wrong]}]
    problems = pairing_problems(history)
    assert "messages[2]: a tool_result without a tool_use_id (did you write 'id'?)" in problems
    assert not any("None" in p for p in problems)
    no_id = {"type": "tool_result", "content": "Sunny"}
    problems = pairing_problems([*history[:2], {"role": "user", "content": [no_id]}])
    assert "messages[2]: a tool_result without a tool_use_id" in problems
    assert not any("did you write" in p for p in problems)
