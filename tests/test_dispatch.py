"""The dispatcher answers every tool_use with a well-formed tool_result and never raises.

Hypothesis throws any tool name, any JSON input and any exception a tool can raise at
`dispatch`; whatever happens, the answer is a tool_result for the same id. KeyboardInterrupt
is not an Exception: it passes through `dispatch` and is the loop's job (tests/test_loop.py).
"""

from __future__ import annotations

import builtins
import datetime
import enum
import json

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_helpers.approvers import Scripted
from course_helpers.lessons.dispatch import RESULT_LIMIT, dispatch
from course_helpers.lessons.gate import Decision, Gate
from course_helpers.lessons.tools import Tool, tool


@tool
def get_diff(pr: int) -> str:
    """Return the diff of pull request `pr`."""
    if pr != 482:
        raise LookupError(f"PR #{pr} does not exist (open PRs: #482, #483)")
    return "diff --git a/x b/x"


@tool
def read_file(path: str) -> str:
    """Read one file."""
    return f"contents of {path}"


TOOLS = {"get_diff": get_diff, "read_file": read_file}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
json_inputs = st.dictionaries(st.text(max_size=10), json_values, max_size=5)

EXCEPTION_TYPES = sorted(
    (
        value
        for value in vars(builtins).values()
        if isinstance(value, type)
        and issubclass(value, Exception)
        # Their constructors need more than a message: five arguments, or a list of errors.
        and not issubclass(value, UnicodeError | BaseExceptionGroup)
    ),
    key=lambda kind: kind.__name__,
)


def block(name: str, tool_input: object, tool_id: str = "toolu_01") -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def assert_well_formed(result: dict, tool_id: str) -> None:
    assert set(result) == {"type", "tool_use_id", "content", "is_error"}
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == tool_id
    assert isinstance(result["content"], str) and result["content"]
    assert isinstance(result["is_error"], bool)
    json.dumps(result)  # it can be sent as is


@settings(max_examples=150, deadline=None)
@given(name=st.text(max_size=30), tool_input=json_inputs, tool_id=st.text(min_size=1, max_size=20))
def test_any_name_and_input_get_a_result(name: str, tool_input: dict, tool_id: str) -> None:
    result = dispatch(TOOLS, block(name, tool_input, tool_id))
    assert_well_formed(result, tool_id)
    if name not in TOOLS:
        assert result["is_error"] is True
        assert result["content"].startswith(f"Unknown tool {name!r}.")
        assert "Available tools: get_diff, read_file." in result["content"]


@settings(max_examples=100, deadline=None)
@given(tool_input=json_values)
def test_any_json_input_for_a_real_tool_gets_a_result(tool_input: object) -> None:
    result = dispatch(TOOLS, block("read_file", tool_input))
    assert_well_formed(result, "toolu_01")
    valid = isinstance(tool_input, dict) and set(tool_input) == {"path"}
    if not valid:
        assert result["is_error"] is True


@settings(max_examples=100, deadline=None)
@given(
    kind=st.sampled_from(EXCEPTION_TYPES),
    message=st.text(max_size=40),
    tool_input=json_inputs,
)
def test_any_exception_from_a_tool_becomes_an_error_result(
    kind: type[Exception], message: str, tool_input: dict
) -> None:
    def explode(**_: object) -> str:
        raise kind(message)

    # ExceptionGroup and friends are covered by a test of their own below.

    broken = Tool("explode", "Always fails.", explode, get_diff.arguments)
    result = dispatch([broken], block("explode", {"pr": 1}))
    assert_well_formed(result, "toolu_01")
    assert result["is_error"] is True
    assert result["content"].startswith(f"explode failed with {kind.__name__}")


@settings(max_examples=50, deadline=None)
@given(value=json_values)
def test_any_return_value_becomes_text(value: object) -> None:
    returns = Tool("returns", "Returns a value.", lambda **_: value, read_file.arguments)
    result = dispatch([returns], block("returns", {"path": "x"}))
    assert_well_formed(result, "toolu_01")
    assert result["is_error"] is False


def test_sdk_objects_work_like_dicts() -> None:
    from anthropic.types import ToolUseBlock

    sdk_block = ToolUseBlock(type="tool_use", id="toolu_9", name="get_diff", input={"pr": 482})
    assert dispatch(TOOLS, sdk_block) == {
        "type": "tool_result",
        "tool_use_id": "toolu_9",
        "content": "diff --git a/x b/x",
        "is_error": False,
    }


def test_the_tool_raising_names_the_tool_and_keeps_its_message() -> None:
    result = dispatch(TOOLS, block("get_diff", {"pr": 999}))
    assert result["is_error"] is True
    assert result["content"] == (
        "get_diff failed with LookupError: PR #999 does not exist (open PRs: #482, #483)"
    )


def test_validation_problems_are_listed_in_plain_words() -> None:
    result = dispatch(TOOLS, block("get_diff", {"pull": 482}))
    assert result["is_error"] is True
    assert "- pr: this argument is required but was not given" in result["content"]
    assert "- pull: this tool has no such argument" in result["content"]
    wrong_type = dispatch(TOOLS, block("get_diff", {"pr": "latest"}))
    assert "- pr: Input should be a valid integer" in wrong_type["content"]
    assert '(got "latest")' in wrong_type["content"]


