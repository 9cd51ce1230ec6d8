"""A tool's name alone starts no scenario: a client's own `web_search` is the client's tool, and
a `task` tool gets "What is 2+2?" answered, not delegated."""

from __future__ import annotations

import jsonschema
import pytest

from course_helpers.offline import CourseModelApp

MODEL = "claude-haiku-5-5"
OWN_SEARCH = {
    "name": "web_search",
    "description": "Search the web.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}
SERVER_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
TASK = {
    "name": "task",
    "description": "Launch a subagent to handle a task.",
    "input_schema": {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "prompt": {"type": "string"},
            "subagent_type": {"type": "string", "enum": ["general-purpose", "Explore"]},
        },
        "required": ["description", "prompt", "subagent_type"],
    },
}


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


def ask(client, question: str, tools: list[dict]):
    return client.messages.create(
        model=MODEL,
        max_tokens=1024,
        tools=tools,
        messages=[{"role": "user", "content": question}],
    )


def types(message) -> list[str]:
    return [b.type for b in message.content if b.type != "thinking"]


@pytest.mark.parametrize("question", ["Hi", "What is 2+2?", "Say hello in one short sentence."])
def test_a_clients_own_web_search_tool_gets_no_server_blocks(client, question):
    message = ask(client, question, [OWN_SEARCH])
    assert "server_tool_use" not in types(message)
    assert "web_search_tool_result" not in types(message)


@pytest.mark.parametrize("question", ["Hi", "What is 2+2?"])
def test_the_server_tool_is_not_used_for_what_needs_no_search(client, question):
    assert "server_tool_use" not in types(ask(client, question, [SERVER_SEARCH]))


def test_the_server_tool_searches_when_asked(client):
    message = ask(client, "Search the web: what is the agent loop?", [SERVER_SEARCH])
    assert "server_tool_use" in types(message)


@pytest.mark.parametrize("question", ["What is 2+2?", "Say hello in one short sentence."])
def test_a_task_tool_does_not_take_over_a_plain_question(client, question):
    message = ask(client, question, [TASK])
    assert "tool_use" not in types(message)


def test_a_task_call_fills_every_required_field():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    asked = "My teapot from order #A1002 arrived broken, please refund it. Where is my blue kettle?"
    message = ask(client, asked, [TASK])
    calls = [b.input for b in message.content if b.type == "tool_use"]
    assert len(calls) == 2
    for call in calls:
        jsonschema.validate(call, TASK["input_schema"])
