"""Course machinery (exercise checks): what a tool's description must say, and how a schema's
properties are read.
"""

from __future__ import annotations

import re
from typing import Any

from course_helpers.exercise_checks.common import (
    fail,
)

RETURNS = re.compile(r"\b(?:returns?|gives|answers? with|result)\b", re.IGNORECASE)
LIMITS = re.compile(
    r"\b(?:only|not|never|limit(?:s|ed)?|knows?|supports?|fails?|raises?|errors?|unknown)\b",
    re.IGNORECASE,
)


FIXED_RATES = re.compile(r"\bfixed(?:[- ]rates?| exchange rates?)\b", re.IGNORECASE)
CODES = ("EUR", "USD", "GBP", "JPY")


def _states_limits(description: str) -> bool:
    """Its limits: a limiting word, the four currencies it knows named, or its fixed rates."""
    named = all(re.search(rf"\b{code}\b", description) for code in CODES)
    return bool(LIMITS.search(description) or named or FIXED_RATES.search(description))


def _check_description(description: str, what: str) -> None:
    """12 words or more, saying what the tool returns and its limits."""
    __tracebackhide__ = True
    words = len(description.split())
    if words < 12:
        fail(
            f"{what} has {words} words: too little for the model to use the tool well.",
            "say what it does, what it returns (with an example) and its limits.",
        )
    if not RETURNS.search(description):
        fail(
            f"{what} does not say what the tool returns, so the model cannot tell what it gets.",
            "add a sentence such as: Returns the converted amount with its code, e.g. '108.00 "
            "USD'.",
        )
    if not _states_limits(description):
        fail(
            f"{what} does not say the tool's limits, so the model may call it for a currency it "
            "does not know. The check looks for the four codes named (EUR, USD, GBP, JPY), "
            "'fixed rates', or a word such as 'only', 'not', 'knows' or 'fails'.",
            "add a sentence such as: It knows only EUR, USD, GBP and JPY.",
        )


def _resolved_properties(schema: dict) -> dict:
    """The schema's properties, each `$ref` ('#/$defs/Currency', an Enum class) replaced by
    what it points to."""
    properties = {}
    for name, spec in (schema.get("properties") or {}).items():
        seen = 0
        while isinstance(spec, dict) and isinstance(spec.get("$ref"), str) and seen < 5:
            target: Any = schema
            for part in spec["$ref"].removeprefix("#/").split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            spec = {**target, **{k: v for k, v in spec.items() if k != "$ref"}}
            seen += 1
        properties[name] = spec if isinstance(spec, dict) else {}
    return properties


def _types(schema: dict) -> set[str]:
    """The JSON types a property's schema allows (its `type`, or those of its `anyOf`)."""
    kinds = {schema.get("type")} if schema.get("type") else set()
    for option in schema.get("anyOf") or []:
        kinds |= _types(option)
    return kinds
