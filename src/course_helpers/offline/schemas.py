"""Course machinery (offline course model): values that match a JSON Schema, made deterministically
(no randomness, no network).

The real API decodes under constraints when a tool is `strict` or `output_config.format` asks for
a `json_schema`: the output is always valid. The course model does the same in two steps:
`conform(value, schema)` keeps what a scenario produced where it already fits and repairs the
rest; `example_for(schema)` builds a value from nothing. Both understand the subset of JSON
Schema that structured outputs accept (types, enum/const, properties/required,
additionalProperties, items, anyOf/oneOf/allOf, $ref to $defs/definitions, string and number
bounds, common formats).
"""

from __future__ import annotations

import re
from typing import Any

_FORMATS = {
    "date": "2026-01-01",
    "date-time": "2026-01-01T00:00:00Z",
    "time": "00:00:00",
    "email": "learner@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
}
_MAX_DEPTH = 12


def example_for(schema: Any, *, name: str = "value", root: dict | None = None) -> Any:
    """A plausible value valid against `schema`."""
    return _example(schema, name, root if root is not None else schema, 0)


def conform(value: Any, schema: Any, *, hint: str = "", root: dict | None = None) -> Any:
    """`value` made valid against `schema`, keeping every part that already fits.

    `hint` (free text, e.g. what the scenario would have said) fills the first free string.
    """
    return _conform(value, schema, root if root is not None else schema, 0, [hint] if hint else [])


def resolve(schema: Any, root: Any) -> Any:
    """`schema` with its `$ref` followed (against `root`) and its `allOf` merged."""
    return _resolve(schema, root)


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "contains")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNTS = {"minItems": 64, "maxItems": None, "minLength": 4096, "maxLength": None}
_STRINGS = ("pattern", "format", "$ref", "description", "title")


def tidy(schema: Any, depth: int = 0) -> dict:
    """`schema` with every keyword the course model reads in the shape JSON Schema gives it:
    a keyword of another shape (`"properties": "object"`, `"required": true`) is dropped, and
    sizes are capped where an example is built (`minItems`, `minLength`). A schema a client may
    send never crashes or stalls the course model."""
    if not isinstance(schema, dict) or depth > 40:
        return {}
    out: dict = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                out[key] = {str(k): tidy(v, depth + 1) for k, v in value.items()}
        elif key in _SCHEMA_LISTS:
            if isinstance(value, list):
                out[key] = [tidy(v, depth + 1) for v in value]
        elif key in _SUBSCHEMAS:
            if isinstance(value, bool):
                out[key] = value
            elif isinstance(value, dict):
                out[key] = tidy(value, depth + 1)
        elif key == "required":
            if isinstance(value, list):
                out[key] = [v for v in value if isinstance(v, str)]
        elif key == "enum":
            if isinstance(value, list):
                out[key] = value
        elif key == "type":
            if isinstance(value, str) or (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            ):
                out[key] = value
        elif key in _NUMBERS:
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[key] = value
        elif key in _COUNTS:
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                cap = _COUNTS[key]
                out[key] = min(value, cap) if cap is not None else value
        elif key in _STRINGS:
            if isinstance(value, str):
                out[key] = value
        else:
            out[key] = value
    return out


# --------------------------------------------------------------------------- internals


def _resolve(schema: Any, root: Any) -> Any:
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 20:
        target = _pointer(root, schema["$ref"])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **rest} if isinstance(target, dict) else rest
        seen += 1
    if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = _resolve(part, root)
            if not isinstance(part, dict):
                continue
            props = {**(merged.get("properties") or {}), **(part.get("properties") or {})}
            required = [*(merged.get("required") or []), *(part.get("required") or [])]
            merged = {**part, **merged}
            if props:
                merged["properties"] = props
            if required:
                merged["required"] = list(dict.fromkeys(required))
        schema = merged
    return schema


def _pointer(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return {}
    node = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return {}
    return node


def _types(schema: dict) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    if isinstance(kind, str):
        return [kind]
    if "properties" in schema:
        return ["object"]
    if "items" in schema:
        return ["array"]
    return []


def _choices(schema: dict) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key]
    return None


