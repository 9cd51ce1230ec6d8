"""A budget as a terminal condition of the loop, like the step limit (built in notebook 10,
step 7).

`Budget(limit=...)` wraps the loop's `sample` seam (`run_agent(..., wrap_sample=budget)`) and
stops the run *before* a call that, by its estimate, would spend more than `limit`
billed-equivalent tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_helpers.lessons.controller import Ending
from course_helpers.lessons.cost.pricing import OUTPUT_WEIGHT, billed

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.cost.budget`. Edit those cells, then run `make promote`.


# From notebooks/10_count_the_cost.ipynb
class OverBudget(Ending):
    """The budget cannot pay for the next call: the run ends with `budget_limit`."""

    kind = "budget_limit"


@dataclass
class Budget:
    """A spending limit for one run, in billed-equivalent tokens (see `billed`).

    A wrapper of the loop's `sample` seam: `run_agent(..., wrap_sample=Budget(limit=...))`.
    It adds up the bill of every call that goes through it. The history grows every turn, so
    the next call is estimated as the last one plus the growth between the last two; before a
    call that would overspend by that estimate, it raises OverBudget instead of calling.
    """

    limit: float
    output_weight: float = OUTPUT_WEIGHT
    spent: float = 0.0
    last: float = 0.0
    growth: float = 0.0
    calls: int = 0

    def __call__(self, sample):
        def sample_within_budget(messages, **changes):
            if not self.allows_next():
                raise OverBudget(str(self))
            response = sample(messages, **changes)
            self.pay(response.usage)
            return response

        return sample_within_budget

    def pay(self, usage) -> None:
        """Add one call's bill, and how much more it cost than the call before."""
        cost = billed(usage, self.output_weight)
        self.growth = max(0.0, cost - self.last) if self.calls else 0.0
        self.spent, self.last, self.calls = self.spent + cost, cost, self.calls + 1

    def allows_next(self) -> bool:
        return self.spent + self.last + self.growth <= self.limit

    def __str__(self) -> str:
        return (
            f"{self.spent:,.0f} of {self.limit:,.0f} billed-equivalent tokens spent "
            f"in {self.calls} calls"
        )
