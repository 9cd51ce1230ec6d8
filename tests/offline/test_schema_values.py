"""Values the course model writes for a JSON Schema are valid against it (jsonschema, formats
asserted), in every mode that asks for one: a forced tool, an output tool under `auto`, and
`output_config.format`, streamed or not. A value too big for `max_tokens` ends with
`stop_reason: "max_tokens"`. A tool schema that is not draft 2020-12 is refused as the API
refuses it."""

from __future__ import annotations

import json
import re
import time

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from course_helpers.offline import CourseModelApp
from course_helpers.offline.described import described
from course_helpers.offline.patterns import string_matching
from course_helpers.offline.schemas import conform, example_for
from course_helpers.offline.validation.output_schema import subset_error

FORCING_MODEL = "claude-haiku-5-5"  # accepts a forced tool_choice
AUTO_MODEL = "claude-sonnet-5-5"
STRICT = {"_strict_response_validation": True, "max_retries": 0}
INVALID = (
    "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft "
    "2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at "
    "https://docs.claude.com/en/docs/tool-use."
)


def valid(value, schema) -> bool:
    checker = Draft202012Validator.FORMAT_CHECKER
    return Draft202012Validator(schema, format_checker=checker).is_valid(value)


@pytest.fixture(scope="module")
def strict_client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


def answer(client, schema: dict, mode: str, *, stream: bool = False, max_tokens: int = 2048):
    """(the value the model gave for `schema` in `mode`, the message's stop_reason)."""
    kwargs: dict = {
        "model": FORCING_MODEL,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": "Fill it in."}],
    }
    if mode == "json":
        kwargs["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        refused = subset_error(schema)
        if refused:  # outside the structured-outputs subset: the API's 400, then a forced tool
            with pytest.raises(anthropic.BadRequestError, match=re.escape(refused)):
                client.messages.create(**kwargs)
            return answer(client, schema, "forced", stream=stream, max_tokens=max_tokens)
    elif mode == "forced":
        kwargs["tools"] = [{"name": "record", "input_schema": schema}]
        kwargs["tool_choice"] = {"type": "tool", "name": "record"}
    else:  # auto: the answer goes through an output tool, as pydantic-ai asks for it
        description = "The final response which ends this conversation"
        kwargs["tools"] = [
            {"name": "final_result", "description": description, "input_schema": schema}
        ]
        kwargs["model"] = AUTO_MODEL
    if stream:
        with client.messages.stream(**kwargs) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**kwargs)
    if mode == "json":
        (text,) = [b.text for b in message.content if b.type == "text"]
        value = json.loads(text) if message.stop_reason != "max_tokens" else text
    else:
        (call,) = [b for b in message.content if b.type == "tool_use"]
        value = call.input
    return value, message.stop_reason


def wrap(field: dict) -> dict:
    return {"type": "object", "properties": {"f": field}, "required": ["f"]}


PATTERNS = [
    "^[A-Z]{3}-[0-9]{4}$",
    "^[a-z]+$",
    "^ORD-\\d+$",
    "^\\+?[0-9]{10,12}$",
    "^(red|green)$",
    "^.{3}$",
    "^\\d{5}(-\\d{4})?$",
    "^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$",
    "\\bcat\\b",
    "^(ab)+\\1$",
    # Lookaheads: a password rule, a word that must not start a name, several rules at once.
    "^(?=.*[A-Z])(?=.*\\d).{8,}$",
    "^(?=.*[A-Z])(?=.*\\d).{8}$",
    "^(?!admin).*$",
    "^(?!admin)[a-z]{5}$",
    "(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)(?=.*[!@#]).{12,}",
    "^(?=.{8,}$)[a-z]+\\d$",
    "^(?!.*admin)(?=.*\\d)\\w{4,}$",
]

