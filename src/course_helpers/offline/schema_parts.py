"""Course machinery (offline course model): the pieces `schemas.py` builds values from.

Following a `$ref`, merging two schemas that must both hold (`allOf`, a branch of `anyOf`
with the keywords beside it, `if` with `then`), the type a schema is about, sample strings of
the formats structured outputs list, and numbers within bounds.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# A sample of each format draft 2020-12 defines (jsonschema asserts them all) (the structured-outputs list,
# the SDK's `SupportedStringFormats`, is date-time, time, date, duration, email, hostname, uri,
# ipv4, ipv6, uuid).
FORMATS = {
    "date": "2026-01-01",
    "date-time": "2026-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "learner@example.com",
    "idn-email": "learner@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "json-pointer": "/value",
    "relative-json-pointer": "0",
    "regex": ".*",
}
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")


def resolve(schema: Any, root: Any) -> Any:
    """`schema` with its `$ref` followed (against `root`) and its `allOf` merged."""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 20:
        target = pointer(root, schema["$ref"])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = merge(target, rest) if isinstance(target, dict) else rest
        seen += 1
    if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = merge(merged, resolve(part, root))
        schema = merged
    return schema


def pointer(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return {}
    node = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return {}
    return node


def merge(a: Any, b: Any) -> Any:
    """One schema that asks what `a` and `b` both ask (as far as a value builder reads it)."""
    if b is True or (isinstance(b, dict) and not b):
        return a
    if b is False or a is False:
        return False
    if not isinstance(a, dict) or not a:
        return b if isinstance(b, dict) else a
    if not isinstance(b, dict):
        return a
    out = {**a, **b}
    for key in ("properties", "patternProperties", "dependentRequired"):
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            both = dict(a[key])
            for name, sub in b[key].items():
                if name in both and key != "dependentRequired":
                    both[name] = {"allOf": [both[name], sub]}
                else:
                    both[name] = sub
            out[key] = both
    if isinstance(a.get("required"), list) and isinstance(b.get("required"), list):
        out["required"] = list(dict.fromkeys([*a["required"], *b["required"]]))
    if "type" in a and "type" in b:
        left, right = types_of(a), types_of(b)
        common = [t for t in left if t in right or (t == "integer" and "number" in right)]
        common += [t for t in right if t == "integer" and "number" in left and t not in common]
        out["type"] = common if common else b["type"]
    for key in _LOWER:
        if _is_number(a.get(key)) and _is_number(b.get(key)):
            out[key] = max(a[key], b[key])
    for key in _UPPER:
        if _is_number(a.get(key)) and _is_number(b.get(key)):
            out[key] = min(a[key], b[key])
    if isinstance(a.get("enum"), list) and isinstance(b.get("enum"), list):
        out["enum"] = [v for v in a["enum"] if v in b["enum"]]
    if "not" in a and "not" in b:
        out["not"] = {"anyOf": [a["not"], b["not"]]}
    for key in ("anyOf", "oneOf"):
        if isinstance(a.get(key), list) and isinstance(b.get(key), list):
            out["allOf"] = [*out.get("allOf", []), {key: a[key]}]
    return out


def types_of(schema: dict) -> list[str]:
    """The types `schema` names, or the one its keywords imply; [] when it allows any."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    if isinstance(kind, str):
        return [kind]
    for keys, implied in (
        (("properties", "required", "patternProperties", "minProperties"), "object"),
        (("items", "prefixItems", "contains", "minItems", "uniqueItems"), "array"),
        (("pattern", "format", "minLength", "maxLength"), "string"),
        (("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"),
    ):
        if any(k in schema for k in keys):
            return [implied]
    return []


def numbers(schema: dict, *, integer: bool) -> list[int | float]:
    """Numbers to try for a number schema, the plainest first: 1 where the bounds allow it,
    else the nearest bound; then others (for `oneOf`, `not`, `multipleOf`)."""
    low, high = schema.get("minimum"), schema.get("maximum")
    low = low if _is_number(low) else None
    high = high if _is_number(high) else None
    step = 1 if integer else 0.5
    if _is_number(schema.get("exclusiveMinimum")):
        edge = schema["exclusiveMinimum"]
        low = max(low, edge + step) if low is not None else edge + step
    if _is_number(schema.get("exclusiveMaximum")):
        edge = schema["exclusiveMaximum"]
        high = min(high, edge - step) if high is not None else edge - step
    start: float = 1
    if low is not None:
        start = max(start, low)
    if high is not None:
        start = min(start, high)
    pool: list[float] = [start, start + 0.5, start + 1, start - 0.5, start + 1.5, start + 0.25]
    if low is not None and high is not None:
        pool.insert(1, (low + high) / 2)
    if _is_number(schema.get("exclusiveMinimum")) and _is_number(schema.get("exclusiveMaximum")):
        pool.insert(0, (schema["exclusiveMinimum"] + schema["exclusiveMaximum"]) / 2)
    multiple = schema.get("multipleOf")
    if _is_number(multiple) and multiple > 0:
        first = math.ceil((low if low is not None else 1) / multiple)
        pool = [k * multiple for k in (first, first + 1, first + 2, 0)]
        pool += [round(v, 12) for v in pool]
    out: list[int | float] = []
    for value in pool:
        if integer:
            if not float(value).is_integer():
                continue
            value = int(value)
        else:
            value = float(value)
        if value not in out:
            out.append(value)
    return out or [int(start) if integer else float(start)]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_SUBSCHEMAS += ("propertyNames", "unevaluatedProperties", "unevaluatedItems")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNTS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties")
_COUNTS += ("minContains", "maxContains")
_STRINGS = ("pattern", "format", "$ref", "description", "title")


def tidy(schema: Any, depth: int = 0) -> dict:
    """`schema` with every keyword the course model reads in the shape JSON Schema gives it:
    a keyword of another shape (`"properties": "object"`, `"required": true`) is dropped. A
    schema a client may send never crashes or stalls the course model (sizes are bounded where
    a value is built: `BUDGET`)."""
    if not isinstance(schema, dict) or depth > 100:
        return {}
    out: dict = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                out[key] = {str(k): _sub(v, depth) for k, v in value.items()}
        elif key in _SCHEMA_LISTS:
            if isinstance(value, list):
                out[key] = [_sub(v, depth) for v in value]
        elif key in _SUBSCHEMAS:
            if isinstance(value, bool | dict):
                out[key] = _sub(value, depth)
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
                out[key] = value
        elif key in _STRINGS:
            if isinstance(value, str):
                out[key] = value
        else:
            out[key] = value
    return out


def _sub(value: Any, depth: int) -> dict:
    """A subschema, tidied; `true` and `false` as the schemas that mean the same (`{}`, and
    `{"not": {}}`, which nothing meets), so every subschema reads as a dict."""
    if isinstance(value, bool):
        return {} if value else dict(NEVER)
    return tidy(value, depth + 1)


NEVER = {"not": {}}


def never(schema: Any) -> bool:
    """Whether `schema` is one no value meets (`false`, or `{"not": {}}` as `tidy` writes it)."""
    return schema is False or schema == NEVER


def branches_of(schema: dict) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key]
    return None


