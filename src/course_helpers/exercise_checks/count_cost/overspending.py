"""Course machinery (exercise checks): why a budget loop overspent, read from its calls' bills, and
the audit measured once.
"""

from __future__ import annotations

from itertools import accumulate

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    fail,
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
    if len(before) == 1 and 2 * before[0] > limit:
        fail(
            f"{said}: after the first call ({before[0]:,.0f}) one more like it could not fit "
            f"in {limit:,}, yet the second call was made. The budget was not asked before the "
            "second call.",
            "test the budget before every call after the first, the second included "
            "(if step > 0 and spent + estimate > limit: ...).",
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
