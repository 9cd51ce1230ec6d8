"""Course machinery (exercise checks): exercise 02.1, `check_tool_schema`: a definition written by
hand, judged by what its schema accepts.
"""

from __future__ import annotations

from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    api_message,
    fail,
    passed,
    recording_client,
    short_repr,
)
from course_helpers.exercise_checks.describe_tools.description import (
    _check_description,
    _resolved_properties,
    _types,
)
from course_helpers.offline.validation import TOOL_NAME, TOOL_NAME_PATTERN

CURRENCIES = ("EUR", "USD", "GBP", "JPY")


def check_tool_schema(tool_def: Any) -> None:
    """02 · A tool definition written by hand for `convert_currency(amount, source, target)`."""
    __tracebackhide__ = True
    if not isinstance(tool_def, dict):
        fail(
            f"the tool definition is a {type(tool_def).__name__}, not a dict.",
            "write {'name': ..., 'description': ..., 'input_schema': {...}}.",
        )
    if "input_schema" not in tool_def and ("parameters" in tool_def or "schema" in tool_def):
        wrong = "parameters" if "parameters" in tool_def else "schema"
        fail(
            f"the schema is under {wrong!r}; the Messages API reads it from 'input_schema'.",
            f"rename the key {wrong!r} to 'input_schema'.",
        )
    # The blank notebook's placeholder: both keys there, both still empty.
    if tool_def.get("description", 0) == "" and tool_def.get("input_schema", 0) == {}:
        fail(
            "currency_tool is not written yet: its description and input_schema are still empty.",
            "write them under '# YOUR CODE HERE': what the tool does, and one property per argument.",
        )
    keys = ("name", "description", "input_schema")
    if missing := [k for k in keys if k not in tool_def]:
        fail(
            f"the definition has no {', '.join(missing)}.",
            "a tool is three keys: name, description, input_schema.",
        )
    if empty := [k for k in keys if not tool_def[k]]:
        fail(
            f"the definition's {' and '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty.",
            "a tool is three keys, each filled in: name, description, input_schema.",
        )
    name = tool_def["name"]
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        fail(
            f"the name {name!r} breaks the API's rule {TOOL_NAME_PATTERN}.",
            "letters, digits, '_' and '-' only: no spaces or dots.",
        )
    if name != "convert_currency":
        fail(
            f"the name is {name!r}, but your program runs a function called convert_currency.",
            "use the function's name, so the dispatcher can find it by the name the model sends.",
        )
    _check_description(str(tool_def["description"]), "the description")
    schema = tool_def["input_schema"]
    if not isinstance(schema, dict) or schema.get("type") != "object":
        fail(
            "input_schema must be a JSON Schema object: {'type': 'object', 'properties': ...}.",
            "the arguments of a tool are always one JSON object.",
        )
    if schema.get("properties") is not None and not isinstance(schema["properties"], dict):
        fail(
            f"input_schema.properties is a {type(schema['properties']).__name__}: the model "
            "reads each argument's schema from it, by name.",
            "write 'properties': {'amount': {...}, 'source': {...}, 'target': {...}}.",
        )
    properties = _resolved_properties(schema)
    absent = [p for p in ("amount", "source", "target") if p not in properties]
    if absent:
        fail(
            f"input_schema.properties has no {', '.join(absent)}.",
            "one property per argument of convert_currency(amount, source, target).",
        )
    _check_schema_behaviour(schema, properties)
    client, _ = recording_client()
    try:
        client.messages.create(
            model=MODEL,
            max_tokens=200,
            tools=[tool_def],
            messages=[{"role": "user", "content": "Hello!"}],
        )
    except anthropic.APIStatusError as error:
        fail(f"the API refuses this definition: {api_message(error)}", "read the path it names.")
    passed("the convert_currency schema")


GOOD = {"amount": 12.5, "source": "EUR", "target": "JPY"}
# Any number: cents too, whole ones too, zero, a third decimal (exercise 1 says "any number";
# refusing zero is the typed function's job, in exercise 2).
GOOD_AMOUNTS = (12.5, 0.5, 100, 2_500_000.75, 0, 12.345)
NOT_AMOUNTS = ("ten", "12.5", None, True, [12.5], {"value": 12.5})
# Codes holding one of the four inside them catch an unanchored pattern ('EUR|USD|GBP|JPY').
NOT_CODES = ("XYZ", "CHF", "eur", "dollars", "", 1, None, "EURO", "XUSD", "eurEUR")


_BOUNDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")


def _check_schema_behaviour(schema: dict, properties: dict) -> None:
    """What the schema lets through, argument by argument: judged by what it accepts and
    refuses, so that any way of writing it (`enum`, `const` in `anyOf`/`oneOf`, `$ref`, a type
    list) passes when it means the same."""
    __tracebackhide__ = True
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        fail(f"input_schema is not valid JSON Schema: {error.message}", "compare with 02, §2.1.")
    validator = jsonschema.Draft202012Validator(schema)
    try:
        validator.is_valid(GOOD)
    except Exception as error:  # a $ref to nowhere is valid JSON Schema, but cannot be used
        said = str(error).split("\n")[0]
        fail(
            f"input_schema cannot be applied to arguments: {short_repr(said)}",
            "check every $ref: each must point to a schema under $defs in input_schema.",
        )

    def valid(**changes: Any) -> bool:
        return validator.is_valid({**GOOD, **changes})

    refused = [a for a in GOOD_AMOUNTS if not valid(amount=a)]
    if 12.5 in refused and valid(amount=12):
        kinds = sorted(_types(properties["amount"])) or ["integer"]
        said = repr(kinds[0]) if len(kinds) == 1 else repr(kinds)
        fail(
            f"amount has type {said}: the schema refuses 12.5, and 12.50 must be accepted.",
            "JSON Schema's type for any number, whole or not, is 'number'.",
        )
    if refused and validator.is_valid(GOOD):
        bounds = [k for k in _BOUNDS if k in properties["amount"]]
        fail(
            f"the schema rejects good arguments { ({**GOOD, 'amount': refused[0]}) }"
            + (f" (amount has {', '.join(bounds)})" if bounds else "")
            + ": the exercise asks for any number as the amount, zero and a third decimal "
            "included.",
            "give amount only 'type': 'number': no exclusiveMinimum, maximum or multipleOf "
            "(refusing zero is the typed function's job, in exercise 2).",
        )
    for argument in ("source", "target"):
        shut_out = [code for code in CURRENCIES if not valid(**{argument: code})]
        if shut_out and len(shut_out) < len(CURRENCIES):
            fail(
                f"{argument} refuses {shut_out[0]!r}, one of the four currencies the function "
                "knows.",
                "list all four: 'enum': ['EUR', 'USD', 'GBP', 'JPY'].",
            )
        let_in = [code for code in NOT_CODES if valid(**{argument: code})]
        if let_in and not shut_out:
            inside = isinstance(let_in[0], str) and any(c in let_in[0] for c in CURRENCIES)
            fail(
                f"{argument} does not list the currencies the function knows "
                f"({', '.join(CURRENCIES)}): the schema accepts {let_in[0]!r}."
                + (
                    " A pattern matches anywhere in the text unless it is anchored, so a code "
                    "with one of the four inside it passes."
                    if inside
                    else ""
                ),
                "add 'enum': ['EUR', 'USD', 'GBP', 'JPY'] so the model cannot send 'dollars'"
                + (" (or anchor the pattern: '^(EUR|USD|GBP|JPY)$')." if inside else "."),
            )
    if not validator.is_valid(GOOD):
        fail(
            f"the schema rejects good arguments {GOOD}.",
            "check each property's type, enum and required list against those arguments.",
        )
    required = schema.get("required") or []
    for argument in ("amount", "source", "target"):
        if validator.is_valid({k: v for k, v in GOOD.items() if k != argument}):
            fail(
                f"required is {required!r}: arguments without {argument} pass the schema, but "
                "the function needs all three.",
                "add 'required': ['amount', 'source', 'target'].",
            )
    let_in = [a for a in NOT_AMOUNTS if valid(amount=a)]
    if let_in:
        fail(
            f"the schema accepts { ({**GOOD, 'amount': let_in[0]}) } (amount is not a number).",
            "give amount the type 'number', and no other type beside it.",
        )
