"""Course machinery: the two per-message checks behind `pairing_problems` (notebook 03).

`pairing_problems` (in `course_helpers.lessons.pairing`, built in notebook 03) walks a history and hands
each message to one of these:

- `unanswered_calls`: the calls of an assistant message each need a result at the start of the
  next message. It tells three cases apart, so that the problem points at the fix: the history
  ends before any result, the result is there but after other content, or it is missing.
- `unasked_results`: the results of a user message must each answer a call of the message just
  before it, once; when the id was asked for earlier in the history, the problem says where.

`opening_result_ids` is the API's own reading of a results message: only the `tool_result`
blocks at the *start* answer a call.

They read plain dicts only: `pairing_problems` reads each message once, dict or SDK object,
with notebook 03's readers, and hands over `{"role", "content": [{"type", "id", "name",
"tool_use_id"}, ...]}`. So this module imports nothing from `course_helpers.lessons`: the import
goes one way, from `lessons.pairing` to here.
"""

from __future__ import annotations


def _of_type(message: dict, kind: str) -> list[dict]:
    """The blocks of a plain message whose type is `kind`, in order."""
    return [block for block in message["content"] if block.get("type") == kind]


def opening_result_ids(message: dict) -> set[str]:
    """Ids of the tool_result blocks that open a message: only those answer a tool_use."""
    ids = set()
    for block in message["content"]:
        if block.get("type") != "tool_result":
            break
        ids.add(block.get("tool_use_id"))
    return ids


def unanswered_calls(index: int, message: dict, following: dict | None) -> list[str]:
    """Problems with the tool_use blocks of messages[index] (an assistant message)."""
    answered, present = set(), set()
    if following is not None and following.get("role") == "user":
        answered = opening_result_ids(following)
        present = {b.get("tool_use_id") for b in _of_type(following, "tool_result")}
    problems = []
    for call in _of_type(message, "tool_use"):
        call_id, name = call.get("id"), call.get("name")
        if call_id in answered:
            continue
        if following is None:
            problems.append(
                f"messages[{index}]: tool_use {call_id} ({name}) has no tool_result yet "
                "(the history ends here)"
            )
        elif call_id in present:
            problems.append(
                f"messages[{index + 1}]: the tool_result for {call_id} ({name}) comes after "
                "other content; tool_result blocks must come first"
            )
        else:
            problems.append(
                f"messages[{index}]: tool_use {call_id} ({name}) has no tool_result in the "
                f"next message, messages[{index + 1}]"
            )
    return problems


def unasked_results(
    index: int, message: dict, previous: dict | None, first_asked: dict[str, int]
) -> list[str]:
    """Problems with the tool_result blocks of messages[index] (a user message)."""
    asked = set()
    if previous is not None and previous.get("role") == "assistant":
        asked = {b.get("id") for b in _of_type(previous, "tool_use")}
    problems, seen = [], set()
    for result in _of_type(message, "tool_result"):
        result_id = result.get("tool_use_id")
        if result_id is None:
            wrote_id = " (did you write 'id'?)" if result.get("id") is not None else ""
            problems.append(f"messages[{index}]: a tool_result without a tool_use_id{wrote_id}")
            continue
        if result_id in seen:
            problems.append(f"messages[{index}]: more than one tool_result for {result_id}")
        elif result_id not in asked:
            where = first_asked.get(result_id)
            hint = (
                f"it answers messages[{where}], but a result must be in the message right "
                "after its tool_use"
                if where is not None
                else "no tool_use has this id"
            )
            problems.append(
                f"messages[{index}]: the tool_result for {result_id} answers no tool_use of "
                f"the message before it ({hint})"
            )
        seen.add(result_id)
    return problems
