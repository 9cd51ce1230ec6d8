"""Course machinery (exercise checks): checks for notebook 13, Delegate to subagents.

What each check enforces (and `tests/exercise_variants/test_13_subagents.py` proves with wrong
and right variants):

`check_run_subagent(run_subagent)`, the `task` tool's run, on notebook 09's support desk:
- it starts a fresh history: the subagent's first request holds one user message, its prompt,
  and nothing of the parent's or of another subagent's history;
- the subagent gets the system prompt and the tools it is given;
- it returns only the subagent's final text (no turns, calls or results of its history);
- a subagent that hits its step limit ends with `SubagentStopped` (the lesson's error, or a
  class of the learner's own by that name) that says how it ended, after no more calls than its
  limit; a plain `RuntimeError` or the loop's own `StepLimitReached` is refused: the exercise
  asks for `SubagentStopped`, the name the parent reads in its `is_error` result;
- the subagent's dangerous calls go through the `approve` it is given: a gate that says no
  means no refund;
- used as the parent's `task` tool, the parent's history grows by one result per subagent.

`check_answer_turn(answer_turn)`, the results of one turn's subagents:
- every call runs at the same time (the calls meet at a barrier that opens only when all of
  them are running);
- the results come back in ONE user message, in the order of the calls, whatever order the
  subagents finished in;
- it returns only once every result is in (the last subagent is held until it returns, or
  for HOLD seconds), and no thread it started is still running when it returns;
- the results come first in the message (the API refuses text before them).

`check_shared_budget(run_subagent_on_budget)`:
- every call of the subagent is paid by the `budget` it is given (the parent's), never by a new
  budget of its own that starts from zero;
- in a tree whose budget runs out, the whole tree spends no more than the limit, and a subagent
  stopped by the budget ends with `SubagentStopped` saying so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import (
    as_plain,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    tool_call_block,
)
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.cost.budget import Budget
from course_helpers.lessons.cost.pricing import billed
from course_helpers.lessons.dispatch import tool_result
from course_helpers.lessons.gate import Decision, Gate
from course_helpers.lessons.subagents import SUBTASK_SYSTEM, SubagentStopped
from course_helpers.lessons.tools import Tool, tool

LEAD = "You lead the Kettle & Co support desk. Delegate each request with the task tool."
ONE_PART = "Where is my order #A1001?"
REFUND_PART = "My glass teapot from order #A1002 arrived broken, please refund it."
SECOND_PART = "Do you ship to Norway?"
TWO_PARTS = "Where is my order #A1001? Do you ship to Norway?"
WAIT = 5.0  # seconds the calls may take to all be running; a barrier never reached fails
HOLD = 0.5  # seconds the last subagent waits for answer_turn to return without its result


class _No:
    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(False, "the check's gate says no", "check")


def _subtask_requests(recorder) -> list[dict]:
    return [r for r in recorder.requests if r.get("system") == SUBTASK_SYSTEM]


def _text_of_response(body: dict) -> str:
    return "".join(b.get("text", "") for b in body.get("content", []) if b.get("type") == "text")


def _first_request_is_fresh(request: dict, prompt: str, what: str) -> None:
    messages = as_plain(request.get("messages") or [])
    if len(messages) != 1 or messages[0].get("role") != "user":
        fail(
            f"the subagent's first request for {what} holds {len(messages)} messages; a subagent "
            "starts from a fresh history with its prompt only.",
            "create a new list for every subagent: messages = [{'role': 'user', 'content': "
            "prompt}], never the parent's history or a list shared between subagents.",
        )
    content = messages[0].get("content")
    said = (
        content
        if isinstance(content, str)
        else " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
    )
    if prompt not in said:
        fail(
            f"the subagent's first message for {what} is {short_repr(said)}, not its prompt.",
            "the subagent's only message is the prompt the parent wrote for it.",
        )


def _desk_task(client, run_subagent, desk: Desk, approve: Any = None) -> Tool:
    """The parent's `task` tool, whose run is the learner's run_subagent."""

    def task(description: str, prompt: str, context: str = "") -> str:
        """Give one part of the work to a subagent, which sees only this prompt and context."""
        request = f"{prompt}\n\n{context}" if context else prompt
        return run_subagent(
            client, request, desk.tools(), system=SUBTASK_SYSTEM, max_steps=8, approve=approve
        )

    return tool(task)


def check_run_subagent(run_subagent: Callable) -> None:
    """Check the task tool's run: a fresh agent, only its final text back, limits kept."""
    __tracebackhide__ = True
    label = "run_subagent"
    client, recorder = recording_client()
    desk = Desk()
    answer = run_learner(
        run_subagent, client, ONE_PART, desk.tools(), system=SUBTASK_SYSTEM, name=label
    )
    requests = _subtask_requests(recorder)
    final = _text_of_response(recorder.responses[-1]["body"]) if recorder.responses else ""
    if not requests:
        fail(
            f"{label} sent no request with the system prompt it was given.",
            "pass system=system to the subagent's run (run_agent(..., system=system)).",
        )
    _first_request_is_fresh(requests[0], ONE_PART, "a one-line question")
    before = len(recorder.requests)
    run_learner(run_subagent, client, SECOND_PART, desk.tools(), system=SUBTASK_SYSTEM, name=label)
    if len(recorder.requests) > before:
        _first_request_is_fresh(recorder.requests[before], SECOND_PART, "a second subagent")
    offered = sorted(t.get("name", "") for t in requests[0].get("tools") or [])
    if offered != sorted(t.name for t in desk.tools()):
        fail(
            f"the subagent was offered the tools {offered}, not the ones it was given.",
            "give the subagent exactly the tools passed to run_subagent.",
        )
    if not isinstance(answer, str) or answer.strip() != final.strip():
        leaked = isinstance(answer, list | dict) or "tool_use" in str(answer)
        fail(
            f"{label} returned {short_repr(answer)}; the subagent's final text is "
            f"{short_repr(final)}."
            + (" That is the subagent's history, not its answer." if leaked else ""),
            "return only the final text (run.final_text): the parent's history must grow by "
            "one result, not by the subagent's turns.",
        )
    _step_limit(run_subagent, label)
    _gate(run_subagent, label)
    _as_the_task_tool(run_subagent, label)
    passed("run_subagent")


