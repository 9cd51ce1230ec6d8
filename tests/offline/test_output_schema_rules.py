"""`output_config.format.schema` is held to what structured outputs take: a draft 2020-12
schema within the API's subset, refused otherwise with the API's words (sources in
docs/models.md, "Structured output schemas"). A `strict: true` tool's input schema is held to
the same subset under `tools.N.custom:`. Every schema the SDK itself sends
(`messages.parse(output_format=Model)`, `transform_schema`) is accepted."""

from __future__ import annotations

import datetime
import decimal
import enum
import ipaddress
import typing
import uuid

import anthropic
import pydantic
import pytest

from course_helpers.offline import CourseModelApp
from course_helpers.offline.validation.output_schema import subset_error

MODEL = "claude-haiku-5-5"
INVALID = (
    "JSON schema is invalid. It must match JSON Schema draft 2020-12 "
    "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
    "https://docs.claude.com/en/docs/tool-use."
)
SET_FALSE = "Please set 'additionalProperties' to false"


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


def closed(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def ask(client, **fields):
    return client.messages.create(
        model=MODEL,
        max_tokens=512,
        messages=[{"role": "user", "content": "Paris, 18 C and sunny."}],
        **fields,
    )


def refusal(client, **fields) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, **fields)
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


TAGS = {"type": "array", "items": {"type": "string"}}
REFUSED = [
    ({"type": "strin"}, INVALID),
    ({"properties": 5}, INVALID),
    (
        closed({"tags": {**TAGS, "minItems": 2, "maxItems": 5}}),
        "For 'array' type, 'minItems' values other than 0 or 1 are not supported (got: [2, 5])",
    ),
    (
        closed({"tags": {**TAGS, "minItems": 6}}),
        "For 'array' type, 'minItems' values other than 0 or 1 are not supported (got: [6, ∞])",
    ),
    (
        closed({"tags": {**TAGS, "minItems": 1, "maxItems": 3}}),
        "For 'array' type, property 'maxItems' is not supported",
    ),
    (
        closed({"tags": {**TAGS, "uniqueItems": True}}),
        "For 'array' type, property 'uniqueItems' is not supported",
    ),
    (
        {"type": "object", "properties": {}, "additionalProperties": True},
        f"For 'object' type, 'additionalProperties: true' is not supported. {SET_FALSE}",
    ),
    (
        {"type": "object", "additionalProperties": {"type": "string"}},
        f"For 'object' type, 'additionalProperties: object' is not supported. {SET_FALSE}",
    ),
    (
        {"type": "object", "properties": {"city": {"type": "string"}}},
        "For 'object' type, 'additionalProperties' must be explicitly set to false",
    ),
    (
        closed({"at": {"type": "object", "properties": {}}}),
        "For 'object' type, 'additionalProperties' must be explicitly set to false",
    ),
    (
        closed({"n": {"type": "integer", "minimum": 1, "maximum": 5}}),
        "For 'integer' type, properties maximum, minimum are not supported",
    ),
    (
        closed({"x": {"type": "number", "exclusiveMinimum": 0}}),
        "For 'number' type, property 'exclusiveMinimum' is not supported",
    ),
    (
        closed({"part": {"type": ["string", "null"], "enum": ["face", "hands", None]}}),
        "Invalid schema: Enum value 'face' does not match declared type '['string', 'null']'",
    ),
    (
        closed({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}),
        "Schema type 'oneOf' is not supported",
    ),
    (closed({"v": {"not": {"type": "number"}}}), "Schema keyword 'not' is not supported"),
    (
        closed({"v": {}}),
        "Empty schema ({}) that accepts any JSON value is not supported. "
        "Please specify a concrete type.",
    ),
    (
        {**closed({}), "propertyNames": {"pattern": "^a"}},
        "For 'object' type, property 'propertyNames' is not supported",
    ),
    (
        closed({"ip": {"type": "string", "format": "ipvanyaddress"}}),
        "For 'string' type, format 'ipvanyaddress' is not supported",
    ),
    (
        closed({"addr": {"$ref": "#/$defs/Address"}}),
        "Invalid schema: Reference to non-existent definition: #/$defs/Address",
    ),
]


@pytest.mark.parametrize(("schema", "reason"), REFUSED)
def test_an_output_schema_outside_the_subset_is_refused(client, schema, reason):
    fmt = {"format": {"type": "json_schema", "schema": schema}}
    assert refusal(client, output_config=fmt) == f"output_config.format.schema: {reason}"


