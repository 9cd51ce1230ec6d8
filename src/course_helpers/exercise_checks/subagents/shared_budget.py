"""Course machinery (exercise checks): exercise 13.3, `check_shared_budget`: one budget for the whole
tree.
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
from course_helpers.exercise_checks.subagents.desk import LEAD, ONE_PART, _subtask_requests
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.cost.budget import Budget
from course_helpers.lessons.cost.pricing import billed
from course_helpers.lessons.subagents import SUBTASK_SYSTEM
from course_helpers.lessons.tools import tool

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
