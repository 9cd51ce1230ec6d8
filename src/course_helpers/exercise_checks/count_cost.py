"""Course machinery (exercise checks): checks for notebook 10, Count the cost.

What each check enforces (and `tests/exercise_variants/test_10_count_the_cost.py` proves with
wrong and right variants):

`check_cache_breakpoints(add_breakpoints)`, for requests whose system prompt is the handbook
followed by a note that changes every day:
- the request it is given is not changed (markers left in the history pile up);
- at most four breakpoints, in places the API accepts, also on a request with no tools and no
  system prompt, and on one with three tools (a breakpoint per tool fits only with two);
- within a run, the first call writes to the cache and every later call reads everything the
  previous call sent (the breakpoint moves with the conversation);
- a run on another day reads the tools and the handbook from the cache: the breakpoint sits at
  the end of what stays the same, before the day's note.

`check_budget_loop(run_on_budget)`, on the one-log-per-turn audit and several limits:
- the run never spends more than its limit: the decision comes before each call, from the
  bill (input and output) so far plus an estimate of the next call: the last call plus the
  growth between the last two (the one estimate notebook 10's `Budget` uses);
- it does not stop much earlier than it must (no large safety margin);
- it stops between turns, so the history stays valid; a run that fits ends with end_turn;
- with max_steps=3 and room in the budget: three calls, then "step_limit", history valid;
- a call that costs far more than its estimate (its bill inflated) is still answered: the run
  stops at the next decision, between turns, never with a call unanswered;
- a run that counts plain tokens (input plus output) instead of billed() is told so;
- a run whose budget counts only the current turn (a total that starts again every turn) is
  told so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import accumulate
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    api_message,
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
)


def _breakpoints(request: dict) -> int:
    """How many cache_control markers a request carries (everywhere the API counts them)."""
    count = 0

    def visit(value: Any) -> None:
        nonlocal count
        if isinstance(value, dict):
            if value.get("cache_control") is not None:
                count += 1
            for inner in value.values():
                if isinstance(inner, list | dict):
                    visit(inner)
        elif isinstance(value, list):
            for inner in value:
                visit(inner)
        elif hasattr(value, "model_dump"):
            visit(value.model_dump(exclude_none=True))

    visit(request.get("tools"))
    visit(request.get("system"))
    visit(request.get("messages"))
    return count


def day_note(day: str) -> dict:
    """The part of the system prompt that changes every day."""
    return {"type": "text", "text": f"Today is {day}. The week to audit is the one before."}


def audit_request(messages: list, day: str) -> dict:
    """One request of the audit, the system prompt in two blocks: the handbook, the day."""
    from course_helpers.fixtures.delivery_audit import AUDIT_TOOLS, HANDBOOK

    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": [{"type": "text", "text": HANDBOOK}, day_note(day)],
        "tools": [t.definition() for t in AUDIT_TOOLS],
        "messages": messages,
    }


def _fresh_client() -> anthropic.Anthropic:
    """A client of a course model of its own: an empty prompt cache."""
    from course_helpers.offline import CourseModelApp

    return CourseModelApp().client(max_retries=0)


def check_cache_breakpoints(add_breakpoints: Callable) -> None:
    """10 · `add_breakpoints(request)`: a marked copy; each call reads the previous prompt, and
    a run on another day reads the tools and the handbook."""
    __tracebackhide__ = True
    client = _fresh_client()
    usages = _audit_calls(client, add_breakpoints, "Monday 7 December", calls=4)
    _check_cache_usage(usages)
    _check_another_day(client, add_breakpoints)
    _check_three_tools(client, add_breakpoints)
    plain = {"model": MODEL, "max_tokens": 200, "messages": [{"role": "user", "content": "Hello!"}]}
    marked = run_learner(add_breakpoints, plain, name="add_breakpoints")
    try:
        client.messages.create(**marked)
    except anthropic.APIStatusError as error:
        fail(
            "for a request with no tools and no system prompt, add_breakpoints made one the API "
            f"refuses: {api_message(error)}",
            "mark tools and system only when the request has them.",
        )
    passed("add_breakpoints caches what stays the same and the moving end")


EXTRA_TOOL = {
    "name": "list_depots",
    "description": "List the delivery depots by name, one per line.",
    "input_schema": {"type": "object", "properties": {}},
}


def _check_three_tools(client: anthropic.Anthropic, add_breakpoints: Callable) -> None:
    """The same request with a third tool: the breakpoints do not grow with the tools."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK

    request = audit_request([{"role": "user", "content": AUDIT_TASK}], "Monday 7 December")
    request["tools"] = [*request["tools"], EXTRA_TOOL]
    marked = run_learner(add_breakpoints, request, name="add_breakpoints")
    count = _breakpoints(marked) if isinstance(marked, dict) else 0
    marked_tools = sum(1 for t in marked.get("tools") or [] if "cache_control" in t)
    if count > 4:
        fail(
            f"for the same request with three tools, add_breakpoints placed {count} "
            f"cache_control breakpoints ({marked_tools} on tools); the API refuses more than 4. "
            "It fits with the exercise's two tools only by chance.",
            "one breakpoint caches everything before it: mark the last tool (or the handbook "
            "block, which comes after the tools) once, never one per tool.",
        )
    try:
        client.messages.create(**marked)
    except anthropic.APIStatusError as error:
        fail(
            "for the same request with three tools, the API refuses the request add_breakpoints "
            f"made: {api_message(error)}",
            "cache_control goes on a content block, a system block or a tool definition.",
        )


