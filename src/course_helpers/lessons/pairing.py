"""Keep the tool_use / tool_result pairing rules (built in notebook 03).

`results_message` builds the one user message that answers a response's tool calls, and
`pairing_problems` reads a history and says, in plain words, which rule it breaks before the API
does. Both accept plain dicts and the SDK's objects (`response.content` appended as is).
The two checks `pairing_problems` runs on each message, `unanswered_calls` and `unasked_results`,
live in `course_helpers.support.pairing_rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.support import pairing_rules  # each message's two checks (course machinery)

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.pairing`. Edit those cells, then run `make promote`.


# From notebooks/03_pair_tool_results.ipynb
def read_field(item: Any, name: str) -> Any:
    """Read a field from a dict or from an SDK object, the same way."""
    if isinstance(item, dict):
        return item.get(name)
    return getattr(item, name, None)


def content_blocks(message: Any) -> list[Any]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    content = read_field(message, "content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def _of_type(message: Any, kind: str) -> list[Any]:
    """The blocks of `message` whose type is `kind`, in order."""
    return [block for block in content_blocks(message) if read_field(block, "type") == kind]


# From notebooks/03_pair_tool_results.ipynb
def results_message(response: Any, run_tool: Callable[[Any], dict]) -> dict:
    """The user message that answers every tool_use of `response`: one result each, in order.

    `run_tool(block)` runs one tool_use block and returns its tool_result block. The message
    holds the results only, so they come first; add any text of your own after them.
    """
    calls = _of_type(response, "tool_use")
    if not calls:
        raise ValueError("the response has no tool_use blocks, so there is nothing to answer")
    results = []
    for call in calls:
        result = run_tool(call)
        # A wrong id would only fail later, at the API: say so here, where the mistake is.
        if read_field(result, "type") != "tool_result" or (
            read_field(result, "tool_use_id") != read_field(call, "id")
        ):
            raise ValueError(
                f"run_tool must return a tool_result block with tool_use_id "
                f"{read_field(call, 'id')!r}, got {result!r}"
            )
        results.append(result)
    return {"role": "user", "content": results}


# From notebooks/03_pair_tool_results.ipynb
def _plain(message: Any) -> dict:
    """What the two checks read of a message, as plain dicts (read once, dict or SDK object)."""
    fields = ("type", "id", "name", "tool_use_id")
    blocks = [
        {name: read_field(block, name) for name in fields} for block in content_blocks(message)
    ]
    return {"role": read_field(message, "role"), "content": blocks}


def pairing_problems(messages: list[Any]) -> list[str]:
    """Problems with the tool_use / tool_result pairing of a history, in plain words.

    An empty list means the history keeps the rules: every tool_use is answered by a
    tool_result in the very next message, those results come before any other block, every
    result answers a tool_use of the message just before it, and no id is used twice.
    """
    problems: list[str] = []
    first_asked: dict[str, int] = {}  # tool_use id -> index of the message that asked for it
    for index, message in enumerate(messages):
        role = read_field(message, "role")
        if role != "assistant" and _of_type(message, "tool_use"):
            problems.append(f"messages[{index}]: tool_use blocks belong in assistant messages")
        if role != "user" and _of_type(message, "tool_result"):
            problems.append(f"messages[{index}]: tool_result blocks belong in user messages")
        if role != "assistant":
            continue
        for call in _of_type(message, "tool_use"):
            call_id = read_field(call, "id")
            if call_id in first_asked:
                problems.append(
                    f"messages[{index}]: tool_use id {call_id} was already used in "
                    f"messages[{first_asked[call_id]}]"
                )
            first_asked.setdefault(call_id, index)

    plain = [_plain(message) for message in messages]
    for index, message in enumerate(plain):
        previous = plain[index - 1] if index > 0 else None
        following = plain[index + 1] if index + 1 < len(plain) else None
        if message["role"] == "assistant":
            problems += pairing_rules.unanswered_calls(index, message, following)
        elif message["role"] == "user":
            problems += pairing_rules.unasked_results(index, message, previous, first_asked)
    return problems
