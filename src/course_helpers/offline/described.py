"""Course machinery (offline course model): constraints a client wrote into a `description`.

Structured outputs accept only some JSON Schema keywords. The Python SDK's `transform_schema`
(`client.messages.parse(output_format=Model)`) moves the others out of the schema and appends
them to the property's description as text, then checks the answer against the pydantic model:

    {"type": "string", "description": "The order code\\n\\n{pattern: ^ORD-[0-9]{6}$}"}
    {"type": "integer", "description": "{maximum: 7, minimum: 3}"}

A model reads that text and keeps to it; the course model reads it back into keywords
(`with_described`), so the value it writes still meets them.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBERS = (
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
)
_TEXTS = ("pattern", "format")
_FLAGS = ("uniqueItems",)
_KEYS = "|".join((*_NUMBERS, *_TEXTS, *_FLAGS))
# The block the SDK appends: "{key: value, key: value}" closing the description.
_BLOCK = re.compile(r"(?:\A|\n\n)\{((?:" + _KEYS + r"): .*)\}\Z", re.DOTALL)
_KEY = re.compile(r"(?:\A|, )(" + _KEYS + r"): ")


def with_described(schema: Any) -> Any:
    """`schema` with the keywords its description states added (those it does not already
    have); the same schema when the description states none."""
    if not isinstance(schema, dict) or not isinstance(schema.get("description"), str):
        return schema
    stated = described(schema["description"])
    if not stated or all(key in schema for key in stated):
        return schema
    return {**stated, **schema}


def described(description: str) -> dict[str, Any]:
    """The keywords in the SDK's `{key: value, ...}` block at the end of `description`."""
    block = _BLOCK.search(description)
    if block is None:
        return {}
    text = block.group(1)
    marks = list(_KEY.finditer(text))
    stated: dict[str, Any] = {}
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        raw = text[mark.end() : after.start() if after else len(text)]
        value = _value(mark.group(1), raw)
        if value is not None:
            stated[mark.group(1)] = value
    return stated


def _value(key: str, raw: str) -> Any:
    if key in _TEXTS:
        if key == "pattern":
            try:
                re.compile(raw)
            except (re.error, RecursionError, OverflowError):
                return None
        return raw
    if key in _FLAGS:
        return {"True": True, "False": False}.get(raw)
    try:
        number = float(raw)
    except ValueError:
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    if key.startswith(("min", "max")) and key not in ("minimum", "maximum"):
        return int(number) if number.is_integer() and number >= 0 else None
    return int(number) if re.fullmatch(r"-?\d+", raw) else number
