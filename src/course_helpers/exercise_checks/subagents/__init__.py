"""Course machinery (exercise checks): checks for notebook 13, Delegate to subagents.

What each check enforces (and `tests/exercise_variants/test_13_subagents.py` proves with wrong
and right variants):

`check_run_subagent(run_subagent)`, the `task` tool's run, on notebook 09's support desk:
- it starts a fresh history: the subagent's first request holds one user message, its prompt,
  and nothing of the parent's or of another subagent's history;
- the subagent gets the system prompt and the tools it is given;
- it returns only the subagent's final text (no turns, calls or results of its history);
- a subagent that ends without an answer ends with `SubagentStopped` (the lesson's error, or a
  class of the learner's own by that name) that says how it ended, for every ending tried (see
  `endings`): its step limit (after no more calls than its limit), a refusal, answers cut off
  at max_tokens, an API error; a plain `RuntimeError` or the loop's own `StepLimitReached` is
  refused (the exercise asks for `SubagentStopped`, the name the parent reads in its `is_error`
  result), and so is the learner's own code failing (an AttributeError from a misspelt field);
- the subagent's dangerous calls go through the `approve` it is given: a gate that says no
  means no refund;
- used as the parent's `task` tool, the parent's history grows by one result per subagent.

`check_answer_turn(answer_turn)`, the results of one turn's subagents:
- every call runs at the same time (the calls meet at a barrier that opens only when all of
  them are running);
- the results come back in ONE user message, each call answered once, in any order (the API
  pairs each result with its call by `tool_use_id`; the check's ids are not in sorted order);
- it returns only once every result is in (the last subagent is held until it returns, or
  for HOLD seconds), and no thread it started is still running when it returns;
- the results come first in the message (the API refuses text before them).

`check_shared_budget(run_subagent_on_budget)`:
- every call of the subagent is paid by the `budget` it is given (the parent's), never by a new
  budget of its own that starts from zero;
- in a tree whose budget runs out, the whole tree spends no more than the limit, and a subagent
  stopped by the budget ends with `SubagentStopped` saying so: raised from the Budget's
  `OverBudget`, or in words that name the budget or its limit; the raw `OverBudget` is named;
- a budget that pays a call twice is named as such.

The checks' code, one job a module:

- `desk`: what notebook 13's checks share: the support desk's parts, a gate that says no, a
  subagent's first request.
- `endings`: exercise 13.1, every ending without an answer (a server of its own for max_tokens
  and an API error), each to end in SubagentStopped naming it.
- `run_subagent`: exercise 13.1, `check_run_subagent`: a fresh history, its final text only, its
  limits, SubagentStopped.
- `answer_turn`: exercise 13.2, `check_answer_turn`: one turn's calls at once, their results in one
  message.
- `shared_budget`: exercise 13.3, `check_shared_budget`: one budget for the whole tree.
"""

from __future__ import annotations

from course_helpers.exercise_checks.subagents.answer_turn import check_answer_turn
from course_helpers.exercise_checks.subagents.run_subagent import check_run_subagent
from course_helpers.exercise_checks.subagents.shared_budget import check_shared_budget

__all__ = ["check_run_subagent", "check_answer_turn", "check_shared_budget"]
