"""Course machinery (offline course model): answering through an output tool.

Frameworks that want typed results (pydantic-ai's `ToolOutput`, for one) offer a tool whose
description says it returns the final result, and read the answer from its input. A model that
has such a tool answers through it instead of in free text. The course model does the same: a
final answer in text, with an output tool on offer and `tool_choice` not `none`, becomes a call
to that tool, its input valid for the tool's schema and filled from what the request says
(`answer_values.answer_value`).
"""

from __future__ import annotations

import json
import re

from course_helpers.offline import policy, scenarios
from course_helpers.offline.answer_values import answer_value
from course_helpers.offline.conversation import Conversation, written
from course_helpers.offline.policy import Reply
from course_helpers.offline.schemas import conform, tidy

_OUTPUT_NAME = re.compile(r"final_(?:result|answer|output|response)\w*")
# What such a tool's description says it is: the final result, the tool that ends the
# conversation, the structured output, or the last tool before the completed result.
_OUTPUT_DESCRIPTION = re.compile(
    r"\bfinal (?:result|response|answer|output)\b|\bends this conversation\b"
    r"|\bstructured ?output ?tool\b|\blast and final tool\b|\bcompleted result\b",
    re.IGNORECASE,
)


def output_tool(conv: Conversation) -> dict | None:
    """The first offered tool that returns the final result, judged by its name or description."""
    for tool in conv.tools:
        if not isinstance(tool.get("input_schema"), dict) or tool.get("type") not in (
            None,
            "custom",
        ):
            continue
        name, description = str(tool.get("name", "")), str(tool.get("description") or "")
        if _OUTPUT_NAME.fullmatch(name) or _OUTPUT_DESCRIPTION.search(description):
            return tool
    return None


def answer_through_output_tool(conv: Conversation, reply: Reply) -> Reply:
    """A final text answer, turned into a call to the output tool when one is offered."""
    if not conv.tools_allowed or reply.stop_reason not in (None, "end_turn"):
        return reply
    if any(block["type"] == "tool_use" for block in reply.content):
        return reply
    tool = output_tool(conv)
    if tool is None:
        return reply
    said = written(reply.content)
    try:
        value = conform(json.loads(said), tool["input_schema"], hint=said)
    except ValueError:
        said = "" if scenarios.is_fallback(said) else said
        value = answer_value(conv, tool["input_schema"], hint=said, tool=tool["name"])
    arguments = value if isinstance(value, dict) else {}
    others = [block for block in reply.content if block["type"] != "text"]
    return Reply(
        [*others, policy.tool_use(tool["name"], **arguments)], "tool_use", None, reply.thinking
    )


# -- a JSON schema written into the prompt ------------------------------------------------------

_COMPLETED = "[[ ## completed ## ]]"
_ASKS_JSON = re.compile(r"\bjson\b", re.IGNORECASE)


def prompted_schema(conv: Conversation) -> dict | None:
    """A JSON Schema the system prompt or the person's message asks the answer to follow
    (instructor's and pydantic-ai's JSON modes write one there), if any: the first JSON object
    in that text that looks like a schema, or that maps field names to their schemas (agno's
    JSON mode), when the text asks for JSON."""
    for said in (conv.system, conv.last_user_text):
        if not said or not _ASKS_JSON.search(said):
            continue
        decoder = json.JSONDecoder()
        for tried, match in enumerate(re.finditer(r"\{", said)):
            if tried >= 40:
                break
            try:
                value, _ = decoder.raw_decode(said, match.start())
            except ValueError:
                continue
            if isinstance(value, dict) and (
                isinstance(value.get("properties"), dict) or value.get("type") == "object"
            ):
                return tidy(value)
            if _field_properties(value):  # agno lists each field's schema, not a whole schema
                return tidy({"type": "object", "properties": value, "required": list(value)})
    return None


def _field_properties(value: object) -> bool:
    """Whether a JSON object maps field names to their schemas (`{"city": {"type": "string"}}`)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(v, dict) and isinstance(v.get("type"), str) for v in value.values())
    )


def answer_in_prompted_json(conv: Conversation, reply: Reply) -> Reply:
    """A final text answer, written as the JSON document a schema in the prompt asks for,
    its fields filled from what the request says (`answer_values.answer_value`)."""
    if reply.stop_reason not in (None, "end_turn") or conv.output_schema is not None:
        return reply
    if any(block["type"] != "text" for block in reply.content) or _COMPLETED in conv.system:
        return reply  # field sections asked for (`field_sections.py`): already written
    schema = prompted_schema(conv)
    if schema is None:
        return reply
    said = written(reply.content)
    try:
        document = conform(json.loads(said), schema, hint=said)
    except ValueError:
        said = "" if scenarios.is_fallback(said) else said
        document = answer_value(conv, schema, hint=said)
    text = json.dumps(document, ensure_ascii=False)
    return Reply([policy.text(text)], reply.stop_reason, None, reply.thinking)