def _step_limit(run_subagent: Callable, label: str) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()

    def too_many_calls() -> None:  # named first: a limit not passed on is the mistake then
        if len(_subtask_requests(recorder)) > 1:
            fail(
                f"with max_steps=1 the subagent made {len(_subtask_requests(recorder))} calls to "
                "the model.",
                "pass max_steps to the subagent's run (run_agent(..., max_steps=max_steps)).",
            )

    try:
        answer = run_subagent(client, ONE_PART, Desk().tools(), system=SUBTASK_SYSTEM, max_steps=1)
    except Exception as error:
        too_many_calls()
        said = f"{type(error).__name__}: {error}"
        if "step" not in said.lower():
            fail(
                f"at its step limit {label} raised {short_repr(said)}, which does not say how "
                "the subagent ended.",
                "raise an error naming the ending (run.ending is 'step_limit').",
            )
        if not _is_subagent_stopped(error):
            fail(
                f"at its step limit {label} raised {type(error).__name__}, not SubagentStopped: "
                f"the parent reads 'task failed with {type(error).__name__}: ...', and the "
                "exercise asks for SubagentStopped, notebook 13's error for a subagent that "
                "ended without an answer.",
                "raise SubagentStopped(f'the subagent ended with {run.ending}: {run.detail}'); "
                "the notebook's first cell imports it from course_helpers.lessons.subagents.",
            )
    else:
        too_many_calls()
        fail(
            f"with max_steps=1 the subagent could not finish, yet {label} returned "
            f"{short_repr(answer)} as if it had answered.",
            "when run.ending is not 'end_turn', raise (SubagentStopped) saying how it ended: "
            "the dispatcher turns it into an is_error result.",
        )
    too_many_calls()


def _is_subagent_stopped(error: BaseException) -> bool:
    """The lesson's SubagentStopped, or a class of the learner's own by that name."""
    return isinstance(error, SubagentStopped) or any(
        kind.__name__ == "SubagentStopped" for kind in type(error).__mro__
    )


def _gate(run_subagent: Callable, label: str) -> None:
    __tracebackhide__ = True
    client, _ = recording_client()
    desk = Desk()
    gate = Gate(_No(), {"refund"})
    try:
        run_subagent(
            client, REFUND_PART, desk.tools(), system=SUBTASK_SYSTEM, max_steps=8, approve=gate
        )
    except Exception:  # how it ends is not the point here
        pass
    if desk.refunds:
        fail(
            f"the subagent refunded {desk.refunds[0]['order_id']} although the gate it was "
            "given said no: it bypassed the gate.",
            "pass approve=approve to the subagent's run, so its dispatcher asks the gate.",
        )


def _as_the_task_tool(run_subagent: Callable, label: str) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()
    desk = Desk()
    parent = run_agent(
        client,
        messages=[{"role": "user", "content": TWO_PARTS}],
        tools=[_desk_task(client, run_subagent, desk)],
        system=LEAD,
    )
    requests = _subtask_requests(recorder)
    starts = [r for r in requests if len(r.get("messages") or []) <= 1]
    if len(starts) < 2:
        fail(
            "the parent gave two parts to subagents, but the second subagent's first request "
            "already held an earlier history.",
            "create a new messages list inside run_subagent for every subagent.",
        )
    if len(parent.messages) != 4:
        fail(
            f"the parent's history has {len(parent.messages)} messages after delegating two "
            "parts; it should have 4 (request, calls, results, reply).",
            "return the subagent's final text only: it becomes one tool_result in the parent.",
        )
    errors = [b for b in parent.messages[2]["content"] if b.get("is_error")]
    if errors:
        fail(
            f"as the parent's task tool, {label} failed: {short_repr(errors[0]['content'])}",
            "run it by hand with the ticket in the cell above and read the error.",
        )


