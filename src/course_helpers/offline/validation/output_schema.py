"""Course machinery (offline course model): the JSON Schema subset that structured outputs take.

One job: name the first part of a schema that structured outputs refuse (an
`output_config.format` schema, or the input schema of a `strict: true` tool), in the API's
words, without the path (the caller puts `output_config.format.schema: ` or
`tools.N.custom: ` in front). The walk goes through the places that hold schemas
(`$defs`, `properties`, `items`, `prefixItems`, `anyOf`, `allOf`), in the order they are
written, each node before what it holds.

Wording, from live 400s quoted in public code (docs/models.md, "Structured output schemas"):
- ``Empty schema ({}) that accepts any JSON value is not supported. Please specify a concrete
  type.``
- ``Schema type 'oneOf' is not supported``; ``Schema keyword 'not' is not supported``.
- ``Invalid schema: Enum value 'a' does not match declared type '['string', 'null']'``: an
  `enum` beside a list of types fails on its first value, null or not; beside one type, on
  its first value of another JSON type (that case's wording follows the list case).
- ``Invalid schema: Reference to non-existent definition: #/$defs/X`` (a local `$ref`).
- ``For 'object' type, 'additionalProperties: true' is not supported. Please set
  'additionalProperties' to false`` (``'additionalProperties: object'`` for a schema), and
  ``For 'object' type, 'additionalProperties' must be explicitly set to false`` when absent.
- ``For 'array' type, 'minItems' values other than 0 or 1 are not supported (got: [2, 5])``:
  the pair is `minItems` and `maxItems`, ``∞`` without one (``(got: [6, ∞])``).
- ``For 'integer' type, properties maximum, minimum are not supported`` (several, sorted) and
  ``For 'number' type, property 'exclusiveMinimum' is not supported`` (one); likewise
  ``For 'array' type, property 'maxItems' is not supported`` and
  ``For 'object' type, property 'propertyNames' is not supported``.
- ``For 'string' type, format 'ipvanyaddress' is not supported``: the formats taken are the
  SDK's `SupportedStringFormats` (anthropic/lib/_parse/_transform.py).
Accepted, as live reports show: `pattern`, `minLength`, `maxLength`, `minItems` 0 or 1,
`const`, `anyOf`, `allOf`, local `$ref`, a list of types without `enum`.
"""

from __future__ import annotations

from typing import Any

SUPPORTED_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
_UNSUPPORTED_KEYWORDS = {
    "number": ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"),
    "integer": ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"),
    "array": ("contains", "maxItems", "uniqueItems"),
    "object": ("if", "propertyNames"),
}
_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
}
_SET_FALSE = "Please set 'additionalProperties' to false"


def subset_error(schema: dict) -> str | None:
    """The API's reason for refusing `schema` under structured outputs, or None."""
    return _node_error(schema, schema)


def _node_error(node: Any, root: dict) -> str | None:
    if not isinstance(node, dict):
        return None  # a boolean schema: no report shows what structured outputs say
    error = _own_error(node, root)
    if error:
        return error
    for child in _children(node):
        error = _node_error(child, root)
        if error:
            return error
    return None


def _children(node: dict) -> list:
    found: list = []
    for key, value in node.items():
        if key in ("$defs", "definitions", "properties") and isinstance(value, dict):
            found.extend(value.values())
        elif key in ("anyOf", "allOf", "prefixItems") and isinstance(value, list):
            found.extend(value)
        elif key == "items":
            found.append(value)
    return found


def _own_error(node: dict, root: dict) -> str | None:
    if not node:
        return (
            "Empty schema ({}) that accepts any JSON value is not supported. "
            "Please specify a concrete type."
        )
    if "oneOf" in node:
        return "Schema type 'oneOf' is not supported"
    if "not" in node:
        return "Schema keyword 'not' is not supported"
    error = _enum_error(node) or _ref_error(node, root)
    if error:
        return error
    declared = node.get("type")
    for kind in declared if isinstance(declared, list) else [declared]:
        error = _typed_error(kind, node)
        if error:
            return error
    return None


def _enum_error(node: dict) -> str | None:
    declared, values = node.get("type"), node.get("enum")
    if not isinstance(values, list) or not values or declared is None:
        return None
    if isinstance(declared, list):
        wrong = values
    else:
        wrong = [value for value in values if not _is_of_type(value, declared)]
        if not wrong:
            return None
    return f"Invalid schema: Enum value '{wrong[0]}' does not match declared type '{declared}'"


def _is_of_type(value: Any, kind: Any) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, object))


def _ref_error(node: dict, root: dict) -> str | None:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    target: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return f"Invalid schema: Reference to non-existent definition: {ref}"
    return None


def _typed_error(kind: Any, node: dict) -> str | None:
    if kind == "object":
        error = _additional_properties_error(node)
    elif kind == "array":
        error = _min_items_error(node)
    elif kind == "string":
        error = _format_error(node)
    else:
        error = None
    if error:
        return error
    refused = [name for name in _UNSUPPORTED_KEYWORDS.get(kind, ()) if name in node]
    if not refused:
        return None
    if len(refused) == 1:
        return f"For '{kind}' type, property '{refused[0]}' is not supported"
    return f"For '{kind}' type, properties {', '.join(refused)} are not supported"


def _additional_properties_error(node: dict) -> str | None:
    if "additionalProperties" not in node:
        return "For 'object' type, 'additionalProperties' must be explicitly set to false"
    extra = node["additionalProperties"]
    if extra is False:
        return None
    shown = "true" if extra is True else "object"
    return f"For 'object' type, 'additionalProperties: {shown}' is not supported. {_SET_FALSE}"


def _min_items_error(node: dict) -> str | None:
    least = node.get("minItems")
    if least is None or least in (0, 1):
        return None
    most = node.get("maxItems", "∞")
    return (
        "For 'array' type, 'minItems' values other than 0 or 1 are not supported "
        f"(got: [{least}, {most}])"
    )


def _format_error(node: dict) -> str | None:
    shape = node.get("format")
    if shape is None or shape in SUPPORTED_FORMATS:
        return None
    return f"For 'string' type, format '{shape}' is not supported"