# Each kind of value the outside probe found failing its own schema.
KEYWORD_CASES = {
    "unique items": {"type": "array", "items": {"enum": [1, 2]}, "minItems": 2, "uniqueItems": True},
    "min properties": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2},
    "pattern properties": {"type": "object", "patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False, "minProperties": 1},
    "property names": {"type": "object", "propertyNames": {"pattern": "^[A-Z]+$"}, "minProperties": 1},
    "dependent required": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"], "dependentRequired": {"a": ["b"]}},
    "if then": {"type": "object", "properties": {"kind": {"type": "string"}, "v": {"type": "integer"}}, "required": ["kind"], "if": {"properties": {"kind": {"const": "x"}}}, "then": {"required": ["v"]}, "else": {"required": ["v"]}},
    "duration": {"type": "string", "format": "duration"},
    "time": {"type": "string", "format": "time"},
    "one of exactly one": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    "contains": {"type": "array", "contains": {"const": 7}, "minContains": 2},
    "default of another type": {"type": "integer", "default": "oops"},
    "default out of bounds": {"type": "integer", "minimum": 10, "default": 1},
    "default against its pattern": {"type": "string", "pattern": "^[a-z]+$", "default": "ABC"},
    "examples": {"type": "integer", "minimum": 5, "examples": [1, 7]},
    "not": {"not": {"type": "string"}},
    "pattern or boolean": {"anyOf": [{"type": "string", "pattern": "(?=x)y"}, {"type": "boolean"}]},
    "multiple of a fraction": {"type": "number", "multipleOf": 0.01, "minimum": 0.07},
}  # fmt: skip

NODE = {
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "v": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["v", "children"],
        }
    },
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/Node"}},
    "required": ["root"],
}


