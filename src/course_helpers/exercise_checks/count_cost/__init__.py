"""Course machinery (exercise checks): checks for notebook 10, Count the cost.

What each check enforces (and `tests/exercise_variants/test_10_count_the_cost.py` proves with
wrong and right variants):

`check_cache_breakpoints(add_breakpoints)`, for requests whose system prompt is the handbook
followed by a note that changes every day:
- the request it is given is not changed (markers left in the history pile up);
- at most four breakpoints, in places the API accepts, also on a request with no tools and no
  system prompt, and on one with three tools (a breakpoint per tool fits only with two);
- within a run, the first call writes to the cache and every later call reads everything the
  previous call sent (the breakpoint moves with the conversation);
- a run on another day reads the tools and the handbook from the cache: the breakpoint sits at
  the end of what stays the same, before the day's note.

`check_budget_loop(run_on_budget)`, on the one-log-per-turn audit and several limits:
- the run never spends more than its limit: the decision comes before each call, from the
  bill (input and output) so far plus an estimate of the next call: the last call plus the
  growth between the last two (the one estimate notebook 10's `Budget` uses);
- it does not stop much earlier than it must (no large safety margin);
- it stops between turns, so the history stays valid; a run that fits ends with end_turn;
- with max_steps=3 and room in the budget: three calls, then "step_limit", history valid;
- a call that costs far more than its estimate (its bill inflated) is still answered: the run
  stops at the next decision, between turns, never with a call unanswered;
- a run that counts plain tokens (input plus output) instead of billed() is told so;
- a run whose budget counts only the current turn (a total that starts again every turn) is
  told so.

The checks' code, one job a module:

- `breakpoints`: exercise 10.1, `check_cache_breakpoints`: where the cache breakpoints go, read
  from the usage.
- `budget`: exercise 10.2, `check_budget_loop`: a budget decided before each call, several limits.
- `overspending`: why a budget loop overspent, read from its calls' bills, and the audit measured
  once.
"""

from __future__ import annotations

from course_helpers.exercise_checks.count_cost.breakpoints import (
    audit_request,
    check_cache_breakpoints,
    day_note,
)
from course_helpers.exercise_checks.count_cost.budget import check_budget_loop

__all__ = ["check_cache_breakpoints", "check_budget_loop", "audit_request", "day_note"]
