"""Course machinery (exercise checks): exercise 02.2, `check_currency_tool`: the same tool from a
typed function with @tool.
"""

from __future__ import annotations

import re
from typing import Any

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    short_repr,
)
from course_helpers.exercise_checks.describe_tools.description import (
    _check_description,
    _resolved_properties,
    _types,
)
from course_helpers.exercise_checks.describe_tools.schema import CURRENCIES


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
