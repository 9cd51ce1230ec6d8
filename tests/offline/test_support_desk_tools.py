"""Notebook 09's support desk picks a tool by what its name and description say, by one rule,
not by its exact name: the agent with the desk's tools renamed (the same descriptions) does the
same work and writes the same replies; a tool that says it does something else is not used."""

from __future__ import annotations

import dataclasses

import pytest

from course_helpers.fixtures.support_desk import CASES, Desk
from course_helpers.lessons.workflows.agent import AGENT_SYSTEM, run_support_agent
from course_helpers.offline import CourseModel, CourseModelApp

RENAMES = {
    "look_up_order": "get_order",
    "look_up_customer": "find_customer",
    "search_kb": "search_help",
    "refund": "issue_refund",
}


def _client():
    return CourseModelApp(CourseModel()).client(_strict_response_validation=True)


def _outcomes() -> dict[str, tuple[str, list[str], list[str]]]:
    out = {}
    for case in CASES:
        desk = Desk()
        attempt = run_support_agent(_client(), desk, case.ticket)
        refused = [r["order_id"] for r in desk.refused]
        out[case.name] = (attempt.reply, [r["order_id"] for r in desk.refunds], refused)
    return out


@pytest.mark.parametrize(
    "renames",
    [RENAMES, {"look_up_order": "get_order"}, {"search_kb": "helpCentreSearch"}],
    ids=["all four", "the order lookup", "the help-centre search"],
)
def test_the_agent_with_renamed_tools_does_the_same_work(renames, monkeypatch):
    shipped = _outcomes()
    original = Desk.tools

    def renamed(self):
        return [dataclasses.replace(t, name=renames.get(t.name, t.name)) for t in original(self)]

    monkeypatch.setattr(Desk, "tools", renamed)
    assert _outcomes() == shipped


# The desk's tools named and described in other words (synonyms of order and refund).
REWORDED = {
    "look_up_order": ("get_shipment_status", "Look up where a customer's purchase is."),
    "look_up_customer": ("find_buyer", "Find a shopper by their email address."),
    "search_kb": ("search_guides", "Search the shop's guides and policies."),
    "refund": ("give_money_back", "Return a customer's money for an order."),
}


def test_the_agent_with_tools_in_other_words_does_the_same_work(monkeypatch):
    shipped = _outcomes()
    original = Desk.tools

    def reworded(self):
        return [
            dataclasses.replace(t, name=REWORDED[t.name][0], description=REWORDED[t.name][1])
            for t in original(self)
        ]

    monkeypatch.setattr(Desk, "tools", reworded)
    assert _outcomes() == shipped


def test_a_tool_is_judged_by_its_name_and_its_description():
    from course_helpers.offline.scenarios.support_desk_request import operation_of

    described = {t.name: t.definition()["description"] for t in Desk().tools()}
    for name, new in RENAMES.items():
        assert operation_of({"name": new, "description": described[name]}) == operation_of(
            {"name": name, "description": described[name]}
        )
    # An uninformative name: the description says what the tool does.
    assert operation_of({"name": "tool_1", "description": described["look_up_order"]}) == "order"
    # A tool that changes an order is no lookup, whatever it is called.
    cancel = {"name": "cancel_order", "description": "Cancel an order that has not shipped."}
    assert operation_of(cancel) is None


def test_a_renamed_lookup_engages_the_desk_and_is_called_by_its_name():
    order = next(t for t in Desk().tools() if t.name == "look_up_order").definition()
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1024,
        "system": AGENT_SYSTEM,
        "messages": [{"role": "user", "content": "Hi, where is my order #A1001?"}],
        "tools": [{**order, "name": "get_order"}],
    }
    content = CourseModel().respond(body).message["content"]
    calls = [(b["name"], b["input"]) for b in content if b["type"] == "tool_use"]
    assert calls == [("get_order", {"order_id": "A1001"})]


def test_a_tool_the_instructions_forbid_is_not_called_and_the_reply_says_what_is_known(
    monkeypatch,
):
    from course_helpers.lessons.workflows import agent as agent_module

    system = (
        "You are the support agent of Kettle & Co, a kitchenware shop. Answer the customer's "
        "ticket. Use the tools to find the facts. Never call the refund tool. Sign as Kettle & Co "
        "support."
    )
    monkeypatch.setattr(agent_module, "AGENT_SYSTEM", system)
    desk = Desk()
    attempt = run_support_agent(_client(), desk, CASES[2].ticket)  # P3: a broken teapot
    assert desk.refunds == [] and desk.refused == []
    assert "cannot look this up" not in attempt.reply, attempt.reply
    assert "Your order A1002" in attempt.reply, attempt.reply
