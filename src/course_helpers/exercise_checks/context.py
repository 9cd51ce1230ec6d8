"""Course machinery (exercise checks): notebook 12, keep the context in bounds.

Requirements the checks enforce, one line each (tests/exercise_variants/test_12_context.py
proves them both ways):

- `clear_results(messages, keep)`: the API still accepts the history (every tool_result keeps
  its tool_use_id, in its place, and an is_error result stays marked); assistant turns, thinking
  blocks included, are untouched; the newest `keep` results are unchanged; every older result is
  shorter than before and its stub names the tool it came from and the argument to call it again
  with (keep=2, 1, 0 and more than there are results: `[:-keep]` clears nothing at 0, and
  `[:len(results) - keep]` clears some when keep is larger); `messages` itself changes (a new list
  returned instead says so), by new entries: the message objects it holds, which the caller's
  history shares (`list(history)` is such a list), are not edited;
- `choose_cut(messages, keep_turns)`, given the caller's own list, which it leaves as it was:
  the index of the first message to keep; with a summary in
  front of `messages[cut:]` the API accepts the history; the last `keep_turns` assistant turns
  are kept and nothing before the turn ahead of them; None when there is nothing to summarise;
- `save(path, messages)` / `resume(path)`, on a session whose person's words and thoughts hold
  non-ASCII text and surrounding whitespace (`context_history.session_history`): the file is one
  JSON document in UTF-8; every thinking block is in it with its text and signature as the model
  wrote them (a failure says whether blocks were left out, a signature is missing, a signature
  changed or the text changed, with the refusal that file gets); the resumed history equals the
  saved one block by block (message count, roles, texts, calls and their inputs, results,
  thinking), a failure naming the first difference; the course model, started afresh,
  continues it to the end of the task; the file `save` wrote is resumed, not refused; a file in
  which any one thinking block lost its signature (each in turn), and one whose tool_result
  answers no tool_use, are refused with an exception (not resumed, not None).

Each failure says what the API answered (its own error text) and which mistake it points at.
One module per exercise: `context_clear`, `context_cut`, `context_sessions` (its session and
the comparison of two histories in `context_history`); the half-way history and the API's
verdict on a history in `context_common`.
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
