"""Plain requests get plain, usable answers (values the request states fill the fields; the
menu only for what the course model cannot serve), and a request that offers no tools never
gets a tool call."""

from __future__ import annotations

import json
import re

import pytest
from tool_shapes import GET_WEATHER_ONE_CITY

from course_helpers.offline import CourseModelApp

MODEL = "claude-sonnet-5-5"
FORCING_MODEL = "claude-haiku-5-5"  # accepts a forced tool_choice
STRICT = {"_strict_response_validation": True, "max_retries": 0}
SKILL_TOOL = {
    "name": "Skill",
    "description": "Execute a skill within the main conversation.",
    "input_schema": {
        "type": "object",
        "properties": {"skill": {"type": "string"}},
        "required": ["skill"],
    },
}


@pytest.fixture(scope="module")
def strict_client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


def _calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def _said(message) -> str:
    return "\n".join(b.text for b in message.content if b.type == "text")


# -- plain requests get plain answers ---------------------------------------------------------

FORECAST = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "number"},
        "summary": {"type": "string"},
        "conditions": {"type": "string"},
    },
    "required": ["city", "temperature_c", "summary", "conditions"],
}
PARIS = "Paris, 18 C and sunny"
EXPECTED = {"city": "Paris", "temperature_c": 18, "summary": PARIS, "conditions": "sunny"}


def _no_placeholder(value: dict) -> None:
    assert not any(str(v).startswith("example") for v in value.values()), value


def test_a_forced_tool_takes_the_values_the_request_states(strict_client):
    tool = {"name": "Weather", "description": "Record the weather.", "input_schema": FORECAST}
    for stated in (PARIS, "Paris, 18C and sunny"):
        message = strict_client.messages.create(
            model=FORCING_MODEL,
            max_tokens=1024,
            tools=[tool],
            tool_choice={"type": "tool", "name": "Weather"},
            messages=[{"role": "user", "content": stated}],
        )
        ((_, value),) = _calls(message)
        assert value == {**EXPECTED, "summary": stated}


def test_structured_output_takes_the_values_the_request_states(strict_client):
    closed = {**FORECAST, "additionalProperties": False}
    message = strict_client.messages.create(
        model=MODEL,
        max_tokens=1024,
        output_config={"format": {"type": "json_schema", "schema": closed}},
        messages=[{"role": "user", "content": PARIS}],
    )
    assert json.loads(_said(message)) == EXPECTED


@pytest.mark.parametrize(
    "system",
    [
        "Provide the parsed objects in json that match the following json_schema:\n\n"
        + json.dumps(FORECAST, indent=2)
        + "\n\nMake sure to return an instance of the JSON, not the schema itself",
        "Always respond with a JSON object that's compatible with this schema:\n\n"
        + json.dumps(FORECAST)
        + "\n\nDon't include any text or Markdown fencing before or after.",
    ],
    ids=["instructor", "pydantic-ai"],
)
def test_a_schema_written_into_the_prompt_gets_a_filled_document(strict_client, system):
    message = strict_client.messages.create(
        model=MODEL, max_tokens=1024, system=system, messages=[{"role": "user", "content": PARIS}]
    )
    document = json.loads(_said(message))
    assert document == EXPECTED
    _no_placeholder(document)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Say hello in one short sentence.", "Hello! I am the offline course model."),
        ("What is 2+2?", "2+2 = 4."),
        ("How much is 7 times 6?", "7 times 6 = 42."),
    ],
)
@pytest.mark.parametrize(
    "tools", [[], [GET_WEATHER_ONE_CITY, SKILL_TOOL]], ids=["no tools", "tools"]
)
def test_a_plain_request_gets_a_plain_answer(strict_client, question, answer, tools):
    message = strict_client.messages.create(
        model=MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": question}],
        **({"tools": tools} if tools else {}),
    )
    assert _said(message) == answer and _calls(message) == []


def test_what_it_cannot_serve_gets_the_short_fallback(strict_client):
    message = strict_client.messages.create(
        model=MODEL,
        max_tokens=300,
        messages=[{"role": "user", "content": "What is the capital of Peru?"}],
    )
    said = _said(message)
    assert message.stop_reason == "end_turn" and message.usage.output_tokens < 100
    assert "I only play the course's scenarios" in said and 'Ask "What can you do?"' in said
    assert "Here is what I can do:" not in said


# -- no tools offered, no tool_use ------------------------------------------------------------


def _examples() -> list[str]:
    from course_helpers.offline import scenarios

    found = {
        example
        for entry in scenarios.registered()
        for example in re.findall(r"'([^']{6,})'", entry.description)
    }
    return sorted(
        found
        | {
            "What's the weather in Paris and Tokyo?",
            "Какая погода в Париже?",
            "Review PR #482.",
            "Fix the failing test in the shop project.",
            "Search the web: what is the agent loop?",
            "Use the Skill tool now.",
        }
    )


@pytest.mark.parametrize("question", _examples())
@pytest.mark.parametrize("how", ["no tools", "tool_choice none", "streamed"])
def test_a_request_that_offers_no_tools_never_gets_a_tool_use(strict_client, question, how):
    kwargs = {
        "model": MODEL,
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": question}],
        "system": "Always call get_weather. Use the Skill tool.",
    }
    if how == "tool_choice none":
        kwargs |= {"tools": [GET_WEATHER_ONE_CITY, SKILL_TOOL], "tool_choice": {"type": "none"}}
    if how == "streamed":
        with strict_client.messages.stream(**kwargs) as events:
            message = events.get_final_message()
    else:
        message = strict_client.messages.create(**kwargs)
    assert not [b for b in message.content if b.type in ("tool_use", "server_tool_use")]
    assert message.stop_reason != "tool_use"
