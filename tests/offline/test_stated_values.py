"""Values the request states fill a schema's fields, whatever the mode (a forced tool, `auto`,
`output_config.format`): a country, a one-word name, an email beside `format: email`, a
postcode, a listed set of tags, the value of an enum its names or description say; and a
prose field never holds the question as its own answer."""

from __future__ import annotations

import json

import pytest

from course_helpers.offline import CourseModelApp
from course_helpers.offline.filling import CANNOT_ANSWER, fill

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
MODES = ("tool", "any", "json")


def answer(schema: dict, question: str, mode: str, name: str = "final_result") -> dict:
    """The value the course model gives for `schema` in one of three modes."""
    body: dict = {
        "model": "claude-haiku-5-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": question}],
    }
    if mode == "json":
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    else:
        body["tools"] = [
            {"name": name, "description": "The final response", "input_schema": schema}
        ]
        body["tool_choice"] = {"type": "tool", "name": name} if mode == "tool" else {"type": mode}
    reply = CourseModelApp().dispatch("POST", "/v1/messages", HEADERS, json.dumps(body).encode())
    assert reply.status == 200
    content = json.loads(b"".join(reply.chunks()))["content"]
    if mode == "json":
        return json.loads(next(b["text"] for b in content if b["type"] == "text"))
    return next(b["input"] for b in content if b["type"] == "tool_use")


def closed(properties: dict) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


CITY_AND_COUNTRY = closed({"city": {"type": "string"}, "country": {"type": "string"}})
CONTACT = closed({"name": {"type": "string"}, "email": {"type": "string", "format": "email"}})


@pytest.mark.parametrize("mode", MODES)
def test_a_stated_country_fills_the_country_field(mode):
    said = "The biggest city in the UK? Answer: London, United Kingdom."
    assert answer(CITY_AND_COUNTRY, said, mode) == {"city": "London", "country": "United Kingdom"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("said", "contact"),
    [
        (
            "Save the contact Alice Martin, alice.martin@acme.io.",
            ("Alice Martin", "alice.martin@acme.io"),
        ),
        ("Save the contact Alice, alice@acme.io.", ("Alice", "alice@acme.io")),
    ],
)
def test_a_stated_name_and_email_are_kept(mode, said, contact):
    name, email = contact
    assert answer(CONTACT, said, mode, "save_contact") == {"name": name, "email": email}


PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "addr": {"$ref": "#/$defs/Addr"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "addr", "tags"],
    "additionalProperties": False,
    "$defs": {
        "Addr": closed(
            {"city": {"type": "string"}, "zip": {"type": "string", "pattern": r"^\d{5}$"}}
        )
    },
}


@pytest.mark.parametrize("mode", MODES)
def test_a_postcode_and_listed_tags_are_filled(mode):
    said = "Record Bob Stone, living in Lyon 69001, tags a and b, email bob@example.com."
    assert answer(PERSON, said, mode, "Person") == {
        "name": "Bob Stone",
        "addr": {"city": "Lyon", "zip": "69001"},
        "tags": ["a", "b"],
    }


@pytest.mark.parametrize(
    "colour",
    [
        {"type": "integer", "enum": [1, 2], "description": "RED=1, GREEN=2"},
        {"type": "integer", "enum": [1, 2], "description": "1 = red, 2 = green"},
        {"type": "integer", "enum": [1, 2], "x-enum-varnames": ["RED", "GREEN"]},
        {"oneOf": [{"const": 1, "title": "RED"}, {"const": 2, "title": "GREEN"}]},
    ],
)
def test_an_enum_value_named_by_its_schema(colour):
    schema = closed({"colour": colour})
    assert fill(schema, "Paint it green, please.") == {"colour": 2}


def test_listed_enum_items_in_the_order_said():
    schema = closed({"colours": {"type": "array", "items": {"enum": ["red", "green", "blue"]}}})
    assert fill(schema, "Use blue and red.") == {"colours": ["blue", "red"]}


@pytest.mark.parametrize("mode", MODES)
def test_a_question_is_not_its_own_answer(mode):
    schema = closed({"answer": {"type": "string"}})
    said = "What is the capital of France?"
    assert answer(schema, said, mode) == {"answer": CANNOT_ANSWER}


def test_a_statement_still_summarises_itself():
    schema = closed({"summary": {"type": "string"}})
    said = "Paris, 18 C and sunny"
    assert fill(schema, said, asked=said) == {"summary": said}
