"""Course machinery (exercise checks): exercise 13.1, `check_run_subagent`: a fresh history, its final
text only, its limits, SubagentStopped for every other ending (see `endings`).
"""

from __future__ import annotations

from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)
from course_helpers.exercise_checks.subagents.desk import (
    LEAD,
    ONE_PART,
    REFUND_PART,
    SECOND_PART,
    TWO_PARTS,
    _desk_task,
    _first_request_is_fresh,
    _No,
    _subtask_requests,
    _text_of_response,
)
from course_helpers.exercise_checks.subagents.endings import try_every_ending
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.gate import Gate
from course_helpers.lessons.subagents import SUBTASK_SYSTEM


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
    try_every_ending(run_subagent, label)
    _gate(run_subagent, label)
    _as_the_task_tool(run_subagent, label)
    passed("run_subagent")


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
