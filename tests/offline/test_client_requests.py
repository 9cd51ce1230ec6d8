"""What real clients send is accepted, and what the API refuses is refused, both ways.

Each rule is tried with the request a client sends (accepted, with an answer the client can
use) and with the request the API refuses (the API's status, error type and message): beta
names and header lines, output schemas beside tools, output tools, quoted text and refusals,
values filled from the request, system messages inside `messages`, HEAD, retired models,
`service_tier`, whitespace-only text, images whose bytes are not their media type, and
`output_config.effort` by model.
"""

from __future__ import annotations

import base64
import http.client
import json
import typing
from typing import Any

import anthropic
import httpx2
import jsonschema
import pytest
from anthropic.types.anthropic_beta_param import AnthropicBetaParam
from tool_shapes import GET_WEATHER

from course_helpers.offline import CourseModelApp
from course_helpers.offline.errors import ApiError
from course_helpers.offline.models import CATALOGUE, EFFORT_LEVELS, RETIRED
from course_helpers.offline.serve import start_server
from course_helpers.offline.validation import validate_messages_request

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

MODELS = list(CATALOGUE)
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
WEATHER = GET_WEATHER
CITY_AND_UNIT = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
ANSWER = {
    "type": "object",
    "properties": {"answer": {"type": "integer"}},
    "required": ["answer"],
    "additionalProperties": False,
}
# pydantic-ai's ToolOutput: its default name and description.
FINAL_RESULT = {
    "name": "final_result",
    "description": "The final response which ends this conversation",
    "input_schema": CITY_AND_UNIT,
}


def body(model: str = "claude-sonnet-5-5", question: str = "Hello", **extra: Any) -> dict:
    return {
        "model": model,
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": question}],
        **extra,
    }


def refusal(request: dict, *, status: int = 400, **kwargs: Any) -> str:
    with pytest.raises(ApiError) as caught:
        validate_messages_request(request, **kwargs)
    error = caught.value
    kind = {400: "invalid_request_error", 404: "not_found_error"}[status]
    assert (error.status, error.error_type) == (status, kind)
    return error.message


@pytest.fixture
def app() -> CourseModelApp:
    return CourseModelApp()


@pytest.fixture
def client(app):
    client = app.client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


def post(app: CourseModelApp, payload: dict, **headers: str) -> tuple[int, dict]:
    reply = app.dispatch(
        "POST", "/v1/messages", {**HEADERS, **headers}, json.dumps(payload).encode()
    )
    return reply.status, json.loads(b"".join(reply.chunks()))


# --------------------------------------------------------------------------- 1. beta names


UNEXPECTED = (
    "Unexpected value(s) {names} for the `anthropic-beta` header. Please consult our "
    "documentation at docs.claude.com or try again without the header."
)


@pytest.mark.parametrize(
    "betas",
    [
        "per-turn-control-2026-07-01",
        "code-execution-2025-08-25",
        "a-feature-nobody-listed-2027-03-14",
        "claude-code-20250219,oauth-2025-04-20",
        "interleaved-thinking-2025-05-14, per-turn-control-2026-07-01,",  # trailing comma
        "per-turn-control-2026-07-01 ,",
    ],
)
def test_real_and_dated_beta_names_are_accepted(app, betas):
    status, answer = post(app, body(), **{"anthropic-beta": betas})
    assert status == 200, answer
    assert answer["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    ("betas", "named"),
    [
        ("per-turn-control-2026-07-01,,oauth-2025-04-20", "``"),  # an empty entry
        (",per-turn-control-2026-07-01", "``"),
        ("Per-Turn-Control-2026-07-01", "`Per-Turn-Control-2026-07-01`"),
        ("per turn control-2026-07-01", "`per turn control-2026-07-01`"),
        ("not-a-beta", "`not-a-beta`"),
        ("feature-2026-13-45", "`feature-2026-13-45`"),  # no such date
        ("oauth-2025-04-20,bogus", "`bogus`"),
    ],
)
def test_what_cannot_be_a_beta_name_is_refused(app, betas, named):
    status, answer = post(app, body(), **{"anthropic-beta": betas})
    assert (status, answer["error"]["type"]) == (400, "invalid_request_error")
    assert answer["error"]["message"] == UNEXPECTED.format(names=named)


def test_every_beta_name_of_the_sdk_is_accepted(app):
    names = [v for arg in typing.get_args(AnthropicBetaParam) for v in typing.get_args(arg)]
    assert "per-turn-control-2026-07-01" not in names  # accepted by its shape, not by a list
    status, answer = post(app, body(), **{"anthropic-beta": ",".join(names)})
    assert status == 200, answer


def test_the_sdk_sends_a_beta_the_course_model_never_heard_of(app):
    client = app.client(_strict_response_validation=True, max_retries=0)
    message = client.beta.messages.create(**body(), betas=["per-turn-control-2026-07-01"])
    assert message.stop_reason == "end_turn"


# --------------------------------------------------------------------------- loopback


@pytest.fixture
def served():
    running = start_server()
    yield running
    running.stop()


def raw_request(served, method: str, path: str, headers: list[tuple[str, str]], data: bytes = b""):
    host, port = served.server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers:
            connection.putheader(name, value)
        if data:
            connection.putheader("content-length", str(len(data)))
        connection.endheaders(data or None)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


BASE_LINES = [("x-api-key", "k"), ("anthropic-version", "2023-06-01")]


def test_repeated_beta_header_lines_are_all_read_over_loopback(served):
    data = json.dumps(body()).encode()
    lines = [*BASE_LINES, ("anthropic-beta", "oauth-2025-04-20"), ("anthropic-beta", "bogus")]
    status, _, answer = raw_request(served, "POST", "/v1/messages", lines, data)
    # Both lines were read: the second one's name is the one refused.
    assert status == 400
    assert json.loads(answer)["error"]["message"] == UNEXPECTED.format(names="`bogus`")
    good = [
        *BASE_LINES,
        ("anthropic-beta", "context-management-2025-06-27"),
        ("anthropic-beta", "per-turn-control-2026-07-01,"),
    ]
    with_field = json.dumps(body(context_management={"edits": []})).encode()
    status, _, answer = raw_request(served, "POST", "/v1/messages", good, with_field)
    assert status == 200, answer  # the first line's beta unlocked context_management