def non_null_first(choices: list, root: Any) -> list:
    """The branches, those that are not just `null` first: a value says more than its absence."""
    nulls = [b for b in choices if isinstance(b, dict) and types_of(resolve(b, root)) == ["null"]]
    return [b for b in choices if b not in nulls] + nulls


def recursive(schema: Any, refs: tuple) -> bool:
    """Whether `schema` leads back into a `$ref` already being built (a recursive schema)."""
    if not isinstance(schema, dict) or not refs:
        return False
    if schema.get("$ref") in refs:
        return True
    branches = [*(schema.get("anyOf") or []), *(schema.get("oneOf") or [])]
    return any(recursive(b, refs) for b in [*branches, schema.get("items")])


def property_schema(schema: dict, key: str) -> Any:
    """The schema a property `key` of an object must meet (listed, by pattern, or additional)."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    if key in props:
        return props[key]
    for pattern, sub in (schema.get("patternProperties") or {}).items():
        if search(pattern, key):
            return sub
    extra = schema.get("additionalProperties", True)
    if extra in (True, {}) and never(schema.get("unevaluatedProperties", True)):
        return False
    return extra if isinstance(extra, dict | bool) else True


def search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False  # a pattern that cannot be read is never taken as matching


def with_dependencies(keys: list[str], needs: Any) -> list[str]:
    """`keys` and every key `dependentRequired` asks for once one of them is present."""
    keys = list(dict.fromkeys(keys))
    if not isinstance(needs, dict):
        return keys
    for key in keys:  # the list grows while it is read: dependencies of dependencies too
        for needed in needs.get(key) or []:
            if isinstance(needed, str) and needed not in keys:
                keys.append(needed)
    return keys


def sized_to(text: str, low: int, high: int | None) -> str:
    if len(text) < low:
        text = text + "x" * (low - len(text))
    return text[:high] if high is not None else text


def fits(value: Any, kind: str | None) -> bool:
    if kind is None:
        return True
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }
    return kind in checks and checks[kind](value)


def key_of(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
