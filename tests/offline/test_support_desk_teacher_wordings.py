"""Notebook 09's support desk reads other wordings by one rule for every approach: sending back
is a return, "billed two times" a double charge, damage in any words, an order id with a hyphen
or a space, an order already refunded, a sign-off given as "End with:", and a form named as a
form («вызвав инструмент ...»)."""

from __future__ import annotations

import json

import pytest
from support_desk_calls import ask, blocks, desk_agent_answer, facts, said

from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.workflows.chain import DRAFT_SYSTEM
from course_helpers.lessons.workflows.steps import TRIAGE_TOOL
from course_helpers.offline.scenarios.support_desk_reading import order_ids_in, triage_form

TRIAGE = "You triage customer support tickets for Kettle & Co, a kitchenware shop. "


def _triage(ticket: str) -> dict:
    (call,) = ask(
        TRIAGE + "Always answer by calling the triage_ticket tool.",
        blocks(ticket),
        tools=[TRIAGE_TOOL],
    )
    assert call.type == "tool_use", call
    return call.input


@pytest.mark.parametrize(
    "ticket",
    [
        "Can I send back the two mugs and get my money back?",
        "I'd like to return my kettle, order A1001.",
        "Can I give the teapot back and get a refund?",
        "I want to exchange the mugs from order A1002.",
    ],
)
def test_sending_an_item_back_is_a_return(ticket):
    assert triage_form(ticket)["category"] == "refund"
    assert triage_form(ticket)["reason"] == "return"
    assert _triage(ticket)["reason"] == "return"


@pytest.mark.parametrize(
    "ticket",
    [
        "You billed me two times for one chef's knife, orders A1003 and A1004.",
        "I was charged twice for order A1003.",
        "You billed me twice, orders A1003 and A1004.",
        "There is a duplicate charge on my card for A1004.",
    ],
)
def test_being_billed_two_times_is_a_double_charge(ticket):
    form = _triage(ticket)
    assert form["category"] == "refund" and form["reason"] == "duplicate_charge", form


@pytest.mark.parametrize(
    "ticket",
    [
        "My teapot arrived in a terrible state, glass everywhere.",
        "The mugs came shattered.",
        "The teapot lid is cracked.",
        "My espresso cups arrived in pieces.",
        "The kettle came dented.",
        "The kettle is ruined.",
    ],
)
def test_damage_in_any_words_is_damage(ticket):
    form = _triage(ticket)
    assert form["category"] == "refund" and form["reason"] == "damaged", form


@pytest.mark.parametrize("written", ["A-1001", "a 1001", "A 1001", "a-1001"])
def test_an_order_id_with_a_hyphen_or_a_space_is_the_order(written):
    ticket = f"Where is my order {written}?"
    assert order_ids_in(ticket) == ["A1001"]
    assert _triage(ticket)["order_ids"] == ["A1001"]
    answer = desk_agent_answer(ticket)
    assert "TRK-4471" in answer, answer


def test_an_order_already_refunded_is_said_to_be():
    order = {**Desk().look_up_order("A1002"), "refunded": True}
    answer = said(
        DRAFT_SYSTEM,
        blocks(
            "Ticket: My teapot from order A1002 arrived broken. I want a refund.",
            "Facts (JSON):\n" + json.dumps({"orders": [order]}),
        ),
    )
    assert "A1002" in answer and "already been refunded" in answer, answer


def test_the_agent_asks_no_refund_for_an_order_already_refunded():
    desk = Desk()
    desk.refund("A1002", "damaged")
    answer = desk_agent_answer("My teapot from order A1002 arrived broken.", desk)
    assert "already been refunded" in answer, answer


@pytest.mark.parametrize(
    ("sentence", "closing"),
    [
        ("End with: Cheers, the Kettle team.", "Cheers, the Kettle team"),
        ("Sign off with: Best wishes, Anna.", "Best wishes, Anna"),
        ("Close each reply with 'Warm regards, Kettle & Co'.", "Warm regards, Kettle & Co"),
    ],
)
def test_a_sign_off_given_another_way_is_used(sentence, closing):
    system = DRAFT_SYSTEM.replace("sign as Kettle & Co support.", sentence)
    answer = said(system, blocks("Ticket: Where is order A1001?", facts("A1001")))
    assert answer.rstrip().endswith(closing) and "Kettle & Co support" not in answer, answer


def test_ending_with_a_question_is_no_sign_off():
    system = DRAFT_SYSTEM.replace("sign as Kettle & Co support.", "End with a question.")
    answer = said(system, blocks("Ticket: Where is order A1001?", facts("A1001")))
    assert answer.rstrip().endswith("Kettle & Co support"), answer


@pytest.mark.parametrize(
    "instruction",
    [
        "Fill in the triage_ticket form and write nothing else.",
        "Answer using the tool triage_ticket.",
        "Ты разбираешь обращения в поддержку Kettle & Co. Ответь, вызвав инструмент triage_ticket.",
        "Заполни форму triage_ticket и больше ничего не пиши.",
    ],
)
def test_a_form_named_in_other_words_is_filled_in(instruction):
    (call,) = ask(TRIAGE + instruction, "Where is order A1001?", tools=[TRIAGE_TOOL])
    assert call.type == "tool_use" and call.name == "triage_ticket", call
    assert call.input["order_ids"] == ["A1001"]