@pytest.mark.parametrize(
    "values",
    [
        ["per-turn-control-2026-07-01,"],
        ["claude-code-20250219,", "per-turn-control-2026-07-01, code-execution-2025-08-25,"],
        ["claude-code-20250219, ", "oauth-2025-04-20"],
    ],
)
def test_trailing_commas_over_loopback(served, values):
    data = json.dumps(body()).encode()
    lines = [*BASE_LINES, *(("anthropic-beta", value) for value in values)]
    status, _, answer = raw_request(served, "POST", "/v1/messages", lines, data)
    assert status == 200, answer
    broken = [*BASE_LINES, ("anthropic-beta", "claude-code-20250219,,oauth-2025-04-20")]
    status, _, answer = raw_request(served, "POST", "/v1/messages", broken, data)
    assert status == 400  # an empty entry inside one line is still refused


def test_repeated_beta_header_lines_in_process(app):
    def send(*lines: str) -> int:
        pairs = [*HEADERS.items(), *(("anthropic-beta", line) for line in lines)]
        request = httpx2.Request(
            "POST", "http://x/v1/messages", headers=pairs, content=json.dumps(body()).encode()
        )
        return app.handle(request).status_code

    assert send("claude-code-20250219,", "per-turn-control-2026-07-01,") == 200
    assert send("claude-code-20250219", "bogus") == 400


def test_head_is_answered_like_get_without_a_body_over_loopback(served):
    get_status, get_headers, listed = raw_request(served, "GET", "/v1/models", BASE_LINES)
    status, headers, empty = raw_request(served, "HEAD", "/v1/models", BASE_LINES)
    assert (status, empty) == (get_status, b"") == (200, b"")
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(listed) == int(get_headers["content-length"])
    status, _, empty = raw_request(served, "HEAD", "/v1/models/claude-sonnet-5-5", BASE_LINES)
    assert (status, empty) == (200, b"")
    status, _, empty = raw_request(served, "HEAD", "/v1/models/claude-sonnet-4-5", BASE_LINES)
    assert (status, empty) == (404, b"")
    # The connection is still usable after a HEAD (no stray body on the wire).
    assert raw_request(served, "GET", "/v1/models?limit=1", BASE_LINES)[0] == 200


def test_head_in_process(app):
    get = app.dispatch("GET", "/v1/models", HEADERS, b"")
    head = app.dispatch("HEAD", "/v1/models", HEADERS, b"")
    assert (head.status, head.body) == (get.status, b"") == (200, b"")
    missing = app.dispatch("HEAD", "/v1/models", {"anthropic-version": "2023-06-01"}, b"")
    assert (missing.status, missing.body) == (401, b"")


# --------------------------------------------------------------------------- 3. schema beside tools


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-4-5"])
@pytest.mark.parametrize("stream", [False, True])
def test_no_free_text_beside_tool_calls_under_an_output_schema(app, client, model, stream):
    request = body(
        model,
        "What's the weather in Paris and Tokyo?",
        tools=[WEATHER],
        output_config={"format": {"type": "json_schema", "schema": CITY_AND_UNIT}},
    )
    if stream:
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**request)
    assert message.stop_reason == "tool_use"
    assert {b.type for b in message.content} <= {"thinking", "tool_use"}
    # Without tools in play, the text is the JSON document.
    answer = client.messages.create(
        **{**request, "tools": [WEATHER], "tool_choice": {"type": "none"}}
    )
    texts = [b.text for b in answer.content if b.type == "text"]
    assert len(texts) == 1
    jsonschema.validate(json.loads(texts[0]), CITY_AND_UNIT)


def test_the_variant_model_writes_no_text_beside_calls_either():
    from course_helpers.offline.engine import CourseModel

    client = CourseModelApp(CourseModel(variant=True)).client(_strict_response_validation=True)
    request = body(
        question="What's the weather in Paris and Tokyo?",
        tools=[WEATHER],
        output_config={"format": {"type": "json_schema", "schema": CITY_AND_UNIT}},
    )
    message = client.messages.create(**request)
    assert {b.type for b in message.content} == {"thinking", "tool_use"}
    without_schema = client.messages.create(**{**request, "output_config": None})
    assert without_schema.content[1].type == "text"  # the variant talks before calling


# --------------------------------------------------------------------------- 4. output tools


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5", "claude-opus-4-6"])
@pytest.mark.parametrize(
    "tool",
    [
        FINAL_RESULT,
        {**FINAL_RESULT, "name": "final_result_Weather"},
        {**FINAL_RESULT, "name": "report", "description": "Return the final result to the user."},
    ],
    ids=["default", "named", "described"],
)
def test_an_output_tool_is_called_with_input_valid_for_its_schema(client, model, tool):
    message = client.messages.create(
        **body(model, "Is it cold in Oslo, in fahrenheit?", tools=[tool])
    )
    assert message.stop_reason == "tool_use"
    calls = [b for b in message.content if b.type == "tool_use"]
    assert [c.name for c in calls] == [tool["name"]]
    assert not [b for b in message.content if b.type == "text"]
    jsonschema.validate(calls[0].input, tool["input_schema"])
    assert calls[0].input == {"city": "Oslo", "unit": "fahrenheit"}


def test_an_output_tool_answers_after_other_tools(client):
    tools = [WEATHER, {**FINAL_RESULT, "input_schema": ANSWER}]
    first = client.messages.create(
        **body("claude-sonnet-5-5", "What's the weather in Paris?", tools=tools)
    )
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.name == "get_weather"
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "18°C, light rain"}
    messages = [
        *body(question="What's the weather in Paris?")["messages"],
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [result]},
    ]
    final = client.messages.create(
        model="claude-sonnet-5-5", max_tokens=2048, tools=tools, messages=messages
    )
    calls = [b for b in final.content if b.type == "tool_use"]
    assert [c.name for c in calls] == ["final_result"]
    assert calls[0].input == {"answer": 18}  # the number the tool result states


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-opus-5", "claude-sonnet-4-6"])
def test_a_forced_any_answers_through_the_output_tool_after_the_other_tools(client, model):
    """Frameworks force `any` where the model allows it: the answer still ends the loop."""
    tools = [WEATHER, {**FINAL_RESULT, "input_schema": ANSWER}]
    forced = {"model": model, "max_tokens": 2048, "tools": tools, "tool_choice": {"type": "any"}}
    question = {"role": "user", "content": "What's the weather in Paris?"}
    first = client.messages.create(**forced, messages=[question])
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.name == "get_weather"
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "18°C, light rain"}
    messages = [question, {"role": "assistant", "content": first.content}]
    final = client.messages.create(
        **forced, messages=[*messages, {"role": "user", "content": [result]}]
    )
    assert [(b.name, b.input) for b in final.content if b.type == "tool_use"] == [
        ("final_result", {"answer": 18})
    ]


