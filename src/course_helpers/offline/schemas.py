"""Course machinery (offline course model): values that match a JSON Schema, made deterministically
(no randomness, no network).

The real API decodes under constraints when a tool is `strict` or `output_config.format` asks for
a `json_schema`: the output is always valid. The course model does the same in two steps:
`conform(value, schema)` keeps what a scenario produced where it already fits and repairs the
rest; `example_for(schema)` builds a value from nothing. Both write values for the keywords of
JSON Schema draft 2020-12 (types, enum/const, properties/required and the other object
keywords, array counts, `uniqueItems`, `contains`, string lengths, `pattern` (`patterns.py`) and
formats, number bounds, anyOf/oneOf/allOf/not, if/then/else, `$ref`, and the keywords the SDK
moved into a description (`described.py`)), and check every value they give with `jsonschema`
(formats asserted): a value that fails is replaced by another, and only a schema no value can
meet (or one jsonschema cannot read) gets a best effort.

A value too big for any reply (`minLength: 10000000`) is written to just past what the largest
`max_tokens` allows, so the engine cuts it with `stop_reason: "max_tokens"` (its block
incomplete), as the real API does when the output runs out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import islice
from typing import Any

from jsonschema import Draft202012Validator

from course_helpers.offline.described import with_described
from course_helpers.offline.patterns import string_matching
from course_helpers.offline.schema_parts import (
    FORMATS,
    NEVER,
    branches_of,
    fits,
    key_of,
    merge,
    never,
    non_null_first,
    numbers,
    pointer,
    property_schema,
    recursive,
    sized_to,
    tidy,
    types_of,
    with_dependencies,
)
from course_helpers.offline.schema_parts import resolve as _resolve

BUDGET = 520_000  # characters of JSON: more than 128,000 tokens (the largest max_tokens)
_MAX_DEPTH = 64
_TRIES = 24  # candidates checked for one value before the best effort is given
_PER_BRANCH = 8  # candidates of one branch of anyOf/oneOf, or of one type, before the next
_WORK = 4000  # candidates checked for one whole value
_CHECKER = Draft202012Validator.FORMAT_CHECKER  # draft 2020-12's formats: RFC 3339 times


def example_for(schema: Any, *, name: str = "value", root: dict | None = None) -> Any:
    """A plausible value valid against `schema`."""
    return _Maker(root if root is not None else schema, []).example(schema, name, 0, ())


def conform(value: Any, schema: Any, *, hint: str = "", root: dict | None = None) -> Any:
    """`value` made valid against `schema`, keeping every part that already fits.

    `hint` (free text, e.g. what the scenario would have said) fills the first free string.
    """
    maker = _Maker(root if root is not None else schema, [hint] if hint else [])
    return maker.conform(value, schema, "value", 0, ())


def resolve(schema: Any, root: Any) -> Any:
    """`schema` with its `$ref` followed (against `root`) and its `allOf` merged."""
    return _resolve(schema, root)


def is_valid(value: Any, schema: Any, root: Any = None) -> bool | None:
    """Whether `value` is valid against `schema` (formats asserted); None when jsonschema
    cannot read the schema (a `$ref` that leads nowhere, a pattern Python cannot compile)."""
    return _Maker(root if root is not None else schema, []).valid(value, schema)


# --------------------------------------------------------------------------- internals

_MISSING = object()
_SHALLOW = {"object": {}, "array": [], "integer": 0, "number": 0.0, "boolean": False, "string": ""}


class _Maker:
    """Builds (`example`) or repairs (`conform`) values against one root schema."""

    def __init__(self, root: Any, hints: list[str]) -> None:
        self.root, self.hints, self.spent = root, hints, 0
        self.work = 0  # candidates checked: a bound on the search for schemas no value meets
        try:
            self.validator: Any = Draft202012Validator(
                root if isinstance(root, dict | bool) else {}, format_checker=_CHECKER
            )
        except Exception:  # noqa: BLE001 - a schema jsonschema cannot take: nothing to check
            self.validator = None

    @property
    def over(self) -> bool:
        return self.spent > BUDGET

    def valid(self, value: Any, schema: Any) -> bool | None:
        if self.validator is None or not isinstance(schema, dict | bool):
            return None
        schema = with_described(schema)  # what the SDK moved into the description holds too
        try:
            return bool(self.validator.evolve(schema=schema).is_valid(value))
        except Exception:  # noqa: BLE001 - unreadable ($ref to nowhere, bad regex, too deep)
            return None

    # -- building -----------------------------------------------------------------------
    def example(self, schema: Any, name: str, depth: int, refs: tuple) -> Any:
        first: Any = _MISSING
        for tried, candidate in enumerate(self.candidates(schema, name, depth, refs)):
            self.work += 1
            if self.over or self.work > _WORK or self.valid(candidate, schema) is not False:
                return candidate
            if first is _MISSING:
                first = candidate
            if tried >= _TRIES:
                break
        return None if first is _MISSING else first

    def candidates(self, schema: Any, name: str, depth: int, refs: tuple) -> Iterator[Any]:
        if never(schema):
            return
        schema, refs = self._open(schema, refs)
        for key in ("default", "examples"):
            if key == "default" and "default" in schema:
                yield schema["default"]
            elif key == "examples" and isinstance(schema.get("examples"), list):
                yield from schema["examples"][:3]
        if "const" in schema:
            yield schema["const"]
            return
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            yield from schema["enum"]
            return
        choices = branches_of(schema)
        if choices is not None:
            base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
            for branch in non_null_first(choices, self.root):
                opened, inner = self._open(branch, refs)
                found = self.candidates(merge(base, opened), name, depth + 1, inner)
                yield from islice(found, _PER_BRANCH)
            return
        if isinstance(schema.get("if"), dict | bool):
            base = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
            then = merge(merge(base, schema["if"]), schema.get("then", True))
            yield from self.candidates(then, name, depth + 1, refs)
            yield from self.candidates(merge(base, schema.get("else", True)), name, depth, refs)
            return
        kinds = types_of(schema) or (["string", "integer", "object", "array", "boolean", "null"])
        if not types_of(schema) and "not" not in schema:
            kinds = ["string"]
        kinds = [k for k in kinds if k != "null"] + [k for k in kinds if k == "null"]
        for kind in kinds:
            if depth > _MAX_DEPTH:
                yield _SHALLOW.get(kind)
                continue
            yield from islice(self._typed(kind, schema, name, depth, refs), _PER_BRANCH)

    def _open(self, schema: Any, refs: tuple) -> tuple[dict, tuple]:
        if not isinstance(schema, dict):
            return {}, refs
        ref = schema.get("$ref")
        if isinstance(ref, str):
            refs = (*refs, ref)
        opened = with_described(_resolve(schema, self.root))
        return (opened if isinstance(opened, dict) else {}), refs

    def _typed(self, kind: str, schema: dict, name: str, depth: int, refs: tuple) -> Iterator:
        if kind == "object":
            yield from self._objects(schema, depth, refs)
        elif kind == "array":
            yield from self._arrays(schema, name, depth, refs)
        elif kind == "string":
            yield from self._strings(schema, name)
        elif kind in ("integer", "number"):
            self.spent += 4
            yield from numbers(schema, integer=kind == "integer")
        elif kind == "boolean":
            self.spent += 5
            yield from (True, False)
        elif kind == "null":
            self.spent += 4
            yield None

    def _strings(self, schema: dict, name: str) -> Iterator[str]:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        low = min(low, BUDGET + 8) if isinstance(low, int) else 0
        high = high if isinstance(high, int) else None
        if self.hints:
            hint = sized_to(self.hints[0], low, high)
            if self.valid(hint, schema):
                self.hints.pop(0)
                yield hint
        texts = []
        if schema.get("format") in FORMATS:
            texts.append(FORMATS[schema["format"]])
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            for variant in range(3):
                found = string_matching(pattern, min_length=low, max_length=high, variant=variant)
                if found is not None and found not in texts:
                    texts.append(found)
        texts.append(f"example {name}")
        for text in texts:
            sized = sized_to(text, low, high)
            self.spent += len(sized) + 3
            yield sized
        for number in range(2, 2 + _TRIES * 4):  # other values, for `uniqueItems` and `not`
            yield sized_to(f"example {name} {number}", low, high)
            if isinstance(pattern, str):
                found = string_matching(pattern, min_length=low, max_length=high, variant=number)
                if found is not None:
                    yield found

    def _arrays(self, schema: dict, name: str, depth: int, refs: tuple) -> Iterator[list]:
        low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
        high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = schema.get("items", True)
        contains = schema.get("contains")
        wanted = schema.get("minContains", 1) if contains is not None else 0
        count = max(low, wanted if isinstance(wanted, int) else 1)
        if count == 0 and not never(items) and not recursive(items, refs) and depth < 8:
            count = 1  # one item shows what the list holds
        count = max(count, len(prefix))
        if high is not None:
            count = min(count, high)
        unique = schema.get("uniqueItems") is True
        values: list = [self.example(p, name, depth + 1, refs) for p in prefix[:count]]
        if contains is not None and isinstance(wanted, int):
            inside = merge(items if isinstance(items, dict) else {}, contains)
            values += self._many(inside, wanted, unique, values, name, depth, refs)
        rest = count - len(values)
        if rest > 0 and not never(items):
            values += self._many(items, rest, unique, values, name, depth, refs)
        yield values
        if len(values) > low and not prefix:
            yield values[:low]

    def _many(
        self, schema: Any, count: int, unique: bool, taken: list, name: str, depth: int, refs
    ) -> list:
        """`count` values for `schema`: one repeated, or distinct ones (`uniqueItems`)."""
        if not unique:
            one = self.example(schema, name, depth + 1, refs)
            size = len(json.dumps(one, ensure_ascii=False, default=str)) + 1
            room = max(1, (BUDGET - self.spent) // size + 2)
            self.spent += size * min(count, room)
            return [one] * min(count, room)
        seen = {key_of(v) for v in taken}
        found: list = []
        for tried, candidate in enumerate(self.candidates(schema, name, depth + 1, refs)):
            if len(found) >= count or tried > count * 4 + _TRIES or self.over:
                break
            if key_of(candidate) not in seen and self.valid(candidate, schema) is not False:
                seen.add(key_of(candidate))
                found.append(candidate)
        while len(found) < count:  # no more distinct values: the best effort
            found.append(self.example(schema, name, depth + 1, refs))
        return found

    def _objects(self, schema: dict, depth: int, refs: tuple) -> Iterator[dict]:
        for key in schema.get("required") or []:
            extra = (schema.get("dependentSchemas") or {}).get(key)
            if isinstance(extra, dict):
                schema = merge(schema, extra)
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [k for k in schema.get("required") or [] if isinstance(k, str)]
        optional = [k for k in props if k not in required and not recursive(props[k], refs)]
        keys = list(dict.fromkeys(required or optional))
        keys = with_dependencies(keys, schema.get("dependentRequired"))
        high = schema.get("maxProperties")
        if isinstance(high, int) and len(keys) > high:
            keys = keys[: max(high, len(required))]
        low = schema.get("minProperties", 0)
        spare = [k for k in optional if k not in keys]
        while isinstance(low, int) and len(keys) < low and spare:
            keys = with_dependencies([*keys, spare.pop(0)], schema.get("dependentRequired"))
        value = {}
        for key in keys:
            self.spent += len(key) + 4
            value[key] = self.example(property_schema(schema, key), key, depth + 1, refs)
        if isinstance(low, int) and len(value) < low:
            for key in self._new_names(schema, low - len(value), value):
                value[key] = self.example(property_schema(schema, key), key, depth + 1, refs)
        yield value
        missing = [k for k in optional if k not in value]
        if missing:  # every listed property: for `minProperties`, `if`, `dependentSchemas`...
            more = {k: self.example(props[k], k, depth + 1, refs) for k in missing}
            yield {**value, **more}

    def _new_names(self, schema: dict, count: int, taken: dict) -> list[str]:
        """Names for properties the schema allows beyond those it lists (`patternProperties`,
        then `additionalProperties`, within `propertyNames`)."""
        names: list[str] = []
        patterns = schema.get("patternProperties") or {}
        names_schema = schema.get("propertyNames", True)
        pool = [
            found
            for pattern in patterns
            for variant in range(count + 2)
            for found in [string_matching(pattern, variant=variant)]
            if found is not None
        ]
        if not never(schema.get("additionalProperties", True)):
            pool += list(self.candidates(names_schema, "key", 0, ())) if names_schema else []
            pool += [f"key{n}" for n in range(1, count + 4)]
        for name in pool:
            if len(names) >= count:
                break
            if not isinstance(name, str) or name in taken or name in names:
                continue
            if self.valid(name, names_schema) is not False:
                names.append(name)
        return names

    # -- repairing ----------------------------------------------------------------------
    def conform(self, value: Any, schema: Any, name: str, depth: int, refs: tuple) -> Any:
        verdict = self.valid(value, schema)
        if verdict is not False or depth > _MAX_DEPTH:
            return value
        repaired = self._repair(value, schema, name, depth, refs)
        if self.over or self.valid(repaired, schema) is not False:
            return repaired
        made = self.example(schema, name, depth, refs)
        return made if self.valid(made, schema) is not False else repaired

    def _repair(self, value: Any, schema: Any, name: str, depth: int, refs: tuple) -> Any:
        opened, refs = self._open(schema, refs)
        if "const" in opened or isinstance(opened.get("enum"), list):
            return self.example(opened, name, depth, refs)
        choices = branches_of(opened)
        if choices is not None:
            base = {k: v for k, v in opened.items() if k not in ("anyOf", "oneOf")}
            for branch in choices:
                branch, inner = self._open(branch, refs)
                if any(fits(value, k) for k in types_of(branch) or [None]):
                    tried = self.conform(value, merge(base, branch), name, depth + 1, inner)
                    if self.valid(tried, schema) is not False:
                        return tried
            return self.example(schema, name, depth, refs)
        kinds = types_of(opened)
        kind = next((k for k in kinds if fits(value, k)), None)
        if kind == "object":
            return self._repair_object(value, opened, depth, refs)
        if kind == "array":
            return self._repair_array(value, opened, name, depth, refs)
        if kind == "string" or (kind is None and "string" in kinds and isinstance(value, str)):
            low = opened.get("minLength", 0) if isinstance(opened.get("minLength"), int) else 0
            high = opened.get("maxLength") if isinstance(opened.get("maxLength"), int) else None
            if isinstance(value, str) and self.valid(sized_to(value, low, high), opened):
                return sized_to(value, low, high)
        return self.example(opened, name, depth, refs)

    def _repair_object(self, value: dict, schema: dict, depth: int, refs: tuple) -> dict:
        result = {}
        for key, item in value.items():
            sub = property_schema(schema, key)
            if never(sub) or self.valid(key, schema.get("propertyNames", True)) is False:
                continue
            result[key] = self.conform(item, sub, key, depth + 1, refs)
        keys = [k for k in schema.get("required") or [] if isinstance(k, str)]
        for key in with_dependencies([*result, *keys], schema.get("dependentRequired")):
            if key not in result:
                result[key] = self.example(property_schema(schema, key), key, depth + 1, refs)
        high = schema.get("maxProperties")
        if isinstance(high, int) and len(result) > high:
            kept = [k for k in result if k in keys] + [k for k in result if k not in keys]
            result = {k: result[k] for k in kept[: max(high, len(keys))]}
        low = schema.get("minProperties")
        if isinstance(low, int) and len(result) < low:
            made = self.example(schema, "value", depth, refs)
            for key in made if isinstance(made, dict) else {}:
                if len(result) < low and key not in result:
                    result[key] = made[key]
        return result

    def _repair_array(self, value: list, schema: dict, name: str, depth: int, refs) -> list:
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = schema.get("items", True)
        result = []
        for index, item in enumerate(value):
            sub = prefix[index] if index < len(prefix) else items
            if never(sub):
                break
            result.append(self.conform(item, sub, name, depth + 1, refs))
        if schema.get("uniqueItems") is True:
            result = list({key_of(v): v for v in result}.values())
        high = schema.get("maxItems")
        if isinstance(high, int):
            result = result[:high]
        low = schema.get("minItems", 0)
        if isinstance(low, int) and len(result) < low and not prefix:
            unique = schema.get("uniqueItems") is True
            result += self._many(items, low - len(result), unique, result, name, depth, refs)
        if "contains" in schema and self.valid(result, schema) is False:
            made = self.example(schema, name, depth, refs)
            return made if isinstance(made, list) else result
        return result


__all__ = ["BUDGET", "NEVER", "conform", "example_for", "is_valid", "pointer", "resolve", "tidy"]