def _example(schema: Any, name: str, root: Any, depth: int) -> Any:
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return f"example {name}"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    choices = _choices(schema)
    if choices is not None:
        # Prefer a branch that is not null: a value says more than its absence.
        for branch in choices:
            if _types(_resolve(branch, root)) != ["null"]:
                return _example(branch, name, root, depth + 1)
        return _example(choices[0], name, root, depth + 1)
    kinds = _types(schema)
    kind = next((k for k in kinds if k != "null"), kinds[0] if kinds else "string")
    if depth > _MAX_DEPTH:
        return None if "null" in kinds else _shallow(kind)
    if kind == "object":
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or [] if isinstance(k, str)]
        keys = required or list(props)
        return {key: _example(props.get(key, {}), key, root, depth + 1) for key in keys}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        if "maxItems" in schema:
            count = min(count, int(schema["maxItems"]))
        prefix = schema.get("prefixItems") or []
        items = [_example(p, name, root, depth + 1) for p in prefix]
        while len(items) < count:
            items.append(_example(schema.get("items") or {}, name, root, depth + 1))
        return items
    if kind == "integer":
        return _number(schema, integer=True)
    if kind == "number":
        return float(_number(schema, integer=False))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _string(schema, f"example {name}")


def _shallow(kind: str) -> Any:
    return {"object": {}, "array": [], "integer": 0, "number": 0.0, "boolean": False}.get(kind, "")


def _number(schema: dict, *, integer: bool) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), int | float):
        low = schema["exclusiveMinimum"] + (1 if integer else 0.5)
    if isinstance(schema.get("exclusiveMaximum"), int | float):
        high = schema["exclusiveMaximum"] - (1 if integer else 0.5)
    value: float = 1
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    if integer:
        value = int(value) if value == int(value) else int(value) + 1
        multiple = schema.get("multipleOf")
        if isinstance(multiple, int) and multiple > 0:
            value = ((value + multiple - 1) // multiple) * multiple
    return value


def _string(schema: dict, text: str) -> str:
    if schema.get("format") in _FORMATS:
        return _FORMATS[schema["format"]]
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not _matches(pattern, text):
        simple = _from_pattern(pattern)
        if simple is not None:
            text = simple
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    if len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return text


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


def _from_pattern(pattern: str) -> str | None:
    """A string for the simple patterns schemas use (a fixed literal, or digits)."""
    body = pattern.removeprefix("^").removesuffix("$")
    if re.fullmatch(r"[A-Za-z0-9 _-]*", body):
        return body
    if re.fullmatch(r"(\\d|\[0-9\])(\{\d+\}|\+)?", body):
        count = re.search(r"\{(\d+)\}", body)
        return "1" * (int(count.group(1)) if count else 1)
    return None


def _valid_scalar(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    return False


def _conform(value: Any, schema: Any, root: Any, depth: int, hints: list[str]) -> Any:
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return value if value is not None else _example(schema, "value", root, depth)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return value if value in schema["enum"] else schema["enum"][0]
    choices = _choices(schema)
    if choices is not None:
        for branch in choices:
            resolved = _resolve(branch, root)
            if isinstance(resolved, dict) and any(
                _valid_scalar(value, k) for k in _types(resolved)
            ):
                return _conform(value, branch, root, depth + 1, hints)
        return _example(schema, "value", root, depth)
    kinds = _types(schema)
    if not kinds:
        return value
    kind = next((k for k in kinds if _valid_scalar(value, k)), None)
    if kind is None:
        if "string" in kinds and hints:
            return _string(schema, hints.pop(0))
        return _example(schema, "value", root, depth)
    if kind == "object":
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or [] if isinstance(k, str)]
        closed = schema.get("additionalProperties") is False or not schema.get(
            "additionalProperties", True
        )
        result = {}
        for key, item in value.items():
            if key in props:
                result[key] = _conform(item, props[key], root, depth + 1, hints)
            elif not closed:
                result[key] = item
        for key in required:
            if key not in result:
                result[key] = (
                    _conform(None, props[key], root, depth + 1, hints)
                    if key in props
                    else "example"
                )
        return result
    if kind == "array":
        items = [_conform(v, schema.get("items") or {}, root, depth + 1, hints) for v in value]
        low = int(schema.get("minItems", 0))
        while len(items) < low:
            items.append(_example(schema.get("items") or {}, "item", root, depth + 1))
        if isinstance(schema.get("maxItems"), int):
            items = items[: schema["maxItems"]]
        return items
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        inside = (low is None or value >= low) and (high is None or value <= high)
        return value if inside else _number(schema, integer=kind == "integer")
    if kind == "string":
        return _string(schema, value)
    return value