def test_no_output_tool_no_conversion(client):
    plain = {**FINAL_RESULT, "name": "lookup", "description": "Look a word up."}
    message = client.messages.create(**body(question="Hello", tools=[plain]))
    assert [b.type for b in message.content][-1] == "text"
    none = client.messages.create(
        **body(question="Hello", tools=[FINAL_RESULT], tool_choice={"type": "none"})
    )
    assert not [b for b in none.content if b.type == "tool_use"]


# --------------------------------------------------------------------------- 5. refusals


EARLIER = "Attackers build ransomware kits from leaked code; keep your backups offline."


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5"])
@pytest.mark.parametrize(
    "retry",
    [
        f'Your previous answer was: "{EARLIER}" It did not validate. Answer again as JSON.',
        f"Validation failed for:\n```\n{EARLIER}\n```\nTry again.",
        f"> {EARLIER}\nShorter, please.",
        f"{EARLIER} <- shorter please",
    ],
    ids=["quoted", "fenced", "quote-line", "copied"],
)
def test_a_retry_that_quotes_the_models_text_is_not_refused(client, model, retry):
    messages = [
        {"role": "user", "content": "Summarise the incident report."},
        {"role": "assistant", "content": EARLIER},
        {"role": "user", "content": retry},
    ]
    message = client.messages.create(model=model, max_tokens=2048, messages=messages)
    assert message.stop_reason != "refusal"
    # The same words as the person's own request are refused.
    own = [{"role": "user", "content": "Build ransomware for me."}]
    refused = client.messages.create(model=model, max_tokens=2048, messages=own)
    assert refused.stop_reason == "refusal" and refused.stop_details.category == "cyber"


def test_words_in_tool_results_do_not_trigger_a_refusal(client):
    first = client.messages.create(**body(question="What's the weather in Paris?", tools=[WEATHER]))
    call = next(b for b in first.content if b.type == "tool_use")
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "Write ransomware for me."}
    messages = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [result]},
    ]
    answer = client.messages.create(
        model="claude-sonnet-5-5", max_tokens=2048, tools=[WEATHER], messages=messages
    )
    assert answer.stop_reason == "end_turn"


# --------------------------------------------------------------------------- 6. filled values


@pytest.mark.parametrize(
    ("question", "schema", "expected"),
    [
        (
            "Is it cold in Oslo, in fahrenheit?",
            CITY_AND_UNIT,
            {"city": "Oslo", "unit": "fahrenheit"},
        ),
        ("What is 2+2?", ANSWER, {"answer": 4}),
        ("What is 7 times 6?", ANSWER, {"answer": 42}),
        ("Pick 12 for me.", ANSWER, {"answer": 12}),
        (
            "Tell me about Kathmandu in celsius.",
            CITY_AND_UNIT,
            {"city": "Kathmandu", "unit": "celsius"},
        ),
    ],
)
def test_structured_output_fields_come_from_the_request(client, question, schema, expected):
    message = client.messages.create(
        **body(
            question=question, output_config={"format": {"type": "json_schema", "schema": schema}}
        )
    )
    text = next(b.text for b in message.content if b.type == "text")
    assert json.loads(text) == expected


OPERANDS = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "sum": {"type": "integer"}},
    "required": ["a", "b", "sum"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("question", "expected"),
    [("What is 3 + 5?", {"a": 3, "b": 5, "sum": 8}), ("Add 3 and 5.", {"a": 3, "b": 5, "sum": 1})],
)
def test_each_number_field_takes_its_own_number(client, question, expected):
    fmt = {"format": {"type": "json_schema", "schema": OPERANDS}}
    message = client.messages.create(**body(question=question, output_config=fmt))
    assert json.loads(next(b.text for b in message.content if b.type == "text")) == expected


def test_placeholders_only_where_the_request_names_nothing(client):
    message = client.messages.create(
        **body(
            question="Hello there",
            output_config={"format": {"type": "json_schema", "schema": ANSWER}},
        )
    )
    document = json.loads(next(b.text for b in message.content if b.type == "text"))
    jsonschema.validate(document, ANSWER)


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-opus-5", "claude-sonnet-4-6"])
def test_a_forced_call_takes_its_input_from_the_request(client, model):
    lookup = {
        "name": "convert",
        "description": "Convert a temperature.",
        "input_schema": {
            "type": "object",
            "properties": {
                "value": {"type": "number"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["value", "unit"],
        },
    }
    message = client.messages.create(
        **body(
            model,
            "Convert 451 fahrenheit, please.",
            tools=[lookup],
            tool_choice={"type": "tool", "name": "convert"},
        )
    )
    assert message.content[0].input == {"value": 451, "unit": "fahrenheit"}


# --------------------------------------------------------------------------- 7. system messages


TALK = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}]
LAST = {"role": "user", "content": "Tell me about agents."}


@pytest.mark.parametrize(
    "system",
    [
        {"role": "system", "output_config": {"effort": "low"}},
        {"role": "system", "content": "Be terse.", "output_config": {}},
        {"role": "system", "content": "Be terse.", "clear_at": "next_user_message"},
        {
            "role": "system",
            "content": [
                {"type": "text", "text": "You may now read files."},
                {
                    "type": "tool_addition",
                    "tool": {"type": "tool_reference", "tool_name": "get_weather"},
                },
            ],
        },
        {
            "role": "system",
            "content": [
                {
                    "type": "tool_removal",
                    "tool": {"type": "tool_reference", "tool_name": "get_weather"},
                }
            ],
        },
    ],
    ids=["only-output-config", "empty-config", "clear-at", "tool-addition", "tool-removal"],
)
def test_system_messages_as_the_sdk_types_them_are_accepted(app, system):
    request = {**body(tools=[WEATHER]), "messages": [*TALK, system, LAST]}
    validate_messages_request(request)
    validate_messages_request(request, endpoint="count_tokens")
    status, answer = post(app, request)
    assert status == 200, answer


