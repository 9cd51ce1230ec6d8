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

SLOW = 0.8  # seconds the first call takes (when answer_turn waits for it): over a short timeout

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
    given = list(calls)  # the list answer_turn gets; `calls` stays the check's own
    order = {c.id: n for n, c in enumerate(calls)}
    barrier = threading.Barrier(len(calls))
    finished = {c.id: threading.Event() for c in calls}
    together: list[bool] = []
    running = [0, 0]  # now, most at once
    lock = threading.Lock()

    def run_tool(call):
        # All start together, then finish in this order: the third call at once, the first
        # after SLOW seconds (longer than a short timeout on its future), the second last of
        # all (after the first: waiting for calls[0] alone does not wait for it).
        with lock:
            running[0] += 1
            running[1] = max(running)
        try:
            barrier.wait(timeout=WAIT)
            together.append(True)
        except threading.BrokenBarrierError:
            together.append(False)
        index = order.get(getattr(call, "id", None), 0)
        if all(together):
            if index == 0:
                returned.wait(timeout=SLOW)
            elif index == 1:
                finished[calls[0].id].wait(timeout=WAIT)
                returned.wait(timeout=HOLD)
        with lock:
            running[0] -= 1
        finished[call.id].set()
        return tool_result(call.id, f"the answer to {call.input['prompt']}")

    returned = threading.Event()
    before = set(threading.enumerate())
    message = run_learner(answer_turn, run_tool, given, name=label)
    unfinished = [c for c in calls if not finished[c.id].is_set()]
    returned.set()
    content_at_return = (
        list(message["content"])
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        else None
    )
    left = [t for t in threading.enumerate() if t not in before]
    for thread in left:
        thread.join(timeout=WAIT)
    if given != calls:
        fail(
            f"answer_turn changed the `calls` list it was given (it now holds {len(given)} of "
            f"the {len(calls)} calls): the caller still needs it, to pair each result with "
            "its call.",
            "read `calls`, never change it: `for call in calls: pool.submit(run_tool, call)`, "
            "no pop() or remove().",
        )
    if unfinished and content_at_return is not None:
        fail(
            f"{label} returned while {len(unfinished)} of the {len(calls)} subagents "
            f"{'was' if len(unfinished) == 1 else 'were'} still running: the message held "
            f"{_entries(len(content_at_return))}, not every result. "
            "A real subagent takes seconds; a timeout, or keeping only the futures that are "
            "done(), drops its result and leaves its tool_use unanswered (the next call is a "
            "400).",
            "wait for every result before you return: join() each thread (or read every "
            "future.result(), no timeout) and only then build the message.",
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
            f"the {len(calls)} calls did not all run at the same time: at most {running[1]} ran "
            "at once, so the others waited for a free thread.",
            "start every call in its own thread first (max_workers=len(calls)), then collect "
            "the results.",
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
    _check_a_failed_call_is_answered(answer_turn)
    passed("answer_turn")


def _check_a_failed_call_is_answered(answer_turn: Callable) -> None:
    """A run_tool that raises: the exception goes up, or its call gets an is_error result."""
    __tracebackhide__ = True
    calls = [
        tool_call_block("task", f"toolu_{tag}", prompt=f"part {n}")
        for n, tag in enumerate(("02Ka", "02Cr", "02Zo"))
    ]

    def run_tool(call):
        if call.id == calls[1].id:
            raise RuntimeError("the subagent's server hung up")
        return tool_result(call.id, f"the answer to {call.input['prompt']}")

    outcome: list = []

    def attempt() -> None:
        try:
            outcome.append(("returned", answer_turn(run_tool, list(calls))))
        except Exception as error:  # noqa: BLE001 (the caller's run_tool seam answers it)
            outcome.append(("raised", error))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=WAIT)
    if not outcome:
        fail(
            f"when one run_tool raised, answer_turn had not returned {WAIT:.0f} s later: it "
            "waits for a result that never comes (a queue.get() for every call?).",
            "read each future.result() (it re-raises the exception), or catch the exception "
            "in the thread and answer that call with an is_error result.",
        )
    how, message = outcome[0]
    if how == "raised":  # the exception goes up: the loop's run_tool seam answers it
        return
    blocks = message.get("content") if isinstance(message, dict) else None
    blocks = [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
    answer = [b for b in blocks if b.get("tool_use_id") == calls[1].id]
    if not answer:
        fail(
            "when one run_tool raised, answer_turn returned a message without that call's "
            f"result ({len(blocks)} entries for {len(calls)} calls): its tool_use is left "
            "unanswered, and the API refuses the next request with a 400.",
            "let the exception go up (future.result() re-raises it), or answer that call with "
            "tool_result(call.id, f'{type(error).__name__}: {error}', is_error=True); never "
            "skip it.",
        )
    if answer[0].get("is_error") is not True:
        fail(
            f"when one run_tool raised, answer_turn answered that call with "
            f"{short_repr(answer[0])}, which is not marked is_error: the model reads a failure "
            "as a success.",
            "build that result with is_error=True and the exception's words in it.",
        )


def _entries(n: int) -> str:
    return f"{n} {'entry' if n == 1 else 'entries'}"
