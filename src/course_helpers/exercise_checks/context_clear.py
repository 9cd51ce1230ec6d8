"""Course machinery (exercise checks): notebook 12, exercise 1 (clear old tool results).

One job: `check_clear_results`, with the requirements listed in `exercise_checks.context`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import as_plain, fail, passed, run_learner
from course_helpers.exercise_checks.context_common import (
    halfway_history,
    refusal,
    result_text,
    results_of,
)
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field


def check_clear_results(clear_results: Callable[..., Any]) -> None:
    """Exercise 1: clear old tool results in place, keeping every pair."""
    __tracebackhide__ = True
    original = halfway_history()
    first_result = results_of(original)[0][2]  # a dict: the course's dispatcher built it
    first_result["is_error"] = True  # a failed call: its stub must still say it failed
    more = len(results_of(original)) + 2  # more than there are results: nothing is cleared
    for keep in (2, 1, 0, more):
        history = copy.deepcopy(original)  # the caller's history, kept for later
        kept = copy.deepcopy(as_plain(history))
        messages = list(history)  # a new list of the same messages, as list(history) makes
        before = copy.deepcopy(as_plain(messages))
        returned = run_learner(clear_results, messages, keep=keep, name="clear_results")
        if isinstance(returned, list) and as_plain(messages) == before:
            fail(
                "clear_results returned a new list and left `messages` as it was; the loop "
                "keeps sending its own list, so nothing was cleared.",
                "change `messages` in place: messages[i] = ..., not a copy that you return.",
            )
        if as_plain(history) != kept:
            fail(
                "clear_results edited the messages themselves, not just the list it was given: "
                "the caller's history, which holds the same message objects (a copy made with "
                "list(history) does too), lost its results as well.",
                "build new ones: blocks = list(content_blocks(messages[i])); "
                "blocks[j] = {**blocks[j], 'content': stub}; "
                "messages[i] = {**messages[i], 'content': blocks}.",
            )
        _check_cleared(before, as_plain(messages), keep)
    passed("clear_results")


def _check_cleared(before: list, after: list, keep: int) -> None:
    __tracebackhide__ = True
    said = refusal(after)
    old_results = results_of(before)
    if said is not None:
        lost = [
            f"messages[{i}].content[{j}]"
            for i, j, block in results_of(after)
            if not read_field(block, "tool_use_id")
        ]
        if lost:
            mistake = f"your stub at {lost[0]} has no tool_use_id"
        elif pairing_problems(after):
            mistake = "a tool_use lost its tool_result (or a result its tool_use)"
        else:
            mistake = (
                "a stub the API cannot read: a tool_result's content is a string or a list of "
                "text blocks"
            )
        fail(
            f"after clear_results(messages, keep={keep}) the API refuses the history: {said}. "
            f"That is {mistake}.",
            "change only each old result's content; keep the block, its type and its "
            "tool_use_id where they are.",
        )
    if len(after) != len(before):
        fail(
            f"clear_results changed the number of messages ({len(before)} -> {len(after)}).",
            "clear the results' content; do not remove or add messages.",
        )
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if old["role"] == "assistant" and old != new:
            fail(
                f"clear_results changed messages[{index}], an assistant turn.",
                "only tool results are cleared: thinking blocks and tool calls must stay exactly "
                "as the model wrote them.",
            )
    new_results = results_of(after)
    for (i, j, old), (_, _, new) in zip(old_results, new_results, strict=True):
        if read_field(old, "is_error") and read_field(new, "is_error") is not True:
            fail(
                f"with keep={keep}, the result at messages[{i}].content[{j}] had is_error: True "
                "and lost it: the stub now reads like a call that worked.",
                "change only the result's content; keep its tool_use_id and is_error as they "
                "are (a new dict loses them unless you copy them).",
            )
    calls = {
        read_field(b, "id"): b
        for m in before
        for b in content_blocks(m)
        if read_field(b, "type") == "tool_use"
    }
    cleared = max(0, len(old_results) - keep)  # not [:-keep]: with keep=0 that is empty
    for (i, j, old), (_, _, new) in zip(old_results[cleared:], new_results[cleared:], strict=True):
        if old != new and keep > len(old_results):
            fail(
                f"with keep={keep}, more than the {len(old_results)} results the history holds, "
                f"the result at messages[{i}].content[{j}] was cleared: every result is among "
                "the newest `keep`, so none should change.",
                "clear results[:max(0, len(results) - keep)]: with keep above the count, "
                "len(results) - keep is negative, and a negative slice end still clears some.",
            )
        if old != new:
            fail(
                f"with keep={keep}, the result at messages[{i}].content[{j}] is one of the newest "
                "and should not change, but it did.",
                "leave the last `keep` tool_result blocks as they are.",
            )
    for i, j, old in old_results[:cleared]:
        new = after[i]["content"][j]
        if len(result_text(old)) < 400:
            continue  # short results may stay
        stub = result_text(new)
        if len(stub) >= len(result_text(old)):
            fail(
                f"with keep={keep}, the old result at messages[{i}].content[{j}] was not cleared.",
                "replace the content of every result but the newest `keep` with a short stub.",
            )
        call = calls.get(read_field(old, "tool_use_id"))
        name, arguments = read_field(call, "name"), read_field(call, "input") or {}
        wanted = [str(name), *map(str, arguments.values())]
        if not all(word in stub for word in wanted):
            fail(
                f"the stub at messages[{i}].content[{j}] is {stub[:90]!r}: it does not say what "
                f"was there and how to get it again ({' and '.join(map(repr, wanted))}).",
                "name the tool and its arguments in the stub, so the model can call it again.",
            )
