"""Cache diagnostics: with `diagnostics={"previous_message_id": ...}` the course model says why
a request's prefix could not reuse the previous request's (offline/cache_diagnostics.py), read
through the SDK's own types."""

from __future__ import annotations

import pytest

MODEL = "claude-sonnet-5-5"
OTHER_MODEL = "claude-opus-4-7"
SYSTEM = "You are a careful assistant. " * 200
TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def _ask(client, previous, **changes):
    request = {
        "model": MODEL,
        "max_tokens": 64,
        "system": SYSTEM,
        "tools": [TOOL],
        "messages": [{"role": "user", "content": "Hello!"}],
        "diagnostics": {"previous_message_id": previous},
    }
    request.update(changes)
    return client.messages.create(**request)


def test_the_first_turn_and_an_unchanged_prefix_have_no_reason(client) -> None:
    first = _ask(client, None)
    assert first.diagnostics is None
    follow = [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": "And again?"},
    ]
    second = _ask(client, first.id, messages=follow)
    assert second.diagnostics is None  # only entries appended: nothing diverged


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"model": OTHER_MODEL}, "model_changed"),
        ({"system": SYSTEM + "Be brief."}, "system_changed"),
        ({"tools": [TOOL, {**TOOL, "name": "get_time"}]}, "tools_changed"),
        ({"messages": [{"role": "user", "content": "Hi there!"}]}, "messages_changed"),
    ],
)
def test_the_first_difference_is_named_with_what_it_cost(client, change, reason) -> None:
    first = _ask(client, None)
    second = _ask(client, first.id, **change)
    assert second.diagnostics is not None
    miss = second.diagnostics.cache_miss_reason
    assert miss.type == reason
    assert 0 < miss.cache_missed_input_tokens <= first.usage.input_tokens


def test_a_system_change_does_not_count_the_tools_as_missed(client) -> None:
    first = _ask(client, None)
    model = _ask(client, first.id, model=OTHER_MODEL).diagnostics.cache_miss_reason
    system = _ask(client, first.id, system="Short.").diagnostics.cache_miss_reason
    assert system.cache_missed_input_tokens < model.cache_missed_input_tokens


def test_other_prompt_parameters_give_unavailable(client) -> None:
    first = _ask(client, None)
    second = _ask(client, first.id, tool_choice={"type": "none"})
    assert second.diagnostics.cache_miss_reason.type == "unavailable"


def test_an_unknown_or_not_opted_in_previous_id_is_not_found(client) -> None:
    unknown = _ask(client, "msg_01NoSuchMessageAtAll")
    assert unknown.diagnostics.cache_miss_reason.type == "previous_message_not_found"
    plain = client.messages.create(
        model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "Hello!"}]
    )
    assert plain.diagnostics is None  # did not opt in: nothing kept, nothing said
    after = _ask(client, plain.id)
    assert after.diagnostics.cache_miss_reason.type == "previous_message_not_found"


def test_streaming_carries_the_same_diagnostics(client) -> None:
    first = _ask(client, None)
    with client.messages.stream(
        model=OTHER_MODEL,
        max_tokens=64,
        system=SYSTEM,
        tools=[TOOL],
        messages=[{"role": "user", "content": "Hello!"}],
        diagnostics={"previous_message_id": first.id},
    ) as stream:
        final = stream.get_final_message()
    assert final.diagnostics.cache_miss_reason.type == "model_changed"