# -- exercise 2 -----------------------------------------------------------------------------


def check_answer_turn(answer_turn: Callable) -> None:
    """Check that one turn's calls run at once and their results come back in one message."""
    __tracebackhide__ = True
    label = "answer_turn"
    calls = [tool_call_block("task", f"toolu_{n}", prompt=f"part {n}") for n in range(3)]
    barrier = threading.Barrier(len(calls))
    finished = {c.id: threading.Event() for c in calls}
    together: list[bool] = []
    order: list[str] = []

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
        order.append(call.id)
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
            "return {'role': 'user', 'content': [the results, in the calls' order]}.",
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
            "put each call's result (what run_tool returned) in the content list.",
        )
    if ids != [c.id for c in calls]:
        finish = " then ".join(order)
        fail(
            f"the results are in the order {ids}, the order the subagents finished ({finish}); "
            "the API pairs results with calls, and the history must read in the calls' order.",
            "keep the results in the order of the calls: future.result() for each call in turn.",
        )
    passed("answer_turn")


# -- exercise 3 -----------------------------------------------------------------------------


def _one_call_a_turn(request: dict) -> dict:
    return {**request, "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}


TREE_TICKET = (
    "My glass teapot from order #A1002 arrived broken, please refund it. "
    "Where is the blue kettle I ordered? My email is sam@example.com."
)
TREE_LIMIT = 6_000


def _why_unpaid(run_subagent_on_budget: Callable) -> str:
    """With a limit too small for a second call: stopping after one call means the subagent
    kept a limit with a Budget of its own (one that starts from zero); going on means none."""
    client, recorder = recording_client()
    try:
        run_subagent_on_budget(
            client, ONE_PART, Desk().tools(), system=SUBTASK_SYSTEM, budget=Budget(limit=1)
        )
    except Exception:
        pass
    if len(_subtask_requests(recorder)) == 1:
        return (
            " It kept the limit with a Budget of its own: a new Budget starts from zero, so "
            "the tree's limit resets with every subagent."
        )
    return " Its calls were not paid by any budget."


def check_shared_budget(run_subagent_on_budget: Callable) -> None:
    """Check that subagents pay from the parent's budget, and stop when it runs out."""
    __tracebackhide__ = True
    label = "run_subagent_on_budget"
    client, recorder = recording_client()
    budget = Budget(limit=1_000_000)
    run_learner(
        run_subagent_on_budget,
        client,
        ONE_PART,
        Desk().tools(),
        system=SUBTASK_SYSTEM,
        budget=budget,
        name=label,
    )
    made = len(_subtask_requests(recorder))
    if budget.calls != made:
        fail(
            f"the subagent made {made} calls to the model and the budget it was given paid for "
            f"{budget.calls}." + _why_unpaid(run_subagent_on_budget),
            "wrap the subagent's sample with the same budget: run_agent(..., wrap_sample=budget).",
        )
    client, recorder = recording_client()
    budget = Budget(limit=TREE_LIMIT)
    desk = Desk()

    def task(description: str, prompt: str, context: str = "") -> str:
        """Give one part of the work to a subagent, which sees only this prompt and context."""
        request = f"{prompt}\n\n{context}" if context else prompt
        return run_subagent_on_budget(
            client, request, desk.tools(), system=SUBTASK_SYSTEM, budget=budget
        )

    parent = run_agent(
        client,
        messages=[{"role": "user", "content": TREE_TICKET}],
        tools=[tool(task)],
        system=LEAD,
        wrap_sample=budget,
        prepare=_one_call_a_turn,
    )
    spent = sum(billed(r["body"]["usage"]) for r in recorder.responses if r["status"] == 200)
    if spent > TREE_LIMIT:
        fail(
            f"the tree spent {spent:,.0f} billed-equivalent tokens with a limit of {TREE_LIMIT:,}.",
            "every agent of the tree pays from one Budget: pass the parent's to each subagent.",
        )
    results = [
        b
        for m in parent.messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    stopped = [b for b in results if "budget" in str(b.get("content", "")).lower()]
    if not stopped or not all(b.get("is_error") for b in stopped):
        fail(
            "a subagent stopped by the budget came back as if it had answered.",
            "when run.ending is 'budget_limit', raise SubagentStopped saying so.",
        )
    named = [b for b in stopped if "SubagentStopped" in str(b.get("content", ""))]
    if not named:
        said = short_repr(str(stopped[0].get("content", "")))
        fail(
            f"a subagent stopped by the budget raised another error than SubagentStopped: the "
            f"parent read {said}.",
            "when run.ending is 'budget_limit', raise SubagentStopped(f'the subagent ended "
            "with {run.ending}: {run.detail}'), the error the exercise asks for.",
        )
    passed("run_subagent_on_budget")
