"""Course machinery (exercise checks): exercise 10.1, `check_cache_breakpoints`: where the cache
breakpoints go, read from the usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    api_message,
    as_plain,
    fail,
    passed,
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
