"""The beta `context_management` field: the edits apply before the model reads the prompt.

Through the real SDK (strict response validation): `clear_tool_uses_20250919` clears old tool
results, so the course model no longer has what they held; usage and `count_tokens` count the
edited prompt; `applied_edits` arrives in the message and in the stream's `message_delta`.
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest

from course_helpers.offline import CourseModelApp
from course_helpers.offline.context_management import CLEARED
from course_helpers.offline.engine import CourseModel

BETA = ["context-management-2025-06-27"]
PARIS = "18°C, light rain over the old town, wind from the west at 20 km/h. " * 8
TOKYO = "24°C, sunny."
CLEAR = "clear_tool_uses_20250919"
COMPACT = "compact_20260112"


def _clear(**fields: Any) -> dict:
    return {"edits": [{"type": CLEAR, **fields}]}


def _trigger(value: int, kind: str = "input_tokens") -> dict:
    return {"type": kind, "value": value}


def _keep(value: int) -> dict:
    return {"type": "tool_uses", "value": value}


@pytest.fixture
def history(client, kit) -> list[dict]:
    """A weather question, the model's two parallel calls, and their results (Paris's long)."""
    messages = [kit.user(kit.WEATHER_QUESTION)]
    first = client.messages.create(
        model=kit.MODEL, max_tokens=1024, messages=messages, tools=[kit.GET_WEATHER]
    )
    calls = [b for b in first.content if b.type == "tool_use"]
    assert [c.input["city"] for c in calls] == ["Paris", "Tokyo"]
    messages.append(
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    )
    results = {"Paris": PARIS, "Tokyo": TOKYO}
    messages.append(
        kit.user(
            [
                {"type": "tool_result", "tool_use_id": c.id, "content": results[c.input["city"]]}
                for c in calls
            ]
        )
    )
    return messages


def _create(client, kit, messages: list[dict], **extra: Any):
    return client.beta.messages.create(
        model=kit.MODEL,
        max_tokens=1024,
        messages=messages,
        tools=[kit.GET_WEATHER],
        betas=BETA,
        **extra,
    )


def _count(client, kit, messages: list[dict], **extra: Any):
    return client.beta.messages.count_tokens(
        model=kit.MODEL, messages=messages, tools=[kit.GET_WEATHER], betas=BETA, **extra
    )


def _answer(message) -> str:
    return "".join(b.text for b in message.content if b.type == "text")


def _refusal(client, kit, config: Any) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        _create(client, kit, [kit.user("Hello")], context_management=config)
    return caught.value.body["error"]["message"]


# -- clearing ------------------------------------------------------------------------------
def test_without_the_edit_the_model_answers_from_every_result(client, kit, history):
    message = _create(client, kit, history)
    assert PARIS.strip() in _answer(message) and TOKYO in _answer(message)
    assert message.context_management is None


def test_cleared_results_are_gone_for_the_model(client, kit, history):
    sent = copy.deepcopy(history)
    config = _clear(trigger=_trigger(100), keep=_keep(1))
    message = _create(client, kit, history, context_management=config)
    answer = _answer(message)
    assert "18°C" not in answer and "light rain" not in answer  # Paris's result was cleared
    assert TOKYO in answer and CLEARED in answer  # the kept result, and the cleared marker
    assert history == sent  # the edit is the server's: the caller's history is untouched
    (edit,) = message.context_management.applied_edits
    assert (edit.type, edit.cleared_tool_uses) == (CLEAR, 1)
    full = _count(client, kit, history).input_tokens
    assert edit.cleared_input_tokens > 100  # Paris's long result, minus the marker
    assert message.usage.input_tokens == full - edit.cleared_input_tokens


def test_count_tokens_reports_the_edited_and_the_original_count(client, kit, history):
    config = _clear(trigger=_trigger(100), keep=_keep(1))
    full = _count(client, kit, history)
    counted = _count(client, kit, history, context_management=config)
    assert full.context_management is None
    assert counted.context_management.original_input_tokens == full.input_tokens
    created = _create(client, kit, history, context_management=config)
    assert counted.input_tokens == created.usage.input_tokens < full.input_tokens


def test_the_stream_reports_applied_edits_in_message_delta(client, kit, history):
    config = _clear(trigger=_trigger(100), keep=_keep(0))
    created = _create(client, kit, history, context_management=config)
    with client.beta.messages.stream(
        model=kit.MODEL,
        max_tokens=1024,
        messages=history,
        tools=[kit.GET_WEATHER],
        betas=BETA,
        context_management=config,
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    (start,) = [e for e in events if e.type == "message_start"]
    (delta,) = [e for e in events if e.type == "message_delta"]
    assert start.message.context_management is None
    assert delta.context_management == created.context_management
    assert final.context_management == created.context_management
    assert created.context_management.applied_edits[0].cleared_tool_uses == 2
    assert final.usage.input_tokens == created.usage.input_tokens
    assert TOKYO not in _answer(final) and "18°C" not in _answer(final)


def test_below_the_trigger_nothing_is_cleared(client, kit, history):
    full = _count(client, kit, history).input_tokens
    message = _create(
        client, kit, history, context_management=_clear(trigger=_trigger(full), keep=_keep(0))
    )
    assert message.context_management.applied_edits == []
    assert PARIS.strip() in _answer(message)
    assert message.usage.input_tokens == full


def test_the_default_trigger_is_far_above_a_short_history(client, kit, history):
    message = _create(client, kit, history, context_management=_clear())
    assert message.context_management.applied_edits == []
    assert PARIS.strip() in _answer(message)


def test_a_tool_uses_trigger_counts_the_calls(client, kit, history):
    two = _create(client, kit, history, context_management=_clear(trigger=_trigger(2, "tool_uses")))
    assert two.context_management.applied_edits == []  # two calls: not more than 2
    one = _create(
        client,
        kit,
        history,
        context_management=_clear(trigger=_trigger(1, "tool_uses"), keep=_keep(1)),
    )
    assert one.context_management.applied_edits[0].cleared_tool_uses == 1


def test_clear_at_least_leaves_the_prompt_alone_when_too_little_would_go(client, kit, history):
    freed = (
        _create(
            client, kit, history, context_management=_clear(trigger=_trigger(10), keep=_keep(1))
        )
        .context_management.applied_edits[0]
        .cleared_input_tokens
    )
    least = {"type": "input_tokens", "value": freed + 1}
    message = _create(
        client,
        kit,
        history,
        context_management=_clear(trigger=_trigger(10), keep=_keep(1), clear_at_least=least),
    )
    assert message.context_management.applied_edits == []
    assert PARIS.strip() in _answer(message)
    enough = {"type": "input_tokens", "value": freed}
    message = _create(
        client,
        kit,
        history,
        context_management=_clear(trigger=_trigger(10), keep=_keep(1), clear_at_least=enough),
    )
    assert message.context_management.applied_edits[0].cleared_input_tokens == freed


def test_excluded_tools_keep_their_results(client, kit, history):
    config = _clear(trigger=_trigger(10), keep=_keep(0), exclude_tools=["get_weather"])
    message = _create(client, kit, history, context_management=config)
    assert message.context_management.applied_edits == []
    assert PARIS.strip() in _answer(message)


def test_clear_tool_inputs_clears_the_calls_too(client, kit, history):
    plain = _clear(trigger=_trigger(10), keep=_keep(0))
    inputs = _clear(trigger=_trigger(10), keep=_keep(0), clear_tool_inputs=True)
    named = _clear(trigger=_trigger(10), keep=_keep(0), clear_tool_inputs=["get_weather"])
    other = _clear(trigger=_trigger(10), keep=_keep(0), clear_tool_inputs=["search"])
    counts = {
        name: _count(client, kit, history, context_management=config).input_tokens
        for name, config in (
            ("plain", plain),
            ("inputs", inputs),
            ("named", named),
            ("other", other),
        )
    }
    assert counts["inputs"] == counts["named"] < counts["plain"] == counts["other"]


def test_edits_run_in_order_on_what_the_previous_one_left(client, kit, history):
    config = {
        "edits": [
            {"type": CLEAR, "trigger": _trigger(10), "keep": _keep(1)},
            {"type": CLEAR, "trigger": _trigger(10), "keep": _keep(0)},
        ]
    }
    message = _create(client, kit, history, context_management=config)
    first, second = message.context_management.applied_edits
    assert (first.cleared_tool_uses, second.cleared_tool_uses) == (1, 2)
    assert TOKYO not in _answer(message)


# -- clear_thinking_20251015 -------------------------------------------------------------------
def test_clear_thinking_keeps_the_thinking_of_the_last_turn_only(client, kit, history):
    answer = client.messages.create(
        model=kit.MODEL, max_tokens=1024, messages=history, tools=[kit.GET_WEATHER]
    )
    assert answer.content[0].type == "thinking"  # the model thinks adaptively, by default
    messages = [
        *history,
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]},
        kit.user("Thanks! Which city is warmer?"),
    ]
    full = _count(client, kit, messages).input_tokens
    config = {"edits": [{"type": "clear_thinking_20251015"}]}
    counted = _count(client, kit, messages, context_management=config)
    message = _create(client, kit, messages, context_management=config)
    (edit,) = message.context_management.applied_edits
    assert (edit.type, edit.cleared_thinking_turns) == ("clear_thinking_20251015", 1)
    assert edit.cleared_input_tokens > 0
    assert message.usage.input_tokens == counted.input_tokens == full - edit.cleared_input_tokens
    for keep in ("all", {"type": "all"}, {"type": "thinking_turns", "value": 2}):
        kept = {"edits": [{"type": "clear_thinking_20251015", "keep": keep}]}
        again = _create(client, kit, messages, context_management=kept)
        assert again.context_management.applied_edits == []
        assert again.usage.input_tokens == full


# -- what the SDK's types allow ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("clear", "context_management: Input should be a valid dictionary"),
        ({"edit": []}, "context_management.edit: Extra inputs are not permitted"),
        ({"edits": {}}, "context_management.edits: Input should be a valid list"),
        (
            {"edits": [{}]},
            "context_management.edits.0: Unable to extract tag using discriminator 'type'",
        ),
        (
            {"edits": [{"type": "clear_everything"}]},
            "context_management.edits.0: Input tag 'clear_everything' found using 'type' does "
            "not match any of the expected tags: 'clear_thinking_20251015', "
            "'clear_tool_uses_20250919', 'compact_20260112'",
        ),
        (
            _clear(keep=3),
            f"context_management.edits.0.{CLEAR}.keep: Input should be a valid dictionary",
        ),
        (
            _clear(keep={"type": "input_tokens", "value": 3}),
            f"context_management.edits.0.{CLEAR}.keep.type: Input should be 'tool_uses'",
        ),
        (
            _clear(keep={"type": "tool_uses"}),
            f"context_management.edits.0.{CLEAR}.keep.value: Field required",
        ),
        (
            _clear(trigger={"type": "messages", "value": 3}),
            f"context_management.edits.0.{CLEAR}.trigger: Input tag 'messages' found using "
            "'type' does not match any of the expected tags: 'input_tokens', 'tool_uses'",
        ),
        (
            _clear(trigger={"type": "input_tokens", "value": "1000"}),
            f"context_management.edits.0.{CLEAR}.trigger.input_tokens.value: Input should be a "
            "valid integer",
        ),
        (
            _clear(clear_at_least={"type": "tool_uses", "value": 1}),
            f"context_management.edits.0.{CLEAR}.clear_at_least.type: Input should be "
            "'input_tokens'",
        ),
        (
            _clear(exclude_tools="get_weather"),
            f"context_management.edits.0.{CLEAR}.exclude_tools: Input should be a valid list",
        ),
        (
            _clear(clear_tool_inputs=[1]),
            f"context_management.edits.0.{CLEAR}.clear_tool_inputs.0: Input should be a valid "
            "string",
        ),
        (
            _clear(placeholder="[gone]"),
            f"context_management.edits.0.{CLEAR}.placeholder: Extra inputs are not permitted",
        ),
        (
            {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "turns", "value": 1}}]},
            "context_management.edits.0.clear_thinking_20251015.keep: Input tag 'turns' found "
            "using 'type' does not match any of the expected tags: 'all', 'thinking_turns'",
        ),
        (
            {"edits": [{"type": "compact_20260112", "pause_after_compaction": "yes"}]},
            "context_management.edits.0.compact_20260112.pause_after_compaction: Input should "
            "be a valid boolean",
        ),
        (
            {"edits": [{"type": COMPACT, "instructions": 3}]},
            f"context_management.edits.0.{COMPACT}.instructions: Input should be a valid string",
        ),
        (
            {"edits": [{"type": COMPACT, "keep": _keep(2)}]},
            f"context_management.edits.0.{COMPACT}.keep: Extra inputs are not permitted",
        ),
        (
            {"edits": [{"type": COMPACT, "trigger": _trigger(60_000, "tool_uses")}]},
            f"context_management.edits.0.{COMPACT}.trigger.type: Input should be 'input_tokens'",
        ),
        (
            {"edits": [{"type": COMPACT, "trigger": {"type": "input_tokens"}}]},
            f"context_management.edits.0.{COMPACT}.trigger.value: Field required",
        ),
        (
            {"edits": [{"type": COMPACT, "trigger": {**_trigger(60_000), "unit": "k"}}]},
            f"context_management.edits.0.{COMPACT}.trigger.unit: Extra inputs are not permitted",
        ),
        (
            {"edits": [{"type": COMPACT, "trigger": _trigger(True)}]},
            f"context_management.edits.0.{COMPACT}.trigger.value: Input should be a valid integer",
        ),
        (
            {"edits": [{"type": COMPACT, "trigger": _trigger(49_999)}]},
            f"context_management.edits.0.{COMPACT}.trigger.value: Input should be greater than "
            "or equal to 50000",
        ),
        (
            {"edits": [{"type": CLEAR}, {"type": COMPACT, "trigger": _trigger(10)}]},
            f"context_management.edits.1.{COMPACT}.trigger.value: Input should be greater than "
            "or equal to 50000",
        ),
    ],
)
def test_a_malformed_edit_is_refused_as_the_sdk_types_say(client, kit, config, expected):
    assert _refusal(client, kit, config) == expected


def test_every_well_formed_edit_is_accepted(client, kit):
    config = {
        "edits": [
            {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
            {
                "type": CLEAR,
                "trigger": _trigger(5, "tool_uses"),
                "keep": _keep(2),
                "clear_at_least": {"type": "input_tokens", "value": 100},
                "exclude_tools": ["get_weather"],
                "clear_tool_inputs": ["get_weather"],
            },
            {
                "type": CLEAR,
                "clear_at_least": None,
                "exclude_tools": None,
                "clear_tool_inputs": None,
            },
            {"type": "compact_20260112", "instructions": None, "trigger": None},
            {
                "type": "compact_20260112",
                "instructions": "Keep file names.",
                "pause_after_compaction": True,
                "trigger": _trigger(50_000),
            },
        ]
    }
    message = _create(client, kit, [kit.user("Hello")], context_management=config)
    assert message.context_management.applied_edits == []
    empty = _create(client, kit, [kit.user("Hello")], context_management={})
    assert empty.context_management.applied_edits == []


def test_clearing_brings_a_prompt_back_inside_the_context_window(kit, history):
    probe = CourseModelApp().client(**kit.STRICT)
    full = _count(probe, kit, history).input_tokens
    config = _clear(trigger=_trigger(100), keep=_keep(1))
    edited = _count(probe, kit, history, context_management=config).input_tokens
    window = (full + edited) // 2  # the full prompt does not fit, the edited one does
    small = CourseModelApp(model=CourseModel(context_window=window)).client(**kit.STRICT)
    with pytest.raises(anthropic.BadRequestError) as caught:
        _create(small, kit, history)
    assert caught.value.body["error"]["message"] == (
        f"prompt is too long: {full} tokens > {window} maximum"
    )
    message = _create(small, kit, history, context_management=config)
    assert message.usage.input_tokens == edited
    assert message.context_management.applied_edits[0].cleared_tool_uses == 1


def test_count_tokens_refuses_a_malformed_edit_too(client, kit):
    with pytest.raises(anthropic.BadRequestError) as caught:
        _count(client, kit, [kit.user("Hello")], context_management=_clear(keep=3))
    assert caught.value.body["error"]["message"] == (
        f"context_management.edits.0.{CLEAR}.keep: Input should be a valid dictionary"
    )


# -- compaction next to other features -----------------------------------------------------------
def test_compaction_cannot_be_combined_with_context_management(client, kit):
    """The SDK's docs for the top-level `compaction` parameter: not with `context_management`."""
    both = {
        "compaction": {"type": "summarize"},
        "context_management": {"edits": [{"type": CLEAR}]},
    }
    with pytest.raises(anthropic.BadRequestError) as caught:
        _create(client, kit, [kit.user("Hello")], extra_body=both)
    assert caught.value.body["error"]["message"] == (
        "compaction: cannot be combined with `context_management`"
    )
    # count_tokens accepts `compaction` and ignores it: the edits still count.
    counted = _count(client, kit, [kit.user("Hello")], extra_body=both)
    assert counted.context_management.original_input_tokens == counted.input_tokens