ACCEPTED = [
    closed({"city": {"type": "string", "pattern": "^[A-Z]", "minLength": 1, "maxLength": 40}}),
    closed({"tags": {**TAGS, "minItems": 1}, "when": {"type": "string", "format": "date"}}),
    closed({"part": {"anyOf": [{"type": "string", "enum": ["face"]}, {"type": "null"}]}}),
    closed({"n": {"type": ["integer", "null"]}, "kind": {"const": "report"}}),
    {**closed({"addr": {"$ref": "#/$defs/Address"}}), "$defs": {"Address": closed({})}},
]


@pytest.mark.parametrize("schema", ACCEPTED)
def test_an_output_schema_inside_the_subset_is_answered(client, schema):
    message = ask(client, output_config={"format": {"type": "json_schema", "schema": schema}})
    assert message.stop_reason == "end_turn"


def test_a_strict_tool_is_held_to_the_subset_under_its_own_path(client):
    schema = closed({"tags": {**TAGS, "minItems": 2, "maxItems": 5}})
    tools = [
        {"name": "plain", "input_schema": closed({"n": {"type": "integer", "minimum": 1}})},
        {"name": "record", "input_schema": schema, "strict": True},
    ]
    assert refusal(client, tools=tools) == (
        "tools.1.custom: For 'array' type, 'minItems' values other than 0 or 1 are not "
        "supported (got: [2, 5])"
    )
    assert ask(client, tools=tools[:1]).content  # not strict: `minimum` is taken


# --------------------------------------------------------------- what the SDK sends is taken


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(pydantic.BaseModel):
    city: str = pydantic.Field(min_length=1, max_length=60)
    country: str | None = None


class Reading(pydantic.BaseModel):
    place: Place
    unit: Unit
    celsius: int = pydantic.Field(ge=-60, le=60)
    kind: typing.Literal["sunny", "rain", "snow"]
    when: datetime.datetime
    day: datetime.date


class Forecast(pydantic.BaseModel):
    readings: list[Reading] = pydantic.Field(min_length=2, max_length=5)
    best: Unit | None = None
    note: typing.Annotated[str, pydantic.StringConstraints(pattern=r"^[A-Z].*\.$")]


class Ledger(pydantic.BaseModel):
    code: str = pydantic.Field(pattern=r"^ORD-[0-9]{6}$")
    amount: decimal.Decimal
    share: float = pydantic.Field(gt=0, lt=1, multiple_of=0.01)
    id: uuid.UUID
    tags: set[str]
    counts: dict[str, int]
    at: datetime.time
    took: datetime.timedelta
    host: ipaddress.IPv4Address
    anything: ipaddress.IPv4Address | ipaddress.IPv6Address
    blob: bytes
    items: list[int] = pydantic.Field(min_length=1, max_length=9)


class Shape(pydantic.BaseModel):
    kind: typing.Literal["circle"]
    radius: float = pydantic.Field(ge=0)


class Box(pydantic.BaseModel):
    kind: typing.Literal["box"]
    sides: list[float] = pydantic.Field(min_length=4, max_length=4)


class Drawing(pydantic.BaseModel):
    shapes: list[typing.Annotated[Shape | Box, pydantic.Field(discriminator="kind")]]
    title: str = "untitled"
    layers: list[list[str]] = []


class Pair(pydantic.BaseModel):
    pair: tuple[int, str]
    rest: tuple[float, ...] = ()


SDK_MODELS = [Place, Reading, Forecast, Ledger, Drawing]


@pytest.mark.parametrize("model", [*SDK_MODELS, Pair], ids=lambda model: model.__name__)
def test_every_schema_the_sdk_sends_is_inside_the_subset(model):
    assert subset_error(anthropic.transform_schema(model)) is None
    assert subset_error(anthropic.transform_schema(model.model_json_schema())) is None


@pytest.mark.parametrize("model", SDK_MODELS, ids=lambda model: model.__name__)
def test_messages_parse_gets_an_answer_for_every_model(client, model):
    parsed = client.messages.parse(
        model=MODEL,
        max_tokens=2048,
        messages=[{"role": "user", "content": "Fill it in."}],
        output_format=model,
    )
    assert isinstance(parsed.parsed_output, model)


def test_the_raw_pydantic_schema_is_refused_where_the_sdk_would_move_keywords(client):
    fmt = {"format": {"type": "json_schema", "schema": Place.model_json_schema()}}
    assert refusal(client, output_config=fmt) == (
        "output_config.format.schema: For 'object' type, 'additionalProperties' must be "
        "explicitly set to false"
    )
