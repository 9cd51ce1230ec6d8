"""When notebook 09's support desk has nothing to say from the facts, the writer asks the
customer what they need; it never promises a hand-over that no code makes."""

from __future__ import annotations

import pytest

from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.workflows.chain import CHECK_SYSTEM, DRAFT_SYSTEM
from course_helpers.lessons.workflows.steps import facts_message
from course_helpers.measurement.workflows import APPROACHES
from course_helpers.offline import CourseModel, CourseModelApp


def _client():
    return CourseModelApp(CourseModel()).client(_strict_response_validation=True)


def _said(system: str, content) -> str:
    response = _client().messages.create(
        model="claude-sonnet-5-5",
        max_tokens=2048,
        system=system,
        messages=[{"role": "user", "content": content}],
    )
    return "".join(b.text for b in response.content if b.type == "text")


TICKET = "What's the status of A1001?"  # no words the desk reads as a kind of request


def test_a_writer_with_nothing_to_say_asks_and_promises_no_colleague():
    said = _said(DRAFT_SYSTEM, facts_message(TICKET, {"orders": []}))
    assert "colleague" not in said and "?" in said, said
    # The check approves the question: it states nothing the facts do not show.
    draft = said
    assert _said(CHECK_SYSTEM, facts_message(TICKET, {"orders": []}, draft=draft)) == "OK"


@pytest.mark.parametrize("approach", ["chain", "agent"])
def test_no_writer_promises_a_hand_over(approach):
    attempt = APPROACHES[approach](_client(), Desk(), TICKET)
    assert "who will reply soon" not in attempt.reply, attempt.reply


@pytest.mark.parametrize("approach", ["chain", "agent"])
def test_the_fallback_never_asks_for_the_order_number_the_ticket_gives(approach):
    """The writer asks what the customer needs about the order the ticket names (the router and
    the orchestrator pass this ticket to a person in code)."""
    attempt = APPROACHES[approach](_client(), Desk(), TICKET)
    assert "order number" not in attempt.reply and "A1234" not in attempt.reply, attempt.reply
    assert "A1001" in attempt.reply and "?" in attempt.reply, attempt.reply
