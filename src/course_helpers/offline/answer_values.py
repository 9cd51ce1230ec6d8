"""Course machinery (offline course model): the value of a structured answer.

A forced tool call, an output tool's input, a `json_schema` output and a JSON document a prompt
asks for are all filled the same way: from what the request says (`filling.fill`), then put right
where the program said the model's last answer was wrong (`corrections.put_right`).
"""

from __future__ import annotations

from typing import Any

from course_helpers.offline.conversation import (
    FEEDBACK,
    Conversation,
    blocks_of,
    result_text,
    written,
)
from course_helpers.offline.corrections import feedback_for, put_right
from course_helpers.offline.filling import fill
from course_helpers.offline.schemas import conform


def request_text(conv: Conversation) -> str:
    """What the request says, latest first: the person's own words, then a program's feedback
    on earlier answers (it quotes them, and its own words are no values: "Validation Errors" is
    not a name), then the tool results."""
    said, feedback, results = [], [], []
    for message in reversed(conv.messages):
        if message.get("role") != "user":
            continue
        blocks = blocks_of(message)
        words = written(blocks)
        (feedback if FEEDBACK.search(words) else said).append(words)
        results.extend(result_text(b) for b in blocks if b.get("type") == "tool_result")
    return "\n".join(part for part in [*said, *feedback, *results] if part)


def answer_value(
    conv: Conversation, schema: Any, *, hint: str = "", tool: str | None = None
) -> Any:
    """A value for `schema` filled from the request, with the fields a program's feedback on the
    last answer names put right. `tool` is the tool whose input this is (None for a text
    answer); `hint` is what the model would have said."""
    value = fill(schema, request_text(conv), hint=hint, asked=conv.asked_text)
    fixed = put_right(value, feedback_for(conv, tool))
    # A change the schema does not allow (an enum, a pattern) is not made.
    return fixed if conform(fixed, schema) == fixed else value