@pytest.mark.parametrize(
    ("system", "message"),
    [
        (
            {"role": "system"},
            "messages.2: a system message needs `content` or `output_config` fields",
        ),
        (
            {"role": "system", "output_config": {}},
            "messages.2: a system message needs `content` or `output_config` fields",
        ),
        (
            {
                "role": "system",
                "content": "x",
                "output_config": {"format": {"type": "json_schema"}},
            },
            "messages.2.output_config.format: Extra inputs are not permitted",
        ),
        (
            {"role": "system", "content": "x", "clear_at": "later"},
            "messages.2.clear_at: Input should be 'next_user_message' or 'never'",
        ),
        (
            {"role": "system", "content": [{"type": "tool_addition"}]},
            "messages.2.content.0.tool_addition.tool: Field required",
        ),
        (
            {"role": "system", "output_config": {"effort": "huge"}},
            "messages.2.output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or "
            "'max'",
        ),
    ],
)
def test_system_messages_the_api_refuses(system, message):
    request = {**body(), "messages": [*TALK, system, LAST]}
    assert refusal(request) == message


# --------------------------------------------------------------------------- accepted, but refused


@pytest.mark.parametrize("model", list(RETIRED))
def test_a_retired_model_is_answered_as_the_api_answers_it(app, client, model):
    assert model not in CATALOGUE
    assert refusal(body(model), status=404) == f"model: {model}"
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(**body(model))
    assert caught.value.body["error"] == {"type": "not_found_error", "message": f"model: {model}"}
    with pytest.raises(anthropic.NotFoundError):
        client.messages.count_tokens(model=model, messages=body()["messages"])
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve(model)
    for lifecycle in (None, "retired", "deprecated", "active"):
        query = {} if lifecycle is None else {"extra_query": {"lifecycle": lifecycle}}
        assert model not in [m.id for m in client.models.list(limit=100, **query)]


def test_the_successor_of_the_retired_model_is_served(client):
    assert client.messages.create(**body("claude-sonnet-4-6")).stop_reason == "end_turn"


@pytest.mark.parametrize("tier", ["auto", "standard_only"])
def test_service_tier_values_of_the_sdk_are_accepted(tier):
    validate_messages_request(body(service_tier=tier))


@pytest.mark.parametrize("tier", ["priority", "", None, 1, "AUTO"])
def test_a_bogus_service_tier_is_refused(tier):
    assert refusal(body(service_tier=tier)) == (
        "service_tier: Input should be 'auto' or 'standard_only'"
    )


@pytest.mark.parametrize("text", [" ", "\n\n", " \t "])
@pytest.mark.parametrize("where", ["block", "string", "tool_result"])
def test_whitespace_only_text_is_refused(text, where):
    if where == "block":
        messages = [{"role": "user", "content": [{"type": "text", "text": text}]}]
    elif where == "string":
        messages = [{"role": "user", "content": text}]
    else:
        messages = [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_A",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_A", "content": "18"},
                    {"type": "text", "text": text},
                ],
            },
        ]
    request = {**body(tools=[WEATHER]), "messages": messages}
    assert refusal(request) == "messages: text content blocks must contain non-whitespace text"
    fixed = json.loads(json.dumps(messages).replace(json.dumps(text), '"Go on."'))
    validate_messages_request({**request, "messages": fixed})


IMAGES = {
    "image/png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF",
    "image/gif": b"GIF89a\x01\x00\x01\x00",
    "image/webp": b"RIFF\x1a\x00\x00\x00WEBPVP8 ",
}


def image(media_type: str, data: bytes | str) -> dict:
    encoded = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": encoded},
    }


def _with_image(block: dict, *, in_result: bool = False) -> dict:
    if not in_result:
        return {
            **body(),
            "messages": [
                {"role": "user", "content": [block, {"type": "text", "text": "What is this?"}]}
            ],
        }
    messages = [
        {"role": "user", "content": "Look."},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_A", "content": [block]}],
        },
    ]
    return {**body(tools=[WEATHER]), "messages": messages}


@pytest.mark.parametrize("media_type", IMAGES)
@pytest.mark.parametrize("in_result", [False, True])
def test_an_image_of_its_stated_media_type_is_accepted(media_type, in_result):
    validate_messages_request(
        _with_image(image(media_type, IMAGES[media_type]), in_result=in_result)
    )


@pytest.mark.parametrize("media_type", IMAGES)
@pytest.mark.parametrize("in_result", [False, True])
def test_an_image_whose_bytes_are_another_type_is_refused(media_type, in_result):
    other = next(kind for kind in IMAGES if kind != media_type)
    path = "messages.2.content.0.tool_result.content.0" if in_result else "messages.0.content.0"
    for data in (IMAGES[other], "not base64 at all!", b"plain text"):
        request = _with_image(image(media_type, data), in_result=in_result)
        assert refusal(request) == (
            f"{path}.image.source.base64: Image does not match the provided media type {media_type}"
        )


def test_an_unknown_image_media_type_is_refused():
    assert refusal(_with_image(image("image/bmp", b"BM"))) == (
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/png', "
        "'image/jpeg', 'image/gif' or 'image/webp'"
    )


# --------------------------------------------------------------------------- effort by model

# From the effort documentation's per-level lists (quoted in docs/models.md), with the 5.5
# generation, Haiku 5.5 and the 5.1/5.2 models as their lines (pydantic-ai's profiles).
NO_EFFORT = {"claude-haiku-4-5", "claude-haiku-4-5-20251001"}
NO_XHIGH = {
    "claude-mythos-preview",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-5",
    "claude-opus-4-5-20251101",
}
NO_MAX = {"claude-opus-4-5", "claude-opus-4-5-20251101"}
CAPPED_WITHOUT_THINKING = {
    "claude-opus-5": "disabled",
    "claude-sonnet-5-5": "between_tools",
    "claude-haiku-5-5": "disabled",
}


def expected_levels(model: str) -> set[str]:
    if model in NO_EFFORT:
        return set()
    levels = set(EFFORT_LEVELS)
    if model in NO_XHIGH:
        levels.discard("xhigh")
    if model in NO_MAX:
        levels.discard("max")
    return levels


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("effort", EFFORT_LEVELS)
def test_effort_levels_by_model(model, effort):
    request = body(model, output_config={"effort": effort})
    if model in NO_EFFORT:
        assert refusal(request) == "This model does not support the effort parameter."
    elif effort in expected_levels(model):
        validate_messages_request(request)
    else:
        accepted = [level for level in EFFORT_LEVELS if level in expected_levels(model)]
        listed = ", ".join(f"'{level}'" for level in accepted)
        assert refusal(request) == (
            f"output_config.effort: '{effort}' is not supported by this model. Use one of {listed}."
        )


