"""The checks of exercises 06 and 10, proven both ways.

For every exercise: plausible wrong solutions, each failing with a hint that names its own
mistake (and each message different), and equivalent correct solutions that pass. The
requirements each check enforces are listed in the docstrings of
`course_helpers.checks.stop_reasons` and `course_helpers.checks.count_cost`.
"""

from __future__ import annotations

import copy

import pytest

from course_helpers.checks import (
    CheckFailed,
    check_budget_loop,
    check_cache_breakpoints,
    check_cut_offs,
    check_pause_and_refusal,
    check_recover_cut_off,
)
from course_helpers.client import MODEL
from course_helpers.cost import Budget, billed, billed_input
from course_helpers.dispatch import run_tool
from course_helpers.loop import drop_refused_turn, run_agent, tool_calls
from course_helpers.offline.models import CATALOGUE

CONTINUE = "Continue exactly where you stopped, without repeating anything or apologising."


def failure_of(check, function) -> str:
    with pytest.raises(CheckFailed) as failure:
        check(function)
    text = str(failure.value)
    assert "\nHint: " in text, text
    return text


def assert_each_fails_its_own_way(check, variants: dict) -> None:
    messages = {}
    for label, (function, expected) in variants.items():
        text = failure_of(check, function)
        assert expected in text, f"{label}: unexpected message {text!r}"
        messages[label] = text
    assert len(set(messages.values())) == len(messages), messages


def assert_passes(check, function, capsys) -> None:
    check(function)
    assert "passed" in capsys.readouterr().out


# -- 06 · recover_cut_off --------------------------------------------------------------------


def _has_call(response) -> bool:
    return any(b.type == "tool_use" for b in response.content)


def recover_good(messages, response, max_tokens, ceiling):
    if not _has_call(response) and any(b.type == "text" for b in response.content):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": CONTINUE})
        return min(max_tokens * 4, ceiling)
    return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)


def recover_doubling_dicts(messages, response, max_tokens, ceiling):
    """Equivalent: dict blocks, the same limit for text, doubling for calls, an early return."""
    if _has_call(response):
        if max_tokens == ceiling:
            return None
        return min(2 * max_tokens, ceiling)
    blocks = [block.model_dump() for block in response.content]
    messages.extend(
        [
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": [{"type": "text", "text": "Please go on."}]},
        ]
    )
    return max_tokens


def recover_throws_text_away(messages, response, max_tokens, ceiling):
    return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)