def _audit_calls(
    client: anthropic.Anthropic, add_breakpoints: Callable, day: str, calls: int
) -> list[dict]:
    """The first `calls` calls of the audit, each request marked by the learner's function."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK, AUDIT_TOOLS
    from course_helpers.lessons.agent import tool_calls
    from course_helpers.lessons.dispatch import dispatch

    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    usages: list[dict] = []
    for call in range(1, calls + 1):
        request = audit_request(messages, day)
        before = json.dumps(as_plain(request), sort_keys=True, default=str)
        marked = run_learner(add_breakpoints, request, name="add_breakpoints")
        if json.dumps(as_plain(request), sort_keys=True, default=str) != before:
            fail(
                f"on call {call}, add_breakpoints changed the request it was given (and so the "
                "history): markers pile up turn after turn until the API refuses a fifth.",
                "work on copies: new dicts and lists for what you mark, never the originals.",
            )
        if not isinstance(marked, dict) or "messages" not in marked:
            fail(
                f"add_breakpoints returned {short_repr(marked)}, not a request.",
                "return the marked copy of the request dict.",
            )
        count = _breakpoints(marked)
        if count > 4:
            fail(
                f"on call {call} the request carries {count} cache_control breakpoints; the API "
                "accepts at most 4.",
                "mark the end of what stays the same, and the moving end of the conversation.",
            )
        try:
            response = client.messages.create(**marked)
        except anthropic.APIStatusError as error:
            fail(
                f"the API refuses the request add_breakpoints made on call {call}: "
                f"{api_message(error)}",
                "cache_control goes on a content block, a system block or a tool definition.",
            )
        usages.append(response.usage.model_dump(exclude_none=True))
        if response.stop_reason != "tool_use":
            break
        messages.append({"role": "assistant", "content": response.content})
        results = [dispatch(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    return usages


def _check_cache_usage(usages: list[dict]) -> None:
    __tracebackhide__ = True
    from course_helpers.lessons.cost import prompt_tokens, token_count

    if not token_count(usages[0], "cache_creation_input_tokens"):
        fail(
            "the first call wrote nothing to the cache (cache_creation_input_tokens is 0).",
            "put cache_control: {'type': 'ephemeral'} on a block: the end of what stays the "
            "same, and the last block of the last message.",
        )
    for call in range(2, len(usages) + 1):
        usage, previous = usages[call - 1], usages[call - 2]
        read = token_count(usage, "cache_read_input_tokens")
        if read < prompt_tokens(previous):
            fail(
                f"call {call} read {read:,} tokens from the cache, but the previous call sent "
                f"{prompt_tokens(previous):,}: only the fixed start is cached, and the growing "
                "history is paid in full every turn.",
                "also mark the last block of the last message: the moving end of the conversation.",
            )


def _check_another_day(client: anthropic.Anthropic, add_breakpoints: Callable) -> None:
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import AUDIT_TOOLS, HANDBOOK
    from course_helpers.lessons.cost import token_count

    fixed = client.messages.count_tokens(
        model=MODEL,
        system=[{"type": "text", "text": HANDBOOK}],
        tools=[t.definition() for t in AUDIT_TOOLS],
        messages=[{"role": "user", "content": "x"}],
    ).input_tokens
    (usage,) = _audit_calls(client, add_breakpoints, "Tuesday 8 December", calls=1)
    read = token_count(usage, "cache_read_input_tokens")
    if read >= 0.9 * fixed:
        return
    request = audit_request([{"role": "user", "content": "x"}], "Tuesday 8 December")
    system = run_learner(add_breakpoints, request, name="add_breakpoints").get("system")
    marked = [i for i, b in enumerate(system or []) if isinstance(b, dict) and "cache_control" in b]
    if marked and 0 not in marked:
        fail(
            f"a run on another day read {read:,} tokens from the cache, the tools at most, but "
            f"not the handbook ({fixed:,} tokens with the tools): your marker on the system "
            "prompt sits after the day's note, which changes every day.",
            "mark the handbook's block, the last one that stays the same, not the day's note.",
        )
    fail(
        f"a run on another day read {read:,} tokens from the cache, though the tools and the "
        f"handbook ({fixed:,} tokens) are the same every day: they were paid for again in full.",
        "put a breakpoint at the end of what stays the same: on the handbook, before the "
        "day's note.",
    )


# -- 2. run_on_budget(client, messages, tools, *, system, limit, max_steps) -----------------


def check_budget_loop(run_on_budget: Callable) -> None:
    """10 · `run_on_budget(...)`: stop before the call that would overspend; history stays valid."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import (
        AUDIT_TASK,
        AUDIT_TOOLS,
        HANDBOOK_ONE_PER_TURN,
    )
    from course_helpers.lessons.cost import billed, billed_input

    # What each call of the whole audit costs, measured once without a budget.
    client, recorder = recording_client()
    _run_audit_plainly(client, HANDBOOK_ONE_PER_TURN)
    usages = [r["body"]["usage"] for r in recorder.responses]
    costs = [billed(u) for u in usages]
    totals = list(accumulate(costs))
    # The order matters for the hints: each wrong estimate first overspends at its own limit.
    for limit in (7_500, 22_000, 36_000, 12_000, 42_500, 95_000, 300_000):
        client, recorder = recording_client()
        messages = [{"role": "user", "content": AUDIT_TASK}]
        ending = run_learner(
            run_on_budget,
            client,
            messages,
            AUDIT_TOOLS,
            system=HANDBOOK_ONE_PER_TURN,
            limit=limit,
            name="run_on_budget",
        )
        spent = sum(billed(r["body"]["usage"]) for r in recorder.responses)
        calls = len(recorder.requests)
        fits = sum(1 for total in totals if total <= limit)
        what = f"with limit={limit:,}"
        if spent > limit:
            made = [billed(r["body"]["usage"]) for r in recorder.responses]
            inputs = [billed_input(r["body"]["usage"]) for r in recorder.responses]
            raws = [_raw(r["body"]["usage"]) for r in recorder.responses]
            _explain_overspending(what, limit, made, inputs, raws)
        require_pairing(
            messages,
            f"{what} the run left a broken history",
            "stop between turns, after the results of the last call are appended.",
        )
        if fits == len(totals):
            if ending != "end_turn" or calls != len(totals):
                fail(
                    f"{what} the whole audit fits ({totals[-1]:,.0f}), but the run ended with "
                    f"{short_repr(ending)} after {calls} calls.",
                    "a budget only stops a run that would overspend; otherwise go on to end_turn.",
                )
            continue
        if ending != "budget_limit":
            fail(
                f"{what} the run ended with {short_repr(ending)}, not 'budget_limit'.",
                "return 'budget_limit' when the next call would not fit.",
            )
        if calls < fits - 1:
            fail(
                f"{what} the run stopped after {calls} calls ({spent:,.0f} spent), though "
                f"{fits} calls fit in the budget.",
                "estimate the next call from the last ones, not with a large safety margin.",
            )
    _check_step_limit(run_on_budget)
    _check_surprise_bill(run_on_budget)
    passed("run_on_budget stops before the budget runs out")


