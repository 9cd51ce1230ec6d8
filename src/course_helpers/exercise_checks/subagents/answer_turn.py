"""Course machinery (exercise checks): exercise 13.2, `check_answer_turn`: one turn's calls at once,
their results in one message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    run_learner,
    short_repr,
    tool_call_block,
)
from course_helpers.exercise_checks.subagents.desk import HOLD, WAIT
from course_helpers.lessons.dispatch import tool_result

# -- exercise 2 -----------------------------------------------------------------------------


def check_answer_turn(answer_turn: Callable) -> None:
    """Check that one turn's calls run at once and their results come back in one message."""
    __tracebackhide__ = True
    label = "answer_turn"
    # Ids that are not in sorted order, so results sorted by id differ from the calls' order:
    # either is right (the API pairs each result with its call by tool_use_id).
    calls = [
        tool_call_block("task", f"toolu_{tag}", prompt=f"part {n}")
        for n, tag in enumerate(("01Xq", "01Bf", "01Mz"))
    ]
    barrier = threading.Barrier(len(calls))
    finished = {c.id: threading.Event() for c in calls}
    together: list[bool] = []

    def run_tool(call):  # the subagents finish in the reverse order of their calls
        try:
            barrier.wait(timeout=WAIT)
            together.append(True)
        except threading.BrokenBarrierError:
            together.append(False)
        index = [c.id for c in calls].index(call.id)
        if index + 1 < len(calls) and all(together):
            finished[calls[index + 1].id].wait(timeout=WAIT)
        if index == 0:  # the last to finish: still running if answer_turn returns without it
            returned.wait(timeout=HOLD)
        finished[call.id].set()
        return tool_result(call.id, f"the answer to {call.input['prompt']}")

    returned = threading.Event()
    before = set(threading.enumerate())
    message = run_learner(answer_turn, run_tool, calls, name=label)
    returned.set()
    content_at_return = (
        list(message["content"])
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        else None
    )
    left = [t for t in threading.enumerate() if t not in before]
    running_at_return = [t for t in left if t.is_alive()]
    for thread in left:
        thread.join(timeout=WAIT)
    if (
        running_at_return
        and content_at_return is not None
        and len([b for b in content_at_return if isinstance(b, dict)]) < len(calls)
    ):
        fail(
            f"{label} returned while {len(running_at_return)} of its threads were still running: "
            f"the message held {len(content_at_return)} entries, not all of them results yet.",
            "wait for every result before you return: join() each thread (or read every "
            "future.result()) and only then build the message.",
        )
    if any(t.is_alive() for t in left):
        fail(
            f"threads {label} started were still running after it returned.",
            "wait for every thread before you return: join() each one, or use "
            "`with ThreadPoolExecutor() as pool:`, which waits when the block ends.",
        )
    if len(together) > len(calls):
        fail(
            f"{label} ran {len(together)} subagents for {len(calls)} calls: a call ran twice.",
            "run each call once, in its own thread, and keep what that run returned.",
        )
    if len(together) != len(calls) or not all(together):
        fail(
            f"the {len(calls)} calls did not run at the same time: each subagent waited for the "
            "one before it.",
            "start every call in its own thread first, then collect the results.",
        )
    if (
        isinstance(message, list)
        and message
        and all(isinstance(m, dict) and "role" in m for m in message)
    ):
        fail(
            f"{label} returned {len(message)} messages; the results of one turn go in ONE user "
            "message (splitting them teaches the model to stop calling tools in parallel).",
            "return {'role': 'user', 'content': [result, result, ...]}.",
        )
    if not isinstance(message, dict) or message.get("role") != "user":
        fail(
            f"{label} returned {short_repr(message)}, not a user message.",
            "return {'role': 'user', 'content': [result, result, ...]}.",
        )
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    kinds = [b.get("type") for b in blocks]
    if "tool_result" in kinds and kinds.index("tool_result") > 0:
        fail(
            f"the message starts with a {kinds[0]!r} block, before the results; the API refuses "
            "a user message whose tool_result blocks do not come first (notebook 03).",
            "put the results first: {'role': 'user', 'content': [result, result, ...]}; any "
            "text goes after them.",
        )
    ids = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
    if sorted(ids) != sorted(c.id for c in calls):
        fail(
            f"the message's content answers {ids}, not the {len(calls)} calls.",
            "put each call's result (what run_tool returned) in the content list, once each; "
            "in any order: the API pairs each result with its call by tool_use_id.",
        )
    passed("answer_turn")
