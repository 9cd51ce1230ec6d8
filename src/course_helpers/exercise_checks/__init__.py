"""Course machinery: automatic checks for the exercise notebooks (notebooks/exercises/).

Each `check_xxx(learner_code)` runs your code against the offline course model and small
fixtures, and examines the *protocol and behaviour*: the requests your code sent, the history it
built, the results it returned. It never judges the model's wording. On success it prints
`✓ <name>: passed`; on failure it raises `CheckFailed` with one or two lines: what is wrong, and
a hint.

The checks always talk to the offline course model, even when you have an API key: they need
answers that are the same every time, and they must not cost anything. A `Recorder` sits
between the SDK and the course model and keeps every request body and response, so a check can
look at exactly what went over the wire.

The checks of each notebook live in their own module (`single_call` for 01 ... `count_cost`
for 10, `mcp_tools` for 11, `context` for 12, `subagents` for 13; 04's dispatcher in
`simple_dispatcher`, 06's pause and refusal in `pause_and_refusal`), with `common` for the
plumbing they share. Where one notebook's checks need more room, the module is a package of
modules with one job each (`coding_agent/search.py`, `coding_agent/turn.py`...), its
`__init__.py` holding the requirements and the names the others import. Import the checks from
here. Each module's (or package's) docstring lists the requirements its checks enforce, one
line each; the tests of `tests/exercise_variants/` (one file per notebook,
`test_NN_<topic>.py`) prove them both ways with wrong and right solutions written as a learner
would write them.

In Jupyter a failed check shows its two lines only (see `common.CheckFailed`); an exercise
that is not written yet says so (`common.NotWrittenYet`).
"""

from __future__ import annotations

from course_helpers.exercise_checks.build_loop import check_loop
from course_helpers.exercise_checks.coding_agent import check_agent_turn, check_search_code
from course_helpers.exercise_checks.common import CheckFailed, NotWrittenYet, guarded
from course_helpers.exercise_checks.context import (
    check_choose_cut,
    check_clear_results,
    check_sessions,
)
from course_helpers.exercise_checks.count_cost import check_budget_loop, check_cache_breakpoints
from course_helpers.exercise_checks.describe_tools import (
    check_currency_tool,
    check_forced_call,
    check_tool_schema,
)
from course_helpers.exercise_checks.errors_as_results import check_declined_call, check_dispatcher
from course_helpers.exercise_checks.guard_tools import check_gate, check_path_guard
from course_helpers.exercise_checks.is_complete import check_is_complete
from course_helpers.exercise_checks.mcp_tools import (
    check_mcp_run_tool,
    check_read_only_query,
    check_tool_conversion,
)
from course_helpers.exercise_checks.pair_results import check_fix_history, check_tool_turn
from course_helpers.exercise_checks.pause_and_refusal import check_pause_and_refusal
from course_helpers.exercise_checks.simple_dispatcher import check_simple_dispatcher
from course_helpers.exercise_checks.single_call import check_ask, check_ask_in_full
from course_helpers.exercise_checks.stop_reasons import check_cut_offs, check_recover_cut_off
from course_helpers.exercise_checks.subagents import (
    check_answer_turn,
    check_run_subagent,
    check_shared_budget,
)
from course_helpers.exercise_checks.workflow_or_agent import (
    check_choose,
    check_hybrid,
    check_with_replacements,
)

__all__ = [
    "CheckFailed",
    "NotWrittenYet",
    "check_ask",
    "check_ask_in_full",
    "check_is_complete",
    "check_tool_schema",
    "check_currency_tool",
    "check_forced_call",
    "check_tool_turn",
    "check_fix_history",
    "check_simple_dispatcher",
    "check_loop",
    "check_dispatcher",
    "check_declined_call",
    "check_recover_cut_off",
    "check_cut_offs",
    "check_pause_and_refusal",
    "check_path_guard",
    "check_gate",
    "check_search_code",
    "check_agent_turn",
    "check_with_replacements",
    "check_choose",
    "check_hybrid",
    "check_cache_breakpoints",
    "check_budget_loop",
    "check_tool_conversion",
    "check_mcp_run_tool",
    "check_read_only_query",
    "check_clear_results",
    "check_choose_cut",
    "check_sessions",
    "check_run_subagent",
    "check_answer_turn",
    "check_shared_budget",
]

# No check ends in a raw Python error: whatever a learner's code does, the check says so.
for _name in __all__:
    if _name.startswith("check_"):
        globals()[_name] = guarded(globals()[_name])
del _name
