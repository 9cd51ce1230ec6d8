"""Course machinery (exercise checks): notebook 12, keep the context in bounds.

Requirements the checks enforce, one line each (tests/exercise_variants/test_12_context.py
proves them both ways):

- `clear_results(messages, keep)`: the API still accepts the history (every tool_result keeps
  its tool_use_id, in its place, and an is_error result stays marked); assistant turns, thinking
  blocks included, are untouched; the newest `keep` results are unchanged; every older result is
  shorter than before and its stub names the tool it came from and the argument to call it again
  with (keep=2, 1 and 0: `[:-keep]` clears nothing at 0); `messages` itself changes (a new list
  returned instead says so), by new entries: the message objects it holds, which the caller's
  history shares (`list(history)` is such a list), are not edited;
- `choose_cut(messages, keep_turns)`: the index of the first message to keep; with a summary in
  front of `messages[cut:]` the API accepts the history; the last `keep_turns` assistant turns
  are kept and nothing before the turn ahead of them; None when there is nothing to summarise;
- `save(path, messages)` / `resume(path)`: the file is JSON; the resumed history has every
  thinking block's text and signature character for character and every tool id paired; the
  course model, started afresh, continues it to the end of the task; the file `save` wrote is
  resumed, not refused; a file whose thinking block lost its signature, and one whose
  tool_result answers no tool_use, are refused with an exception (not resumed, not None).

Each failure says what the API answered (its own error text) and which mistake it points at.
One module per exercise: `context_clear`, `context_cut`, `context_sessions`; the half-way history
and the API's verdict on a history in `context_common`.
"""

from course_helpers.exercise_checks.context_clear import check_clear_results
from course_helpers.exercise_checks.context_common import halfway_history, refusal
from course_helpers.exercise_checks.context_cut import check_choose_cut
from course_helpers.exercise_checks.context_sessions import check_sessions

__all__ = [
    "check_choose_cut",
    "check_clear_results",
    "check_sessions",
    "halfway_history",
    "refusal",
]
