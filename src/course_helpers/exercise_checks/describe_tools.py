"""Course machinery (exercise checks): checks for notebook 02, Describe tools.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_02_describe_tools.py):

`check_tool_schema(definition)`, the hand-written `convert_currency` definition:
- a dict with `name`, `description`, `input_schema` (not `parameters`/`schema`);
- the name follows the API's rule and is `convert_currency`;
- a description of 12 words or more that says what the tool returns ("returns", "gives") and
  its limits ("only", "not", "knows", "fails", "unknown");
- `input_schema` is a valid JSON Schema object (`type: object`) with the properties `amount`,
  `source` and `target`, judged by what it accepts and refuses, never by how it is written
  (`enum`, `const` options in `anyOf`/`oneOf`, `$ref` to `$defs`, a type list all pass when they
  mean the same):
  - amount: every number passes (12.5, 0.5, 100, 2500000.75); text ('ten', '12.5'), null,
    true, a list or an object do not; a minimum that lets 0.5 through is accepted;
  - source and target: each of the four codes passes; any other value ('XYZ', 'CHF', 'eur',
    'dollars', '', 1, null) does not;
  - arguments without any one of the three do not pass (all three required);
  - other properties may be allowed or refused (`additionalProperties: false`);
- the course model accepts the definition in a request.

`check_currency_tool(tool)`, the same tool from a typed function with `@tool`:
- a `Tool`, with a description as above (12 words or more, what it returns, its limits) and
  the arguments amount, source, target, all three required (no default);
- source and target limited to the four codes in the schema;
- good arguments give the converted amount at the exercise's rates (12.5 and 0.5 EUR to USD,
  100 GBP to JPY): amount is a `number` (not an `integer`, not a string), its cents are kept,
  and no rate is the learner's own;
- an amount of 0 or less and an unknown code are refused by the signature, before the
  function runs (a check inside the function is not enough).

`check_forced_call(force_call)`, `force_call(client, question, model)`, on
claude-haiku-5-5, claude-sonnet-5-5 and claude-opus-5-5:
- the request uses the `model` given and offers convert_currency;
- on a model that accepts a forced tool_choice: the call is forced (`{"type": "tool", "name":
  "convert_currency"}`, or `{"type": "any"}` when convert_currency is the only tool), and the
  response returned holds the tool_use;
- on a model that rejects it: the request that counts does not force (auto or no tool_choice,
  not none), and the response returned holds a convert_currency call: the course model follows
  an instruction that tells it to call the tool (in `system` or in the question) and refuses to
  call when told not to, so an instruction that names the tool the wrong way round fails;
  trying the forced call first and falling back after the 400 is accepted;
- the function returns the Message, not None or an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    accepts_forced_tool_choice,
    api_message,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.lessons.pairing import content_blocks, read_field
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
GOOD_AMOUNTS = (12.5, 0.5, 100, 2_500_000.75)  # any number: cents too, whole ones too
NOT_AMOUNTS = ("ten", "12.5", None, True, [12.5], {"value": 12.5})
NOT_CODES = ("XYZ", "CHF", "eur", "dollars", "", 1, None)


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
        fail(
            f"the schema rejects good arguments { ({**GOOD, 'amount': refused[0]}) }.",
            "check each property's type, and that no minimum or maximum refuses an amount.",
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
            fail(
                f"{argument} does not list the currencies the function knows "
                f"({', '.join(CURRENCIES)}): the schema accepts {let_in[0]!r}.",
                "add 'enum': ['EUR', 'USD', 'GBP', 'JPY'] so the model cannot send 'dollars'.",
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


def check_currency_tool(convert: Any) -> None:
    """02 · The same tool from a typed function with @tool: schema and validation from one source."""
    __tracebackhide__ = True
    import pydantic

    from course_helpers.lessons.tools import Tool

    if not isinstance(convert, Tool):
        fail(
            f"convert_currency is a {type(convert).__name__}, not a Tool.",
            "put @tool (from course_helpers.lessons.tools) on the line above `def convert_currency`.",
        )
    definition = convert.definition()
    _check_description(definition["description"], "the docstring (the tool's description)")
    properties = _resolved_properties(definition["input_schema"])
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
    required = sorted(definition["input_schema"].get("required") or [])
    if required != ["amount", "source", "target"]:
        fail(
            f"the schema's required list is {required}: the model may leave out "
            f"{', '.join(sorted({'amount', 'source', 'target'} - set(required)))}, and the "
            "function would guess it.",
            "give no argument a default value: the model must say all three.",
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
    if "108" not in str(result):
        fail(
            f"converting 100 EUR to USD returned {short_repr(result)}; at the exercise's rates "
            "(1 EUR = 1.08 USD) that is 108.00 USD.",
            "call convert(amount, source, target) from the cell above, arguments in that order.",
        )
    if _types(properties["amount"]) - {"number", "integer"}:
        fail(
            f"amount's schema allows the JSON types {sorted(_types(properties['amount']))}: the "
            "model may send the amount as a string.",
            "type it float: the schema says 'number', and nothing else gets through.",
        )
    if "number" not in _types(properties["amount"]):
        fail(
            f"amount has type {properties['amount'].get('type')!r} in the schema, so 12.5 EUR "
            "cannot be converted.",
            "type it float (JSON Schema 'number'): money has cents.",
        )
    for amount, source, target, expected in [
        (12.5, "EUR", "USD", 13.5),
        (0.5, "EUR", "USD", 0.54),
        (100, "GBP", "JPY", 19058.82),
    ]:
        arguments = {"amount": amount, "source": source, "target": target}
        try:
            result = convert.run(arguments)
        except pydantic.ValidationError as error:
            fail(
                f"convert_currency refused {amount} {source}: {error.errors()[0].get('msg')}.",
                "any amount above 0 is good, cents included: Annotated[float, "
                "pydantic.Field(gt=0)].",
            )
        except Exception as error:
            fail(f"converting {amount} {source} to {target} raised {error!r}.", "run it by hand.")
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", str(result).replace(",", ""))]
        if not any(abs(n - expected) < 0.01 for n in numbers):
            fail(
                f"converting {amount} {source} to {target} returned {short_repr(result)}; at the "
                f"exercise's rates that is {expected:.2f} {target}.",
                "pass the arguments to convert(amount, source, target) unchanged: no rate of "
                "your own, no rounding of the amount.",
            )
    for arguments, why, hint in [
        (
            {"amount": -5, "source": "EUR", "target": "USD"},
            "a negative amount",
            "Annotated[float, pydantic.Field(gt=0)] refuses amounts of 0 or less.",
        ),
        (
            {"amount": 0, "source": "EUR", "target": "USD"},
            "an amount of 0",
            "ge=0 lets 0 through: Annotated[float, pydantic.Field(gt=0)] refuses it.",
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


RETURNS = re.compile(r"\b(?:returns?|gives|answers? with|result)\b", re.IGNORECASE)
LIMITS = re.compile(
    r"\b(?:only|not|never|limit(?:s|ed)?|knows?|supports?|fails?|raises?|errors?|unknown)\b",
    re.IGNORECASE,
)


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
    if not LIMITS.search(description):
        fail(
            f"{what} does not say the tool's limits, so the model may call it for a currency it "
            "does not know.",
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


FORCE_MODELS = ("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5")
CONVERSION_QUESTION = "How much is 100 EUR in JPY?"
OTHER_QUESTIONS = (CONVERSION_QUESTION, "What is 250 GBP in USD?", "Convert 42.5 USD to EUR.")


def _forces(request: dict) -> bool:
    choice = request.get("tool_choice") or {}
    return isinstance(choice, dict) and choice.get("type") in ("any", "tool")


def _forces_converter(request: dict) -> bool:
    """tool_choice names convert_currency, or is "any" with convert_currency the only tool."""
    choice = request.get("tool_choice") or {}
    names = [t.get("name") for t in request.get("tools") or []]
    if choice.get("type") == "tool":
        return choice.get("name") == "convert_currency"
    return choice.get("type") == "any" and names == ["convert_currency"]


def _instruction_text(request: dict) -> str:
    """The system prompt and the last user message: where an instruction to call can be."""
    system = request.get("system") or ""
    if isinstance(system, list):
        system = text_of(system)
    last = (request.get("messages") or [{}])[-1]
    return f"{system} {text_of(content_blocks(last))}"


def check_forced_call(force_call: Callable) -> None:
    """02 · `force_call(client, question, model)`: a convert_currency call on every current model.

    Forced tool use depends on the model: force the call where the model accepts a forced
    tool_choice (the only guarantee there is), and where it answers 400, ask with "auto" and an
    instruction that names the tool.
    """
    __tracebackhide__ = True
    for number, model in enumerate(FORCE_MODELS):
        question = OTHER_QUESTIONS[number % len(OTHER_QUESTIONS)]
        client, recorder = recording_client()
        response = run_learner(
            _refusal_explained(force_call, recorder, model),
            client,
            question,
            model,
            name=f"force_call(..., {model!r})",
        )
        if not recorder.requests:
            fail("force_call made no request.", "call client.messages.create(...) and return it.")
        request = recorder.requests[-1]
        asked = text_of(content_blocks((request.get("messages") or [{}])[-1]))
        if question not in asked:
            fail(
                f"force_call(client, {question!r}, ...) sent the question {short_repr(asked)}: "
                "it does not ask the question it is given.",
                "put the `question` parameter in the user message: {'role': 'user', "
                "'content': question}.",
            )
        if request.get("model") != model:
            fail(
                f"force_call(client, question, {model!r}) sent model={request.get('model')!r}.",
                "pass model=model to client.messages.create, not the constant MODEL.",
            )
        names = [t.get("name") for t in request.get("tools") or []]
        if "convert_currency" not in names:
            fail(
                f"on {model}, the request offers tools {names}, not convert_currency.",
                "pass tools=[convert_currency.definition()].",
            )
        if recorder.responses and recorder.responses[-1]["status"] != 200:
            fail(
                f"on {model}, the last request was refused ({recorder.responses[-1]['status']}) "
                "and force_call returned anyway.",
                f"{model} answers a forced tool_choice with 400: use 'auto' and an instruction "
                "there.",
            )
        if not hasattr(response, "content") or not hasattr(response, "stop_reason"):
            fail(
                f"on {model}, force_call returned {short_repr(response)}, not the response.",
                "return the Message that client.messages.create gave you.",
            )
        if accepts_forced_tool_choice(model):
            _check_forced(request, response, model)
        else:
            _check_instructed(request, response, model, question)
    passed("force_call gets a convert_currency call on every current model")


def _refusal_explained(force_call: Callable, recorder: Any, model: str) -> Callable:
    """force_call, with a forced tool_choice refused by the model turned into a clear failure."""

    def run(*args: Any) -> Any:
        __tracebackhide__ = True
        try:
            return force_call(*args)
        except anthropic.BadRequestError as error:
            if recorder.requests and _forces(recorder.requests[-1]):
                fail(
                    f"on {model}, force_call forced tool_choice "
                    f"{recorder.requests[-1].get('tool_choice')} and the API answered 400: "
                    f"{api_message(error)}",
                    "on a model that does not support forced tool use, send tool_choice "
                    "{'type': 'auto'} and an instruction that names convert_currency.",
                )
            raise

    run.__name__ = getattr(force_call, "__name__", "force_call")
    return run


def _check_forced(request: dict, response: Any, model: str) -> None:
    __tracebackhide__ = True
    choice = request.get("tool_choice")
    if not _forces(request):
        fail(
            f"on {model}, which accepts a forced tool_choice, the request does not force a call "
            f"(tool_choice is {choice or 'not set, so auto'}): the model may answer with text.",
            "where the model accepts it, pass tool_choice={'type': 'tool', 'name': "
            "'convert_currency'}.",
        )
    if not _forces_converter(request):
        names = [t.get("name") for t in request.get("tools") or []]
        fail(
            f"on {model}, tool_choice is {choice} with tools {names}: that does not force "
            "convert_currency ('any' lets the model pick any of the tools).",
            "{'type': 'tool', 'name': 'convert_currency'} forces this one tool.",
        )
    calls = [b for b in content_blocks(response) if read_field(b, "type") == "tool_use"]
    if response.stop_reason != "tool_use" or not calls:
        fail(
            f"on {model}, the response force_call returned holds no tool_use block.",
            "return the response of the forced call.",
        )


def _check_instructed(request: dict, response: Any, model: str, question: str) -> None:
    """On a model that rejects forcing: auto, an instruction in the system prompt, and a call
    really made."""
    __tracebackhide__ = True
    if _forces(request):
        fail(
            f"on {model}, force_call's request forces tool_choice {request.get('tool_choice')}; "
            f"{model} does not support forced tool use and answers 400.",
            "on a model that rejects it, send tool_choice {'type': 'auto'} (or leave it out) "
            "and tell the model to call convert_currency.",
        )
    if (request.get("tool_choice") or {}).get("type") == "none":
        fail(
            f"on {model}, tool_choice is 'none': the model may not call any tool.",
            "use {'type': 'auto'} and an instruction that names convert_currency.",
        )
    calls = [
        b
        for b in content_blocks(response)
        if read_field(b, "type") == "tool_use" and read_field(b, "name") == "convert_currency"
    ]
    system = request.get("system") or ""
    system = text_of(system) if isinstance(system, list) else str(system)
    asked = text_of(content_blocks((request.get("messages") or [{}])[-1]))
    if "convert_currency" not in system and "convert_currency" in asked.replace(question, ""):
        fail(
            f"on {model}, the instruction to call convert_currency is in the user message, "
            f"with the question ({short_repr(asked, 80)}), not in the system prompt: the user "
            "message is the person's question, sent as it is; a standing rule of your program "
            "goes in the system prompt.",
            "send messages=[{'role': 'user', 'content': question}] and put the instruction in "
            "system='Always call convert_currency for a conversion; ...'.",
        )
    if calls:
        return
    said = _instruction_text(request).strip()
    if "convert_currency" not in said:
        fail(
            f"on {model}, the request leaves the choice to the model (auto) without telling it to "
            "call convert_currency, and it answered in text (a real model may make up a rate).",
            "add an instruction that names the tool, e.g. system='Always use convert_currency "
            "for a conversion; never compute a rate yourself.'",
        )
    fail(
        f"on {model}, the model answered in text, with no convert_currency call: your "
        f"instruction ({short_repr(system.strip() or said, 90)}) does not tell it to call the "
        "tool.",
        "say plainly that it must call it, e.g. system='Always call convert_currency for a "
        "conversion; never compute a rate yourself.'",
    )
