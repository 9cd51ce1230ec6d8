"""Each model of SDK 2.15 is played by its own rules (models.CATALOGUE), both ways.

For every model id of the SDK's `Model` literal and every rule of the catalogue, a request the
model refuses gets the API's status, error type and message, and the same request shaped the
way the model accepts passes. Behaviour by model: thinking by default, structured outputs,
strict tools, `GET /v1/models`.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import anthropic
import jsonschema
import pydantic
import pytest
from anthropic.types import Model
from tool_shapes import GET_WEATHER

from course_helpers.offline import CourseModelApp
from course_helpers.offline.errors import ApiError
from course_helpers.offline.headers import KNOWN_BETAS
from course_helpers.offline.models import CATALOGUE, RETIRED
from course_helpers.offline.validation import validate_messages_request

# The SDK warns when a request names a deprecated model: expected here, every model is tried.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

SDK_MODELS = list(typing.get_args(typing.get_args(Model)[0]))
MODELS = list(CATALOGUE)
# `GET /v1/models` lists by `created_at`, newest first (same day: the catalogue's order).
NEWEST_FIRST = sorted(MODELS, key=lambda i: CATALOGUE[i].released, reverse=True)
WEATHER = GET_WEATHER
FORCED = [{"type": "any"}, {"type": "tool", "name": "get_weather"}]
THINKING = {
    "enabled": {"type": "enabled", "budget_tokens": 1024},
    "adaptive": {"type": "adaptive"},
    "disabled": {"type": "disabled"},
    "between_tools": {"type": "between_tools"},
}
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
PNG = "iVBORw0KGgoAAAANSUhEUg=="  # the first bytes of a PNG file


def body(model: str, **extra: Any) -> dict:
    return {
        "model": model,
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
        **extra,
    }


def refusal(request: dict, **kwargs: Any) -> str:
    with pytest.raises(ApiError) as caught:
        validate_messages_request(request, **kwargs)
    error = caught.value
    assert (error.status, error.error_type) == (400, "invalid_request_error")
    return error.message


def accepts(request: dict, **kwargs: Any) -> None:
    validate_messages_request(request, **kwargs)


# --------------------------------------------------------------------------- the catalogue


def test_the_catalogue_has_every_model_of_the_sdk_literal_in_its_order():
    assert MODELS == SDK_MODELS


def test_the_course_runs_on_the_pinned_sdk_and_retires_what_it_dropped():
    root = Path(__file__).resolve().parents[2]
    pins = dict(
        line.split("==")
        for line in (root / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert anthropic.__version__ == pins["anthropic"] == "2.15.0"
    assert '"anthropic>=2.15,<3"' in (root / "pyproject.toml").read_text()
    assert not set(RETIRED) & set(SDK_MODELS)


def test_the_default_model_facts():
    spec = CATALOGUE["claude-sonnet-5-5"]
    assert spec.context_window == 1_000_000 and spec.max_output_tokens == 128_000
    assert not spec.forced_tool_choice and not spec.sampling_params
    assert spec.thinking_types == {"adaptive", "between_tools"} and spec.thinks_by_default
    assert spec.system_role and spec.end_of_life is None
    haiku = CATALOGUE["claude-haiku-5-5"]
    assert haiku.forced_tool_choice and haiku.thinking_types == {"adaptive", "disabled"}
    assert CATALOGUE["claude-opus-5-5"].thinking_types == {"adaptive"}  # cannot turn it off


def test_deprecations_come_from_the_sdk_table():
    from anthropic._data import DEPRECATED_MODELS

    deprecated = {m: s.end_of_life for m, s in CATALOGUE.items() if s.end_of_life}
    assert deprecated == DEPRECATED_MODELS
    assert CATALOGUE["claude-opus-4-5"].end_of_life == "January 22nd, 2027"
    assert "claude-sonnet-4-5" not in CATALOGUE  # retired: SDK 2.15 dropped it


# --------------------------------------------------------------------------- validation by model


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("choice", FORCED, ids=["any", "tool"])
def test_forced_tool_choice(model, choice):
    request = body(model, tools=[WEATHER], tool_choice=choice)
    if CATALOGUE[model].forced_tool_choice:
        accepts(request)
    else:
        assert refusal(request) == (
            "tool_choice forces tool use is not compatible with this model."
        )
    accepts(body(model, tools=[WEATHER], tool_choice={"type": "auto"}))
    accepts(body(model, tools=[WEATHER], tool_choice={"type": "none"}))


@pytest.mark.parametrize("model", MODELS)
def test_budget_thinking_with_a_forced_tool_is_refused_on_every_model(model):
    request = body(model, tools=[WEATHER], tool_choice=FORCED[0], thinking=THINKING["enabled"])
    assert refusal(request) == "Thinking may not be enabled when tool_choice forces tool use."


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("kind", THINKING)
def test_thinking_types(model, kind):
    spec = CATALOGUE[model]
    request = body(model, thinking=THINKING[kind])
    if kind in spec.thinking_types:
        accepts(request)
        return
    message = refusal(request)
    if kind == "enabled":
        assert message == (
            '"thinking.type.enabled" is not supported for this model. Use '
            '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
        )
    elif kind == "adaptive":
        assert message == "adaptive thinking is not supported on this model"
    elif spec.thinking_off_type is not None:
        assert message == (
            f'"thinking.type.{kind}" is not supported for this model. Use '
            f'"thinking.type.{spec.thinking_off_type}" to turn thinking off on this model.'
        )
    elif spec.thinks_by_default:
        assert message == (
            f'"thinking.type.{kind}" is not supported for this model. Thinking cannot be turned '
            "off on this model."
        )
    else:
        assert message == f'"thinking.type.{kind}" is not supported for this model.'


def test_the_default_model_names_between_tools_to_turn_thinking_off():
    message = refusal(body("claude-sonnet-5-5", thinking=THINKING["disabled"]))
    assert 'Use "thinking.type.between_tools"' in message
    accepts(body("claude-sonnet-5-5", thinking=THINKING["between_tools"]))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("name", "value"), [("temperature", 0.5), ("top_p", 0.9), ("top_k", 5)])
def test_sampling_parameters(model, name, value):
    request = body(model, **{name: value})
    if CATALOGUE[model].sampling_params:
        accepts(request)
    else:
        assert refusal(request) == f"{name} is deprecated for this model."


@pytest.mark.parametrize("model", MODELS)
def test_max_tokens_against_the_models_maximum(model):
    most = CATALOGUE[model].max_output_tokens
    accepts(body(model, max_tokens=most))
    assert refusal(body(model, max_tokens=most + 1)) == (
        f"max_tokens: {most + 1} > {most}, which is the maximum allowed number of output "
        f"tokens for {model}"
    )


@pytest.mark.parametrize("model", MODELS)
def test_system_role_inside_messages(model):
    messages = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi."},
        {"role": "system", "content": [{"type": "text", "text": "From now on, be terse."}]},
        {"role": "user", "content": "Tell me about agents."},
    ]
    request = {**body(model), "messages": messages}
    if CATALOGUE[model].system_role:
        accepts(request)
        accepts(request, endpoint="count_tokens")
    else:
        assert refusal(request) == (
            'messages: Unexpected role "system". The Messages API accepts a top-level `system` '
            'parameter, not "system" as an input message role.'
        )


def test_a_system_message_holds_only_text():
    request = {
        **body("claude-sonnet-5-5"),
        "messages": [
            {"role": "user", "content": "Hello"},
            {"role": "system", "content": [{"type": "image", "source": {}}]},
        ],
    }
    assert refusal(request) == (
        "messages.1.content.0: Input tag 'image' found using 'type' does not match any of the "
        "expected tags: 'text', 'tool_addition', 'tool_removal'"
    )


@pytest.mark.parametrize("model", MODELS)
def test_prefill(model):
    request = {
        **body(model),
        "messages": [
            {"role": "user", "content": "Name?"},
            {"role": "assistant", "content": "My name is"},
        ],
    }
    if CATALOGUE[model].prefill:
        accepts(request)
    else:
        assert refusal(request) == (
            "This model does not support assistant message prefill. The conversation must end "
            "with a user message."
        )


TOOL_TURN = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_A",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_A", "content": "18"}],
    },
]


@pytest.mark.parametrize("model", MODELS)
def test_a_tool_turn_without_thinking_is_refused_only_under_manual_thinking(model):
    """Adaptive thinking (asked for, or by default) may skip thinking: a tool turn without a
    thinking block is a history the model writes itself. Manual thinking requires the block."""
    spec = CATALOGUE[model]
    request = {**body(model, tools=[WEATHER]), "messages": TOOL_TURN}
    accepts(request)
    if "adaptive" in spec.thinking_types:
        accepts({**request, "thinking": THINKING["adaptive"]})
    if spec.thinking_off_type is not None:
        accepts({**request, "thinking": THINKING[spec.thinking_off_type]})
    if "enabled" in spec.thinking_types:
        assert refusal({**request, "thinking": THINKING["enabled"]}).startswith(
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`text`."
        )


@pytest.mark.parametrize("model", MODELS)
def test_a_thinking_block_behind_other_blocks_is_refused_when_the_model_thinks(model):
    spec = CATALOGUE[model]
    thought = {"type": "thinking", "thinking": "Paris needs a lookup.", "signature": "EqQBCkYI"}
    late = {**TOOL_TURN[1], "content": [*TOOL_TURN[1]["content"], thought]}
    request = {**body(model, tools=[WEATHER]), "messages": [TOOL_TURN[0], late, TOOL_TURN[2]]}
    if spec.thinks_by_default:
        assert refusal(request).startswith(
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`text`."
        )
    else:
        accepts(request)
    if spec.thinking_off_type is not None:
        accepts({**request, "thinking": THINKING[spec.thinking_off_type]})
    first = {**TOOL_TURN[1], "content": [thought, *TOOL_TURN[1]["content"]]}
    accepts({**request, "messages": [TOOL_TURN[0], first, TOOL_TURN[2]]})


def test_unknown_model_is_404():
    with pytest.raises(ApiError) as caught:
        validate_messages_request(body("claude-sonnet-9"))
    assert (caught.value.status, caught.value.error_type, caught.value.message) == (
        404,
        "not_found_error",
        "model: claude-sonnet-9",
    )


@pytest.mark.parametrize("field", ["top_kk", "reasoning", "response_format"])
def test_unknown_top_level_fields_are_refused(field):
    assert refusal(body("claude-sonnet-5-5", **{field: 1})) == (
        f"{field}: Extra inputs are not permitted"
    )


def test_sdk_fields_are_known():
    accepts(
        body(
            "claude-sonnet-5-5",
            metadata={"user_id": "u"},
            service_tier="auto",
            stop_sequences=["x"],
            stream=False,
            output_config={"effort": "high"},
            inference_geo="us",
        )
    )


def test_beta_fields_need_a_beta_header():
    request = body("claude-sonnet-5-5", context_management={"edits": []})
    assert refusal(request) == "context_management: Extra inputs are not permitted"
    accepts(request, betas=["context-management-2025-06-27"])


def test_every_tool_result_content_type_of_the_sdk_is_accepted():
    content = [
        {"type": "text", "text": "18°C"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "tool_reference", "tool_name": "get_weather"},
        {
            "type": "search_result",
            "source": "https://example.com",
            "title": "Weather",
            "content": [{"type": "text", "text": "18"}],
        },
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
    ]
    messages = [
        *TOOL_TURN[:2],
        {"role": "user", "content": [{**TOOL_TURN[2]["content"][0], "content": content}]},
    ]
    accepts({**body("claude-opus-4-8", tools=[WEATHER]), "messages": messages})


def test_beta_block_and_tool_types_need_a_beta_header():
    turn = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": [{"type": "compaction", "content": "Earlier: a chat."}]},
        {"role": "user", "content": "Go on."},
    ]
    request = {**body("claude-sonnet-5-5"), "messages": turn}
    assert "Input tag 'compaction' found using 'type'" in refusal(request)
    accepts(request, betas=["compact-2026-01-12"])
    tool = {"type": "mcp_toolset", "mcp_server_name": "files"}
    assert "Input tag 'mcp_toolset'" in refusal(body("claude-sonnet-5-5", tools=[tool]))
    accepts(body("claude-sonnet-5-5", tools=[tool]), betas=["mcp-client-2025-11-20"])


# --------------------------------------------------------------------------- headers


def dispatch(app: CourseModelApp, headers: dict, payload: dict | None = None):
    data = json.dumps(payload or body("claude-sonnet-5-5")).encode()
    reply = app.dispatch("POST", "/v1/messages", headers, data)
    return reply.status, json.loads(b"".join(reply.chunks()))


def test_anthropic_version_header():
    app = CourseModelApp()
    status, answer = dispatch(app, {"x-api-key": "k"})
    assert (status, answer["error"]["message"]) == (400, "anthropic-version: header is required")
    status, answer = dispatch(
        app, {"x-api-key": "k", "anthropic-version": "2023-06-01, 2023-06-01"}
    )
    assert (status, answer["error"]["message"]) == (
        400,
        'anthropic-version: "2023-06-01, 2023-06-01" is not a valid version',
    )
    for version in ("2023-06-01", anthropic._constants.ANTHROPIC_API_VERSION):
        assert dispatch(app, {"x-api-key": "k", "anthropic-version": version})[0] == 200


def test_anthropic_beta_header():
    app = CourseModelApp()
    status, answer = dispatch(
        app, {**HEADERS, "anthropic-beta": "Nope-2020-01-01,files-api-2025-04-14,other"}
    )
    assert (status, answer["error"]["type"]) == (400, "invalid_request_error")
    assert answer["error"]["message"] == (
        "Unexpected value(s) `Nope-2020-01-01`, `other` for the `anthropic-beta` header. "
        "Please consult our documentation at docs.claude.com or try again without the header."
    )
    known = ",".join(sorted(KNOWN_BETAS)[:5])
    assert dispatch(app, {**HEADERS, "anthropic-beta": known})[0] == 200


def test_sdk_beta_client_with_betas_is_served():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    message = client.beta.messages.create(
        **body("claude-sonnet-5-5"), betas=["context-management-2025-06-27"]
    )
    assert message.content[0].type == "thinking"


# --------------------------------------------------------------------------- behaviour by model


@pytest.fixture
def client():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


@pytest.mark.parametrize("model", MODELS)
def test_thinking_by_default(client, model):
    spec = CATALOGUE[model]
    message = client.messages.create(**body(model, max_tokens=1024))
    kinds = [block.type for block in message.content]
    assert kinds == (["thinking", "text"] if spec.thinks_by_default else ["text"])
    if spec.thinks_by_default:
        assert message.content[0].signature and message.content[0].thinking
    off = spec.thinking_off_type
    if off is not None:
        quiet = client.messages.create(**body(model, max_tokens=1024, thinking=THINKING[off]))
        assert [block.type for block in quiet.content] == ["text"]


@pytest.mark.parametrize("model", [m for m in MODELS if CATALOGUE[m].forced_tool_choice])
def test_a_forced_tool_call_opens_the_turn_without_thinking(client, model):
    message = client.messages.create(**body(model, tools=[WEATHER], tool_choice=FORCED[1]))
    assert [block.type for block in message.content] == ["tool_use"]


def test_the_whole_content_goes_back_in_a_tool_loop(client):
    request = body("claude-sonnet-5-5", tools=[WEATHER])
    first = client.messages.create(**request)
    assert [b.type for b in first.content][0] == "thinking"
    call = next(b for b in first.content if b.type == "tool_use")
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "18°C"}],
    }
    whole = [*request["messages"], {"role": "assistant", "content": first.content}, result]
    assert client.messages.create(**{**request, "messages": whole}).stop_reason == "end_turn"
    thinking_last = [*first.content[1:], first.content[0]]
    broken = [*request["messages"], {"role": "assistant", "content": thinking_last}, result]
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(**{**request, "messages": broken})


class Forecast(pydantic.BaseModel):
    city: str
    celsius: int = pydantic.Field(ge=-60, le=60)
    kind: typing.Literal["sunny", "rain"]


class Report(pydantic.BaseModel):
    forecasts: list[Forecast] = pydantic.Field(min_length=2)
    note: str | None
    confidence: float = pydantic.Field(gt=0, lt=1)


SCHEMAS = {
    "pydantic_with_refs": anthropic.transform_schema(Report),  # what messages.parse sends
    "flat": {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "ok": {"type": "boolean"}},
        "required": ["answer", "ok"],
        "additionalProperties": False,
    },
    "formats": {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "pattern": "^[0-9]{3}$"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1},
        },
        "required": ["when", "code", "tags"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-4-6"])
@pytest.mark.parametrize("name", SCHEMAS)
@pytest.mark.parametrize("question", ["Hello", "What's the weather in Paris and Tokyo?"])
def test_structured_output_is_json_valid_against_the_schema(client, model, name, question):
    schema = SCHEMAS[name]
    request = body(model, output_config={"format": {"type": "json_schema", "schema": schema}})
    request["messages"] = [{"role": "user", "content": question}]
    message = client.messages.create(**request)
    (text,) = [b.text for b in message.content if b.type == "text"]
    jsonschema.validate(json.loads(text), schema)
    if name == "pydantic_with_refs":
        Report.model_validate_json(text)
    assert (
        client.messages.count_tokens(
            model=model, messages=request["messages"], output_config=request["output_config"]
        ).input_tokens
        == message.usage.input_tokens
    )


def test_structured_output_streams_like_create(client):
    request = body(
        "claude-sonnet-5-5",
        output_config={"format": {"type": "json_schema", "schema": SCHEMAS["flat"]}},
    )
    created = client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    assert (
        streamed.model_dump(exclude={"content": {"__all__": {"parsed_output"}}})
        == created.model_dump()
    )


STRICT_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "strict": True,
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
        "required": ["city", "unit", "days"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-haiku-5-5"])
def test_strict_tools_get_inputs_valid_against_their_schema(client, model):
    message = client.messages.create(
        **body(
            model,
            tools=[STRICT_TOOL],
            messages=[{"role": "user", "content": "What's the weather in Paris and Tokyo?"}],
        )
    )
    calls = [b for b in message.content if b.type == "tool_use"]
    assert calls
    for call in calls:
        jsonschema.validate(call.input, STRICT_TOOL["input_schema"])
    assert calls[0].input["city"] == "Paris"  # what the scenario meant is kept where it fits


# --------------------------------------------------------------------------- /v1/models


def test_models_list_and_retrieve_parse_strictly(client):
    listed = list(client.models.list())
    assert sorted(m.id for m in listed) == sorted(MODELS)  # every page
    released = [m.created_at for m in listed]
    assert released == sorted(released, reverse=True)  # newest first, as the API lists them
    assert [m.id for m in listed] == NEWEST_FIRST
    assert listed[0].id == "claude-haiku-5-5"  # released 2026-10-07, listed 3rd by the SDK
    for info in listed:
        spec = CATALOGUE[info.id]
        assert info.max_input_tokens == spec.context_window
        assert info.max_tokens == spec.max_output_tokens
        assert info.capabilities.thinking.types.enabled.supported == (
            "enabled" in spec.thinking_types
        )
        assert info.capabilities.thinking.types.between_tools.supported == (
            "between_tools" in spec.thinking_types
        )
        assert info.lifecycle == ("deprecated" if spec.end_of_life else "active")
        assert client.models.retrieve(info.id) == info


def test_models_pages(client):
    first = client.models.list(limit=5)
    assert [m.id for m in first.data] == NEWEST_FIRST[:5]
    assert first.has_more and first.last_id == NEWEST_FIRST[4]
    second = first.get_next_page()
    assert [m.id for m in second.data] == NEWEST_FIRST[5:10]
    before = client.models.list(before_id=NEWEST_FIRST[5], limit=2)
    assert [m.id for m in before.data] == NEWEST_FIRST[3:5]
    deprecated = client.models.list(lifecycle=["deprecated"])
    assert {m.id for m in deprecated.data} == {m for m, s in CATALOGUE.items() if s.end_of_life}


def test_unknown_model_retrieve_is_404(client):
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.models.retrieve("claude-imaginary-9")
    assert caught.value.body["error"] == {
        "type": "not_found_error",
        "message": "model: claude-imaginary-9",
    }


def test_thinking_streams_as_thinking_and_signature_deltas(client):
    request = body("claude-sonnet-5-5", tools=[WEATHER])
    created = client.messages.create(**request)
    deltas = [
        event.delta.type
        for event in client.messages.create(**request, stream=True)
        if event.type == "content_block_delta" and event.index == 0
    ]
    assert deltas[0] == "thinking_delta" and deltas[-1] == "signature_delta"
    assert set(deltas) == {"thinking_delta", "signature_delta"}
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    assert streamed.content[0] == created.content[0]  # same text, same signature
    assert streamed.usage == created.usage


def test_thinking_display_omitted_keeps_only_the_signature(client):
    message = client.messages.create(
        **body("claude-sonnet-5-5", thinking={"type": "adaptive", "display": "omitted"})
    )
    first = message.content[0]
    assert first.type == "thinking" and first.thinking == "" and first.signature


@pytest.mark.parametrize("model", [m for m in MODELS if CATALOGUE[m].forced_tool_choice])
def test_a_forced_call_sent_back_whole_is_accepted(client, model):
    request = body(model, tools=[WEATHER])
    forced = client.messages.create(**request, tool_choice=FORCED[1])
    (call,) = forced.content
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "18°C"}
    messages = [
        *request["messages"],
        {"role": "assistant", "content": forced.content},
        {"role": "user", "content": [result]},
    ]
    assert client.messages.create(**{**request, "messages": messages}).stop_reason == "end_turn"


def test_the_prompt_is_measured_against_the_models_own_window(client):
    # About 1.03M estimated tokens: above every window of the catalogue.
    huge = body("claude-sonnet-5-5")
    huge["messages"] = [{"role": "user", "content": "agent loop " * 375_000}]
    counted = client.messages.count_tokens(model=huge["model"], messages=huge["messages"])
    assert counted.input_tokens > 1_000_000
    for model in ("claude-sonnet-5-5", "claude-opus-4-5"):
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**{**huge, "model": model})
        window = CATALOGUE[model].context_window
        assert caught.value.body["error"]["message"] == (
            f"prompt is too long: {counted.input_tokens} tokens > {window} maximum"
        )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "limit: Input should be greater than or equal to 1"),
        ("limit=1001", "limit: Input should be less than or equal to 1000"),
        ("limit=x", "limit: Input should be a valid integer"),
        ("lifecycle=gone", "lifecycle: Input should be 'active', 'deprecated' or 'retired'"),
    ],
)
def test_bad_models_queries_get_the_envelope(query, message):
    reply = CourseModelApp().dispatch("GET", f"/v1/models?{query}", HEADERS, b"")
    answer = json.loads(reply.body)
    assert (reply.status, answer["type"], answer["error"]["message"]) == (400, "error", message)
