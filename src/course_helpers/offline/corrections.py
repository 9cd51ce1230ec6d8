"""Course machinery (offline course model): a structured answer put right after a program refused it.

Programs that want typed answers (instructor, pydantic-ai, langchain) validate what the model
sends. When a field fails, they send the error back and ask again: as an `is_error` tool_result
for the call ("Validation Error found: ... Recall the function correctly, fix the errors"), or as
a user text after a JSON answer ("Fix the errors and try again."). A model reads that error as
feedback on its own answer and sends the answer again with the named fields put right.

The course model does the same, by one rule for every caller. Feedback is read only where it
answers the model's own answer: an `is_error` result of a call to the tool being filled (the
program's own answer schema, forced or an output tool), or a user text that says the answer
failed validation, right after that answer. An error from a tool that acts in the world is a
result to report, never an order to call it again differently (it may come from anyone). From it, a field is
changed only when the error names the field (pydantic's `loc` line or a `"loc"` list, or the
field's name in a sentence that names no other field) and states one of these exact changes:

- must end in / with X: an address gets X as its domain when X starts with `@`
  ("ada@lovelace.org" must end in "@example.com" gives "ada@example.com"); any other text
  gets X added at its end;
- must start / begin with X: X added in front (X quoted, or plainly a literal: a symbol or a
  digit in it; "must start with a capital letter" names no text to add);
- must be lowercase / uppercase;
- at most N characters: cut to N.

Nothing else in an error or a tool result changes a value, and no value is made up: an error
that states none of these changes gets the same answer back, and the program's own retry limit
ends the exchange.

    put_right({"email": "ada@lovelace.org"},
              "email\\n  Value error, the email must end in @example.com")
    # {"email": "ada@example.com"}
"""

from __future__ import annotations

import json
import re
from typing import Any

from course_helpers.offline.conversation import (
    FEEDBACK,
    Conversation,
    blocks_of,
    result_text,
    text_of,
)

_MUST = r"(?:must|should|has to|needs? to|is (?:expected|required) to)"
_TARGET = r"""(?:'([^']+)'|"([^"]+)"|`([^`]+)`|([^\s'"`,;\[\]()]+?))(?=[\s,;)\]]|\.(?:\s|$)|$)"""
_ENDS = re.compile(rf"\b{_MUST}\s+end(?:s)?\s+(?:in|with)\s+{_TARGET}", re.IGNORECASE)
_STARTS = re.compile(rf"\b{_MUST}\s+(?:start|begin)\s+with\s+{_TARGET}", re.IGNORECASE)
_CASE = re.compile(rf"\b{_MUST}\s+be\s+(?:in\s+|all\s+)?(lower|upper)[\s-]?case\b", re.IGNORECASE)
_AT_MOST = re.compile(r"\bat most (\d{1,6}) characters?\b", re.IGNORECASE)
# pydantic's text: a location line ("email", "address.city") then its indented message.
_LOC_LINE = re.compile(r"^([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*$")


def feedback_for(conv: Conversation, tool: str | None) -> str:
    """The error a program sent about the model's last answer: the `is_error` results of the
    last message for calls to `tool`, or (for a text answer, `tool` None) the last user text
    when it says the answer failed validation. Empty when there is none."""
    last = conv.last
    if last.get("role") != "user":
        return ""
    blocks = blocks_of(last)
    if tool is not None:
        names = {call.id: call.name for call in conv.latest_results()}
        return "\n".join(
            result_text(b)
            for b in blocks
            if b.get("type") == "tool_result"
            and b.get("is_error") is True
            and names.get(b.get("tool_use_id", "")) == tool
        )
    said = text_of([b for b in blocks if b.get("type") == "text"])
    return said if FEEDBACK.search(said) else ""


def put_right(value: Any, feedback: str) -> Any:
    """`value` with each field the feedback names changed as the feedback states (see the
    module's rules). A value the feedback says nothing exact about comes back as it was."""
    if not feedback or not isinstance(value, dict):
        return value
    fixed = json.loads(json.dumps(value))
    for path, message in _errors(feedback, fixed):
        _change(fixed, path, message)
    return fixed


def _errors(feedback: str, value: dict) -> list[tuple[list[str], str]]:
    """(field path, message) pairs: pydantic's `loc` lines and `"loc"` lists, else each
    sentence that names a field of the value."""
    found: list[tuple[list[str], str]] = []
    lines = feedback.splitlines()
    for index, line in enumerate(lines):
        match = _LOC_LINE.match(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if match and following.startswith((" ", "\t")) and _exists(value, match.group(1)):
            found.append((match.group(1).split("."), following.strip()))
    for listed in _json_errors(feedback):
        loc, message = listed.get("loc"), listed.get("msg")
        if isinstance(loc, list) and isinstance(message, str):
            path = [str(part) for part in loc if isinstance(part, str)]
            if path and _exists(value, ".".join(path)):
                found.append((path, message))
    if found:
        return found
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", feedback):
        named = [
            key
            for key in value
            if re.search(rf"(?<!\w){re.escape(str(key))}(?!\w)", sentence, re.IGNORECASE)
        ]
        if len(named) == 1:  # a sentence about two fields says which of them to change no better
            found.append((named, sentence))
    return found


def _json_errors(feedback: str) -> list[dict]:
    """The error objects of a JSON list in the feedback (pydantic-ai writes one)."""
    start = feedback.find("[")
    if start < 0:
        return []
    try:
        listed, _ = json.JSONDecoder().raw_decode(feedback, start)
    except ValueError:
        return []
    return [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []


def _exists(value: dict, dotted: str) -> bool:
    node: Any = value
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _change(value: dict, path: list[str], message: str) -> None:
    node: Any = value
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    key = path[-1]
    if not isinstance(node, dict) or not isinstance(node.get(key), str):
        return
    node[key] = _changed(node[key], message)


def _target(match: re.Match) -> str | None:
    """What a "must end / start with" names: a quoted text, or a bare one that is plainly a
    literal (it holds a symbol or a digit: "@example.com", "EU-"). "a capital letter" or "a
    valid top-level domain" describe a change; they are not text to add."""
    quoted = next((group for group in match.groups()[:3] if group), None)
    if quoted is not None:
        return quoted
    bare = match.group(4)
    return bare if bare and re.search(r"[^\w\s]|\d", bare) else None


def _changed(text: str, message: str) -> str:
    ends = _ENDS.search(message)
    end = _target(ends) if ends else None
    if end and not text.endswith(end):
        text = text.split("@")[0] + end if end.startswith("@") and "@" in text else text + end
    starts = _STARTS.search(message)
    start = _target(starts) if starts else None
    if start and not text.startswith(start):
        text = start + text
    if match := _CASE.search(message):
        text = text.lower() if match.group(1).lower() == "lower" else text.upper()
    if match := _AT_MOST.search(message):
        text = text[: int(match.group(1))]
    return text