class Currency(enum.Enum):
    EUR = "EUR"
    USD = "USD"


@tool
def convert(amount: int, currency: Currency, day: datetime.date) -> str:
    """Convert `amount` into `currency` at the rate of `day`."""
    return f"{amount} {currency.name} on {day.isoformat()}"


def test_an_enum_and_a_date_pass_the_dispatcher_as_they_pass_tool_run() -> None:
    # What the schema asks for, as the model writes it in JSON: the Enum's value, an ISO date.
    schema = convert.definition()["input_schema"]
    assert schema["$defs"]["Currency"]["enum"] == ["EUR", "USD"]
    assert schema["properties"]["day"] == {"format": "date", "type": "string"}
    tool_input = {"amount": 3, "currency": "EUR", "day": "2026-01-02"}
    assert convert.run(tool_input) == "3 EUR on 2026-01-02"
    result = dispatch([convert], block("convert", tool_input))
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_01",
        "content": "3 EUR on 2026-01-02",
        "is_error": False,
    }


def test_the_dispatcher_refuses_what_tool_run_refuses() -> None:
    # Strict still: a number written as a string, a value outside the Enum, a date in words.
    tool_input = {"amount": "3", "currency": "GBP", "day": "2nd of January"}
    with pytest.raises(pydantic.ValidationError) as refused:
        convert.run(tool_input)
    result = dispatch([convert], block("convert", tool_input))
    assert result["is_error"] is True
    refused_fields = {problem["loc"][0] for problem in refused.value.errors()}
    assert refused_fields == {"amount", "currency", "day"}
    assert "- amount: Input should be a valid integer" in result["content"]
    assert "- currency: Input should be 'EUR' or 'USD'" in result["content"]
    assert "- day: Input should be a valid date" in result["content"]


def test_checks_run_in_order_unknown_before_invalid_before_permission() -> None:
    asked: list[str] = []

    def approve(name: str, tool_input: dict) -> bool:
        asked.append(name)
        return False

    assert "Unknown tool" in dispatch(TOOLS, block("nope", {}), approve=approve)["content"]
    assert "Invalid arguments" in dispatch(TOOLS, block("get_diff", {}), approve=approve)["content"]
    assert asked == []  # neither was worth asking a person about
    declined = dispatch(TOOLS, block("get_diff", {"pr": 482}), approve=approve)
    assert asked == ["get_diff"]
    assert declined["is_error"] is True
    assert declined["content"].startswith(
        "The approval policy declined get_diff; no person was asked. It was not run."
    )


def test_permission_accepts_decisions_and_policies() -> None:
    decision = Decision(False, "merging is for people", "reviewer")
    result = dispatch(TOOLS, block("get_diff", {"pr": 482}), approve=lambda n, i: decision)
    assert result["content"].startswith(
        "The approval policy reviewer declined get_diff (merging is for people); no person"
    )
    person = Decision(False, "clicked Deny", "person")
    result = dispatch(TOOLS, block("get_diff", {"pr": 482}), approve=lambda n, i: person)
    assert result["content"].startswith("The user declined to run get_diff (clicked Deny).")
    gate = Gate(Scripted({"get_diff": True}), dangerous={"get_diff"})
    assert dispatch(TOOLS, block("get_diff", {"pr": 482}), approve=gate)["is_error"] is False
    assert gate.audit_log[0]["allowed"] is True


def test_an_approval_check_that_raises_declines_the_call() -> None:
    def broken(name: str, tool_input: dict) -> bool:
        raise RuntimeError("approval service down")

    result = dispatch(TOOLS, block("get_diff", {"pr": 482}), approve=broken)
    assert result["is_error"] is True
    assert "approval service down" in result["content"]


def test_long_output_is_truncated() -> None:
    huge = Tool("huge", "Prints a lot.", lambda **_: "x" * 50_000, read_file.arguments)
    content = dispatch([huge], block("huge", {"path": "x"}))["content"]
    assert len(content) < RESULT_LIMIT + 100
    assert "characters cut from the middle" in content


def test_keyboard_interrupt_is_not_swallowed() -> None:
    def interrupted(**_: object) -> str:
        raise KeyboardInterrupt

    stopper = Tool("stopper", "Ctrl-C.", interrupted, read_file.arguments)
    with pytest.raises(KeyboardInterrupt):
        dispatch([stopper], block("stopper", {"path": "x"}))


def test_an_exception_group_from_a_tool_becomes_an_error_result() -> None:
    def explode(**_: object) -> str:
        raise ExceptionGroup("two things failed", [ValueError("a"), OSError("b")])

    broken = Tool("explode", "Always fails.", explode, get_diff.arguments)
    result = dispatch([broken], block("explode", {"pr": 1}))
    assert result["is_error"] is True
    assert result["content"].startswith("explode failed with ExceptionGroup: two things failed")
