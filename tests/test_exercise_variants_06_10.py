"""The checks of exercises 06 and 10, proven both ways.

For every exercise: plausible wrong solutions, each failing with a hint that names its own
mistake (and each message different), and equivalent correct solutions that pass. The
requirements each check enforces are listed in the docstrings of
`course_helpers.exercise_checks.stop_reasons` and `course_helpers.exercise_checks.count_cost`.
"""

from __future__ import annotations

import copy

import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_budget_loop,
    check_cache_breakpoints,
    check_cut_offs,
    check_pause_and_refusal,
    check_recover_cut_off,
)
from course_helpers.exercise_checks.common import recording_client
from course_helpers.lessons.agent import AgentRun, run_agent, tool_calls
from course_helpers.lessons.controller import CutOff, Ending, Refused, controlled
from course_helpers.lessons.cost import Budget, billed, billed_input
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.history import drop_refused_turn

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
    if _has_call(response) or not any(block.type == "text" for block in response.content):
        if max_tokens == ceiling:
            return None
        return min(2 * max_tokens, ceiling)
    blocks = [block.model_dump() for block in response.content]
    messages.extend(
        [
            {"role": "assistant", "content": blocks},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Please go on from the exact word where you stopped."},
                    {"type": "text", "text": "Don't repeat anything, and no apologies."},
                ],
            },
        ]
    )
    return max_tokens


def recover_bare_continue(messages, response, max_tokens, ceiling):
    """A bare 'Please continue.': no word about repeating or apologising."""
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Please continue."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_no_apology_missing(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Continue where you stopped; do not repeat."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_jumps_to_the_ceiling(messages, response, max_tokens, ceiling):
    """Equivalent: a cut-off call is retried at once with all the room there is."""
    if _has_call(response) or not any(block.type == "text" for block in response.content):
        return None if max_tokens >= ceiling else ceiling
    messages.append({"role": "assistant", "content": response.content})
    messages.append({"role": "user", "content": CONTINUE})
    return max_tokens


def recover_apologises_itself(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Continue. Sorry for the cut!"})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_float_limit(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return None if max_tokens >= ceiling else min(max_tokens * 1.5, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


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


def recover_by_the_last_block(messages, response, max_tokens, ceiling):
    """Decides on the last block: a response with no block at all crashes it."""
    if response.content[-1].type == "tool_use":
        return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


def recover_stops_text_at_the_ceiling(messages, response, max_tokens, ceiling):
    """Checks the ceiling first, for cut-off text too."""
    if max_tokens >= ceiling:
        return None
    return recover_good(messages, response, max_tokens, ceiling)


def test_06_recover_cut_off_correct_variants_pass(capsys) -> None:
    assert_passes(check_recover_cut_off, recover_good, capsys)
    assert_passes(check_recover_cut_off, recover_doubling_dicts, capsys)
    assert_passes(check_recover_cut_off, recover_jumps_to_the_ceiling, capsys)


def test_06_recover_cut_off_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_recover_cut_off,
        {
            "text thrown away": (recover_throws_text_away, "appended nothing"),
            "a bare 'Please continue.'": (
                recover_bare_continue,
                "not to repeat itself or not to apologise",
            ),
            "sorry, continue": (recover_apologises_itself, "'Continue. Sorry for the cut!'"),
            "a float limit": (recover_float_limit, "a whole number of tokens"),
            "no word about apologies": (
                recover_no_apology_missing,
                "does not tell the model not to apologise",
            ),
            "thinking dropped": (recover_keeps_text_only, "missing: ['thinking']"),
            "no request to go on": (recover_does_not_ask, "ends with the assistant's turn"),
            "asks to start again": (recover_asks_for_it_again, "started the essay again"),
            "cut call kept": (recover_keeps_the_cut_call, "was added to the history"),
            "same limit": (recover_same_limit, "would be cut off again"),
            "uncapped": (recover_uncapped, "above the model's maximum"),
            "never stops": (recover_never_stops, "return None when max_tokens has reached"),
            "decides on the last block": (
                recover_by_the_last_block,
                "cut off before any text (no content at all)",
            ),
            "stops cut-off text at the ceiling": (
                recover_stops_text_at_the_ceiling,
                "with a ceiling of 64",
            ),
        },
    )


