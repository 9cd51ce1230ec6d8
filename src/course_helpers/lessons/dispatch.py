"""The dispatcher: run one tool call and always answer it (built in notebook 05).

`dispatch()` turns one `tool_use` block into one `tool_result` block, and never raises for
anything a tool or the model can do wrong. Every failure becomes a result with
`is_error: true` and a message the model can act on, cut to the result limit like any other
result. The checks run in this order:

1. the tool exists,
2. the arguments are valid (the Tool's pydantic model, reading them as the JSON they came as),
3. a person or a policy allows the call (`approve`): only an explicit yes approves,
4. the tool runs, and whatever it raises is caught, `SystemExit` (a tool calling `sys.exit()`,
   argparse on bad arguments) and `GeneratorExit` included.

There is nothing AI-specific here: it is the same code you would write for a web form.
One thing passes through on purpose: `KeyboardInterrupt` (Ctrl-C). Stopping is the person's
decision, and the loop answers every call of the turn before it stops, so the history stays
valid (see `course_helpers.lessons.agent.interrupted`).

The small parts that word the results (reading a call, output as text, pydantic's errors and
an exception in plain words, asking a function or a policy object) are course machinery, in
`course_helpers.support.result_wording`, and imported here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic

from course_helpers.lessons.tools import Tool
from course_helpers.plumbing.truncate import truncate
from course_helpers.support.result_wording import (  # course machinery: the wording of the results
    as_text,
    ask_permission,
    call_parts,
    describe_problems,
    failure_text,
    short_json,
)

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.dispatch`. Edit those cells, then run `make promote`.


# From notebooks/05_return_errors_as_results.ipynb
# Results longer than this are shortened: every character is resent on every later turn.
RESULT_LIMIT = 4000


def tool_result(tool_use_id: str, content: str, *, is_error: bool = False) -> dict:
    """A tool_result block answering the tool_use whose id is `tool_use_id`."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": is_error,
    }


# From notebooks/05_return_errors_as_results.ipynb
YES = frozenset({"y", "yes", "allow", "approve"})
NO_PERSON = "no person was asked"  # how a result says a rule or a script decided, not a person


def is_yes(answer: Any) -> bool:
    """Only an explicit yes approves: True, or one of the words in YES (any case).

    Everything else is a no: False, None, "", "n", "no", "false", "deny", a typo, 1, an object.
    `bool(answer)` would approve the string "no"; a gate must fail closed.
    """
    if answer is True:
        return True
    return isinstance(answer, str) and answer.strip().lower() in YES


# From notebooks/05_return_errors_as_results.ipynb
def declined_text(name: str, reason: str, who: str) -> str:
    """Tell the model the call did not run, and who said no: a person, or a rule or script."""
    because = f" ({reason})" if reason else ""
    if who == "person":
        said = f"The user declined to run {name}{because}."
    else:
        policy = f"The approval policy {who}" if who else "The approval policy"
        said = f"{policy} declined {name}{because}; {NO_PERSON}."
    return f"{said} It was not run. Do not try the same call again; ask the user how to continue."


# From notebooks/05_return_errors_as_results.ipynb
def dispatch(
    tools: Mapping[str, Tool] | list[Tool],
    block: Any,
    *,
    approve: Any = None,
    result_limit: int = RESULT_LIMIT,
) -> dict:
    """Answer one tool_use block with a tool_result block. Never raises for a tool's failure.

    What the tool returns, and every error message, is cut to `result_limit` characters,
    keeping the head and the tail: a 1 MB tool name must not become a 1 MB result.
    """
    tool_id, name, tool_input = call_parts(block)
    registry = dict(tools) if isinstance(tools, Mapping) else {t.name: t for t in tools}

    def error(message: str) -> dict:
        return tool_result(tool_id, truncate(message, result_limit), is_error=True)

    # 1. The tool exists.
    tool = registry.get(name)
    if tool is None:
        available = ", ".join(sorted(registry)) or "(none)"
        return error(f"Unknown tool {name!r}. Available tools: {available}.")
    # 2. The arguments are valid.
    if not isinstance(tool_input, Mapping):
        return error(
            f"Invalid arguments for {name}: expected a JSON object, got {short_json(tool_input)}."
        )
    try:
        # The input arrived as JSON: validate it as JSON, as Tool.run does, so that "EUR" is
        # a member of an Enum and "2026-01-02" a date, while "482" is still not a number.
        tool.arguments.model_validate_json(json.dumps(dict(tool_input)))
    except pydantic.ValidationError as problem:
        return error(f"Invalid arguments for {name}:\n{describe_problems(problem)}")
    except Exception as problem:
        return error(failure_text(f"Checking the arguments of {name}", problem))
    # 3. Permission is granted (only asked when there is someone to ask).
    if approve is not None:
        try:
            answer, reason, who = ask_permission(approve, name, dict(tool_input))
        except KeyboardInterrupt:
            raise
        except BaseException as problem:
            answer, who = False, ""
            reason = failure_text("the approval check", problem)
        if not is_yes(answer):  # only an explicit yes
            return error(declined_text(name, reason, who))
    # 4. Run it, catching whatever it raises (SystemExit too), except Ctrl-C.
    try:
        output = tool.run(dict(tool_input))  # notebook 02's Tool.run: validate, then call
        return tool_result(tool_id, truncate(as_text(output), result_limit))
    except KeyboardInterrupt:
        raise
    except BaseException as problem:
        return error(failure_text(name, problem))