class _SurpriseBill:
    """A client whose third answer is billed far above any estimate (a long answer)."""

    def __init__(self, client: anthropic.Anthropic) -> None:
        self._client, self.calls = client, 0
        self.messages = self

    def create(self, **request: Any) -> Any:
        response = self._client.messages.create(**request)
        self.calls += 1
        if self.calls == 3:
            response.usage.output_tokens *= 40
        return response

    def stream(self, **request: Any) -> Any:
        from course_helpers.exercise_checks.common import FinishedStream

        return FinishedStream(self.create(**request))


def _check_surprise_bill(run_on_budget: Callable) -> None:
    """A call dearer than its estimate overspends; the run still stops between turns."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import (
        AUDIT_TASK,
        AUDIT_TOOLS,
        HANDBOOK_ONE_PER_TURN,
    )

    client, _ = recording_client()
    surprising = _SurpriseBill(client)
    messages = [{"role": "user", "content": AUDIT_TASK}]
    ending = run_learner(
        run_on_budget,
        surprising,
        messages,
        AUDIT_TOOLS,
        system=HANDBOOK_ONE_PER_TURN,
        limit=7_500,
        name="run_on_budget",
    )
    require_pairing(
        messages,
        "when a call cost far more than its estimate (its answer was much longer), the run "
        f"ended with {short_repr(ending)} and left a broken history",
        "once a call is made, append its results; the budget is decided before the next "
        "call, never between a call and its results.",
    )


def _check_step_limit(run_on_budget: Callable) -> None:
    """A budget that fits the whole audit, and max_steps=3: three calls, then 'step_limit'."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import (
        AUDIT_TASK,
        AUDIT_TOOLS,
        HANDBOOK_ONE_PER_TURN,
    )

    client, recorder = recording_client()
    messages = [{"role": "user", "content": AUDIT_TASK}]
    ending = run_learner(
        run_on_budget,
        client,
        messages,
        AUDIT_TOOLS,
        system=HANDBOOK_ONE_PER_TURN,
        limit=300_000,
        max_steps=3,
        name="run_on_budget",
    )
    calls = len(recorder.requests)
    if calls != 3 or ending != "step_limit":
        fail(
            f"with max_steps=3 and room in the budget, the run made {calls} calls and ended with "
            f"{short_repr(ending)}; expected 3 calls, then 'step_limit'.",
            "count the calls: for _ in range(max_steps): ..., then return 'step_limit'.",
        )
    require_pairing(
        messages,
        "at the step limit the run left a broken history",
        "append the results of the last calls before you return 'step_limit'.",
    )


