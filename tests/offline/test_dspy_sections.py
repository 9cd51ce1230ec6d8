"""dspy's field sections, replayed from what dspy 3.4 sent (`dspy_recorded.py`): a field typed
int, float, bool, list, dict or Literal gets a value of that type, and ReAct's steps name one of
the tools it lists (then `finish`) with JSON arguments for it, and its answer uses the results."""

from __future__ import annotations

import ast
import json
import re

import pytest
from dspy_recorded import (
    CHOICE_FIELD,
    TYPED_FIELDS,
    WEATHER_ANSWER,
    WEATHER_STEP_0,
    WEATHER_STEP_1,
    WEATHER_STEP_2,
)

from course_helpers.offline import CourseModelApp
from course_helpers.offline.react_sections import listed_tools

CITY = {"city": {"type": "string"}}
HEADERS = {"x-api-key": "sk-offline", "anthropic-version": "2023-06-01"}


def sections_of(body: dict) -> dict[str, str]:
    """The sections of the course model's answer to `body`, by name."""
    reply = CourseModelApp().dispatch(
        "POST",
        "/v1/messages",
        {**HEADERS, "content-type": "application/json"},
        json.dumps(body).encode(),
    )
    assert reply.status == 200
    answer = json.loads(b"".join(reply.chunks()))
    said = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    assert said.rstrip().endswith("[[ ## completed ## ]]"), said
    found = re.findall(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n*\[\[ ## )", said, re.DOTALL)
    return {name: value.strip() for name, value in found}


def test_typed_fields_get_values_of_their_type():
    got = sections_of(TYPED_FIELDS)
    assert isinstance(json.loads(got["count"]), int)
    assert isinstance(json.loads(got["ratio"]), int | float)
    assert isinstance(json.loads(got["ok"]), bool)
    assert isinstance(json.loads(got["items"]), list)
    info = json.loads(got["info"])
    assert isinstance(info, dict) and all(isinstance(v, int) for v in info.values())


def test_a_literal_field_gets_one_of_its_choices_and_an_int_the_stated_number():
    got = sections_of(CHOICE_FIELD)
    assert got["level"] in ("low", "high")
    assert json.loads(got["count"]) == 3  # "How risky is it to leave 3 windows open?"


@pytest.mark.parametrize(
    ("body", "tool", "arguments"),
    [
        (WEATHER_STEP_0, "get_weather", {"city": "Paris"}),
        (WEATHER_STEP_1, "get_weather", {"city": "Tokyo"}),  # Paris is in the trajectory
        (WEATHER_STEP_2, "finish", {}),  # both results are in
    ],
    ids=["first step", "second step", "last step"],
)
def test_a_react_step_names_a_listed_tool_with_json_arguments(body, tool, arguments):
    got = sections_of(body)
    assert got["next_tool_name"] == tool
    assert json.loads(got["next_tool_args"]) == arguments
    assert got["next_thought"] and "offline course model" not in got["next_thought"]


def test_a_react_step_offers_only_the_listed_names():
    system = WEATHER_STEP_0["system"]
    listed = re.search(r"one of: (.*)", system).group(1).split("; ")
    assert sections_of(WEATHER_STEP_0)["next_tool_name"] in listed
    literal = re.search(r"Literal\[(.*?)\]", WEATHER_STEP_0["messages"][0]["content"][0]["text"])
    assert set(ast.literal_eval(f"[{literal.group(1)}]")) == set(listed)


def test_the_answer_after_the_steps_uses_their_results():
    answer = sections_of(WEATHER_ANSWER)["answer"]
    assert "Paris" in answer and "Tokyo" in answer and "18 C" in answer
    assert "offline course model" not in answer


def _with_tools(body: dict, listed: str) -> dict:
    """`body` with more tools listed before `finish`, as dspy numbers them."""
    system = body["system"].replace("(2) finish", f"{listed}\n        (9) finish")
    return {**body, "system": system}


def test_a_react_step_reads_every_listed_tool_and_any_argument_shape():
    more = (
        "(2) get_time, whose description is <desc>Local time.\nIn a city.</desc>. It takes "
        "arguments {'city': {'type': 'string'}}.\n        (3) odd, whose description is "
        "<desc>Odd.</desc>. It takes arguments {'a': 5, 'b': [1]}."
    )
    body = _with_tools(WEATHER_STEP_0, more)
    tools = {t["name"]: t["input_schema"]["properties"] for t in listed_tools(body["system"])}
    assert tools == {"get_weather": CITY, "get_time": CITY, "odd": {"a": 5, "b": [1]}}
    got = sections_of(body)
    assert got["next_tool_name"] == "get_weather"
    assert json.loads(got["next_tool_args"]) == {"city": "Paris"}
