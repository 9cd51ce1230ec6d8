"""Exercise 02's checks, proven both ways.

The exercise: `notebooks/exercises/02_describe_tools_exercises.ipynb`. Plausible wrong solutions,
written as a learner would write them in the exercise notebook, fail with a message that names
their own mistake; equivalent correct solutions (another style, another valid choice) pass. The
requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.describe_tools`.
"""

from typing import Annotated, Literal

import anthropic
import pydantic
import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_currency_tool,
    check_forced_call,
    check_tool_schema,
)
from course_helpers.lessons.tools import tool
from exercise_variants.kit import (
    passes,
    text_of,
    variant_tests,
)

CODES = ["EUR", "USD", "GBP", "JPY"]


DESCRIPTION = (
    "Convert an amount of money from one currency to another at today's rate. Returns the "
    "converted amount with its code, for example '108.00 USD'. Knows EUR, USD, GBP and JPY only."
)


def currency_definition(**changes) -> dict:
    schema = {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "The amount, e.g. 12.5."},
            "source": {"type": "string", "enum": CODES},
            "target": {"type": "string", "enum": CODES},
        },
        "required": ["amount", "source", "target"],
    }
    definition = {"name": "convert_currency", "description": DESCRIPTION, "input_schema": schema}
    for key, value in changes.items():
        if key.startswith("schema_"):
            schema[key.removeprefix("schema_")] = value
        elif key in schema["properties"]:
            schema["properties"][key] = value
        else:
            definition[key] = value
    return definition


ONE_OF_THE_CODES = {"anyOf": [{"const": code} for code in CODES]}


def currency_definition_with_defs() -> dict:
    """Right another way: the codes written once, under $defs, and pointed to."""
    definition = currency_definition(
        source={"$ref": "#/$defs/Code"}, target={"$ref": "#/$defs/Code"}
    )
    definition["input_schema"]["$defs"] = {"Code": {"type": "string", "enum": CODES}}
    return definition


def openai_style() -> dict:
    definition = currency_definition()
    definition["parameters"] = definition.pop("input_schema")
    return definition


Currency = Literal["EUR", "USD", "GBP", "JPY"]


DOC = """Convert an amount of money from one currency to another at today's rate.

    Returns the converted amount with its code, for example '108.00 USD'. Knows EUR, USD, GBP
    and JPY only; the rates are updated once a day.
    """


def convert(amount, source, target) -> str:
    rates = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.0}
    return f"{amount / rates[source] * rates[target]:.2f} {target}"


def currency_tool_right():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_positive_float():
    @tool
    def convert_currency(
        amount: pydantic.PositiveFloat,
        source: Literal["EUR", "USD", "GBP", "JPY"],
        target: Literal["EUR", "USD", "GBP", "JPY"],
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_any_amount():
    @tool
    def convert_currency(amount: float, source: Currency, target: Currency) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_swapped():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, target, source)

    return _with_doc(convert_currency)


