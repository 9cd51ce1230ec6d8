"""Token counts agree between create, streaming and count_tokens; prompt caching follows the rules."""

from __future__ import annotations

import pytest

from course_helpers.offline import CourseModelApp
from course_helpers.offline.tokens import MIN_CACHEABLE_TOKENS

CACHE = {"type": "ephemeral"}
# About 1 300 estimated tokens: above the 1 024-token minimum for a cached prefix.
LONG_SYSTEM = "You are the course's helpful reviewer. Answer briefly and cite files. " * 75
SHORT_SYSTEM = "You are the course's helpful reviewer."
COUNTED = ("model", "messages", "system", "tools", "tool_choice", "thinking")


def _count(client, kwargs: dict) -> int:
    return client.messages.count_tokens(
        **{k: v for k, v in kwargs.items() if k in COUNTED}
    ).input_tokens


def _cached_system(text: str = LONG_SYSTEM, **marker) -> list[dict]:
    return [{"type": "text", "text": text, "cache_control": {**CACHE, **marker}}]


def _total(usage) -> int:
    return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens


def test_count_tokens_equals_input_tokens_of_create_and_stream(case, app, client):
    kwargs = case.kwargs(client)
    counted = _count(client, kwargs)
    if case.fault:
        app.faults.inject(case.fault)
    created = client.messages.create(**kwargs)
    if case.fault:
        app.faults.inject(case.fault)
    with client.messages.stream(**kwargs) as stream:
        streamed = stream.get_final_message()

    assert created.usage.input_tokens == streamed.usage.input_tokens == counted
    assert created.usage.cache_read_input_tokens == created.usage.cache_creation_input_tokens == 0
    assert created.usage.output_tokens == streamed.usage.output_tokens


def test_input_tokens_grow_with_the_history(client, kit):
    first = kit.ask(kit.WEATHER_QUESTION, tools=[kit.GET_WEATHER])
    reply = client.messages.create(**first)
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": reply.content},
            kit.weather_results(reply),
        ],
    }
    answer = client.messages.create(**second)
    # the second prompt holds the first, the whole reply and the results
    assert answer.usage.input_tokens >= reply.usage.input_tokens + reply.usage.output_tokens
    assert answer.usage.input_tokens == _count(client, second)


def test_a_long_cached_system_prompt_is_written_then_read(client, kit):
    kwargs = kit.ask("Hello", system=_cached_system())
    total = _count(client, kwargs)
    assert total > MIN_CACHEABLE_TOKENS

    first = client.messages.create(**kwargs).usage
    assert first.cache_creation_input_tokens > MIN_CACHEABLE_TOKENS
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation.ephemeral_5m_input_tokens == first.cache_creation_input_tokens
    assert first.cache_creation.ephemeral_1h_input_tokens == 0
    assert _total(first) == total

    second = client.messages.create(**kwargs).usage
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens == first.input_tokens > 0  # the uncached tail: the question
    assert _total(second) == total


def test_streaming_reports_the_same_cache_use(client, kit):
    kwargs = kit.ask("Hello", system=_cached_system())
    written = client.messages.create(**kwargs).usage
    events = list(client.messages.create(**kwargs, stream=True))
    start, delta = events[0].message.usage, events[-2].usage
    assert start.cache_read_input_tokens == delta.cache_read_input_tokens
    assert delta.cache_read_input_tokens == written.cache_creation_input_tokens
    assert delta.cache_creation_input_tokens == 0
    with client.messages.stream(**kwargs) as stream:
        usage = stream.get_final_message().usage
    assert usage.cache_read_input_tokens == written.cache_creation_input_tokens


def test_a_different_prefix_is_not_read(client, kit):
    client.messages.create(**kit.ask("Hello", system=_cached_system()))
    other = client.messages.create(**kit.ask("Hello", system=_cached_system(LONG_SYSTEM + "!")))
    assert other.usage.cache_read_input_tokens == 0
    assert other.usage.cache_creation_input_tokens > 0
    other_model = client.messages.create(
        **kit.ask("Hello", system=_cached_system(), model="claude-haiku-5-5")
    )
    assert other_model.usage.cache_read_input_tokens == 0


def test_a_fresh_app_starts_with_an_empty_cache(client, kit):
    kwargs = kit.ask("Hello", system=_cached_system())
    written = client.messages.create(**kwargs).usage.cache_creation_input_tokens
    fresh = CourseModelApp().client(**kit.STRICT)
    usage = fresh.messages.create(**kwargs).usage
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, written)


def test_below_the_minimum_nothing_is_cached(client, kit):
    kwargs = kit.ask("Hello", system=_cached_system(SHORT_SYSTEM))
    total = _count(client, kwargs)
    assert total < MIN_CACHEABLE_TOKENS
    for _ in range(2):
        usage = client.messages.create(**kwargs).usage
        assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0
        assert usage.input_tokens == total


def test_one_hour_ttl_is_reported_apart(client, kit):
    usage = client.messages.create(**kit.ask("Hello", system=_cached_system(ttl="1h"))).usage
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == 0


def _marked(message: dict) -> dict:
    """A copy of a user message whose last block carries the breakpoint."""
    content = message["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return {**message, "content": [*blocks[:-1], {**blocks[-1], "cache_control": CACHE}]}


@pytest.mark.parametrize("keep_old_breakpoint", [False, True], ids=["moved", "kept"])
def test_a_moving_breakpoint_reads_the_previous_prefix(client, kit, keep_old_breakpoint):
    """The loop marks the last message each turn: only the new part is written."""
    base = {
        "model": kit.MODEL,
        "max_tokens": 1024,
        "system": LONG_SYSTEM,
        "tools": [kit.GET_WEATHER],
    }
    question = kit.user(kit.WEATHER_QUESTION)

    turn1 = {**base, "messages": [_marked(question)]}
    first = client.messages.create(**turn1)
    assert first.usage.cache_read_input_tokens == 0
    assert (
        first.usage.cache_creation_input_tokens == _count(client, turn1) - first.usage.input_tokens
    )
    assert first.usage.input_tokens == 0  # the breakpoint closes the whole prompt

    history = [
        _marked(question) if keep_old_breakpoint else question,
        {"role": "assistant", "content": first.content},
        _marked(kit.weather_results(first)),
    ]
    turn2 = {**base, "messages": history}
    second = client.messages.create(**turn2)
    total = _count(client, turn2)
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == total - _count(client, turn1)
    assert _total(second.usage) == total
    assert second.stop_reason == "end_turn"