def _deep(levels: int) -> dict:
    schema: dict = {"type": "integer"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    return schema


# -- W1: patterns ----------------------------------------------------------------------------


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_gets_a_string_that_matches_it(strict_client, pattern):
    schema = wrap({"type": "string", "pattern": pattern})
    for mode in ("forced", "json"):
        value, _ = answer(strict_client, schema, mode)
        assert valid(value, schema), (mode, value)


def test_a_pattern_and_lengths_together():
    for pattern, low, high in [("^[a-z]+$", 5, 8), ("^ORD-\\d+$", 10, 10), ("\\bcat\\b", 8, 9)]:
        found = string_matching(pattern, min_length=low, max_length=high)
        assert found is not None and low <= len(found) <= high, (pattern, found)


@pytest.mark.parametrize("pattern", [p for p in PATTERNS if "(?" in p])
def test_a_lookahead_pattern_gets_a_string_re_search_accepts(pattern):
    for low, high in ((0, None), (10, 20)):
        found = string_matching(pattern, min_length=low, max_length=high)
        if pattern.endswith(("{8}$", "{5}$")) and low:
            assert found is None  # a fixed length below ten cannot be ten
            continue
        assert found is not None and re.search(pattern, found), (pattern, found)
        assert low <= len(found) <= (high or len(found))


@pytest.mark.parametrize("pattern", ["^(a|a)+b?c$", "^(?=.*\\d)(a+)+$", "^(?=.*[A-Z])(\\w+\\s?)+$"])
def test_a_repeated_choice_or_a_lookahead_on_a_nested_repeat_does_not_stall(pattern):
    started = time.monotonic()
    found = string_matching(pattern, min_length=40)
    assert time.monotonic() - started < 5
    assert found is None or re.search(pattern, found)


def test_a_pattern_it_cannot_satisfy_gives_none_not_a_wrong_string():
    assert string_matching("(unclosed") is None
    assert string_matching("^.{3}$", min_length=8) is None
    assert string_matching("^(?=.*[A-Z])[a-z]+$") is None


def test_a_stated_value_is_kept_only_if_it_matches():
    schema = wrap({"type": "string", "pattern": "^[A-Z]+$"})
    assert conform({"f": "ABC"}, schema) == {"f": "ABC"}
    fixed = conform({"f": "abc"}, schema)
    assert valid(fixed, schema) and fixed["f"] != "abc"


def test_a_stated_email_that_fails_the_pattern_is_replaced(strict_client):
    field = {"type": "string", "format": "email", "pattern": "@example\\.com$"}
    schema = {**wrap(field), "additionalProperties": False}
    message = strict_client.messages.create(
        model=FORCING_MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": "Save the contact Alice Martin, alice@acme.io."}],
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    assert valid(json.loads(message.content[-1].text), schema)


class _Order(BaseModel):
    code: str = Field(pattern=r"^ORD-[0-9]{6}$", description="The order code")
    note: str = Field(min_length=30, max_length=40)
    count: int = Field(ge=3, le=7)
    price: float = Field(gt=10, multiple_of=0.5)
    tags: list[str] = Field(min_length=2, max_length=3)


def test_constraints_the_sdk_moved_into_descriptions_are_kept(strict_client):
    """`messages.parse` sends `pattern`, lengths and bounds as description text, then checks
    the answer against the pydantic model: the answer passes that check."""
    message = strict_client.messages.parse(
        model=FORCING_MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": "Make up an order."}],
        output_format=_Order,
    )
    order = message.parsed_output
    assert re.fullmatch(r"ORD-[0-9]{6}", order.code) and 30 <= len(order.note) <= 40
    assert 3 <= order.count <= 7 and order.price > 10 and 2 <= len(order.tags) <= 3


def test_a_description_without_the_sdk_block_adds_nothing():
    assert described("Use {pattern: x} style codes.") == {}
    assert described("{minimum: 3, pattern: ^a, b$}") == {"minimum": 3, "pattern": "^a, b$"}
    assert described("Code\n\n{pattern: (unclosed, maxLength: 5}") == {"maxLength": 5}


# -- W2: the other keywords ------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(KEYWORD_CASES))
@pytest.mark.parametrize("mode", ["forced", "auto", "json"])
def test_every_keyword_gets_a_valid_value(strict_client, case, mode):
    schema = wrap(KEYWORD_CASES[case])
    value, stop_reason = answer(strict_client, schema, mode)
    assert stop_reason in ("tool_use", "end_turn")
    assert valid(value, schema), value


@pytest.mark.parametrize("schema", [NODE, _deep(60)], ids=["recursive", "sixty levels"])
def test_deep_and_recursive_schemas_get_every_required_field(strict_client, schema):
    value, _ = answer(strict_client, schema, "forced", max_tokens=8192)
    assert valid(value, schema)
    if schema is NODE:
        assert value["root"]["children"] == []  # the finite answer


@pytest.mark.parametrize(
    "field",
    [{"type": "string", "minLength": 10_000_000}, {"type": "array", "minItems": 100_000}],
    ids=["long string", "long array"],
)
@pytest.mark.parametrize("mode", ["forced", "json"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_value_too_big_for_max_tokens_stops_at_max_tokens(strict_client, field, mode, stream):
    _, stop_reason = answer(strict_client, wrap(field), mode, stream=stream)
    assert stop_reason == "max_tokens"


def test_a_value_that_fits_is_written_whole():
    schema = wrap({"type": "string", "minLength": 5000})
    assert len(example_for(schema)["f"]) == 5000


# -- W10: schemas that are not draft 2020-12 ---------------------------------------------------

NOT_SCHEMAS = [
    {"type": "object", "properties": None},
    {"type": "object", "properties": [{"type": "string"}]},
    {"type": "object", "properties": {"a": 5}},
    {"type": "object", "properties": {"a": "string"}},
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    {"type": "object", "properties": {"a": {"type": []}}},
    {"type": "object", "required": "a"},
    {"type": "object", "required": [1]},
    {"type": "object", "properties": {"a": {"$ref": 5}}},
    {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0}}},
]
STILL_SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}},
    {"type": "object", "properties": {"a": {"$ref": "https://example.com/other.json"}}},
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}},
]


