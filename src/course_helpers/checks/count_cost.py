"""Checks for notebook 10, Count the cost."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.checks.common import (
    api_message,
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
)
from course_helpers.checks.workflow_or_agent import fresh_recording_client
from course_helpers.client import MODEL


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


def _audit_request(messages: list) -> dict:
    from course_helpers.cost import AUDIT_TOOLS, HANDBOOK

    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": HANDBOOK,
        "tools": [t.definition() for t in AUDIT_TOOLS],
        "messages": messages,
    }


def check_cache_breakpoints(add_breakpoints: Callable) -> None:
    """10 · `add_breakpoints(request)`: a marked copy; each call reads the previous prompt."""
    __tracebackhide__ = True
    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS, billed_input, prompt_tokens
    from course_helpers.dispatch import run_tool
    from course_helpers.loop import tool_calls

    client, _ = fresh_recording_client()
    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    usages: list[dict] = []
    for call in range(1, 6):
        request = _audit_request(messages)
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
                "mark the last tool, the system prompt and the end of the conversation only.",
            )
        try:
            response = client.messages.create(**marked)
        except anthropic.APIStatusError as error:
            fail(
                f"the API refuses the request add_breakpoints made on call {call}: "
                f"{api_message(error)}",
                "cache_control goes on a content block, a system block or a tool definition.",
            )
        usage = response.usage.model_dump(exclude_none=True)
        usages.append(usage)
        messages.append({"role": "assistant", "content": response.content})
        results = [run_tool(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    _check_cache_usage(usages, prompt_tokens, billed_input)
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
    passed("add_breakpoints caches the moving prefix")


def _check_cache_usage(usages: list[dict], prompt_tokens: Callable, billed_input: Callable) -> None:
    __tracebackhide__ = True
    if not usages[0].get("cache_creation_input_tokens"):
        fail(
            "the first call wrote nothing to the cache (cache_creation_input_tokens is 0).",
            "put cache_control: {'type': 'ephemeral'} on the last tool, the system prompt and "
            "the last block of the last message.",
        )
    for call in range(2, len(usages) + 1):
        usage, previous = usages[call - 1], usages[call - 2]
        read = usage.get("cache_read_input_tokens") or 0
        if not read:
            fail(
                f"call {call} read nothing from the cache (cache_read_input_tokens is 0).",
                "the breakpoints must mark the same prefix the previous call marked.",
            )
        if billed_input(usage) >= prompt_tokens(usage):
            fail(
                f"call {call} costs {billed_input(usage):,.0f} billed-equivalent input tokens for "
                f"a prompt of {prompt_tokens(usage):,}: caching made it dearer, not cheaper.",
                "mark what stays the same from call to call, so that it is read at 0.1.",
            )
        if read < prompt_tokens(previous):
            fail(
                f"call {call} read {read:,} tokens from the cache, but the previous call sent "
                f"{prompt_tokens(previous):,}: only the fixed start (tools, system) is cached, "
                "and the growing history is paid in full every turn.",
                "also mark the last block of the last message: the moving end of the conversation.",
            )


def check_budget_loop(run_on_budget: Callable) -> None:
    """10 · `run_on_budget(...)`: stop before the call that would overspend; history stays valid."""
    __tracebackhide__ = True
    from itertools import accumulate

    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS, HANDBOOK, billed

    # What each call of the whole audit costs, measured once without a budget.
    client, recorder = recording_client()
    _run_audit_plainly(client)
    costs = [billed(r["body"]["usage"]) for r in recorder.responses]
    totals = list(accumulate(costs))
    for limit in (7_500, 27_500, 42_500, 95_000, 300_000):
        client, recorder = recording_client()
        messages = [{"role": "user", "content": AUDIT_TASK}]
        ending = run_learner(
            run_on_budget,
            client,
            messages,
            AUDIT_TOOLS,
            system=HANDBOOK,
            limit=limit,
            name="run_on_budget",
        )
        spent = sum(billed(r["body"]["usage"]) for r in recorder.responses)
        calls = len(recorder.requests)
        fits = sum(1 for total in totals if total <= limit)
        what = f"with limit={limit:,}"
        if spent > limit:
            fail(
                f"{what} the run spent {spent:,.0f} billed-equivalent tokens in {calls} calls: "
                "the last call went over the budget.",
                "decide before each call: the next one costs about the last one plus the "
                "growth between the last two (the history only grows).",
            )
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
    passed("run_on_budget stops before the budget runs out")


def _run_audit_plainly(client: anthropic.Anthropic) -> None:
    """The whole audit with no budget: a plain loop, so that each call's cost can be measured."""
    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS
    from course_helpers.dispatch import run_tool
    from course_helpers.loop import tool_calls

    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    for _ in range(40):
        response = client.messages.create(**_audit_request(messages))
        if response.stop_reason != "tool_use":
            return
        messages.append({"role": "assistant", "content": response.content})
        results = [run_tool(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
