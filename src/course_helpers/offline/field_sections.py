"""Course machinery (offline course model): an answer written in the field sections a program
asks for.

dspy's chat adapter, for one, names the answer's fields in the system prompt ("Your output
fields are: 1. `answer` (str):") and asks for each in a section of its own, `[[ ## answer ## ]]`,
ending with `[[ ## completed ## ]]`. It sends the inputs the same way; the markers and its
closing "Respond with the corresponding output fields..." are the program's wrapper, not the
person's words (`conversation.own_words` leaves them out). A text answer is written into the
sections asked for: a field whose section carries a JSON schema gets a document valid for it,
filled from the request (`answer_values.answer_value`); any other field gets the answer's text.
"""

from __future__ import annotations

import json
import re

from course_helpers.offline import scenarios
from course_helpers.offline.answer_values import answer_value
from course_helpers.offline.conversation import Conversation, written
from course_helpers.offline.policy import Reply, text

_COMPLETED = "[[ ## completed ## ]]"
_OUTPUTS = re.compile(r"Your output fields are:\s*\n(.*?)(?:\n\s*\n|\nAll interactions|$)", re.S)
_FIELD = re.compile(r"^\s*\d+\.\s*`(\w+)`", re.MULTILINE)
_SCHEMA_NOTE = "JSON schema:"


def output_fields(conv: Conversation) -> list[str]:
    """The fields the system prompt asks the answer to be written in, in order ([] if none)."""
    system = conv.system
    if _COMPLETED not in system:
        return []
    listed = _OUTPUTS.search(system)
    return _FIELD.findall(listed.group(1)) if listed else []


def _schema_of(system: str, field: str) -> dict | None:
    """The JSON schema the field's section template says its value must follow, if any."""
    start = system.find(f"[[ ## {field} ## ]]")
    if start < 0:
        return None
    line = system[start:].split("\n", 2)[1] if system[start:].count("\n") >= 1 else ""
    at = line.find(_SCHEMA_NOTE)
    if at < 0:
        return None
    try:
        schema, _ = json.JSONDecoder().raw_decode(line[at + len(_SCHEMA_NOTE) :].lstrip())
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def answer_in_sections(conv: Conversation, reply: Reply) -> Reply:
    """A final text answer, written in the field sections the system prompt asks for."""
    if reply.stop_reason not in (None, "end_turn"):
        return reply
    if any(block["type"] != "text" for block in reply.content):
        return reply
    fields = output_fields(conv)
    if not fields:
        return reply
    said = written(reply.content).strip()
    hint = "" if scenarios.is_fallback(said) else said
    sections = []
    for field in fields:
        schema = _schema_of(conv.system, field)
        value = (
            json.dumps(answer_value(conv, schema, hint=hint), ensure_ascii=False)
            if schema is not None
            else said
        )
        sections.append(f"[[ ## {field} ## ]]\n{value}")
    return Reply(
        [text("\n\n".join([*sections, _COMPLETED]))], reply.stop_reason, None, reply.thinking
    )
