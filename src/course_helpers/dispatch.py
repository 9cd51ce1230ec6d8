"""The dispatcher: run one tool call and always answer it (built in notebook 05).

`run_tool()` turns one `tool_use` block into one `tool_result` block, and never raises for
anything a tool or the model can do wrong. Every failure becomes a result with
`is_error: true` and a message the model can act on. The checks run in this order:

1. the tool exists,
2. the arguments are valid (the Tool's pydantic model),
3. a person or a policy allows the call (`approve`),
4. the tool runs, and any exception it raises is caught.

There is nothing AI-specific here: it is the same code you would write for a web form.
`KeyboardInterrupt` (a BaseException, not an Exception) is deliberately not caught: stopping
is the loop's decision, see `course_helpers.loop`. Neither is `PendingApproval` from
`course_helpers.approvals`: it means "no answer yet", and the loop pauses on it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic

from course_helpers.tools import Tool
from course_helpers.truncate import truncate

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


def describe_problems(error: pydantic.ValidationError) -> str:
    """One plain line per problem pydantic found in the arguments."""
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem.get("loc", ())) or "the input"
        kind = problem.get("type", "")
        if kind == "missing":
            lines.append(f"- {where}: this argument is required but was not given")
        elif kind == "extra_forbidden":
            lines.append(f"- {where}: this tool has no such argument")
        else:
            got = json.dumps(problem.get("input"), ensure_ascii=False, default=str)[:80]
            lines.append(f"- {where}: {problem.get('msg', 'invalid')} (got {got})")
    return "\n".join(lines)


def ask_permission(approve: Any, name: str, tool_input: Any) -> tuple[bool, str]:
    """Ask `approve` about one call: a function or an object with `decide()` (a policy).

    It may answer True/False, or a Decision-like object with `.allowed` and `.reason`.
    """
    decide = getattr(approve, "decide", approve)
    answer = decide(name, tool_input)
    if hasattr(answer, "allowed"):
        return bool(answer.allowed), str(getattr(answer, "reason", "") or "")
    return bool(answer), ""


def failure_text(name: str, error: Exception) -> str:
    """How a tool's exception reads for the model: what failed, and the exception's words."""
    detail = str(error).strip()
    kind = type(error).__name__
    return f"{name} failed with {kind}: {detail}" if detail else f"{name} failed with {kind}"


def run_tool(
    tools: Mapping[str, Tool] | list[Tool],
    block: Any,
    *,
    approve: Any = None,
    result_limit: int = RESULT_LIMIT,
) -> dict:
    """Answer one tool_use block with a tool_result block. Never raises for a tool's failure.

    What the tool returns (or the error it raised) is cut to `result_limit` characters,
    keeping the head and the tail.
    """
    tool_id, name, tool_input = call_parts(block)
    registry = dict(tools) if isinstance(tools, Mapping) else {t.name: t for t in tools}
    # 1. The tool exists.
    tool = registry.get(name)
    if tool is None:
        available = ", ".join(sorted(registry)) or "(none)"
        message = f"Unknown tool {name!r}. Available tools: {available}."
        return tool_result(tool_id, message, is_error=True)
    # 2. The arguments are valid.
    if not isinstance(tool_input, Mapping):
        message = f"Invalid arguments for {name}: expected a JSON object, got {tool_input!r:.80}."
        return tool_result(tool_id, message, is_error=True)
    try:
        arguments = tool.arguments.model_validate(dict(tool_input))
    except pydantic.ValidationError as error:
        message = f"Invalid arguments for {name}:\n{describe_problems(error)}"
        return tool_result(tool_id, message, is_error=True)
    except Exception as error:
        return tool_result(tool_id, f"Invalid arguments for {name}: {error}", is_error=True)
    # 3. Permission is granted (only asked when there is someone to ask).
    if approve is not None:
        try:
            allowed, reason = ask_permission(approve, name, dict(tool_input))
        except Exception as error:
            if type(error).__name__ == "PendingApproval":
                raise  # not an answer yet: the loop pauses and asks again later
            allowed, reason = False, f"the approval check failed ({failure_text(name, error)})"
        if not allowed:
            because = f" ({reason})" if reason else ""
            message = (
                f"The user declined to run {name}{because}. It was not run. "
                "Do not try the same call again; ask the user how to continue."
            )
            return tool_result(tool_id, message, is_error=True)
    # 4. Run it, catching whatever it raises.
    try:
        fields = type(arguments).model_fields
        output = tool.function(**{field: getattr(arguments, field) for field in fields})
        content = truncate(as_text(output), result_limit)
    except Exception as error:
        message = truncate(failure_text(name, error), result_limit)
        return tool_result(tool_id, message, is_error=True)
    return tool_result(tool_id, content)
