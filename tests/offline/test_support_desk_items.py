"""Notebook 09's triage names the item a ticket is about, not what it came in: in "My package
with two mugs arrived late" the item is "mugs"; a package, parcel, order, box or «посылка» is a
container."""

from __future__ import annotations

import pytest
from support_desk_calls import ask, blocks, desk_agent_answer

from course_helpers.lessons.workflows.steps import TRIAGE_SYSTEM, TRIAGE_TOOL
from course_helpers.offline.scenarios.support_desk_reading import item_of


@pytest.mark.parametrize(
    ("ticket", "item"),
    [
        ("My package with two mugs arrived late.", "mugs"),
        ("The box of espresso cups I ordered is broken.", "espresso cups"),
        ("My parcel with the teapot is late, order A1002.", "teapot"),
        ("The order containing my kettle never came.", "kettle"),
        ("My package arrived broken.", ""),
    ],
)
def test_a_container_is_not_the_item(ticket, item):
    assert item_of(ticket) == item
    (call,) = ask(TRIAGE_SYSTEM, blocks(ticket), tools=[TRIAGE_TOOL])
    assert call.type == "tool_use" and call.input["item"] == item, call


def test_a_russian_container_is_not_the_item():
    assert item_of("Моя посылка с двумя кружками опоздала.") == "кружками"
    assert item_of("Коробка с чайником пришла разбитой.") == "чайником"


def test_the_agent_finds_the_order_that_holds_the_item_in_a_package():
    ticket = "My package with the glass teapot arrived broken. My email is mia@example.com."
    answer = desk_agent_answer(ticket)
    assert "A1002" in answer and "could not find" not in answer, answer
