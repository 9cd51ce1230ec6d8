"""A writer given no facts answers the ticket's own request as far as it can (notebook 09): it
says what was asked and that it cannot see the order, and never asks for what the ticket gives.
The same for any approach: the ticket and the role are all it reads."""

from __future__ import annotations

import pytest
from support_desk_calls import said

WRITER = "You are a support agent for Kettle & Co. Write the reply to the customer."


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [
        (
            "My mug arrived broken, order A1001. I want a refund.",
            "You asked for a refund for order A1001. I cannot see that order here, so I cannot "
            "refund it or tell you more yet.",
        ),
        (
            "Where is my order A1002? It hasn't shown up.",
            "You asked where order A1002 is. I cannot see that order here, so I cannot tell you "
            "yet.",
        ),
        (
            "my order a1002 hasn't shown up",
            "You asked where order A1002 is. I cannot see that order here, so I cannot tell you "
            "yet.",
        ),
    ],
)
@pytest.mark.parametrize("shape", ["Ticket: {}", "{}"])
def test_with_no_facts_the_stated_request_is_answered_not_asked_for(ticket, answer, shape):
    reply = said(WRITER, shape.format(ticket))
    assert answer in reply
    assert "what you need" not in reply
    assert "order number" not in reply


def test_a_ticket_that_states_no_request_still_gets_a_question():
    reply = said(WRITER, "Ticket: Hi, order A1001 please.")
    assert "Could you tell me a little more?" in reply
