"""Course machinery (exercise checks): notebook 12, what every check of its exercises shares.

One job: the half-way history of the long task every check starts from, and the API's verdict
on a history (`refusal`), asked of a course model of its own.
"""

from __future__ import annotations

from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import api_message
from course_helpers.fixtures.long_task import SYSTEM, Workspace, long_task_tools, opening_messages
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.pairing import content_blocks, read_field

STEPS = 7  # calls in the half-way run every check starts from: the list, then 6 files read


def fresh_client() -> anthropic.Anthropic:
    """A client of a course model of its own: a fresh model, shared with nobody."""
    from course_helpers.offline import CourseModelApp

    return CourseModelApp().client(max_retries=0)


def _settings() -> dict:
    tools = long_task_tools(Workspace())
    return {"model": MODEL, "system": SYSTEM, "tools": [t.definition() for t in tools]}


def halfway_history(steps: int = STEPS) -> list:
    """The long task stopped after `steps` calls: SDK objects in its assistant turns."""
    run = run_agent(
        fresh_client(),
        messages=opening_messages(),
        tools=long_task_tools(Workspace()),
        system=SYSTEM,
        max_steps=steps,
    )
    return run.messages


def refusal(messages: list) -> str | None:
    """What the API says about a history (None when it accepts it)."""
    try:
        fresh_client().messages.count_tokens(**_settings(), messages=messages)
    except anthropic.APIStatusError as error:
        return f"{error.status_code} {api_message(error).rstrip('.')}"
    return None


def results_of(messages: list) -> list[tuple[int, int, Any]]:
    return [
        (i, j, block)
        for i, message in enumerate(messages)
        if read_field(message, "role") == "user"
        for j, block in enumerate(content_blocks(message))
        if read_field(block, "type") == "tool_result"
    ]


def result_text(block: Any) -> str:
    content = read_field(block, "content") or ""
    if isinstance(content, str):
        return content
    return "".join(str(read_field(b, "text") or "") for b in content)


# -- 1. clear old tool results ------------------------------------------------------------------
