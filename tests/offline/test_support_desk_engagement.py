"""When notebook 09's support desk engages: by one rule from what the request holds (the person's
ticket, the desk's tools, a system prompt that makes the model the shop's support), never from a
stray "support" or "Kettle & Co" in another program's instructions."""

from __future__ import annotations

import pytest

from course_helpers.fixtures.support_desk import CASES, Desk
from course_helpers.lessons.workflows.agent import AGENT_SYSTEM
from course_helpers.lessons.workflows.chain import DRAFT_SYSTEM
from course_helpers.offline import CourseModel
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.scenarios.support_desk import support_desk

MODEL = "claude-sonnet-5-5"


def _body(system: str | None, content: str, tools: list | None = None) -> dict:
    body: dict = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": content}],
    }
    if system is not None:
        body["system"] = system
    if tools is not None:
        body["tools"] = tools
    return body


def _engages(system: str | None, content: str, tools: list | None = None) -> bool:
    return support_desk(Conversation(_body(system, content, tools))) is not None


def _answer(system: str | None, content: str, tools: list | None = None) -> str:
    message = CourseModel().respond(_body(system, content, tools)).message
    return "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")


def test_the_desks_tools_engage_it_without_any_system_prompt(desk_tools):
    # A real model offered look_up_order for "where is my order A1001?" calls it.
    assert _engages(None, "Where is my order a1001?", desk_tools)
    assert _engages("You are a helpful assistant.", CASES[0].ticket, desk_tools)


@pytest.mark.parametrize(
    "role",
    [
        AGENT_SYSTEM,
        DRAFT_SYSTEM,
        "Act as the customer support of Kettle & Co and answer the ticket.",
        "You answer Kettle & Co customers. Be brief.",
    ],
)
def test_a_role_as_the_shops_support_engages_it_for_a_ticket(role):
    assert _engages(role, CASES[0].ticket)


@pytest.mark.parametrize(
    "system",
    [
        # Another program's instructions that happen to say "support" and name the shop.
        "You are a coding assistant. Our client Kettle & Co needs support for Python 3.12.",
        "You are a translator. Translate the user's text. Kettle & Co support wrote it.",
        # A support role for another shop.
        "You are the support agent of Acme Tools. Answer the customer's ticket.",
        # A support role with no shop named at all.
        "You are a customer support agent.",
    ],
)
def test_a_stray_support_in_other_instructions_does_not_engage_it(system):
    assert not _engages(system, "Where is my order A1001? It's been a week.")


@pytest.mark.parametrize("question", ["What is 2+2?", "Say hello in one short sentence."])
def test_an_unrelated_request_with_a_support_prompt_gets_a_plain_answer(question, desk_tools):
    assert not _engages(AGENT_SYSTEM, question)
    assert not _engages(AGENT_SYSTEM, question, desk_tools)
    said = _answer(AGENT_SYSTEM, question)
    assert "order" not in said.lower() and "Kettle & Co support" not in said
    if question.startswith("What is"):
        assert "4" in said


def test_every_ticket_of_09_engages_it_under_every_role_it_is_sent_with():
    for case in CASES:
        assert _engages(AGENT_SYSTEM, case.ticket), case.name
        assert _engages(DRAFT_SYSTEM, f"Ticket:\n{case.ticket}"), case.name


@pytest.fixture
def desk_tools() -> list[dict]:
    return [t.definition() for t in Desk().tools()]


def test_a_tool_that_lists_orders_is_not_an_order_lookup():
    """Notebook 10's audit: `list_shipments` ("The order ids shipped in a week") names orders
    but looks none up, so the desk stays out of the audit."""
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK, AUDIT_TOOLS, HANDBOOK
    from course_helpers.offline.conversation import Conversation
    from course_helpers.offline.scenarios.support_desk_reading import at_the_desk

    tools = [tool.definition() for tool in AUDIT_TOOLS]
    conv = Conversation(
        {"system": HANDBOOK, "tools": tools, "messages": [{"role": "user", "content": AUDIT_TASK}]}
    )
    assert not at_the_desk(conv)