# -- 06 · control: a wrapper of notebook 04's sample seam ------------------------------------


def make_controller(
    recover=recover_good,
    *,
    on_cut_call="recover",
    use_raised_limit=True,
    at_ceiling="raise",
    on_step_limit="raise",
    pass_max_tokens=True,
    other_client=None,
    on_pause="resend",
    on_refusal=None,
    refusal="raise",
):
    """A `control(sample, *, max_tokens, ceiling)` built from switches: the default is correct.

    on_cut_call: "recover" | "run" (passed to the loop as a call) | "hand back" (to the loop);
    at_ceiling: "raise" | "retry" (with the ceiling) | "hand back";
    on_step_limit: "raise" | "retry" (catches every exception and calls again) | "hand back";
    on_pause: "resend" | "ask" (a user message first) | "hand back" | "forget" (resends without
    the paused turn);
    refusal: "raise" | "hand back" | "retry"; on_refusal(messages) replaces taking out the turn.
    """

    def control(sample, *, max_tokens=1024, ceiling=128_000):
        limit = max_tokens

        def sample_controlled(messages, **changes):
            nonlocal limit
            last = None
            while True:
                if other_client is not None:
                    response = other_client.messages.create(
                        model=MODEL, max_tokens=limit, messages=messages
                    )
                else:
                    request = {**changes, "max_tokens": limit} if pass_max_tokens else changes
                    try:
                        response = sample(messages, **request)
                    except Exception:
                        if on_step_limit == "retry":
                            continue
                        if on_step_limit == "hand back" and last is not None:
                            return last
                        raise
                last = response
                reason = response.stop_reason
                if reason == "max_tokens" and _has_call(response) and on_cut_call != "recover":
                    if on_cut_call == "run":
                        return response.model_copy(update={"stop_reason": "tool_use"})
                    return response
                if reason == "max_tokens":
                    raised = recover(messages, response, limit, ceiling)
                    if raised is None:
                        if at_ceiling == "raise":
                            raise CutOff(f"still cut off at max_tokens={limit}")
                        if at_ceiling == "hand back":
                            return response
                        raised = ceiling
                    if use_raised_limit:
                        limit = raised
                elif reason == "pause_turn":
                    if on_pause == "hand back":
                        return response
                    if on_pause == "forget":
                        continue  # resends the same request: the paused work is lost
                    messages.append({"role": "assistant", "content": response.content})
                    if on_pause == "ask":
                        messages.append({"role": "user", "content": "Please continue."})
                elif reason == "refusal":
                    if refusal == "retry":
                        continue
                    if refusal == "hand back":
                        return response
                    if on_refusal is not None:
                        on_refusal(messages)
                    else:
                        del messages[-1:]
                    raise Refused("the model declined")
                else:
                    return response

        return sample_controlled

    return control


class TooLong(Ending):
    kind = "max_tokens"


class Declined(Ending):
    kind = "refusal"


def control_per_turn(sample, *, max_tokens=1024, ceiling=128_000):
    """Equivalent: recursion instead of a while loop, a limit that starts again at max_tokens
    every turn, endings of its own (subclasses of Ending), and notebook 06's drop_refused_turn."""

    def sample_controlled(messages, limit=max_tokens, **changes):
        response = sample(messages, **changes, max_tokens=limit)
        match response.stop_reason:
            case "max_tokens":
                more = recover_good(messages, response, limit, ceiling)
                if more is None:
                    raise TooLong(f"no room left at {limit}")
                return sample_controlled(messages, more, **changes)
            case "pause_turn":
                messages.append({"role": "assistant", "content": response.content})
                return sample_controlled(messages, limit, **changes)
            case "refusal":
                drop_refused_turn(messages)
                raise Declined(str(response.stop_details))
        return response

    return sample_controlled


def control_of_the_course(sample, *, max_tokens=1024, ceiling=128_000):
    """Equivalent: notebook 06's own controller, with a record of its own."""
    return controlled(sample, AgentRun([]), max_tokens=max_tokens, ceiling=lambda: ceiling)


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


