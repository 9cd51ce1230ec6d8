"""Notebook 02's `Tool.definition()`: pydantic's `title` annotations are dropped, but an argument
that is *named* title is an argument like any other and stays in the schema."""

from __future__ import annotations

import json

import pydantic

from course_helpers.lessons.tools import tool


class Label(pydantic.BaseModel):
    title: str
    colour: str = "grey"


def _strings_named_title(schema) -> list[str]:
    """Every `"title": "<text>"` pair left anywhere in a schema (pydantic's annotations)."""
    if isinstance(schema, dict):
        found = [v for k, v in schema.items() if k == "title" and isinstance(v, str)]
        return found + [t for v in schema.values() for t in _strings_named_title(v)]
    if isinstance(schema, list):
        return [t for v in schema for t in _strings_named_title(v)]
    return []


def test_an_argument_named_title_stays_and_pydantics_titles_go() -> None:
    @tool
    def open_issue(title: str, label: Label, body: str = "") -> str:
        """Open an issue in the tracker."""
        return title

    schema = open_issue.definition()["input_schema"]
    assert set(schema["properties"]) == {"title", "label", "body"}
    assert schema["properties"]["title"] == {"type": "string"}
    assert set(schema["required"]) <= set(schema["properties"])
    nested = json.dumps(schema["$defs"]["Label"])
    assert '"title": {"type": "string"}' in nested, nested
    assert _strings_named_title(schema) == []
