"""One call to the course model's support desk through the SDK, as the notebook-09 tests make
it: a system prompt, one user message (a string or text blocks), maybe tools."""

from __future__ import annotations

import json

from course_helpers.fixtures.support_desk import Desk
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
