"""Notebook 09's support desk reads the same meaning in other words: a refund writer's role said
with "reimbursed", a widening sentence ("Answer all the customer's questions", "Also tell them
where any other order they mention is"), a check's completeness ("nothing ... is left out"), the
refund policy ("has to match the refund policy", "the refunds page"), a form named with "use the
X tool", and a sign-off given as "the signature X"."""

from __future__ import annotations

import pytest

from course_helpers.fixtures.support_desk import CASES, TRIAGE_TOOL_NAME
from course_helpers.lessons.workflows import router as router_module
from course_helpers.lessons.workflows import steps as steps_module
from course_helpers.lessons.workflows.chain import DRAFT_SYSTEM
from course_helpers.lessons.workflows.router import HANDLER_SYSTEMS
from course_helpers.measurement.workflows import run_case
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.scenarios.support_desk_reading import (
    approval_word,
    checks_completeness,
    role_scope,
    sign_off,
    told_to_follow_refund_policy,
)

CASE = {c.name.split()[0]: c for c in CASES}
REFUND = HANDLER_SYSTEMS["refund"]


def _client():
    return CourseModelApp(CourseModel()).client(_strict_response_validation=True)


REIMBURSED = (
    "You tell Kettle & Co customers whether they were reimbursed, from the facts given: what was "
    "paid back, or why not. Be brief; sign as Kettle & Co support."
)


@pytest.mark.parametrize(
    ("system", "scope", "u5_success"),
    [
        (REFUND, {"refund"}, False),
        (REIMBURSED, {"refund"}, False),
        (REFUND + " Answer all the customer's questions.", None, True),
        (REFUND + " Answer all of the customer's questions.", None, True),
        (
            REFUND + " Also tell them where any other order they mention is.",
            {"refund", "shipping"},
            True,
        ),
    ],
    ids=["shipped", "reimbursed", "all the questions", "all of the questions", "also where"],
)
def test_the_refund_writers_role_in_other_words(system, scope, u5_success, monkeypatch):
    assert role_scope(system) == scope
    monkeypatch.setitem(router_module.HANDLER_SYSTEMS, "refund", system)
    result = run_case(_client(), "router", CASE["U5"])
    assert result.success is u5_success, result.why


@pytest.mark.parametrize(
    "system",
    [
        "You check a draft reply to a Kettle & Co support ticket against the facts. If every "
        "statement in it is supported by the facts and nothing the customer asked that the facts "
        "can answer is left out, reply OK. Otherwise reply with the corrected reply.",
        "You check a draft reply to a Kettle & Co support ticket: it must be supported by the "
        "facts and answer all of the customer's questions. Then answer with exactly OK.",
        "You check a draft reply to a Kettle & Co support ticket. A draft that misses no "
        "question is fine: answer with exactly OK.",
    ],
)
def test_a_checks_completeness_in_other_words(system):
    assert checks_completeness(system)
    assert approval_word(system) == "OK"


@pytest.mark.parametrize(
    "wording",
    [
        "Any refund you issue has to match the shop's refund policy, which is in the help centre.",
        "Look up the refunds page before you give anyone money back.",
    ],
)
def test_the_refund_policy_in_other_words(wording):
    assert told_to_follow_refund_policy(wording)


def test_a_form_named_with_use_the_tool_is_filled_in(monkeypatch):
    shipped = run_case(_client(), "router", CASE["P1"])
    reworded = (
        "You triage customer support tickets for Kettle & Co, a kitchenware shop. Always use the "
        f"{TRIAGE_TOOL_NAME} tool to answer; write no other text."
    )
    monkeypatch.setattr(steps_module, "TRIAGE_SYSTEM", reworded)
    result = run_case(_client(), "router", CASE["P1"])
    assert result.success and result.success == shipped.success, result.why


@pytest.mark.parametrize(
    ("system", "name"),
    [
        (DRAFT_SYSTEM, "Kettle & Co support"),
        (
            DRAFT_SYSTEM.split(" Be brief")[0]
            + " End every reply with the signature The Kettle team.",
            "The Kettle team",
        ),
        (
            "You write replies for Kettle & Co. Signature: Kim from Kettle & Co.",
            "Kim from Kettle & Co",
        ),
    ],
)
def test_a_sign_off_in_other_words(system, name):
    assert sign_off(system) == name


def test_a_form_named_at_the_start_of_a_sentence_is_a_form():
    """ "Use the triage_ticket tool." opens its sentence with a capital letter."""
    from course_helpers.offline.conversation import Conversation
    from course_helpers.offline.scenarios.support_desk import form_tool

    triage = {"name": "triage_ticket", "input_schema": {"type": "object", "properties": {}}}
    for said in (
        "Use the triage_ticket tool.",
        "Call the triage_ticket tool.",
        "Always use the triage_ticket tool.",
    ):
        conv = Conversation(
            {
                "system": f"You triage Kettle & Co tickets. {said}",
                "tools": [triage],
                "messages": [{"role": "user", "content": "Where is A1001?"}],
            }
        )
        assert (form_tool(conv) or {}).get("name") == "triage_ticket", said
