"""Course machinery (exercise checks): exercise 13.3, `check_shared_budget`: one budget for the whole
tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)
from course_helpers.exercise_checks.subagents.desk import LEAD, ONE_PART, _subtask_requests
from course_helpers.exercise_checks.subagents.endings import is_subagent_stopped
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.cost.budget import Budget, OverBudget
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
    if budget.calls > made:
        fail(
            f"the subagent made {made} calls to the model and the budget it was given paid for "
            f"{budget.calls}: every call was paid more than once.",
            "wrap the subagent's sample with the budget and nothing else: "
            "run_agent(..., wrap_sample=budget) already pays for each call (budget.pay), so "
            "do not pay again.",
        )
    if budget.calls != made:
        fail(
            f"the subagent made {made} calls to the model and the budget it was given paid for "
            f"{budget.calls}." + _why_unpaid(run_subagent_on_budget),
            "wrap the subagent's sample with the same budget: run_agent(..., wrap_sample=budget).",
        )
    client, recorder = recording_client()
    budget = Budget(limit=TREE_LIMIT)
    desk = Desk()

    outcomes: list[tuple[BaseException | None, bool]] = []  # (what it raised, budget left?)

    def task(description: str, prompt: str, context: str = "") -> str:
        """Give one part of the work to a subagent, which sees only this prompt and context."""
        request = f"{prompt}\n\n{context}" if context else prompt
        try:
            answer = run_subagent_on_budget(
                client, request, desk.tools(), system=SUBTASK_SYSTEM, budget=budget
            )
        except Exception as error:
            outcomes.append((error, budget.allows_next()))
            raise
        outcomes.append((None, budget.allows_next()))
        return answer

    run_agent(
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
    _stopped_by_the_budget([error for error, left in outcomes if not left], label)
    passed("run_subagent_on_budget")


SAYS_BUDGET = re.compile(r"budget|spen[dt]|billed|cost|money|(?<!step )limit", re.IGNORECASE)


def _stopped_by_the_budget(stopped: list[BaseException | None], label: str) -> None:
    """Each subagent that ended with no budget left raised SubagentStopped saying so: from the
    Budget's OverBudget (raise ... from it), or in words that name the budget or its limit."""
    __tracebackhide__ = True
    if not stopped or any(error is None for error in stopped):
        fail(
            "a subagent stopped by the budget came back as if it had answered.",
            "when run.ending is 'budget_limit', raise SubagentStopped saying so.",
        )
    for error in stopped:
        said = short_repr(f"{type(error).__name__}: {error}")
        if isinstance(error, OverBudget) and not is_subagent_stopped(error):
            fail(
                f"a subagent stopped by the budget raised the Budget's own OverBudget ({said}), "
                "not SubagentStopped: the parent reads 'task failed with OverBudget', the "
                "loop's signal to stop, not the subagent's error the exercise asks for.",
                "when run.ending is 'budget_limit', raise SubagentStopped(f'the subagent ended "
                "with {run.ending}: {run.detail}') (or `raise SubagentStopped(...) from` the "
                "OverBudget you caught).",
            )
        if not is_subagent_stopped(error):
            fail(
                f"a subagent stopped by the budget raised another error than SubagentStopped: "
                f"{said}.",
                "when run.ending is 'budget_limit', raise SubagentStopped(f'the subagent ended "
                "with {run.ending}: {run.detail}'), the error the exercise asks for.",
            )
        if isinstance(error.__cause__, OverBudget) or SAYS_BUDGET.search(str(error)):
            continue
        fail(
            f"a subagent stopped by the budget raised {said}, which does not say that the "
            "budget stopped it: the parent cannot tell it from any other failure.",
            "say why in the error: SubagentStopped(f'the subagent ended with {run.ending}: "
            "{run.detail}'); run.detail is the Budget's own account of what was spent.",
        )
