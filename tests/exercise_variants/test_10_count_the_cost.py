"""Exercise 10's checks, proven both ways.

The exercise: `notebooks/exercises/10_count_the_cost_exercises.ipynb`. Plausible wrong solutions,
written as a learner would write them in the exercise notebook, fail with a message that names
their own mistake (and each message different); equivalent correct solutions pass. The requirements
the checks enforce are listed in the docstring of `course_helpers.exercise_checks.count_cost`.
"""

from __future__ import annotations

import copy

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    check_budget_loop,
    check_cache_breakpoints,
)
from course_helpers.lessons.agent import run_agent, tool_calls
from course_helpers.lessons.cost import Budget, billed, billed_input
from course_helpers.lessons.dispatch import dispatch
from exercise_variants.kit import assert_each_fails_its_own_way, assert_passes, failure_of

CONTINUE = "Continue exactly where you stopped, without repeating anything or apologising."

# -- add_breakpoints --------------------------------------------------------------------

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


def breakpoints_on_every_tool(request: dict) -> dict:
    """Marks each tool (two in the exercise: four breakpoints in all, five with three tools)."""
    marked = {**request}
    if request.get("tools"):
        marked["tools"] = [{**tool, "cache_control": MARK} for tool in request["tools"]]
    if isinstance(request.get("system"), list):
        marked["system"] = [dict(b) for b in request["system"]]
        marked["system"][0]["cache_control"] = MARK
    marked["messages"] = [*request["messages"][:-1], _mark_last(request["messages"][-1])]
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
            "a breakpoint on every tool": (breakpoints_on_every_tool, "with three tools"),
        },
    )


# -- run_on_budget ----------------------------------------------------------------------


def make_budget_loop(
    *,
    estimate="last plus growth",
    cost=billed,
    check_after=False,
    margin=1.0,
    extra_steps=0,
    stop_unanswered=False,
    streamed=False,
    per_turn=False,
    with_system=True,
    always_end_turn=False,
    split_results=False,
    skip_second=False,
):
    def run_on_budget(client, messages, tools, *, system, limit, max_steps=40):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        costs: list[float] = []
        for step in range(max_steps + extra_steps):
            if not check_after and not (skip_second and step == 1):
                next_call = costs[-1] if costs else 0.0
                if estimate == "last plus growth" and len(costs) >= 2:
                    next_call += max(0.0, costs[-1] - costs[-2])
                elif estimate == "twice the last minus the one before" and len(costs) >= 2:
                    next_call = max(costs[-1], 2 * costs[-1] - costs[-2])
                spent = sum(costs[-1:]) if per_turn else sum(costs)  # per turn: the last bill only
                if spent + margin * next_call > limit:
                    return "budget_limit"
            request = {"model": MODEL, "max_tokens": 1024, "system": system, "tools": definitions}
            if not with_system:
                del request["system"]  # the handbook never reaches the model
            if streamed:
                with client.messages.stream(**request, messages=messages) as stream:
                    response = stream.get_final_message()
            else:
                response = client.messages.create(**request, messages=messages)
            costs.append(cost(response.usage))
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason != "tool_use":
                return "end_turn" if always_end_turn else response.stop_reason
            if stop_unanswered and sum(costs) > limit:
                return "budget_limit"  # before the results: the tool_use stays unanswered
            results = [dispatch(registry, b) for b in tool_calls(response)]
            if split_results:  # one user message per call
                messages.extend({"role": "user", "content": [r]} for r in results)
            else:
                messages.append({"role": "user", "content": results})
            if check_after and sum(costs) > limit:
                return "budget_limit"
        return "step_limit"

    return run_on_budget


def budget_reset_every_turn(client, messages, tools, *, system, limit, max_steps=40):
    """Wrong: `spent` starts again at 0 in every turn, so only the turn's own bill counts."""
    registry = {t.name: t for t in tools}
    definitions = [t.definition() for t in tools]
    last = before = 0.0
    for _ in range(max_steps):
        spent = 0.0
        if spent + last + max(0.0, last - before) > limit:
            return "budget_limit"
        response = client.messages.create(
            model=MODEL, max_tokens=1024, system=system, tools=definitions, messages=messages
        )
        spent += billed(response.usage)
        before, last = last, spent
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response.stop_reason
        results = [dispatch(registry, b) for b in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    return "step_limit"


def make_budget_loop_stopping_mid_turn():
    inner = make_budget_loop()

    def run_on_budget(client, messages, tools, *, system, limit, max_steps=40):
        ending = inner(client, messages, tools, system=system, limit=limit, max_steps=max_steps)
        if ending == "budget_limit" and messages[-1]["role"] == "user":
            messages.pop()  # drops the last results: the tool_use above them is unanswered
        return ending

    return run_on_budget


def test_10_a_budget_reset_every_turn_is_named_with_its_hint() -> None:
    text = failure_of(check_budget_loop, budget_reset_every_turn)
    assert "counts only the current turn; it must count the whole run" in text, text
    assert "keep one total outside the loop" in text, text


def test_10_run_on_budget_correct_variants_pass(capsys) -> None:
    assert_passes(check_budget_loop, make_budget_loop(), capsys)
    assert_passes(
        check_budget_loop, make_budget_loop(estimate="twice the last minus the one before"), capsys
    )
    assert_passes(check_budget_loop, make_budget_loop(streamed=True), capsys)
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
            "budget reset every turn": (
                make_budget_loop(per_turn=True),
                "The budget counts only the current turn; it must count the whole run",
            ),
            "stops before answering an expensive call": (
                make_budget_loop(stop_unanswered=True),
                "cost far more than its estimate",
            ),
            "no system prompt": (make_budget_loop(with_system=False), "without a system prompt"),
        },
    )


def test_10_run_on_budget_mistakes_that_passed_before_fail() -> None:
    assert_each_fails_its_own_way(
        check_budget_loop,
        {
            "every other stop called end_turn": (
                make_budget_loop(always_end_turn=True),
                "stop_reason='max_tokens'",
            ),
            "results split per call": (
                make_budget_loop(split_results=True),
                "separate user messages",
            ),
            "no budget test before the second call": (
                make_budget_loop(skip_second=True),
                "The budget was not asked before the second call",
            ),
        },
    )