def recover_keeps_text_only(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        kept = [b for b in response.content if b.type == "text"]
        messages.append({"role": "assistant", "content": kept})
        messages.append({"role": "user", "content": CONTINUE})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_does_not_ask(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_asks_for_it_again(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "That was too short. Write the essay again."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_keeps_the_cut_call(messages, response, max_tokens, ceiling):
    messages.append({"role": "assistant", "content": response.content})
    if _has_call(response):
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": "not run", "is_error": True}
            for b in tool_calls(response)
        ]
        messages.append({"role": "user", "content": results})
    else:
        messages.append({"role": "user", "content": CONTINUE})
    return min(max_tokens * 4, ceiling)


def recover_same_limit(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_uncapped(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return max_tokens * 4
    return recover_good(messages, response, max_tokens, ceiling)


def recover_never_stops(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return min(max_tokens * 4, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


def test_06_recover_cut_off_correct_variants_pass(capsys) -> None:
    assert_passes(check_recover_cut_off, recover_good, capsys)
    assert_passes(check_recover_cut_off, recover_doubling_dicts, capsys)


def test_06_recover_cut_off_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_recover_cut_off,
        {
            "text thrown away": (recover_throws_text_away, "appended nothing"),
            "thinking dropped": (recover_keeps_text_only, "missing: ['thinking']"),
            "no request to go on": (recover_does_not_ask, "ends with the assistant's turn"),
            "asks to start again": (recover_asks_for_it_again, "started the essay again"),
            "cut call kept": (recover_keeps_the_cut_call, "was added to the history"),
            "same limit": (recover_same_limit, "would be cut off again"),
            "uncapped": (recover_uncapped, "above the model's maximum"),
            "never stops": (recover_never_stops, "return None when max_tokens has reached"),
        },
    )


# -- 06 · run_controlled ---------------------------------------------------------------------


def make_controller(
    recover=recover_good,
    *,
    count_retries=True,
    run_cut_calls=False,
    drop_refused=True,
    user_message_on_pause=False,
    stop_at_ceiling=True,
    calls_only=False,
    on_refusal=None,
):
    """A run_controlled built from switches: the default is a correct one."""

    def run_controlled(
        client, messages, tools, *, max_tokens=1024, ceiling=128_000, max_steps=10, server_tools=()
    ):
        definitions = [t.definition() for t in tools.values()] + list(server_tools)
        steps = 0
        while steps < max_steps:
            request = {"model": MODEL, "max_tokens": max_tokens, "messages": messages}
            if definitions:
                request["tools"] = definitions
            response = client.messages.create(**request)
            steps += 1
            reason = response.stop_reason
            if reason == "max_tokens" and run_cut_calls and _has_call(response):
                reason = "tool_use"
            if reason == "tool_use":
                kept = tool_calls(response) if calls_only else response.content
                messages.append({"role": "assistant", "content": kept})
                results = [run_tool(tools, c) for c in tool_calls(response)]
                messages.append({"role": "user", "content": results})
            elif reason == "max_tokens":
                if not count_retries:
                    steps -= 1
                raised = recover(messages, response, max_tokens, ceiling)
                if raised is None:
                    if stop_at_ceiling:
                        return "max_tokens"
                    raised = ceiling
                max_tokens = raised
            elif reason == "pause_turn":
                messages.append({"role": "assistant", "content": response.content})
                if user_message_on_pause:
                    messages.append({"role": "user", "content": "Please continue."})
            elif reason == "refusal":
                if on_refusal is not None:
                    on_refusal(messages)
                elif drop_refused:
                    del messages[-1:]
                return "refusal"
            else:
                messages.append({"role": "assistant", "content": response.content})
                return reason
        return "step_limit"

    return run_controlled


def recover_keep_limit_for_text(messages, response, max_tokens, ceiling):
    """Equivalent: cut-off text is continued with the same max_tokens (more calls, fine)."""
    if _has_call(response):
        return None if max_tokens >= ceiling else min(max_tokens * 3, ceiling)
    messages.append({"role": "assistant", "content": response.content})
    messages.append({"role": "user", "content": "You were cut off: continue where you stopped."})
    return max_tokens


def recover_regenerates(messages, response, max_tokens, ceiling):
    """Wrong in the loop: cut-off text is dropped and the answer asked for again."""
    if _has_call(response) and max_tokens >= ceiling:
        return None
    return min(max_tokens * 4, ceiling)


def test_06_run_controlled_correct_variants_pass(capsys) -> None:
    assert_passes(check_cut_offs, make_controller(), capsys)
    assert_passes(check_cut_offs, make_controller(recover_keep_limit_for_text), capsys)
    assert_passes(check_pause_and_refusal, make_controller(), capsys)
    assert_passes(check_pause_and_refusal, make_controller(on_refusal=drop_refused_turn), capsys)


def test_06_run_controlled_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_cut_offs,
        {
            "runs the cut call": (make_controller(run_cut_calls=True), "your loop ran get_diff"),
            "uncapped": (make_controller(recover_uncapped), "the API refuses that request"),
            "retries at the ceiling": (
                make_controller(stop_at_ceiling=False),
                "retrying with the same room only repeats the cut",
            ),
            "free retries": (make_controller(count_retries=False), "were not counted"),
            "regenerates text": (make_controller(recover_regenerates), "written again"),
            "keeps only the tool calls": (
                make_controller(calls_only=True),
                # A model that refuses forced tool use never writes a turn without its thinking
                # block, so the API itself refuses the cut history; elsewhere the check says it.
                "left out: ['thinking', 'text']"
                if CATALOGUE[MODEL].forced_tool_choice
                else "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
            ),
        },
    )
    assert_each_fails_its_own_way(
        check_pause_and_refusal,
        {
            "refused turn kept": (make_controller(drop_refused=False), "still in the history:"),
            "whole history cleared": (
                make_controller(on_refusal=list.clear),
                "the 2 messages before the refused turn are gone",
            ),
            "an answer of its own after the refusal": (
                make_controller(
                    on_refusal=lambda m: m.append(
                        {"role": "assistant", "content": "I can't help with that."}
                    )
                ),
                "still in the history (with an answer after it)",
            ),
            "user message on pause": (
                make_controller(user_message_on_pause=True),
                "added a user message before resending",
            ),
        },
    )


# -- 10 · add_breakpoints --------------------------------------------------------------------

MARK = {"type": "ephemeral"}


def _dicts(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [
        b if isinstance(b, dict) else b.model_dump(mode="json", exclude_none=True) for b in content
    ]


def _mark_last(message: dict) -> dict:
    content = [dict(b) for b in _dicts(message["content"])]
    content[-1]["cache_control"] = MARK
    return {**message, "content": content}


def breakpoints_good(request: dict) -> dict:
    marked = dict(request)
    if request.get("tools"):
        marked["tools"] = [*request["tools"][:-1], {**request["tools"][-1], "cache_control": MARK}]
    system = [dict(b) for b in _dicts(request.get("system") or [])]
    if system:
        system[0]["cache_control"] = MARK  # the handbook: the part that never changes
        marked["system"] = system
    messages = list(request["messages"])
    messages[-1] = _mark_last(messages[-1])
    marked["messages"] = messages
    return marked


def breakpoints_handbook_and_end_only(request: dict) -> dict:
    """Equivalent: no marker on the tools (the handbook's marker covers them: they come first),
    a deep copy, and the fourth marker on the message before the previous assistant turn."""
    marked = copy.deepcopy(request)
    if marked.get("system"):
        marked["system"] = _dicts(marked["system"])
        marked["system"][0]["cache_control"] = MARK
    messages = marked["messages"]
    for index in {len(messages) - 1, len(messages) - 3}:
        if index >= 0:
            messages[index] = _mark_last(messages[index])
    return marked


def breakpoints_last_message_only(request: dict) -> dict:
    marked = dict(request)
    messages = list(request["messages"])
    messages[-1] = _mark_last(messages[-1])
    marked["messages"] = messages
    return marked


def breakpoints_last_system_block(request: dict) -> dict:
    """What `with_cache` does: a marker on the last system block, here the day's note."""
    from course_helpers.cost import with_cache

    return with_cache(request)


def breakpoints_fixed_start_only(request: dict) -> dict:
    marked = breakpoints_good(request)
    marked["messages"] = request["messages"]
    return marked


def breakpoints_in_place(request: dict) -> dict:
    messages = request["messages"]
    messages[-1] = _mark_last(messages[-1])
    return request


def breakpoints_everywhere(request: dict) -> dict:
    marked = breakpoints_good(request)
    marked["messages"] = [_mark_last(m) for m in request["messages"]]
    return marked


def test_10_add_breakpoints_correct_variants_pass(capsys) -> None:
    assert_passes(check_cache_breakpoints, breakpoints_good, capsys)
    assert_passes(check_cache_breakpoints, breakpoints_handbook_and_end_only, capsys)


def test_10_add_breakpoints_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_cache_breakpoints,
        {
            "last message only": (breakpoints_last_message_only, "paid for again in full"),
            "after the day's note": (breakpoints_last_system_block, "but not the handbook"),
            "fixed start only": (breakpoints_fixed_start_only, "only the fixed start"),
            "changes the request": (breakpoints_in_place, "changed the request it was given"),
            "too many": (breakpoints_everywhere, "at most 4"),
        },
    )


# -- 10 · run_on_budget ----------------------------------------------------------------------


def make_budget_loop(*, estimate="last plus growth", cost=billed, check_after=False, margin=1.0):
    def run_on_budget(client, messages, tools, *, system, limit, max_steps=40):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        costs: list[float] = []
        for _ in range(max_steps):
            if not check_after:
                next_call = costs[-1] if costs else 0.0
                if estimate == "last plus growth" and len(costs) >= 2:
                    next_call += max(0.0, costs[-1] - costs[-2])
                elif estimate == "twice the last minus the one before" and len(costs) >= 2:
                    next_call = max(costs[-1], 2 * costs[-1] - costs[-2])
                if sum(costs) + margin * next_call > limit:
                    return "budget_limit"
            response = client.messages.create(
                model=MODEL, max_tokens=1024, system=system, tools=definitions, messages=messages
            )
            costs.append(cost(response.usage))
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason != "tool_use":
                return response.stop_reason
            results = [run_tool(registry, b) for b in tool_calls(response)]
            messages.append({"role": "user", "content": results})
            if check_after and sum(costs) > limit:
                return "budget_limit"
        return "step_limit"

    return run_on_budget


def make_budget_loop_stopping_mid_turn():
    inner = make_budget_loop()

    def run_on_budget(client, messages, tools, *, system, limit, max_steps=40):
        ending = inner(client, messages, tools, system=system, limit=limit, max_steps=max_steps)
        if ending == "budget_limit" and messages[-1]["role"] == "user":
            messages.pop()  # drops the last results: the tool_use above them is unanswered
        return ending

    return run_on_budget


def test_10_run_on_budget_correct_variants_pass(capsys) -> None:
    assert_passes(check_budget_loop, make_budget_loop(), capsys)
    assert_passes(
        check_budget_loop, make_budget_loop(estimate="twice the last minus the one before"), capsys
    )
    # Equivalent: the course's own loop with notebook 10's Budget.
    assert_passes(check_budget_loop, budget_through_run_agent, capsys)


def budget_through_run_agent(client, messages, tools, *, system, limit, max_steps=40):
    run = run_agent(
        client,
        messages=messages,
        tools=tools,
        system=system,
        max_tokens=1024,
        max_steps=max_steps,
        budget=Budget(limit=limit),
    )
    return run.ending


def test_10_run_on_budget_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_budget_loop,
        {
            "checked after the call": (make_budget_loop(check_after=True), "went over the budget"),
            "last call only": (make_budget_loop(estimate="last only"), "the last call alone"),
            "input only": (make_budget_loop(cost=billed_input), "output tokens"),
            "large margin": (make_budget_loop(margin=3.0), "though"),
            "stops mid-turn": (make_budget_loop_stopping_mid_turn(), "broken history"),
        },
    )
