"""Course machinery (exercise checks): checks for notebook 08, Assemble a coding agent.

The list below is the whole of what 08's exercises must do; most of it is the agent-turn check
following the course's max_tokens policy (cut-off call, retry, cut-off text).

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_08_assemble_a_coding_agent.py):

`check_search_code(make_search_code)`, the `search_code(pattern, path=".")` tool (the sandbox
is checked first, so a tool that leaks hears that before anything about its docstring):
- a `Tool` named search_code, a description of 12 words or more, arguments pattern and path,
  only pattern required;
- an empty pattern is refused by the signature, before the function runs;
- `..`, an absolute path and a link to a folder outside are refused (`is_error`) and leak
  nothing; searching the whole project never reads through a link that leads out;
- matches read `path:line: text` with paths relative to the root, and only under `path`;
- at most 50 matches, then a line that says more were left out; long lines cut.

`check_agent_turn(agent_turn)`, `agent_turn(client, messages, tools, line, *, max_steps,
max_tokens)` on the coding task:
- every request offers the agent's tools, a retry after a cut-off call too (the scripted
  client of the checks never answers a request without tools with a tool call); the history
  is valid after every turn;
- it goes on while stop_reason is tool_use; at max_steps calls it returns "step_limit" with
  every call answered, and "Carry on." then finishes the task (end_turn, tests run);
- refusal and end_turn each hand back after one call, returning the stop_reason;
- max_tokens follows the course's policy or hands back: a tool_use cut off by max_tokens never
  runs and is never kept; a retry resends the same history with a higher max_tokens (at most
  128,000); a cut-off text is kept and a user message asks to continue; every retry counts
  toward max_steps; handing back at once returns "max_tokens".

The checks' code, one job a module:

- `search`: exercise 08.1, `search_code`: what it finds, what it escapes, the names it shows.
- `kit`: exercise 08.2's coding task and sandbox, and the basic rules of one agent turn.
- `scripted`: exercise 08.2 against a scripted model: the retry cap, and cut-off text continued.
- `cut_off`: exercise 08.2 against the course model: a call cut off by max_tokens, and its retries.
- `turn`: exercise 08.2, `check_agent_turn`: the order its rules are tried in.
"""

from __future__ import annotations

from course_helpers.exercise_checks.coding_agent.kit import CODING_TASK, CodingKit, coding_kit
from course_helpers.exercise_checks.coding_agent.scripted import CUT_CALL, _Scripted
from course_helpers.exercise_checks.coding_agent.search import check_search_code
from course_helpers.exercise_checks.coding_agent.turn import check_agent_turn

__all__ = [
    "check_search_code",
    "check_agent_turn",
    "CODING_TASK",
    "CUT_CALL",
    "_Scripted",
    "coding_kit",
    "CodingKit",
]
