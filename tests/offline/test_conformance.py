"""Every kind of response the course model produces is a valid Messages API response.

The real SDK parses each one with `_strict_response_validation=True` (sync and async), the
same request always gives the same bytes, ids are shaped like the API's, and the variant model
behaves differently while staying valid.
"""

from __future__ import annotations

import json
import math
import re

import anthropic
import jsonschema
import pytest

from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.scenarios.chat import ESSAY_PARAGRAPH

BASE62 = "[0-9A-Za-z]{24}"
MSG_ID = re.compile(rf"^msg_01{BASE62}$")
TOOLU_ID = re.compile(rf"^toolu_01{BASE62}$")
SRVTOOLU_ID = re.compile(rf"^srvtoolu_01{BASE62}$")
REQ_ID = re.compile(rf"^req_01{BASE62}$")
HEADERS = {"x-api-key": "k", "content-type": "application/json", "anthropic-version": "2023-06-01"}


def _text(message) -> str:
    return "".join(b.text for b in message.content if b.type == "text")


def _check_hello(m, kit) -> None:
    assert _text(m).startswith("Hello! I am the offline course model.")


def _check_count(m, kit) -> None:
    assert _text(m) == ", ".join(str(n) for n in range(1, 21)) + "."


def _check_stop_sequence(m, kit) -> None:
    assert m.stop_sequence == ", 10,"
    assert _text(m) == "1, 2, 3, 4, 5, 6, 7, 8, 9"


def _check_essay(m, kit) -> None:
    assert _text(m).count(ESSAY_PARAGRAPH) == 12
    assert m.usage.output_tokens > 1000


def _check_max_tokens_text(m, kit) -> None:
    assert m.usage.output_tokens == 50
    assert ESSAY_PARAGRAPH.startswith(_text(m)[3:])
    thought = m.content[0].thinking  # the default model thinks first, within the same budget
    assert len(_text(m)) == (50 - math.ceil(len(thought) / 4)) * 4


def _check_remember(m, kit) -> None:
    assert "Your name is Ada" in _text(m)


def _check_weather_calls(m, kit) -> None:
    calls = [b for b in m.content if b.type == "tool_use"]
    assert [(c.name, c.input) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]


def _check_weather_answer(m, kit) -> None:
    for city, weather in kit.WEATHER_RESULTS.items():
        assert f"{city}: {weather}" in _text(m)


def _check_tool_choice_tool(m, kit) -> None:
    (call,) = m.content
    assert call.name == "get_weather" and isinstance(call.input["city"], str)


def _check_tool_choice_none(m, kit) -> None:
    assert "Paris" in _text(m)


def _check_no_parallel(m, kit) -> None:
    (call,) = [b for b in m.content if b.type == "tool_use"]
    assert call.input == {"city": "Paris"}


def _check_cut_in_tool_use(m, kit) -> None:
    first, second = m.content[1:]
    assert first.input == {"city": "Paris", "unit": "celsius"}
    assert second.input == {"city": "Tokyo"}  # cut before "unit": do not run it


def _check_thinking(m, kit) -> None:
    thinking = m.content[0]
    assert thinking.thinking and re.fullmatch(r"sig_01[0-9A-Za-z]{40}", thinking.signature)


def _check_one_short_sentence(m, kit) -> None:
    # The system message says "Answer in one short sentence.": the greeting's first sentence.
    assert _text(m) == "Hello!"


def _check_thinking_off(m, kit) -> None:
    assert _text(m).startswith("Hello! I am the offline course model.")


def _check_structured(m, kit) -> None:
    document = json.loads(_text(m))
    jsonschema.validate(document, kit.FORECAST_SCHEMA)


def _check_refusal(m, kit) -> None:
    assert m.content == []
    assert m.stop_details is not None
    assert (m.stop_details.type, m.stop_details.category) == ("refusal", "cyber")
    assert m.stop_details.explanation


def _check_search(m, kit) -> None:
    use = next(b for b in m.content if b.type == "server_tool_use")
    result = next(b for b in m.content if b.type == "web_search_tool_result")
    assert SRVTOOLU_ID.match(use.id) and result.tool_use_id == use.id
    assert result.content and all(r.type == "web_search_result" for r in result.content)
    assert m.usage.server_tool_use is not None
    assert m.usage.server_tool_use.web_search_requests == 1


