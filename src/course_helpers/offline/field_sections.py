"""Course machinery (offline course model): an answer written in the field sections a program
asks for.

dspy's chat adapter, for one, names the answer's fields in the system prompt ("Your output
fields are: 1. `answer` (str):") and asks for each in a section of its own, `[[ ## answer ## ]]`,
ending with `[[ ## completed ## ]]`. It sends the inputs the same way; the markers and its
closing "Respond with the corresponding output fields..." are the program's wrapper, not the
person's words (`conversation.own_words` leaves them out). A text answer is written into the
sections asked for: a field whose section carries a JSON schema gets a document valid for it,
filled from the request (`answer_values.answer_value`); a field typed `int`, `float` or `bool`
("`count` (int):", "must be a single int value") gets a number or a truth value filled the same
way, and one that "must exactly match ... one of: a; b" gets one of those; any other field
gets the answer's text. dspy's ReAct steps and its answer after them are read as a
conversation with tools (`react_sections`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from course_helpers.offline import scenarios
from course_helpers.offline.answer_values import answer_value
from course_helpers.offline.conversation import Conversation, written
from course_helpers.offline.policy import Reply, text
from course_helpers.offline.react_sections import STEP_FIELDS, as_tool_conversation, next_step
from course_helpers.offline.react_sections import listed_tools as _listed_tools

_COMPLETED = "[[ ## completed ## ]]"
_OUTPUTS = re.compile(r"Your output fields are:\s*\n(.*?)(?:\n\s*\n|\nAll interactions|$)", re.S)
_FIELD = re.compile(r"^\s*\d+\.\s*`(\w+)`", re.MULTILINE)
_SCHEMA_NOTE = "JSON schema:"
_TYPED = {"int": {"type": "integer"}, "float": {"type": "number"}, "bool": {"type": "boolean"}}
_CHOICE = re.compile(r"must (?:exactly match \(no extra characters\) |be )one of: (.*)$")


def output_fields(conv: Conversation) -> list[str]:
    """The fields the system prompt asks the answer to be written in, in order ([] if none)."""
    system = conv.system
    if _COMPLETED not in system:
        return []
    listed = _OUTPUTS.search(system)
    return _FIELD.findall(listed.group(1)) if listed else []


def _schema_of(system: str, field: str) -> dict | None:
    """The JSON schema the field's section template says its value must follow, if any: the
    one it states, or the one its type in the list of output fields stands for."""
    typed = re.search(rf"^\s*\d+\.\s*`{re.escape(field)}` \((\w+)\):", system, re.MULTILINE)
    start = system.find(f"[[ ## {field} ## ]]")
    if start < 0:
        return None
    line = system[start:].split("\n", 2)[1] if system[start:].count("\n") >= 1 else ""
    choice = _CHOICE.search(line)
    if choice:
        return {"enum": [option.strip() for option in choice.group(1).split(";")]}
    at = line.find(_SCHEMA_NOTE)
    if at < 0:
        return _TYPED.get(typed.group(1)) if typed else None
    try:
        schema, _ = json.JSONDecoder().raw_decode(line[at + len(_SCHEMA_NOTE) :].lstrip())
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def answer_in_sections(
    conv: Conversation, reply: Reply, choose: Callable[[Conversation], Reply]
) -> Reply:
    """A final text answer, written in the field sections the system prompt asks for.
    `choose` is the course model's decision for a conversation (dspy's ReAct is read as one)."""
    if reply.stop_reason not in (None, "end_turn"):
        return reply
    if any(block["type"] != "text" for block in reply.content):
        return reply
    fields = output_fields(conv)
    if not fields:
        return reply
    step = next_step(conv, choose) if set(STEP_FIELDS) <= set(fields) else None
    said = written(reply.content).strip()
    steps = as_tool_conversation(conv, _listed_tools(conv.system))
    if step is None and steps is not None:
        # The answer after a trajectory: what the model says once it has the results.
        after = choose(steps)
        if all(block["type"] == "text" for block in after.content):
            said = written(after.content).strip() or said
    hint = "" if scenarios.is_fallback(said) else said
    sections = []
    for field in fields:
        schema = _schema_of(conv.system, field)
        if step is not None and field in step:
            value = step[field]
        elif schema is None:
            value = said
        else:
            found = answer_value(conv, schema, hint=hint)
            value = str(found) if "enum" in schema else json.dumps(found, ensure_ascii=False)
        sections.append(f"[[ ## {field} ## ]]\n{value}")
    return Reply(
        [text("\n\n".join([*sections, _COMPLETED]))], reply.stop_reason, None, reply.thinking
    )
