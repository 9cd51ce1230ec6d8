"""Course machinery: the small parts notebook 05's dispatcher uses to word its results.

`course_helpers.lessons.dispatch.dispatch` (built in notebook 05) imports them:

- `call_parts`: the id, name and input of a call, given as an SDK object or as a dict;
- `as_text`: what a tool returned, as the text the model reads (JSON for anything not a string);
- `short_json`: a value quoted briefly for an error message, never failing, even on a value
  JSON cannot write, with control and line-separator characters escaped;
- `describe_problems`: pydantic's validation errors, one plain line per problem;
- `failure_text`: an exception as its type and message, even when its `__str__` fails;
- `ask_permission`: asks `approve`, a function or a policy object with `decide()` (notebook
  07), and returns its answer, reason and who decided, without judging the answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic

from course_helpers.plumbing.truncate import visible


def call_parts(block: Any) -> tuple[str, str, Any]:
    """The id, name and input of a tool_use block, given as an SDK object or as a dict."""
    if isinstance(block, Mapping):
        tool_id, name, tool_input = block.get("id"), block.get("name"), block.get("input")
    else:
        tool_id = getattr(block, "id", None)
        name = getattr(block, "name", None)
        tool_input = getattr(block, "input", None)
    return str(tool_id or ""), str(name or ""), tool_input


def as_text(value: Any) -> str:
    """What a tool returned, as the text the model reads: str as is, JSON for the rest."""
    if isinstance(value, str):
        return value or "(the tool returned an empty string)"
    if value is None:
        return "(the tool returned nothing)"
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError):
        return str(value)


def short_json(value: Any, width: int = 80) -> str:
    """A value as JSON, cut to `width` characters; never fails, even on hostile values."""
    try:
        return visible(json.dumps(value, ensure_ascii=False, default=str)[:width])
    except (TypeError, ValueError, RecursionError):
        return f"a {type(value).__name__}"


def describe_problems(error: pydantic.ValidationError) -> str:
    """One plain line per problem pydantic found in the arguments.

    Argument names and values come from the model, so they are shown escaped: a name holding
    a newline cannot start a line of its own (a fake "Exit code: 0") in the message.
    """
    lines = []
    for problem in error.errors():
        loc = problem.get("loc", ())
        where = ".".join(visible(str(part)) for part in loc) or "the input"
        kind = problem.get("type", "")
        if kind == "missing":
            lines.append(f"- {where}: this argument is required but was not given")
        elif kind == "extra_forbidden":
            lines.append(f"- {where}: this tool has no such argument")
        else:
            got = short_json(problem.get("input"))
            said = visible(str(problem.get("msg", "invalid")))
            lines.append(f"- {where}: {said} (got {got})")
    return "\n".join(lines)


def ask_permission(approve: Any, name: str, tool_input: Any) -> tuple[Any, str, str]:
    """Ask `approve` about one call: a function or an object with `decide()` (a policy).

    It may answer True/"yes", or a Decision-like object with `.allowed`, `.reason` and `.who`
    (notebook 07). Returns (the answer, the reason, who decided), as given: "" where the answer
    does not say. The answer is not judged here: the dispatcher reads it with `is_yes`.
    """
    decide = getattr(approve, "decide", approve)
    answer = decide(name, tool_input)
    if hasattr(answer, "allowed"):
        reason = str(getattr(answer, "reason", "") or "")
        return answer.allowed, reason, str(getattr(answer, "who", "") or "")
    return answer, "", ""


def failure_text(name: str, error: BaseException) -> str:
    """How a tool's exception reads for the model: what failed, and the exception's words."""
    kind = type(error).__name__
    try:
        detail = str(error).strip()
    except KeyboardInterrupt:
        raise
    except BaseException:  # an exception whose __str__ fails must still be reported
        detail = "(its message could not be read)"
    return f"{name} failed with {kind}: {detail}" if detail else f"{name} failed with {kind}"