def _check_search_resumed(m, kit) -> None:
    _check_search(m, kit)
    assert m.content[0].type == "thinking"
    assert [b.type for b in m.content if b.type != "thinking"] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert m.content[-1].text.startswith("Here is what I found:")


def _check_context_window(m, kit) -> None:
    assert m.usage.output_tokens == 40


def _check_fallback(m, kit) -> None:
    said = _text(m)
    assert said.startswith("I am the offline course model")
    assert 'cannot answer "What is the capital of Peru?"' in said
    assert 'Ask "What can you do?"' in said  # the list of scenarios comes when asked


CHECKS = {
    "hello": _check_hello,
    "thinking_chat": _check_thinking,
    "count": _check_count,
    "stop_sequence": _check_stop_sequence,
    "essay": _check_essay,
    "max_tokens_text": _check_max_tokens_text,
    "remember": _check_remember,
    "weather_calls": _check_weather_calls,
    "tool_choice_any": _check_weather_calls,
    "weather_answer": _check_weather_answer,
    "tool_choice_tool": _check_tool_choice_tool,
    "tool_choice_none": _check_tool_choice_none,
    "no_parallel": _check_no_parallel,
    "max_tokens_in_tool_use": _check_cut_in_tool_use,
    "thinking_tools": _check_thinking,
    "thinking_budget": _check_thinking,
    "thinking_off": _check_thinking_off,
    "no_default_thinking": _check_thinking_off,
    "structured_output": _check_structured,
    "system_in_messages": _check_one_short_sentence,
    "refusal": _check_refusal,
    "pause_turn": _check_search,
    "search_resumed": _check_search_resumed,
    "context_window": _check_context_window,
    "fallback": _check_fallback,
}


def test_every_case_has_a_check(kit):
    assert {c.name for c in kit.CASES} == set(CHECKS)


def test_every_kind_of_response_parses_strictly(case, app, client, kit):
    kwargs = case.kwargs(client)
    if case.fault:
        app.faults.inject(case.fault)
    message = client.messages.create(**kwargs)

    assert isinstance(message, anthropic.types.Message)
    assert message.stop_reason == case.stop_reason
    if case.blocks is not None:
        assert tuple(b.type for b in message.content) == case.blocks
    assert MSG_ID.match(message.id)
    assert message.model == kwargs["model"]
    for block in message.content:
        if block.type == "tool_use":
            assert TOOLU_ID.match(block.id)
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
    assert message.usage.output_tokens <= kwargs["max_tokens"]
    if message.stop_reason == "max_tokens":
        assert message.usage.output_tokens == kwargs["max_tokens"]
    assert len(app.faults) == 0
    CHECKS[case.name](message, kit)


@pytest.mark.anyio
async def test_async_client_gets_the_same_responses(case, app, client, async_client):
    kwargs = case.kwargs(client)
    if case.fault:
        app.faults.inject(case.fault)
    expected = client.messages.create(**kwargs)
    if case.fault:
        app.faults.inject(case.fault)
    message = await async_client.messages.create(**kwargs)

    assert isinstance(message, anthropic.types.Message)
    assert message.model_dump() == expected.model_dump()


def _sent_body(case, client, wire) -> bytes:
    """The exact JSON body the SDK sends for this case."""
    kwargs = case.kwargs(client)
    client.messages.create(**kwargs)
    return wire.requests[-1].content


def test_same_request_gives_the_same_bytes(case, client, wire):
    body = _sent_body(case, client, wire)
    replies = []
    for app in (CourseModelApp(), CourseModelApp(), wire.app):
        for stream in (False, True):
            if case.fault:
                app.faults.inject(case.fault)
            data = json.loads(body) | {"stream": stream}
            reply = app.dispatch("POST", "/v1/messages", HEADERS, json.dumps(data).encode())
            assert reply.status == 200
            replies.append((reply.status, reply.headers, b"".join(reply.chunks())))
    plain, streamed = replies[0], replies[1]
    assert replies[0::2] == [plain] * 3
    assert replies[1::2] == [streamed] * 3
    assert REQ_ID.match(plain[1]["request-id"])
    assert json.loads(plain[2])["id"] in streamed[2].decode()