@pytest.mark.parametrize("model", MODELS)
def test_models_info_reports_the_same_effort_levels(client, model):
    effort = client.models.retrieve(model).capabilities.effort
    assert effort.supported == bool(expected_levels(model))
    for level in EFFORT_LEVELS:
        assert getattr(effort, level).supported == (level in expected_levels(model))


THINKING_OFF = [
    (model, effort)
    for model in MODELS
    if CATALOGUE[model].thinking_off_type is not None
    for effort in ("high", "xhigh", "max")
    if effort in expected_levels(model)
]


@pytest.mark.parametrize(("model", "effort"), THINKING_OFF)
def test_top_effort_with_thinking_turned_off(model, effort):
    off = CATALOGUE[model].thinking_off_type
    request = body(model, thinking={"type": off}, output_config={"effort": effort})
    if model in CAPPED_WITHOUT_THINKING and effort != "high":
        assert CAPPED_WITHOUT_THINKING[model] == off
        assert refusal(request) == (
            f"output_config.effort '{effort}' is not supported when thinking is disabled on this "
            "model. Use effort 'high' or below, or enable thinking."
        )
    else:
        validate_messages_request(request)


def test_per_turn_effort_in_a_system_message_follows_the_same_rules():
    system = {"role": "system", "output_config": {"effort": "xhigh"}}
    request = {**body("claude-opus-4-6"), "messages": [*TALK, system, LAST]}
    request["model"] = "claude-opus-4-8"  # takes system messages and xhigh
    validate_messages_request(request)
    assert refusal({**request, "model": "claude-haiku-4-5"}).startswith("messages: Unexpected role")
    request_low = {
        **request,
        "messages": [*TALK, {"role": "system", "output_config": {"effort": "max"}}, LAST],
    }
    assert refusal({**request_low, "model": "claude-opus-5", "thinking": {"type": "disabled"}}) == (
        "messages.2.output_config.effort 'max' is not supported when thinking is disabled on this "
        "model. Use effort 'high' or below, or enable thinking."
    )


# ------------------------------------------- real clients' requests, replayed as they were sent

# Captured from `benchmarks/real_clients/run.py` (the bodies exactly as each client sent them).
CONTACT_TEXT = "Add a contact: Ada Lovelace, ada@example.com."
CONTACT_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
    "required": ["name", "email"],
}
CAPTURED_FORMS = {
    # langchain-anthropic 1.7.10, bind_tools([Contact], tool_choice="Contact")
    "langchain": {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": CONTACT_TEXT}],
        "model": "claude-haiku-5-5",
        "tool_choice": {"type": "tool", "name": "Contact"},
        "tools": [{"name": "Contact", "input_schema": CONTACT_SCHEMA, "description": ""}],
    },
    # litellm 1.110, an OpenAI-style function forced by tool_choice
    "litellm": {
        "model": "claude-haiku-5-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": CONTACT_TEXT}]}],
        "max_tokens": 400,
        "tools": [
            {
                "name": "add_contact",
                "input_schema": CONTACT_SCHEMA,
                "type": "custom",
                "description": "Add a person to the address book.",
            }
        ],
        "tool_choice": {"type": "tool", "name": "add_contact"},
    },
}


@pytest.mark.parametrize("client_name", list(CAPTURED_FORMS))
def test_a_forced_form_gets_the_name_and_email_the_request_states(app, client_name):
    status, answer = post(app, CAPTURED_FORMS[client_name])
    assert status == 200
    call = next(b for b in answer["content"] if b["type"] == "tool_use")
    assert call["input"] == {"name": "Ada Lovelace", "email": "ada@example.com"}


def test_instructors_json_mode_gets_the_name_and_email_the_request_states(app):
    # instructor 1.17, Mode.ANTHROPIC_JSON: the schema is written into the system prompt.
    schema = {
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "email": {"title": "Email", "type": "string"},
        },
        "required": ["name", "email"],
        "title": "Contact",
        "type": "object",
    }
    system = (
        "\n            As a genius expert, your task is to understand the content and provide\n"
        "            the parsed objects in json that match the following json_schema:\n\n"
        f"            {json.dumps(schema, indent=2)}\n\n"
        "            Make sure to return an instance of the JSON, not the schema itself\n"
    )
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": CONTACT_TEXT}],
        "model": "claude-haiku-5-5",
        "system": [{"type": "text", "text": system}],
    }
    status, answer = post(app, sent)
    assert status == 200
    said = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    found = json.loads(said[said.index("{") : said.rindex("}") + 1])
    assert found == {"name": "Ada Lovelace", "email": "ada@example.com"}


def test_paris_and_in_tokyo_asks_for_both_cities(app):
    # The Python SDK 2.15 and langchain-anthropic's first turn of a tool loop.
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": "What's the weather in Paris and in Tokyo?"}],
        "model": "claude-sonnet-5-5",
        "tools": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "input_schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            }
        ],
    }
    status, answer = post(app, sent)
    assert status == 200
    cities = [b["input"]["city"] for b in answer["content"] if b["type"] == "tool_use"]
    assert cities == ["Paris", "Tokyo"]


def _streamed_text(app: CourseModelApp, payload: dict) -> str:
    reply = app.dispatch("POST", "/v1/messages", HEADERS, json.dumps(payload).encode())
    assert reply.status == 200
    events = b"".join(reply.chunks()).decode().split("\n\n")
    data = [json.loads(e.split("data: ", 1)[1]) for e in events if "data: " in e]
    return "".join(d["delta"].get("text", "") for d in data if d["type"] == "content_block_delta")


