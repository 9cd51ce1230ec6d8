"""One call to the course model's support desk through the SDK, as the notebook-09 tests make
it: a system prompt, one user message (a string or text blocks), maybe tools."""

from __future__ import annotations

import json

from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.workflows.agent import AGENT_SYSTEM
from course_helpers.offline import CourseModel, CourseModelApp


def blocks(*texts: str) -> list[dict]:
    return [{"type": "text", "text": t} for t in texts]


def ask(system: str, content, **request) -> list:
    """The content blocks the course model answers with (thinking left out)."""
    client = CourseModelApp(CourseModel()).client(_strict_response_validation=True)
    response = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=2048,
        system=system,
        messages=[{"role": "user", "content": content}],
        **request,
    )
    return [b for b in response.content if b.type in ("text", "tool_use")]


def said(system: str, content, **request) -> str:
    """The text the course model answers with."""
    return "".join(b.text for b in ask(system, content, **request) if b.type == "text")


def facts(*order_ids: str) -> str:
    """The facts block of a writing step: the orders looked up, as JSON."""
    desk = Desk()
    return "Facts (JSON):\n" + json.dumps({"orders": [desk.look_up_order(i) for i in order_ids]})


def desk_agent_answer(ticket: str, desk: Desk | None = None) -> str:
    """The final text of notebook 09's agent (its own system prompt and the desk's tools) on
    one ticket."""
    client = CourseModelApp(CourseModel()).client(_strict_response_validation=True)
    run = run_agent(
        client,
        messages=[{"role": "user", "content": ticket}],
        tools=(desk or Desk()).tools(),
        system=AGENT_SYSTEM,
        max_tokens=2048,
    )
    return run.final_text
