"""Tools described once, in typed Python (built in notebook 02).

The function's signature is the single source for the JSON Schema the model reads and for the
validation of the arguments the model sends back. Validation is strict: the model writes JSON,
and `"3"` is a string, not an integer.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.tools`. Edit those cells, then run `make promote`.


# From notebooks/02_describe_tools.ipynb
def _drop_titles(schema: Any) -> Any:
    """Pydantic adds a `title` (a string) to everything; the model does not need them.

    An argument *named* title stays: in `properties` its value is a schema, not a string.
    """
    if isinstance(schema, dict):
        return {
            k: _drop_titles(v)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_drop_titles(v) for v in schema]
    return schema


@dataclass
class Tool:
    """A tool: what the model reads (name, description, schema) and the code that runs it."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments: type[pydantic.BaseModel]

    def definition(self) -> dict:
        """The dict that goes in the request's `tools` list."""
        schema = _drop_titles(self.arguments.model_json_schema())
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def run(self, tool_input: dict) -> Any:
        """Validate the model's arguments against the signature, then call the function."""
        # The model sends JSON: validate it as JSON, so "EUR" is a member of an Enum type,
        # while strict mode still refuses "3" for an integer.
        arguments = self.arguments.model_validate_json(json.dumps(tool_input))
        # Read the field names from the class: pydantic 2.11 deprecates it on the instance.
        fields = self.arguments.model_fields
        return self.function(**{name: getattr(arguments, name) for name in fields})


# From notebooks/02_describe_tools.ipynb
def tool(function: Callable[..., Any]) -> Tool:
    """Make a Tool from a typed, documented function (use it as a decorator)."""
    fields = {}
    # eval_str: in a module with `from __future__ import annotations`, annotations are strings.
    for name, parameter in inspect.signature(function, eval_str=True).parameters.items():
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (parameter.annotation, default)
    arguments = pydantic.create_model(
        f"{function.__name__}_arguments",
        # strict: "3" is not an integer; extra="forbid": no argument the function lacks.
        __config__=pydantic.ConfigDict(extra="forbid", strict=True),
        **fields,
    )
    description = inspect.cleandoc(function.__doc__ or "")
    return Tool(function.__name__, description, function, arguments)
