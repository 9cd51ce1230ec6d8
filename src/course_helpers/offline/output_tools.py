"""Course machinery (offline course model): answering through an output tool.

Frameworks that want typed results (pydantic-ai's `ToolOutput`, for one) offer a tool whose
description says it returns the final result, and read the answer from its input. A model that
has such a tool answers through it instead of in free text. The course model does the same: a
final answer in text, with an output tool on offer and `tool_choice` not `none`, becomes a call
to that tool, its input valid for the tool's schema and filled from what the request says
(`filling.fill`).
"""

from __future__ import annotations

import json
import re

from course_helpers.offline import policy
from course_helpers.offline.conversation import Conversation, blocks_of, result_text, written
from course_helpers.offline.filling import fill
from course_helpers.offline.policy import Reply
from course_helpers.offline.schemas import conform

_OUTPUT_NAME = re.compile(r"final_(?:result|answer|output|response)\w*")
_OUTPUT_DESCRIPTION = re.compile(
    r"\bfinal (?:result|response|answer|output)\b|\bends this conversation\b", re.IGNORECASE
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


def request_text(conv: Conversation) -> str:
    """What the request says, latest first: the person's own words, then the tool results."""
    said, results = [], []
    for message in reversed(conv.messages):
        if message.get("role") != "user":
            continue
        blocks = blocks_of(message)
        said.append(written(blocks))
        results.extend(result_text(b) for b in blocks if b.get("type") == "tool_result")
    return "\n".join(part for part in [*said, *results] if part)


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
        value = fill(tool["input_schema"], request_text(conv), hint=said)
    arguments = value if isinstance(value, dict) else {}
    others = [block for block in reply.content if block["type"] != "text"]
    return Reply(
        [*others, policy.tool_use(tool["name"], **arguments)], "tool_use", None, reply.thinking
    )
