"""Course machinery (exercise checks): what notebook 13's checks share: the support desk's parts, a
gate that says no, a subagent's first request.
"""

from __future__ import annotations

from typing import Any

from course_helpers.exercise_checks.common import (
    as_plain,
    fail,
    short_repr,
)
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.gate import Decision
from course_helpers.lessons.subagents import SUBTASK_SYSTEM
from course_helpers.lessons.tools import Tool, tool

LEAD = "You lead the Kettle & Co support desk. Delegate each request with the task tool."
ONE_PART = "Where is my order #A1001?"
REFUND_PART = "My glass teapot from order #A1002 arrived broken, please refund it."
SECOND_PART = "Do you ship to Norway?"
TWO_PARTS = "Where is my order #A1001? Do you ship to Norway?"
WAIT = 5.0  # seconds the calls may take to all be running; a barrier never reached fails
HOLD = 0.5  # seconds the last subagent waits for answer_turn to return without its result


class _No:
    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(False, "the check's gate says no", "check")


def _subtask_requests(recorder) -> list[dict]:
    return [r for r in recorder.requests if r.get("system") == SUBTASK_SYSTEM]


def _text_of_response(body: dict) -> str:
    return "".join(b.get("text", "") for b in body.get("content", []) if b.get("type") == "text")


def _first_request_is_fresh(request: dict, prompt: str, what: str) -> None:
    messages = as_plain(request.get("messages") or [])
    if len(messages) != 1 or messages[0].get("role") != "user":
        fail(
            f"the subagent's first request for {what} holds {len(messages)} messages; a subagent "
            "starts from a fresh history with its prompt only.",
            "create a new list for every subagent: messages = [{'role': 'user', 'content': "
            "prompt}], never the parent's history or a list shared between subagents.",
        )
    content = messages[0].get("content")
    said = (
        content
        if isinstance(content, str)
        else " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
    )
    if prompt not in said:
        fail(
            f"the subagent's first message for {what} is {short_repr(said)}, not its prompt.",
            "the subagent's only message is the prompt the parent wrote for it.",
        )


def _desk_task(client, run_subagent, desk: Desk, approve: Any = None) -> Tool:
    """The parent's `task` tool, whose run is the learner's run_subagent."""

    def task(description: str, prompt: str, context: str = "") -> str:
        """Give one part of the work to a subagent, which sees only this prompt and context."""
        request = f"{prompt}\n\n{context}" if context else prompt
        return run_subagent(
            client, request, desk.tools(), system=SUBTASK_SYSTEM, max_steps=8, approve=approve
        )

    return tool(task)
