"""Checks for notebook 02, Describe tools."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.checks.common import (
    api_message,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)
from course_helpers.client import MODEL

CURRENCIES = ("EUR", "USD", "GBP", "JPY")
NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


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
    missing = [k for k in ("name", "description", "input_schema") if not tool_def.get(k)]
    if missing:
        fail(
            f"the definition has no {', '.join(missing)}.",
            "a tool is three keys: name, description, input_schema.",
        )
    name = tool_def["name"]
    if not isinstance(name, str) or not NAME_RULE.match(name):
        fail(
            f"the name {name!r} breaks the API's rule ^[a-zA-Z0-9_-]{{1,128}}$.",
            "letters, digits, '_' and '-' only: no spaces or dots.",
        )
    if name != "convert_currency":
        fail(
            f"the name is {name!r}, but your program runs a function called convert_currency.",
            "use the function's name, so the dispatcher can find it by the name the model sends.",
        )
    words = len(str(tool_def["description"]).split())
    if words < 12:
        fail(
            f"the description has {words} words: too little for the model to use the tool well.",
            "say what it does, what it returns (with an example) and its limits.",
        )
    schema = tool_def["input_schema"]
    if not isinstance(schema, dict) or schema.get("type") != "object":
        fail(
            "input_schema must be a JSON Schema object: {'type': 'object', 'properties': ...}.",
            "the arguments of a tool are always one JSON object.",
        )
    properties = schema.get("properties") or {}
    absent = [p for p in ("amount", "source", "target") if p not in properties]
    if absent:
        fail(
            f"input_schema.properties has no {', '.join(absent)}.",
            "one property per argument of convert_currency(amount, source, target).",
        )
    if properties["amount"].get("type") != "number":
        fail(
            f"amount has type {properties['amount'].get('type')!r}; 12.50 must be accepted.",
            "JSON Schema's type for any number, whole or not, is 'number'.",
        )
    for argument in ("source", "target"):
        spec = properties[argument]
        if sorted(spec.get("enum") or []) != sorted(CURRENCIES):
            fail(
                f"{argument} does not list the currencies the function knows "
                f"({', '.join(CURRENCIES)}).",
                "add 'enum': ['EUR', 'USD', 'GBP', 'JPY'] so the model cannot send 'dollars'.",
            )
    required = schema.get("required") or []
    if sorted(required) != ["amount", "source", "target"]:
        fail(
            f"required is {required!r}; the function needs all three arguments.",
            "add 'required': ['amount', 'source', 'target'].",
        )
    _check_schema_behaviour(schema)
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


def _check_schema_behaviour(schema: dict) -> None:
    """Valid arguments pass the schema, typical bad ones do not."""
    __tracebackhide__ = True
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        fail(f"input_schema is not valid JSON Schema: {error.message}", "compare with 02, §2.1.")
    validator = jsonschema.Draft202012Validator(schema)
    good = {"amount": 12.5, "source": "EUR", "target": "JPY"}
    if not validator.is_valid(good):
        fail(f"the schema rejects good arguments {good}.", "check each property's type.")
    bad = [
        ({"source": "EUR", "target": "USD"}, "amount is missing"),
        ({"amount": "ten", "source": "EUR", "target": "USD"}, "amount is text"),
        ({"amount": 5, "source": "EUR", "target": "XYZ"}, "XYZ is no currency it knows"),
    ]
    for arguments, why in bad:
        if validator.is_valid(arguments):
            fail(f"the schema accepts {arguments} ({why}).", "tighten types, enum or required.")


def check_currency_tool(convert: Any) -> None:
    """02 · The same tool from a typed function with @tool: schema and validation from one source."""
    __tracebackhide__ = True
    import pydantic

    from course_helpers.tools import Tool

    if not isinstance(convert, Tool):
        fail(
            f"convert_currency is a {type(convert).__name__}, not a Tool.",
            "put @tool (from course_helpers.tools) on the line above `def convert_currency`.",
        )
    definition = convert.definition()
    if len(definition["description"].split()) < 12:
        fail(
            "the docstring (the tool's description) is too short for the model to use it well.",
            "say what it does, what it returns and its limits, as in 02.",
        )
    properties = definition["input_schema"].get("properties", {})
    if sorted(properties) != ["amount", "source", "target"]:
        fail(
            f"the arguments are {sorted(properties)}; expected amount, source and target.",
            "def convert_currency(amount: ..., source: ..., target: ...) -> str",
        )
    for argument in ("source", "target"):
        if sorted(properties[argument].get("enum") or []) != sorted(CURRENCIES):
            fail(
                f"{argument} is not limited to {', '.join(CURRENCIES)} in the schema.",
                "type it as Currency = Literal['EUR', 'USD', 'GBP', 'JPY'].",
            )
    try:
        result = convert.run({"amount": 100, "source": "EUR", "target": "USD"})
    except Exception as error:
        fail(f"convert_currency.run on good arguments raised {error!r}.", "run it by hand.")
    if not re.search(r"\d", str(result)):
        fail(
            f"converting 100 EUR to USD returned {short_repr(result)}, with no amount in it.",
            "return the converted amount, e.g. '108.00 USD'.",
        )
    for arguments, why, hint in [
        (
            {"amount": -5, "source": "EUR", "target": "USD"},
            "a negative amount",
            "Annotated[float, pydantic.Field(gt=0)] refuses amounts of 0 or less.",
        ),
        (
            {"amount": 5, "source": "EUR", "target": "XYZ"},
            "an unknown currency",
            "a Literal type refuses anything outside its values.",
        ),
    ]:
        try:
            convert.run(arguments)
        except pydantic.ValidationError:
            continue
        except Exception as error:
            fail(
                f"{why} reached your function, which raised {type(error).__name__}.",
                f"let the signature refuse it before the function runs: {hint}",
            )
        fail(f"convert_currency.run accepted {why}: {arguments}.", hint)
    passed("convert_currency from a typed signature")


def check_forced_call(force_call: Callable) -> None:
    """02 · `force_call(client, question)` makes the model call convert_currency, whatever is asked."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    response = run_learner(force_call, client, "Hello!", name="force_call")
    if not recorder.requests:
        fail("force_call made no request.", "call client.messages.create(...) and return it.")
    request = recorder.requests[-1]
    names = [t.get("name") for t in request.get("tools") or []]
    if "convert_currency" not in names:
        fail(
            f"the request offers tools {names}, not convert_currency.",
            "pass tools=[convert_currency.definition()].",
        )
    choice = request.get("tool_choice")
    if not choice or choice.get("type") == "auto":
        fail(
            "the request does not force a call (tool_choice is 'auto'), so 'Hello!' gets text.",
            "pass tool_choice={'type': 'tool', 'name': 'convert_currency'}.",
        )
    if choice.get("type") != "tool" or choice.get("name") != "convert_currency":
        fail(
            f"tool_choice is {choice}; that does not name convert_currency.",
            "{'type': 'tool', 'name': 'convert_currency'} forces this one tool.",
        )
    if not hasattr(response, "content") or not hasattr(response, "stop_reason"):
        fail(
            f"force_call returned {short_repr(response)}, not the response.", "return the Message."
        )
    calls = [b for b in response.content if b.type == "tool_use"]
    if response.stop_reason != "tool_use" or not calls:
        fail("the response holds no tool_use block.", "return the response of the forced call.")
    passed("force_call forces convert_currency")