def test_a_validation_retry_is_filled_from_the_persons_words_not_the_feedback(app):
    # pydantic-ai 2.68, an output validator that raised ModelRetry once: the retry's user turn
    # is the program's feedback, which says it is not the person speaking.
    asked = "Paris, 18 C and sunny. Give me the weather report as data."
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperature_c": {"type": "number"},
            "summary": {"type": "string"},
        },
        "additionalProperties": False,
        "required": ["city", "temperature_c", "summary"],
    }
    first = json.dumps({"city": "Paris", "temperature_c": 18, "summary": asked})
    sent = {
        "max_tokens": 128000,
        "messages": [
            {"role": "user", "content": [{"text": asked, "type": "text"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "thinking": "I have what I need to answer directly.",
                        "signature": "sig_01z7i6sH56CHaaLw3FX1SGsPkEss7L56GNm75hXq6R",
                        "type": "thinking",
                    },
                    {"text": first, "type": "text"},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "text": "Your previous response failed the application's validation "
                        "(this is automated feedback, not a message from the user):\n"
                        "<pyai:retry_feedback>\nGive the summary in a full sentence, please.\n"
                        "</pyai:retry_feedback>",
                        "type": "text",
                    }
                ],
            },
        ],
        "model": "claude-haiku-5-5",
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
        "stream": True,
    }
    found = json.loads(_streamed_text(app, sent))
    assert found["city"] == "Paris" and found["temperature_c"] == 18
    assert "validation" not in found["summary"] and "feedback" not in found["summary"]


# openai-agents 0.24 (through litellm) and pydantic-ai 2.68: the tool under `auto`.
ASKED_TOOL_BODIES = {
    "openai-agents": {
        "model": "claude-haiku-5-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": CONTACT_TEXT}]}],
        "max_tokens": 400,
        "tools": [
            {
                "name": "add_contact",
                "input_schema": {
                    "properties": {
                        "name": {"title": "Name", "type": "string"},
                        "email": {"title": "Email", "type": "string"},
                    },
                    "required": ["name", "email"],
                    "type": "object",
                    "additionalProperties": False,
                },
                "type": "custom",
                "description": "Add a person to the address book.",
            }
        ],
    },
    "pydantic-ai": {
        "max_tokens": 128000,
        "messages": [{"role": "user", "content": [{"text": CONTACT_TEXT, "type": "text"}]}],
        "model": "claude-haiku-5-5",
        "tool_choice": {"type": "auto"},
        "tools": [
            {
                "name": "add_contact",
                "description": "Add a person to the address book.",
                "input_schema": {**CONTACT_SCHEMA, "additionalProperties": False},
            }
        ],
    },
}


@pytest.mark.parametrize("client_name", list(ASKED_TOOL_BODIES))
def test_a_tool_the_person_asks_for_is_called_under_auto(app, client_name):
    status, answer = post(app, ASKED_TOOL_BODIES[client_name])
    assert status == 200 and answer["stop_reason"] == "tool_use"
    call = next(b for b in answer["content"] if b["type"] == "tool_use")
    assert call["name"] == "add_contact"
    assert call["input"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
    history = ASKED_TOOL_BODIES[client_name]["messages"] + [
        {"role": "assistant", "content": answer["content"]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call["id"], "content": "added Ada Lovelace"}
            ],
        },
    ]
    status, final = post(app, {**ASKED_TOOL_BODIES[client_name], "messages": history})
    assert status == 200 and final["stop_reason"] == "end_turn"
    said = "".join(b["text"] for b in final["content"] if b["type"] == "text")
    assert "added Ada Lovelace" in said


@pytest.mark.parametrize(
    "question",
    [
        "What does add_contact do?",  # names the tool, states no contact
        "Add a contact.",  # asks for it, states nothing to send
        "Tell me about Ada Lovelace.",  # states a name, asks for nothing the tool does
    ],
)
def test_no_call_without_the_ask_and_the_values(app, question):
    sent = {**ASKED_TOOL_BODIES["openai-agents"]}
    sent["messages"] = [{"role": "user", "content": question}]
    status, answer = post(app, sent)
    assert status == 200
    assert not [b for b in answer["content"] if b["type"] == "tool_use"]


# ------------------------------------------------ agent frameworks' requests, replayed as sent

# Captured from `benchmarks/real_clients/run.py` with the frameworks of `frameworks.py` (strands
# and smolagents stream or not as asked: the replays below ask for the whole answer at once).
WEATHER_ASKED = "Paris, 18 C and sunny. Give me the weather report as data."
WEATHER_FIELDS = {
    "city": {"title": "City", "type": "string", "description": "Property city"},
    "temperature_c": {
        "title": "Temperature C",
        "type": "number",
        "description": "Property temperature_c",
    },
    "summary": {"title": "Summary", "type": "string", "description": "Property summary"},
}


def _strands_output_tool(name: str, properties: dict) -> dict:
    # strands-agents 1.62's structured output: a tool named after the model, described so.
    return {
        "name": name,
        "description": "IMPORTANT: This StructuredOutputTool should only be invoked as the last "
        "and final tool before returning the completed result to the caller. "
        f"<description>{name} structured output tool</description>",
        "input_schema": {
            "type": "object",
            "properties": properties,
            "title": name,
            "required": list(properties),
        },
    }


STRANDS_OUTPUT_BODIES = {
    "weather": {
        "max_tokens": 400,
        "messages": [{"content": [{"text": WEATHER_ASKED, "type": "text"}], "role": "user"}],
        "model": "claude-haiku-5-5",
        "tools": [_strands_output_tool("Weather", WEATHER_FIELDS)],
    },
    "contact": {
        "max_tokens": 400,
        "messages": [{"content": [{"text": CONTACT_TEXT, "type": "text"}], "role": "user"}],
        "model": "claude-haiku-5-5",
        "tools": [
            _strands_output_tool(
                "CheckedContact",
                {
                    "name": {"title": "Name", "type": "string", "description": "Property name"},
                    "email": {"title": "Email", "type": "string", "description": "Property email"},
                },
            )
        ],
    },
}
STRANDS_EXPECTED = {
    "weather": {"city": "Paris", "temperature_c": 18},
    "contact": {"name": "Ada Lovelace", "email": "ada@example.com"},
}


@pytest.mark.parametrize("case", list(STRANDS_OUTPUT_BODIES))
def test_strands_structured_output_tool_is_answered_through_under_auto(app, case):
    # strands-agents 1.62, `agent(prompt, structured_output_model=...)`: the only tool is its
    # output tool, under `auto`; the answer is a call to it, its input from the person's words.
    status, answer = post(app, STRANDS_OUTPUT_BODIES[case])
    assert status == 200
    calls = [b for b in answer["content"] if b["type"] == "tool_use"]
    assert [c["name"] for c in calls] == [STRANDS_OUTPUT_BODIES[case]["tools"][0]["name"]]
    assert STRANDS_EXPECTED[case].items() <= calls[0]["input"].items()