def currency_tool_int_amount():
    @tool
    def convert_currency(
        amount: Annotated[int, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_zero_allowed():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(ge=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_str_codes():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: str, target: str
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_checks_inside():
    @tool
    def convert_currency(amount: float, source: Currency, target: Currency) -> str:
        if amount <= 0:
            raise ValueError("amount must be positive")
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def _with_doc(made):
    """@tool reads the docstring; the variants above share one, set here."""
    from course_helpers.lessons.tools import Tool

    return Tool(made.name, " ".join(DOC.split()), made.function, made.arguments)


def convert_currency_plain(amount: float, source: str, target: str) -> str:
    """Convert an amount of money between currencies."""
    return convert(amount, source, target)


CONVERTER = {"name": "convert_currency", "description": DESCRIPTION, "input_schema": {}}


CONVERTER["input_schema"] = currency_definition()["input_schema"]


WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for one city, e.g. '18°C, light rain'.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


INSTRUCTION = "Always call convert_currency for a conversion; never guess a rate yourself."


NO_FORCING = {"claude-sonnet-5-5", "claude-opus-5-5"}


def force_right(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_by_trying(client, question, model=MODEL):
    """Try the forced call; on a model that refuses it, ask with auto and an instruction."""
    messages = [{"role": "user", "content": question}]
    try:
        return client.messages.create(
            model=model,
            max_tokens=500,
            tools=[CONVERTER],
            tool_choice={"type": "any"},
            messages=messages,
        )
    except anthropic.BadRequestError:
        return client.messages.create(
            model=model,
            max_tokens=500,
            tools=[CONVERTER],
            tool_choice={"type": "auto"},
            system=INSTRUCTION,
            messages=messages,
        )


def force_always(client, question, model=MODEL):
    return client.messages.create(
        model=model,
        max_tokens=500,
        tools=[CONVERTER],
        tool_choice={"type": "tool", "name": "convert_currency"},
        messages=[{"role": "user", "content": question}],
    )


def force_never_no_instruction(client, question, model=MODEL):
    return client.messages.create(
        model=model,
        max_tokens=500,
        tools=[CONVERTER],
        messages=[{"role": "user", "content": question}],
    )


def force_auto_without_instruction_where_refused(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model not in NO_FORCING:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_any_with_two_tools(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [WEATHER, CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
    else:
        request["tool_choice"] = {"type": "any"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_told_not_to_call(client, question, model=MODEL):
    """Names the tool in system, but to forbid it."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Do not call convert_currency; answer from memory."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_vague_instruction(client, question, model=MODEL):
    """An instruction that does not name the tool."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Use your tools when they help."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_names_the_tool_in_passing(client, question, model=MODEL):
    """Mentions convert_currency, but never says to call it."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "You have convert_currency among your tools."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_in_the_question(client, question, model=MODEL):
    """Instruction appended to the question, where the exercise says system prompt."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        question = f"{question} Use convert_currency for this."
        request["tool_choice"] = {"type": "auto"}
    else:
        request["tool_choice"] = {"type": "any"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_returns_the_call(client, question, model=MODEL):
    response = force_right(client, question, model)
    return next(b for b in response.content if b.type == "tool_use")


def force_ignores_model(client, question, model=MODEL):
    return force_right(client, question, MODEL)


def force_swallows_the_error(client, question, model=MODEL):
    try:
        return force_always(client, question, model)
    except anthropic.BadRequestError as error:
        return error.response


def force_never_use(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Never use convert_currency; you know the rates."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_choice_none(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
        request["tool_choice"] = {"type": "none"}
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def _currency_tool(body, **types):
    """A convert_currency @tool with these argument types, whose work is `body`."""
    amount = types.get("amount", Annotated[float, pydantic.Field(gt=0)])
    source = types.get("source", Currency)

    @tool
    def convert_currency(amount: amount, source: source, target: Currency) -> str:
        return body(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_default_source():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)],
        target: Currency,
        source: Currency = "EUR",
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


class Code(str, __import__("enum").Enum):
    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"
    JPY = "JPY"


def currency_tool_enum():
    """A str Enum for the codes: the model's "EUR" arrives as text and becomes Code.EUR."""

    @tool
    def convert_currency(amount: pydantic.PositiveFloat, source: Code, target: Code) -> str:
        return convert(amount, Code(source).value, Code(target).value)

    return _with_doc(convert_currency)


def force_hard_coded_question(client, question, model=MODEL):
    return force_right(client, "How much is 100 EUR in JPY?", model)


@pytest.mark.parametrize(
    ("system", "calls"),
    [
        ("Always call convert_currency for a conversion; never guess a rate yourself.", True),
        ("Call the tool convert_currency for conversions.", True),
        ("For every conversion, convert_currency must be called.", True),
        ("Do not call convert_currency; answer from memory.", False),
        ("Answer without calling convert_currency.", False),
        ("convert_currency must not be used.", False),
        ("You have convert_currency among your tools.", False),
    ],
)
def test_the_course_model_follows_an_instruction_about_a_tool(system: str, calls: bool) -> None:
    """What check_forced_call relies on: with auto, an order to call is followed, and so is an
    order not to; a mere mention is neither."""
    from course_helpers.offline import default_app

    client = default_app().client(max_retries=0)
    response = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=500,
        system=system,
        tools=[CONVERTER],
        messages=[{"role": "user", "content": "How much is 100 EUR in JPY?"}],
    )
    made = [b for b in response.content if b.type == "tool_use"]
    assert bool(made) is calls, response.content
    if calls:
        assert made[0].input == {"amount": 100.0, "source": "EUR", "target": "JPY"}
        assert response.stop_reason == "tool_use"


WRONG = {
    "schema under parameters": (check_tool_schema, openai_style(), "under 'parameters'"),
    "anyOf: amount as a number or a string": (
        check_tool_schema,
        currency_definition(amount={"anyOf": [{"type": "number"}, {"type": "string"}]}),
        "(amount is not a number)",
    ),
    "a pattern that lets other codes in": (
        check_tool_schema,
        currency_definition(source={"type": "string", "pattern": "^[A-Z]{3}$"}),
        "source does not list the currencies the function knows (EUR, USD, GBP, JPY): the "
        "schema accepts 'XYZ'",
    ),
    "properties as a list": (
        check_tool_schema,
        currency_definition(schema_properties=[{"amount": {"type": "number"}}]),
        "input_schema.properties is a list",
    ),
    "a $ref to nowhere": (
        check_tool_schema,
        currency_definition(source={"$ref": "#/$defs/Code"}),
        "cannot be applied to arguments",
    ),
    "anyOf: a code left out": (
        check_tool_schema,
        currency_definition(source={"anyOf": [{"const": code} for code in CODES[:3]]}),
        "source refuses 'JPY'",
    ),
    "amount allowed to be null": (
        check_tool_schema,
        currency_definition(amount={"type": ["number", "null"]}),
        "'amount': None",
    ),
    "integer amount": (
        check_tool_schema,
        currency_definition(amount={"type": "integer"}),
        "amount has type 'integer'",
    ),
    "no enum": (
        check_tool_schema,
        currency_definition(target={"type": "string"}),
        "target does not list the currencies",
    ),
    "target not required": (
        check_tool_schema,
        currency_definition(schema_required=["amount", "source"]),
        "required is ['amount', 'source']",
    ),
    "name with a space": (
        check_tool_schema,
        currency_definition(name="convert currency"),
        "breaks the API's rule",
    ),
    "one-line description": (
        check_tool_schema,
        currency_definition(description="Converts currency."),
        "description has 2 words",
    ),
    "@tool missing": (check_currency_tool, convert_currency_plain, "not a Tool"),
    "any amount": (check_currency_tool, currency_tool_any_amount(), "accepted a negative amount"),
    "codes typed str": (check_currency_tool, currency_tool_str_codes(), "is not limited to"),
    "amount typed int": (check_currency_tool, currency_tool_int_amount(), "so 12.5 EUR"),
    "amount ge=0": (check_currency_tool, currency_tool_zero_allowed(), "an amount of 0"),
    "source and target swapped": (check_currency_tool, currency_tool_swapped(), "108.00 USD"),
    "checked inside the function": (
        check_currency_tool,
        currency_tool_checks_inside(),
        "reached your function",
    ),
    "forced on every model": (check_forced_call, force_always, "does not support forced tool use"),
    "never forced, no instruction": (
        check_forced_call,
        force_never_no_instruction,
        "does not force a call",
    ),
    "auto without an instruction": (
        check_forced_call,
        force_auto_without_instruction_where_refused,
        "without telling it to call convert_currency",
    ),
    "any with two tools": (check_forced_call, force_any_with_two_tools, "'any' lets the model"),
    "the constant MODEL": (check_forced_call, force_ignores_model, "sent model="),
    "the error swallowed": (check_forced_call, force_swallows_the_error, "refused (400)"),
    "tool_choice none": (check_forced_call, force_choice_none, "tool_choice is 'none'"),
    "told not to call": (
        check_forced_call,
        force_told_not_to_call,
        "does not tell it to call the tool",
    ),
    "returns the tool_use block": (check_forced_call, force_returns_the_call, "not the response"),
    "schema: says nothing of what it returns": (
        check_tool_schema,
        currency_definition(
            description="Converts an amount between two currencies using the current "
            "exchange rate, quickly and simply for the user."
        ),
        "does not say what the tool returns",
    ),
    "schema: says nothing of its limits": (
        check_tool_schema,
        currency_definition(
            description="Converts an amount between two currencies at today's rate and "
            "returns the converted amount with its currency code."
        ),
        "does not say the tool's limits",
    ),
    "@tool drops the cents": (
        check_currency_tool,
        _currency_tool(lambda a, s, t: convert(int(a), s, t)),
        "that is 13.50 USD",
    ),
    "@tool with its own rate": (
        check_currency_tool,
        _currency_tool(lambda a, s, t: f"{a * 1.08:.2f} {t}"),
        "that is 19058.82 JPY",
    ),
    "@tool with a default source": (
        check_currency_tool,
        currency_tool_default_source(),
        "required list is",
    ),
    "@tool refuses 0.50": (
        check_currency_tool,
        _currency_tool(convert, amount=Annotated[float, pydantic.Field(ge=1)]),
        "refused 0.5 EUR",
    ),
    "@tool with a Decimal amount": (
        check_currency_tool,
        _currency_tool(
            lambda a, s, t: convert(float(a), s, t),
            amount=Annotated[__import__("decimal").Decimal, pydantic.Field(gt=0)],
        ),
        "the model may send the amount as a string",
    ),
    "force: the instruction in the question": (
        check_forced_call,
        force_in_the_question,
        "is in the user message, with the question",
    ),
    "force: a question of its own": (
        check_forced_call,
        force_hard_coded_question,
        "does not ask the question it is given",
    ),
}


WRONG_AGAIN = {
    "anyOf: codes or any string": (
        check_tool_schema,
        currency_definition(target={"anyOf": [{"enum": CODES}, {"type": "string"}]}),
        "target does not list the currencies the function knows",
    ),
    "anyOf: integer amounts only": (
        check_tool_schema,
        currency_definition(amount={"anyOf": [{"type": "integer", "minimum": 0}]}),
        "amount has type 'integer'",
    ),
    "force: 'Never use convert_currency'": (
        check_forced_call,
        force_never_use,
        "does not tell it to call the tool",
    ),
    "force: an instruction that does not name the tool": (
        check_forced_call,
        force_vague_instruction,
        "without telling it to call convert_currency",
    ),
    "force: the tool named in passing": (
        check_forced_call,
        force_names_the_tool_in_passing,
        "does not tell it to call the tool",
    ),
}


RIGHT = {
    "schema": (check_tool_schema, currency_definition()),
    "schema, codes as anyOf of consts": (
        check_tool_schema,
        currency_definition(source=ONE_OF_THE_CODES, target=ONE_OF_THE_CODES),
    ),
    "schema, amount as anyOf number or integer": (
        check_tool_schema,
        currency_definition(amount={"anyOf": [{"type": "number"}, {"type": "integer"}]}),
    ),
    "schema, codes as a typed string with anyOf of enums": (
        check_tool_schema,
        currency_definition(
            source={
                "type": "string",
                "anyOf": [{"enum": ["EUR", "USD"]}, {"enum": ["GBP", "JPY"]}],
            },
            target={"type": "string", "oneOf": [{"const": code} for code in CODES]},
        ),
    ),
    "schema, amount as a type list": (
        check_tool_schema,
        currency_definition(amount={"type": ["number"]}),
    ),
    "schema, codes under $defs": (check_tool_schema, currency_definition_with_defs()),
    "schema, codes as a pattern": (
        check_tool_schema,
        currency_definition(
            source={"type": "string", "pattern": "^(EUR|USD|GBP|JPY)$"},
            target={"type": "string", "pattern": "^(EUR|USD|GBP|JPY)$"},
        ),
    ),
    "schema, stricter": (
        check_tool_schema,
        currency_definition(schema_additionalProperties=False),
    ),
    "schema, a minimum of 0": (
        check_tool_schema,
        currency_definition(amount={"type": "number", "minimum": 0}),
    ),
    "@tool with Field(gt=0)": (check_currency_tool, currency_tool_right()),
    "@tool with PositiveFloat": (check_currency_tool, currency_tool_positive_float()),
    "force where accepted": (check_forced_call, force_right),
    "force by trying, any with one tool": (check_forced_call, force_by_trying),
    "@tool with a str Enum": (check_currency_tool, currency_tool_enum()),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(WRONG, RIGHT, wrong_again=WRONG_AGAIN, unwritten_checks=[check_forced_call])
)


def test_the_course_model_obeys_an_order_not_to_call_a_tool_it_would_call() -> None:
    """The weather scenario would call get_weather; told not to, the model does not."""
    from course_helpers.offline import default_app

    client = default_app().client(max_retries=0)
    request = {
        "model": MODEL,
        "max_tokens": 500,
        "tools": [WEATHER],
        "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
    }
    assert client.messages.create(**request).stop_reason == "tool_use"
    told = client.messages.create(**request, system="Never call get_weather.")
    assert told.stop_reason == "end_turn"
    assert "told not to use get_weather" in text_of(told)


@tool
def convert_currency_that_fails_for_others(
    amount: Annotated[float, pydantic.Field(gt=0)], source: Currency, target: Currency
) -> str:
    """Convert an amount between EUR, USD, GBP and JPY at a fixed rate.

    Returns the converted amount with two decimals, e.g. '108.00 USD'. Fails for other currencies.
    """
    return convert(amount, source, target)


def test_a_description_whose_limit_is_a_failure_passes(capsys) -> None:
    """Right another way: the limit said as notebook 02's weather tool says it ('fails')."""
    passes(check_currency_tool, convert_currency_that_fails_for_others, capsys)


def test_a_schema_whose_minimum_refuses_cents_fails() -> None:
    """Wrong: 'minimum': 1 looks like 'no zero', but refuses 0.50, an amount the tool converts."""
    definition = {
        "name": "convert_currency",
        "description": (
            "Convert an amount of money from one currency to another at a fixed rate. Returns "
            "the amount with two decimals, e.g. '108.00 USD'. It knows only EUR, USD, GBP and JPY."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "minimum": 1},
                "source": {"type": "string", "enum": CODES},
                "target": {"type": "string", "enum": CODES},
            },
            "required": ["amount", "source", "target"],
        },
    }
    with pytest.raises(CheckFailed) as failure:
        check_tool_schema(definition)
    assert "rejects good arguments" in str(failure.value) and "0.5" in str(failure.value)


# -- a learner's solutions that passed before -----------------------------------------------


UNANCHORED = {"type": "string", "pattern": "EUR|USD|GBP|JPY"}


def test_an_unanchored_pattern_fails() -> None:
    """Wrong: 'EUR|USD|GBP|JPY' matches anywhere, so 'EURO' and 'XUSD' pass."""
    with pytest.raises(CheckFailed) as failure:
        check_tool_schema(currency_definition(source=UNANCHORED, target=UNANCHORED))
    text = str(failure.value)
    assert "accepts 'EURO'" in text and "anchor the pattern" in text, text


@pytest.mark.parametrize(
    ("amount", "refused"),
    [
        ({"type": "number", "exclusiveMinimum": 0}, "'amount': 0,"),
        ({"type": "number", "multipleOf": 0.01}, "'amount': 12.345,"),
    ],
)
def test_an_amount_that_refuses_some_number_fails(amount, refused) -> None:
    """Wrong: exercise 1 asks for any number; zero and a third decimal included."""
    with pytest.raises(CheckFailed) as failure:
        check_tool_schema(currency_definition(amount=amount))
    text = str(failure.value)
    assert refused in text and "any number" in text and "exercise 2" in text, text


def convert_currency_naming_its_codes():
    """Right another way: the limits said by naming the four codes and the fixed rates."""

    @tool
    def convert_currency(
        amount: pydantic.PositiveFloat,
        source: Literal["EUR", "USD", "GBP", "JPY"],
        target: Literal["EUR", "USD", "GBP", "JPY"],
    ) -> str:
        """Convert money between four currencies (EUR, USD, GBP, JPY; fixed rates).

        Returns the converted amount with two decimals and the code, e.g. '108.00 USD'.
        """
        return convert(amount, source, target)

    return convert_currency


def test_a_description_naming_the_four_codes_passes(capsys) -> None:
    passes(check_currency_tool, convert_currency_naming_its_codes(), capsys)


def test_a_description_without_limits_says_what_the_check_looks_for() -> None:
    definition = currency_definition(
        description=(
            "Convert an amount of money from one currency to another at today's rate. Returns "
            "the converted amount with its code, for example '108.00 USD'."
        )
    )
    with pytest.raises(CheckFailed) as failure:
        check_tool_schema(definition)
    text = str(failure.value)
    assert "does not say the tool's limits" in text and "'fixed rates'" in text, text