@pytest.mark.parametrize("schema", NOT_SCHEMAS, ids=[json.dumps(s) for s in NOT_SCHEMAS])
def test_a_tool_schema_that_is_not_draft_2020_12_is_refused(strict_client, schema):
    with pytest.raises(anthropic.BadRequestError) as refused:
        strict_client.messages.create(
            model=FORCING_MODEL,
            max_tokens=256,
            messages=[{"role": "user", "content": "Hi"}],
            tools=[{"name": "t", "input_schema": schema}],
        )
    assert refused.value.body["error"]["message"] == INVALID


@pytest.mark.parametrize("schema", STILL_SCHEMAS, ids=[json.dumps(s) for s in STILL_SCHEMAS])
def test_what_the_meta_schema_allows_is_accepted(strict_client, schema):
    message = strict_client.messages.create(
        model=FORCING_MODEL,
        max_tokens=256,
        messages=[{"role": "user", "content": "Hi"}],
        tools=[{"name": "t", "input_schema": schema}],
        tool_choice={"type": "tool", "name": "t"},
    )
    assert message.stop_reason == "tool_use"


# -- generated schemas -------------------------------------------------------------------------

_FORMATS = ["date", "date-time", "time", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]  # fmt: skip


@st.composite
def _leaf(draw) -> dict:
    kind = draw(
        st.sampled_from(["pattern", "format", "length", "integer", "number", "enum", "misc"])
    )
    if kind == "pattern":
        schema = {"type": "string", "pattern": draw(st.sampled_from(PATTERNS))}
    elif kind == "format":
        schema = {"type": "string", "format": draw(st.sampled_from(_FORMATS))}
    elif kind == "length":
        low = draw(st.integers(0, 40))
        schema = {"type": "string", "minLength": low, "maxLength": low + draw(st.integers(0, 5))}
    elif kind == "integer":
        low = draw(st.integers(-50, 50))
        step = draw(st.integers(1, 7))
        schema = {"type": "integer", "minimum": low, "maximum": low + 3 * step, "multipleOf": step}
    elif kind == "number":
        low = draw(st.integers(-5, 5))
        schema = {"type": "number", "exclusiveMinimum": low, "exclusiveMaximum": low + 1}
    elif kind == "enum":
        schema = {
            "enum": draw(
                st.lists(
                    st.integers(0, 9) | st.text(max_size=3), min_size=1, max_size=4, unique=True
                )
            )
        }
    else:
        schema = draw(st.sampled_from(sorted(KEYWORD_CASES.values(), key=json.dumps)))
    if draw(st.booleans()):
        schema = {**schema, "default": draw(st.none() | st.integers() | st.text(max_size=4))}
    return schema


def _combined(inner):
    names = st.sampled_from(["a", "b", "c", "name", "code", "when"])
    objects = st.dictionaries(names, inner, min_size=1, max_size=3).flatmap(
        lambda props: st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.just(props),
                "required": st.lists(st.sampled_from(sorted(props)), unique=True),
            },
            optional={
                "additionalProperties": st.booleans(),
                "minProperties": st.integers(0, len(props)),
                "dependentRequired": st.just({sorted(props)[0]: sorted(props)[-1:]}),
            },
        )
    )
    arrays = st.fixed_dictionaries(
        {"type": st.just("array"), "items": inner},
        optional={"minItems": st.integers(0, 3), "maxItems": st.integers(3, 5)},
    )
    choices = st.tuples(inner, st.sampled_from([{"type": "boolean"}, {"type": "null"}])).map(
        lambda pair: {"anyOf": list(pair)}
    )
    return objects | arrays | choices


_SCHEMAS = st.recursive(_leaf(), _combined, max_leaves=6).map(wrap)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(schema=_SCHEMAS, mode=st.sampled_from(["forced", "auto", "json"]), stream=st.booleans())
def test_generated_schemas_get_valid_values(strict_client, schema, mode, stream):
    value, stop_reason = answer(strict_client, schema, mode, stream=stream)
    if stop_reason == "max_tokens":
        return  # the block is incomplete, as documented: not a value to check
    assert valid(value, schema), (value, schema)