def _next_call(costs: list[float]) -> float:
    """The course's estimate of the next call: the last one plus the growth between the last two."""
    if not costs:
        return 0.0
    growth = max(0.0, costs[-1] - costs[-2]) if len(costs) > 1 else 0.0
    return costs[-1] + growth


def _raw(usage: dict) -> float:
    """A call's tokens counted plainly: input plus output, each token the same price."""
    return float(usage.get("input_tokens") or 0) + float(usage.get("output_tokens") or 0)


def _explain_overspending(
    what: str, limit: int, made: list[float], inputs: list[float], raws: list[float]
) -> None:
    """Fail with the reason the last call went through, read from the calls' bills."""
    __tracebackhide__ = True
    before, last = made[:-1], made[-1]
    spent_before = sum(before)
    said = (
        f"{what} the run spent {sum(made):,.0f} billed-equivalent tokens in {len(made)} calls: "
        "the last call went over the budget"
    )
    if spent_before + (before[-1] if before else 0.0) <= limit:
        fail(
            f"{said}. It cost {last:,.0f}, more than the one before it ({before[-1]:,.0f}): the "
            "history grew, so an estimate from the last call alone let it through.",
            "estimate the next call as the last one plus the growth between the last two.",
        )
    raw_fits = sum(raws[:-1]) + _next_call(raws[:-1]) <= limit
    if raw_fits and sum(raws) <= limit < sum(made):
        fail(
            f"{said}, though counted as plain tokens (input plus output) it spent only "
            f"{sum(raws):,.0f}: your bill counts tokens, and an output token costs five times "
            "an input token (cache writes and reads have their own prices too).",
            "count each call with billed(response.usage), not input_tokens + output_tokens.",
        )
    if sum(inputs[:-1]) + _next_call(inputs[:-1]) <= limit:
        fail(
            f"{said}. Counted on input tokens alone the call would have fitted: your bill "
            "leaves out the output tokens, which cost five times as much.",
            "count each call with billed(response.usage): input and output.",
        )
    if spent_before > limit and _next_call(before) <= limit:
        over = next(n for n, total in enumerate(accumulate(made), 1) if total > limit)
        fail(
            f"{what} the run spent {sum(made):,.0f} billed-equivalent tokens in {len(made)} "
            f"calls: it went on calling after call {over} had taken its bill past the limit. "
            "The budget counts only the current turn; it must count the whole run, every call "
            "since the run started.",
            "keep one total outside the loop (costs = [] before the for, then "
            "costs.append(billed(response.usage)) after each call) and compare sum(costs) plus "
            "the estimate with limit.",
        )
    fail(
        f"{said}: it was made though the bill so far plus one more call like the last could "
        "not fit.",
        "decide before each call: the next one costs about the last one plus the growth "
        "between the last two (the history only grows).",
    )


def _run_audit_plainly(client: anthropic.Anthropic, system: str) -> None:
    """The whole audit with no budget: a plain loop, so that each call's cost can be measured."""
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK, AUDIT_TOOLS
    from course_helpers.lessons.agent import tool_calls
    from course_helpers.lessons.dispatch import dispatch

    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    for _ in range(40):
        response = client.messages.create(
            model=MODEL,
            max_tokens=1024,
            system=system,
            tools=[t.definition() for t in AUDIT_TOOLS],
            messages=messages,
        )
        if response.stop_reason != "tool_use":
            return
        messages.append({"role": "assistant", "content": response.content})
        results = [dispatch(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