def test_06_control_correct_variants_pass(capsys) -> None:
    for control in (
        make_controller(),
        make_controller(recover_keep_limit_for_text),
        make_controller(recover_jumps_to_the_ceiling),
        control_per_turn,
        control_of_the_course,
    ):
        assert_passes(check_cut_offs, control, capsys)
    for control in (
        make_controller(),
        make_controller(on_refusal=drop_refused_turn),
        control_per_turn,
        control_of_the_course,
    ):
        assert_passes(check_pause_and_refusal, control, capsys)


def test_06_control_wrong_variants_fail_with_their_own_hint() -> None:
    other_client, _ = recording_client()
    assert_each_fails_its_own_way(
        check_cut_offs,
        {
            "runs the cut call": (make_controller(on_cut_call="run"), "the loop ran get_diff"),
            "hands the cut call to the loop": (
                make_controller(on_cut_call="hand back"),
                "handed a response cut off inside its tool_use to the loop",
            ),
            "ignores the raised limit": (
                make_controller(use_raised_limit=False),
                "it never asked again with more room",
            ),
            "uncapped": (make_controller(recover_uncapped), "the API refuses that request"),
            "retries at the ceiling": (
                make_controller(at_ceiling="retry"),
                "retrying with the same room only repeats the cut",
            ),
            "hands the cut call back at the ceiling": (
                make_controller(at_ceiling="hand back"),
                "when recover_cut_off returns None, raise CutOff",
            ),
            "catches the step limit and retries": (
                make_controller(on_step_limit="retry"),
                "it caught the step limit",
            ),
            "catches the step limit and hands back the last answer": (
                make_controller(on_step_limit="hand back"),
                "expected one call, nothing run, and StepLimitReached",
            ),
            "calls the model with a client of its own": (
                make_controller(other_client=other_client),
                "no request went through the sample the check gave control",
            ),
            "no max_tokens": (
                make_controller(pass_max_tokens=False),
                "called sample without max_tokens",
            ),
            "regenerates text": (make_controller(recover_regenerates), "written again"),
            "continues without the thinking block": (
                make_controller(recover_keeps_text_only),
                "left out: ['thinking']",
            ),
        },
    )
    assert_each_fails_its_own_way(
        check_pause_and_refusal,
        {
            "refused turn kept": (
                make_controller(on_refusal=lambda m: None),
                "still in the history:",
            ),
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
            "refusal handed to the loop": (
                make_controller(refusal="hand back"),
                "handed the refusal to the loop",
            ),
            "refusal resent": (make_controller(refusal="retry"), "same refusal"),
            "user message on pause": (
                make_controller(on_pause="ask"),
                "added a user message before resending",
            ),
            "pause handed to the loop": (
                make_controller(on_pause="hand back"),
                "did not call the model again",
            ),
            "pause resent without the paused turn": (
                make_controller(on_pause="forget"),
                "resent the same request without the paused turn",
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
    from course_helpers.lessons.cost import with_cache

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


def make_budget_loop(
    *,
    estimate="last plus growth",
    cost=billed,
    check_after=False,
    margin=1.0,
    extra_steps=0,
    stop_unanswered=False,
):
    def run_on_budget(client, messages, tools, *, system, limit, max_steps=40):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        costs: list[float] = []
        for _ in range(max_steps + extra_steps):
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
            if stop_unanswered and sum(costs) > limit:
                return "budget_limit"  # before the results: the tool_use stays unanswered
            results = [dispatch(registry, b) for b in tool_calls(response)]
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
        wrap_sample=Budget(limit=limit),
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
            "one step too many": (
                make_budget_loop(extra_steps=1),
                "expected 3 calls, then 'step_limit'",
            ),
            "plain tokens": (
                make_budget_loop(cost=lambda u: u.input_tokens + u.output_tokens),
                "counted as plain tokens",
            ),
            "stops before answering an expensive call": (
                make_budget_loop(stop_unanswered=True),
                "cost far more than its estimate",
            ),
        },
    )