def test_compact_is_answered_as_if_it_had_not_fired(client, kit, history):
    """Not played: a trigger the prompt passes leaves the prompt whole and reports nothing."""
    plain = _create(client, kit, history)
    config = {"edits": [{"type": COMPACT, "trigger": _trigger(50_000)}]}
    probe = CourseModelApp(model=CourseModel(context_window=2_000_000)).client(**kit.STRICT)
    big = history + [
        {"role": "assistant", "content": "Noted."},
        kit.user("Here is a long note. " + "word " * 60_000),
    ]
    message = _create(probe, kit, big, context_management=config)
    assert message.context_management.applied_edits == []
    assert message.usage.input_tokens == _count(probe, kit, big).input_tokens > 50_000
    assert _answer(plain)


def test_count_tokens_without_betas_sends_the_sdks_own_beta_and_applies_the_edits(kit, history):
    """`client.beta.messages.count_tokens` with no `betas` still sends one beta header."""
    sent: list = []
    client = CourseModelApp().client(**kit.STRICT)
    client._client.event_hooks["request"].append(lambda r: sent.append(r.headers))
    config = _clear(trigger=_trigger(10), keep=_keep(1))
    counted = client.beta.messages.count_tokens(
        model=kit.MODEL, messages=history, tools=[kit.GET_WEATHER], context_management=config
    )
    assert sent[-1].get("anthropic-beta") == "token-counting-2024-11-01"
    full = _count(client, kit, history).input_tokens
    assert counted.context_management.original_input_tokens == full > counted.input_tokens
    with_beta = _count(client, kit, history, context_management=config)
    assert with_beta.input_tokens == counted.input_tokens
    with pytest.raises(anthropic.BadRequestError) as caught:  # the GA method sends no beta
        client.messages.count_tokens(
            model=kit.MODEL, messages=history, extra_body={"context_management": config}
        )
    assert sent[-1].get("anthropic-beta") is None
    assert caught.value.body["error"]["message"] == (
        "context_management: Extra inputs are not permitted"
    )