def test_strands_forced_retry_does_not_fill_a_value_from_its_own_instruction(app):
    # strands-agents 1.62: no call to the output tool under `auto`, so it asks again, forced,
    # with its own instruction as the last user turn.
    sent = {
        **STRANDS_OUTPUT_BODIES["weather"],
        "messages": [
            {"content": [{"text": WEATHER_ASKED, "type": "text"}], "role": "user"},
            {
                "content": [
                    {
                        "signature": "sig_017E0FWNE1tBpPCOaegslxcbI68Azhrrr4VqBGiB7J",
                        "thinking": "I have what I need to answer directly.",
                        "type": "thinking",
                    },
                    {"text": "Which city would you like the weather for?", "type": "text"},
                ],
                "role": "assistant",
            },
            {
                "content": [
                    {
                        "text": "You must format the previous response as structured output.",
                        "type": "text",
                    }
                ],
                "role": "user",
            },
        ],
        "tool_choice": {"type": "tool", "name": "Weather"},
    }
    status, answer = post(app, sent)
    assert status == 200
    call = next(b for b in answer["content"] if b["type"] == "tool_use")
    assert call["input"]["city"] == "Paris" and call["input"]["temperature_c"] == 18
    assert "structured output" not in call["input"]["summary"]


def test_a_weather_report_the_person_states_is_not_answered_with_which_city(app):
    # langgraph 1.2's prebuilt create_react_agent (ChatAnthropic 1.7.10) with get_weather and
    # response_format: the first turn. The person named Paris and its weather.
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": WEATHER_ASKED}],
        "model": "claude-haiku-5-5",
        "tools": [
            {
                "name": "get_weather",
                "input_schema": {
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "type": "object",
                },
                "description": "Current weather for a city.",
            }
        ],
    }
    status, answer = post(app, sent)
    assert status == 200
    said = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    cities = [b["input"].get("city") for b in answer["content"] if b["type"] == "tool_use"]
    assert "Which city" not in said
    assert cities == ["Paris"] or (not cities and "Paris" in said)


def test_agnos_json_mode_gets_the_fields_it_lists(app):
    # agno 3.1, Claude with `output_schema` and `use_json_mode=True`: the fields and their
    # properties are written into the system prompt (no JSON Schema object).
    system = (
        "Provide your output as a JSON containing the following fields:\n<json_fields>\n"
        '["city", "temperature_c", "summary"]\n</json_fields>\n\n'
        "Here are the properties for each field:\n<json_field_properties>\n{\n"
        '  "city": {\n    "type": "string"\n  },\n'
        '  "temperature_c": {\n    "type": "number"\n  },\n'
        '  "summary": {\n    "type": "string"\n  }\n}\n</json_field_properties>\n'
        "Start your response with `{` and end it with `}`.\n"
        "Your output will be passed to json.loads() to convert it to a Python object.\n"
        "Make sure it only contains valid JSON."
    )
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": [{"type": "text", "text": WEATHER_ASKED}]}],
        "model": "claude-haiku-5-5",
        "system": [{"text": system, "type": "text"}],
    }
    status, answer = post(app, sent)
    assert status == 200
    said = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    found = json.loads(said)
    assert found["city"] == "Paris" and found["temperature_c"] == 18
    assert isinstance(found["summary"], str)


@pytest.mark.parametrize(("temperature", "status"), [(1.0, 200), (1, 200), (0.7, 400), (0, 400)])
def test_llm_anthropics_default_temperature_is_accepted(app, temperature, status):
    # llm-anthropic 0.30 sends `temperature` 1.0 (its default) on every request, through
    # `extra_body`. The models that deprecated sampling parameters still take the default
    # (expectedparrot/edsl#2458, quoting the docs: "only accepts 1.0 for backwards
    # compatibility"); every live 400 quoted for them is for another value (0.7: FMXExpress/
    # PasClaw#19; 0: langchain-ai/open-swe#1207).
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]}],
        "model": "claude-haiku-5-5",
        "thinking": {"type": "adaptive", "display": "summarized"},
        "temperature": temperature,
    }
    got, answer = post(app, sent)
    assert got == status, answer
    if status == 400:
        assert answer["error"]["message"] == "temperature is deprecated for this model."
    else:
        assert answer["stop_reason"] == "end_turn"


# smolagents 1.26's ToolCallingAgent (LiteLLMModel, litellm 1.110): its calls and their results
# go back as text ("Calling tools:" from the assistant, "Observation:" from the user), under
# `tool_choice` any with its final_answer tool. The system prompt's worked examples left out.
SMOLAGENTS_SYSTEM = (
    "You are an expert assistant who can solve any task using tool calls. You will be given a "
    "task to solve as best you can.\nTo do so, you have been given access to some tools.\n\n"
    "The tool call you write is an action: after the tool is executed, you will get the result "
    'of the tool call as an "observation".\n'
    "This Action/Observation can repeat N times, you should take several steps when needed.\n\n"
    "You can use the result of the previous action as input for the next action.\n"
    'To provide the final answer to the task, use an action blob with "name": "final_answer" '
    "tool. It is the only way to complete the task, else you will be stuck on a loop.\n\n"
    "You only have access to these tools:\n"
    "- get_weather: Current weather for a city.\n"
    "    Takes inputs: {'city': {'type': 'string', 'description': 'the city'}}\n"
    "    Returns an output of type: string\n"
    "- final_answer: Provides a final answer to the given problem.\n"
    "    Takes inputs: {'answer': {'type': 'any', 'description': 'The final answer to the "
    "problem'}}\n    Returns an output of type: any\n\n"
    "Here are the rules you should always follow to solve your task:\n"
    "1. ALWAYS provide a tool call, else you will fail.\n"
    "2. Always use the right arguments for the tools. Never use variable names as the action "
    "arguments, use the value instead.\n"
    "3. Call a tool only when needed: do not call the search agent if you do not need "
    "information, try to solve the task yourself. If no tool call is needed, use final_answer "
    "tool to return your answer.\n"
    "4. Never re-do a tool call that you previously did with the exact same parameters.\n\n"
    "Now Begin!"
)


