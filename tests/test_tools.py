"""`@tool` (notebook 02) in a module of its own, as a learner writes one: with
`from __future__ import annotations` every annotation is a string until something evaluates it.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

import pydantic
import pytest

from course_helpers.lessons.tools import Tool, tool

WEATHER_MODULE = '''
from __future__ import annotations

from typing import Annotated, Literal

import pydantic

from course_helpers.lessons.tools import tool

Unit = Literal["celsius", "fahrenheit"]


@tool
def get_weather(
    city: Annotated[str, pydantic.Field(description="The city, e.g. Oslo")],
    unit: Unit = "celsius",
    days: int = 1,
) -> dict:
    """Return the forecast for `city`."""
    return {"city": city, "unit": unit, "days": days}
'''


def load_module(folder: Path, name: str, source: str) -> ModuleType:
    """Import a real .py file, as `import name` would (not `exec` on a string)."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def weather(tmp_path: Path) -> ModuleType:
    return load_module(tmp_path, "weather_tools", WEATHER_MODULE)


def test_the_module_really_has_string_annotations(weather: ModuleType) -> None:
    # Proof that the case is the hard one: the raw annotations are strings.
    raw = weather.get_weather.function.__annotations__
    assert raw["days"] == "int" and raw["unit"] == "Unit"


def test_the_schema_comes_from_the_evaluated_annotations(weather: ModuleType) -> None:
    definition = weather.get_weather.definition()
    properties = definition["input_schema"]["properties"]
    assert properties["city"] == {"type": "string", "description": "The city, e.g. Oslo"}
    assert properties["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert properties["days"]["type"] == "integer"
    assert definition["input_schema"]["required"] == ["city"]
    assert definition["description"] == "Return the forecast for `city`."


def test_run_validates_strictly_under_the_future_import(weather: ModuleType) -> None:
    get_weather = weather.get_weather
    assert get_weather.run({"city": "Oslo", "unit": "fahrenheit"}) == {
        "city": "Oslo",
        "unit": "fahrenheit",
        "days": 1,
    }
    with pytest.raises(pydantic.ValidationError):
        get_weather.run({"city": "Oslo", "days": "3"})  # a string is not an integer
    with pytest.raises(pydantic.ValidationError):
        get_weather.run({"city": "Oslo", "unit": "kelvin"})


def test_a_name_the_module_does_not_define_fails_when_the_tool_is_made(tmp_path: Path) -> None:
    broken = WEATHER_MODULE.replace("unit: Unit", "unit: Missing")
    with pytest.raises(NameError, match="Missing"):
        load_module(tmp_path, "broken_tools", broken)


def test_a_function_of_this_module_works_too() -> None:
    # This test module has the future import as well.
    @tool
    def add(a: int, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    assert isinstance(add, Tool)
    assert add.run({"a": 1}) == 3
    assert add.definition()["input_schema"]["properties"]["a"] == {"type": "integer"}
