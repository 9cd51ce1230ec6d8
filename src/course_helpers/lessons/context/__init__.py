"""Keep the context in bounds, and a session across restarts (built in notebook 12).

A long run's history outgrows the model's context window. One module per job, in the order
notebook 12 builds them:

- `window`: `context_window` (the model list's `max_input_tokens`), `token_counter` (the
  count_tokens endpoint) and `Window`, a wrapper of the `sample` seam that records each
  request's size (step 2);
- `room`: `KeepInBounds`, the wrapper that keeps every request under a limit by climbing its
  rungs, and two rungs: `drop_old_turns` (notebook 06's compaction) and `clear_old_results`
  (steps 3 and 4);
- `summary`: `cut_point` and `Summarise`, the rung that asks the model for a summary of the
  oldest turns (step 5);
- `sessions`: `save_session`, `load_session` and `SessionRefused` (step 8).

The long task the notebook measures them on is course data: `course_helpers.fixtures.long_task`.
"""

from course_helpers.lessons.context.room import (
    STUB,
    KeepInBounds,
    clear_old_results,
    drop_old_turns,
    result_size,
)
from course_helpers.lessons.context.sessions import (
    SESSION_FORMAT,
    SessionRefused,
    as_params,
    load_session,
    save_session,
    session_problems,
)
from course_helpers.lessons.context.summary import (
    SUMMARY_NOTE,
    SUMMARY_PROMPT,
    Summarise,
    cut_point,
)
from course_helpers.lessons.context.window import Window, context_window, token_counter

__all__ = [
    "SESSION_FORMAT",
    "STUB",
    "SUMMARY_NOTE",
    "SUMMARY_PROMPT",
    "KeepInBounds",
    "SessionRefused",
    "Summarise",
    "Window",
    "as_params",
    "clear_old_results",
    "context_window",
    "cut_point",
    "drop_old_turns",
    "load_session",
    "result_size",
    "save_session",
    "session_problems",
    "token_counter",
]
