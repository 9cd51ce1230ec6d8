"""Course machinery (exercise checks): notebook 12, exercise 2 (choose a cut point).

One job: `check_choose_cut`, with the requirements listed in `exercise_checks.context`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import as_plain, fail, passed, run_learner
from course_helpers.exercise_checks.context_common import halfway_history, refusal
from course_helpers.lessons.pairing import content_blocks, read_field


def _histories() -> list[tuple[str, list]]:
    long = halfway_history()

    def call(call_id: str, name: str, **arguments: str) -> dict:
        return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}

    def result(call_id: str, text: str) -> dict:
        return {"type": "tool_result", "tool_use_id": call_id, "content": text}

    parallel = [
        {"role": "user", "content": "Read both files."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Both at once."},
                call("toolu_p1", "read_source", path="a.py"),
                call("toolu_p2", "read_source", path="b.py"),
            ],
        },
        {"role": "user", "content": [result("toolu_p1", "a"), result("toolu_p2", "b")]},
        {"role": "assistant", "content": [{"type": "text", "text": "Read. Anything else?"}]},
        {"role": "user", "content": "Now list the files."},
        {"role": "assistant", "content": [call("toolu_l1", "list_sources")]},
        {"role": "user", "content": [result("toolu_l1", "a.py")]},
    ]
    return [("the long task, half way", long), ("a history with parallel calls", parallel)]


def _turn_starts(messages: list) -> list[int]:
    return [i for i, m in enumerate(messages) if read_field(m, "role") == "assistant"]


def check_choose_cut(choose_cut: Callable[..., Any]) -> None:
    """Exercise 2: a cut point that keeps the last turns whole and every pair."""
    __tracebackhide__ = True
    for label, messages in _histories():
        for keep_turns in (1, 2):
            history = copy.deepcopy(messages)  # the caller's own list, not a copy of it
            cut = run_learner(choose_cut, history, keep_turns, name="choose_cut")
            if as_plain(history) != as_plain(messages):
                fail(
                    f"choose_cut(messages, {keep_turns}) changed the history it was given on "
                    f"{label} ({len(messages)} messages, now {len(history)}): the caller then "
                    "takes messages[cut:] of what is left and loses the turns it meant to keep.",
                    "only read `messages` and return the index: no del, pop, slice assignment or "
                    "edit of its messages.",
                )
            _check_cut(label, messages, keep_turns, cut)
    short = _histories()[1][1][:3]
    cut = run_learner(choose_cut, short, 1, name="choose_cut")
    if cut is not None:
        fail(
            f"choose_cut(messages, 1) returned {cut!r} for a history of one turn.",
            "when the turns to keep are all there is, there is nothing to summarise: return None.",
        )
    passed("choose_cut")


def _check_cut(label: str, messages: list, keep_turns: int, cut: Any) -> None:
    __tracebackhide__ = True
    where = f"on {label} with keep_turns={keep_turns}"
    if cut is None:
        fail(
            f"choose_cut returned None {where}, but the history holds "
            f"{len(_turn_starts(messages))} assistant turns: there is something to summarise.",
            "return None only when there are no more than `keep_turns` assistant turns.",
        )
    if not isinstance(cut, int) or isinstance(cut, bool) or not 0 < cut < len(messages):
        fail(
            f"choose_cut returned {cut!r} {where}: not the index of a message after the first.",
            "return the index of the first message to keep (1 to len(messages) - 1).",
        )
    kept = [{"role": "user", "content": "(a summary of the earlier turns)"}, *messages[cut:]]
    said = refusal(as_plain(kept))
    if said is not None:
        opens = [read_field(b, "type") for b in content_blocks(messages[cut])]
        mistake = (
            f"the kept part opens with messages[{cut}], whose tool_result blocks answer a "
            "tool_use that went into the summary (an orphan tool_result)"
            if "tool_result" in opens
            else f"the cut at messages[{cut}] splits a turn from its results"
        )
        fail(
            f"cutting at {cut} {where}, the API refuses the history: {said}. That is because "
            f"{mistake}.",
            "cut where an assistant turn starts, never at a message of tool results.",
        )
    starts = _turn_starts(messages)
    first_kept = starts[-keep_turns]
    earliest = starts[-keep_turns - 1] + 1 if len(starts) > keep_turns else 1
    if cut > first_kept:
        fail(
            f"choose_cut returned {cut} {where}: it cuts into the last {keep_turns} turns "
            f"(they start at messages[{first_kept}]).",
            "keep the last `keep_turns` assistant turns and everything after them.",
        )
    if cut < earliest:
        fail(
            f"choose_cut returned {cut} {where}: it keeps more than the last {keep_turns} turns, "
            "so the summary saves less room than it could.",
            f"cut at the start of the {_ordinal(keep_turns)} assistant turn from the end.",
        )


# -- 3. save and resume a session ---------------------------------------------------------------


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
