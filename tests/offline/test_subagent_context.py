"""The course model of notebook 13 fills a task's `context` with what the part needs: every
email the request states, whatever sentence it sits in, and the order ids of sentences that ask
for nothing; a sentence that only says who the customer is goes to no part's prompt."""

from __future__ import annotations

import pytest

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.scenarios.subagents import subagents

TASK = {
    "name": "task",
    "description": "Give one part of the work to a subagent. `context`: every fact it needs "
    "(names, emails, order numbers); it knows nothing else.",
    "input_schema": {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "prompt": {"type": "string"},
            "context": {"type": "string"},
        },
        "required": ["description", "prompt"],
    },
}


def task_calls(ticket: str) -> list[dict]:
    conv = Conversation(
        {"model": "m", "tools": [TASK], "messages": [{"role": "user", "content": ticket}]}
    )
    reply = subagents(conv)
    assert reply is not None, "the model did not delegate"
    return [b["input"] for b in reply.content if b["type"] == "tool_use"]


def by_topic(calls: list[dict]) -> dict[str, dict]:
    return {c["description"].split(":")[0]: c for c in calls}


def test_an_email_inside_another_parts_sentence_reaches_every_part():
    calls = by_topic(
        task_calls(
            "Where is the blue kettle I ordered? I'm sam@example.com and my glass teapot from "
            "order #A1002 arrived broken, please refund it."
        )
    )
    assert "sam@example.com" in calls["shipping"]["context"]
    # The teapot's order belongs to the refund part: the kettle's subagent is not sent it.
    assert "A1002" not in calls["shipping"]["context"]
    assert "A1002" in calls["refund"]["prompt"]


@pytest.mark.parametrize(
    "ticket",
    [
        "Where is the blue kettle I ordered? Do you ship to Norway? My email is sam@example.com.",
        "My email is sam@example.com. Where is the blue kettle I ordered? Do you ship to Norway?",
    ],
)
def test_a_sentence_that_only_says_who_the_customer_is_goes_to_every_context(ticket):
    calls = task_calls(ticket)
    assert [c["prompt"] for c in calls] == [
        "Where is the blue kettle I ordered?",
        "Do you ship to Norway?",
    ]
    assert all(c["context"] == "My email is sam@example.com." for c in calls)


def test_an_order_sentence_that_asks_nothing_still_goes_to_the_part_without_an_order():
    calls = by_topic(
        task_calls(
            "Do you ship to Norway? Where is my blue kettle? It was order #A1008, by the way. "
            "My email is sam@example.com."
        )
    )
    assert calls["policy"]["context"].count("sam@example.com") == 1
    assert "A1008" in calls["shipping"]["prompt"] + calls["shipping"]["context"]