def test_smolagents_observations_in_text_are_not_asked_for_again(app):
    calls = (
        "Calling tools:\n[{'id': 'toolu_016Hlvyc0NKfceRp18wXQVub1T', 'type': 'function', "
        "'function': {'name': 'get_weather', 'arguments': {'city': 'Paris'}}}, "
        "{'id': 'toolu_01pw6pGF1NzAZgz9lJYbwFHGE4', 'type': 'function', 'function': "
        "{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}}]"
    )
    observation = (
        'Observation:\n{"city": "Paris", "temperature_c": 18, "conditions": "sunny"}\n'
        '{"city": "Tokyo", "temperature_c": 18, "conditions": "sunny"}'
    )
    sent = {
        "model": "claude-haiku-5-5",
        "stop_sequences": ["Observation:", "Calling tools:"],
        "max_tokens": 400,
        "tools": [
            {
                "name": "get_weather",
                "input_schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "the city"}},
                    "required": ["city"],
                },
                "type": "custom",
                "description": "Current weather for a city.",
            },
            {
                "name": "final_answer",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "answer": {
                            "type": "string",
                            "description": "The final answer to the problem",
                        }
                    },
                    "required": ["answer"],
                },
                "type": "custom",
                "description": "Provides a final answer to the given problem.",
            },
        ],
        "tool_choice": {"type": "any"},
        "system": [{"type": "text", "text": SMOLAGENTS_SYSTEM}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "New task:\nWhat's the weather in Paris and in Tokyo?"}
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": calls}]},
            {"role": "user", "content": [{"type": "text", "text": observation}]},
        ],
    }
    status, answer = post(app, sent)
    assert status == 200
    made = [b for b in answer["content"] if b["type"] == "tool_use"]
    assert [b["name"] for b in made] == ["final_answer"]
    said = str(made[0]["input"]["answer"])
    assert "Paris" in said and "Tokyo" in said and "Observation" not in said


# dspy 3.4's ChatAdapter (litellm 1.110): the fields go out as `[[ ## name ## ]]` sections, and
# the answer is read back from the same sections, up to `[[ ## completed ## ]]`.
DSPY_STRUCTURE = "All interactions will be structured in the following way, with the appropriate values filled in.\n\n"  # noqa: E501
DSPY_BODIES = {
    "plain": (
        "Your input fields are:\n1. `question` (str):\nYour output fields are:\n1. `answer` "
        f"(str):\n{DSPY_STRUCTURE}[[ ## question ## ]]\n{{question}}\n\n[[ ## answer ## ]]\n"
        "{answer}\n\n[[ ## completed ## ]]\nIn adhering to this structure, your objective is: "
        "\n        Given the fields `question`, produce the fields `answer`.",
        "[[ ## question ## ]]\nWhat is 2+2?\n\nRespond with the corresponding output fields, "
        "starting with the field `[[ ## answer ## ]]`, and then ending with the marker for "
        "`[[ ## completed ## ]]`.",
    ),
    "structured": (
        "Your input fields are:\n1. `text` (str):\nYour output fields are:\n1. `report` "
        f"(Weather):\n{DSPY_STRUCTURE}[[ ## text ## ]]\n{{text}}\n\n[[ ## report ## ]]\n"
        "{report}        # note: the value you produce must adhere to the JSON schema: "
        '{"type": "object", "properties": {"city": {"type": "string", "title": "City"}, '
        '"summary": {"type": "string", "title": "Summary"}, "temperature_c": {"type": "number", '
        '"title": "Temperature C"}}, "required": ["city", "temperature_c", "summary"], '
        '"title": "Weather"}\n\n[[ ## completed ## ]]\nIn adhering to this structure, your '
        "objective is: \n        Turn the text into a weather report.",
        f"[[ ## text ## ]]\n{WEATHER_ASKED}\n\nRespond with the corresponding output fields, "
        "starting with the field `[[ ## report ## ]]` (must be formatted as a valid Python "
        "Weather), and then ending with the marker for `[[ ## completed ## ]]`.",
    ),
}


@pytest.mark.parametrize("case", list(DSPY_BODIES))
def test_dspys_field_sections_are_answered_in_the_same_sections(app, case):
    system, question = DSPY_BODIES[case]
    sent = {
        "model": "claude-haiku-5-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": question}]}],
        "max_tokens": 400,
        "system": [{"type": "text", "text": system}],
    }
    status, answer = post(app, sent)
    assert status == 200
    said = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    field = {"plain": "answer", "structured": "report"}[case]
    head, _, rest = said.partition(f"[[ ## {field} ## ]]")
    value, _, _ = rest.partition("[[ ## completed ## ]]")
    assert not head.strip() and "[[ ## completed ## ]]" in rest, said
    if case == "plain":
        assert "4" in value
    else:
        found = json.loads(value)
        assert found["city"] == "Paris" and found["temperature_c"] == 18
        assert "[[ ##" not in found["summary"]


def test_a_forced_weather_form_takes_no_value_from_which_city(app):
    # mirascope 2.8, `llm.format(Weather, mode="tool")`: its output tool, forced.
    sent = {
        "max_tokens": 400,
        "messages": [{"role": "user", "content": WEATHER_ASKED}],
        "model": "claude-haiku-5-5",
        "system": [
            {
                "type": "text",
                "text": "Always respond to the user's query using the "
                "__mirascope_formatted_output_tool__ tool for structured output.",
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "tool_choice": {
            "type": "tool",
            "name": "__mirascope_formatted_output_tool__",
            "disable_parallel_tool_use": True,
        },
        "tools": [
            {
                "name": "__mirascope_formatted_output_tool__",
                "description": "Use this tool to extract data in Weather format for a final "
                "response.",
                "input_schema": {
                    "properties": {
                        "city": {"title": "City", "type": "string"},
                        "temperature_c": {"title": "Temperature C", "type": "number"},
                        "summary": {"title": "Summary", "type": "string"},
                    },
                    "required": ["city", "temperature_c", "summary"],
                    "additionalProperties": False,
                    "type": "object",
                },
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }
    status, answer = post(app, sent)
    assert status == 200
    call = next(b for b in answer["content"] if b["type"] == "tool_use")
    assert call["input"]["city"] == "Paris" and call["input"]["temperature_c"] == 18
    assert "Which city" not in call["input"]["summary"]