def test_ids_follow_the_api_shapes(client, wire, kit):
    message = client.messages.with_raw_response.create(**kit.ask("Hello"))
    assert REQ_ID.match(message.headers["request-id"])
    assert message.request_id == message.headers["request-id"]
    search = client.messages.create(**kit.ask(kit.SEARCH_QUESTION, tools=[kit.WEB_SEARCH]))
    use = next(b for b in search.content if b.type == "server_tool_use")
    assert SRVTOOLU_ID.match(use.id)
    calls = client.messages.create(**kit.ask(kit.WEATHER_QUESTION, tools=[kit.GET_WEATHER]))
    assert all(TOOLU_ID.match(b.id) for b in calls.content if b.type == "tool_use")


def test_different_requests_get_different_ids(client, kit):
    hello = client.messages.create(**kit.ask("Hello"))
    hello_again = client.messages.create(**kit.ask("Hello", max_tokens=1000))
    assert hello.id != hello_again.id


def _run_weather_loop(client, kit, **extra) -> list:
    """The correct agent loop on the weather scenario; returns every response in order."""
    messages = [kit.user(kit.WEATHER_QUESTION)]
    responses = []
    for _ in range(6):
        reply = client.messages.create(
            model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages, **extra
        )
        responses.append(reply)
        if reply.stop_reason != "tool_use":
            return responses
        messages += [{"role": "assistant", "content": reply.content}, kit.weather_results(reply)]
    raise AssertionError("the weather loop did not end")


def _tool_use_ids(responses) -> list[str]:
    return [b.id for r in responses for b in r.content if b.type == "tool_use"]


def test_tool_use_ids_are_unique_within_a_conversation(client, kit):
    one_at_a_time = _run_weather_loop(
        client, kit, tool_choice={"type": "auto", "disable_parallel_tool_use": True}
    )
    assert [r.stop_reason for r in one_at_a_time] == ["tool_use", "tool_use", "end_turn"]
    ids = _tool_use_ids(one_at_a_time)
    assert len(ids) == 2 and len(set(ids)) == 2
    parallel = _run_weather_loop(client, kit)
    assert len(set(_tool_use_ids(parallel))) == 2
    assert not set(_tool_use_ids(parallel)) & set(ids)


@pytest.fixture
def variant_client(kit):
    wire = kit.Wire(CourseModelApp(CourseModel(variant=True)))
    client = wire.client()
    yield client
    client.close()


def test_variant_model_double_checks_but_stays_valid(client, variant_client, kit):
    course = _run_weather_loop(client, kit)
    variant = _run_weather_loop(variant_client, kit)

    assert [r.stop_reason for r in course] == ["tool_use", "end_turn"]
    assert [r.stop_reason for r in variant] == ["tool_use", "tool_use", "end_turn"]
    extra = variant[1]
    assert [b.type for b in extra.content] == ["thinking", "text", "tool_use"]
    assert extra.content[1].text == "Let me double-check that."
    assert extra.content[2].input == {"city": "Tokyo"}
    assert _text(variant[-1]).startswith("To sum up: ")
    assert not _text(course[-1]).startswith("To sum up: ")
    ids = _tool_use_ids(variant)
    assert len(ids) == 3 and len(set(ids)) == 3


def test_variant_model_talks_before_a_tool_call(client, variant_client, kit):
    # With parallel calls disabled, the course model's second call comes without any text.
    extra = {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}
    course = _run_weather_loop(client, kit, **extra)
    variant = _run_weather_loop(variant_client, kit, **extra)
    assert [b.type for b in course[1].content] == ["thinking", "tool_use"]
    assert [b.type for b in variant[1].content] == ["thinking", "text", "tool_use"]
    assert variant[1].content[1].text == "Let me look that up first."
    assert variant[-1].stop_reason == "end_turn"


def test_variant_model_obeys_a_forced_tool(variant_client, kit):
    forced = variant_client.messages.create(
        **kit.ask(
            kit.WEATHER_QUESTION,
            model=kit.FORCING_MODEL,
            tools=[kit.GET_WEATHER],
            tool_choice={"type": "any"},
        )
    )
    assert [b.type for b in forced.content] == ["tool_use", "tool_use"]
