"""What notebook 09 counts (built in notebook 09, sections 2 and 7): success, judged by code, and
latency, modelled from token counts where it cannot be measured.

- `judge(case, reply, refunds)`: the reply states the case's facts and exactly the expected
  orders were refunded, under the desk's rule that every approach shares. Wording does not
  count, which is what puts four approaches (and the offline model and Claude) on equal terms.
- `modelled_seconds(usages)`: the offline course model answers at once, so its latency is a
  model, not a measurement: a fixed cost per call, then reading and writing speeds.

Running every case and printing the tables is course machinery: `course_helpers.measurement.workflows`.
"""

from __future__ import annotations

from course_helpers.fixtures.support_desk import Case
from course_helpers.lessons.cost.usage import prompt_tokens

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.workflows.scoring`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
def judge(case: Case, reply: str, refunds: list[dict]) -> tuple[bool, str]:
    """Success by code: every fact is in the reply and exactly the expected orders were refunded."""
    missing = [fact for fact in case.facts if fact.lower() not in reply.lower()]
    refunded = sorted(r["order_id"] for r in refunds)
    problems = [f"reply lacks {fact!r}" for fact in missing]
    if refunded != sorted(case.refunds):
        problems.append(
            f"refunded {refunded or 'nothing'}, expected {list(case.refunds) or 'none'}"
        )
    return not problems, "; ".join(problems)


# From notebooks/09_choose_workflow_or_agent.ipynb
# A model of latency for the offline course model (which answers at once). Round numbers of
# the right order for a hosted model: a fixed cost per call, then reading and writing speeds.
CALL_SECONDS = 0.5
INPUT_TOKENS_PER_SECOND = 20_000
OUTPUT_TOKENS_PER_SECOND = 60


def modelled_seconds(usages: list[dict]) -> float:
    """Latency of a sequence of calls under the model above (not a measurement)."""
    return sum(
        CALL_SECONDS
        + prompt_tokens(u) / INPUT_TOKENS_PER_SECOND
        + u.get("output_tokens", 0) / OUTPUT_TOKENS_PER_SECOND
        for u in usages
    )
