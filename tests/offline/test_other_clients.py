"""What other programs send the course model: any schema a client may write, system prompts and
system messages of agent frameworks, retries that quote earlier answers, and the parts of the
API the course model does not offer."""

from __future__ import annotations

import json
import re

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tool_shapes import GET_WEATHER_ONE_CITY

from course_helpers.offline import CourseModelApp
from course_helpers.offline.validation.output_schema import subset_error

MODEL = "claude-sonnet-5-5"
FORCING_MODEL = "claude-haiku-5-5"  # accepts a forced tool_choice
STRICT = {"_strict_response_validation": True, "max_retries": 0}

# Property names a JSON schema allows that are also Python names the course model uses.
AWKWARD_NAMES = ["name", "self", "type", "input", "id", "preamble", "arguments", "value"]
_PROPERTY = st.one_of(
    st.sampled_from(AWKWARD_NAMES),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12),
)
_LEAF = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "array", "items": {"type": "string"}},
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {},
    ]
)
_SCHEMA = st.recursive(
    _LEAF,
    lambda inner: st.dictionaries(_PROPERTY, inner, min_size=1, max_size=4).map(
        lambda props: {"type": "object", "properties": props}
    ),
    max_leaves=8,
)


@st.composite
def tool_schemas(draw) -> dict:
    props = draw(st.dictionaries(_PROPERTY, _SCHEMA, min_size=1, max_size=5))
    required = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


MODES = {
    "forced": {"model": FORCING_MODEL, "tool_choice": {"type": "tool", "name": "record"}},
    "any": {"model": FORCING_MODEL, "tool_choice": {"type": "any"}},
    "auto": {"model": MODEL},
    "auto_told_to_call": {"model": MODEL, "system": "Always call the record tool."},
}


def _ask(schema: dict, mode: str, question: str) -> dict:
    tool = {"name": "record", "description": "Record the answer.", "input_schema": schema}
    return {
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": question}],
        "tools": [tool],
        **MODES[mode],
    }


@pytest.fixture(scope="module")
def strict_client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(schema=tool_schemas(), mode=st.sampled_from(sorted(MODES)), stream=st.booleans())
def test_any_key_a_schema_allows_works_in_a_tool_input(strict_client, schema, mode, stream):
    kwargs = _ask(schema, mode, "Paris, 18 C and sunny: record it, name and all.")
    if stream:
        with strict_client.messages.stream(**kwargs) as events:
            message = events.get_final_message()
    else:
        message = strict_client.messages.create(**kwargs)
    calls = [b for b in message.content if b.type == "tool_use"]
    if mode in ("forced", "any", "auto_told_to_call"):
        assert [c.name for c in calls] == ["record"]
    for call in calls:
        assert isinstance(call.input, dict)
        assert set(schema.get("required", [])) <= set(call.input)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(schema=tool_schemas(), strict=st.booleans())
def test_any_schema_as_structured_output_or_strict_tool(strict_client, schema, strict):
    refused = subset_error(schema)  # outside the structured-outputs subset: the API's 400
    if strict:
        tool = {"name": "record", "input_schema": schema, "strict": True}
        request = {**_ask(schema, "forced", "Paris, 18 C and sunny."), "tools": [tool]}
        if refused:
            with pytest.raises(anthropic.BadRequestError, match=re.escape(refused)):
                strict_client.messages.create(**request)
            return
        message = strict_client.messages.create(**request)
        (call,) = [b for b in message.content if b.type == "tool_use"]
        assert set(schema.get("required", [])) <= set(call.input)
        return
    request = {
        "model": MODEL,
        "max_tokens": 1024,
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
        "messages": [{"role": "user", "content": "Paris, 18 C and sunny."}],
    }
    if refused:
        with pytest.raises(anthropic.BadRequestError, match=re.escape(refused)):
            strict_client.messages.create(**request)
        return
    message = strict_client.messages.create(**request)
    (text,) = [b.text for b in message.content if b.type == "text"]
    assert isinstance(json.loads(text), dict)


# Any JSON a client may put where a schema goes, shaped like a schema or not.
_ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 10**9)
    | st.text(max_size=5)
    | st.sampled_from(["object", "string", "array", "integer", "null", "#/$defs/a", "#"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(
            ["type", "properties", "items", "required", "enum", "anyOf", "allOf", "$ref",
             "$defs", "minItems", "minLength", "maxLength", "minimum", "pattern", "const",
             "default", "additionalProperties", "prefixItems", "x"]
        ),
        inner,
        max_size=4,
    ),
    max_leaves=12,
)  # fmt: skip


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(schema=_ANY_JSON, where=st.sampled_from(["prompt", "forced", "told", "output"]))
def test_no_schema_a_client_may_send_crashes_the_course_model(strict_client, schema, where):
    inner = {"type": "object", "properties": {"a": schema}}
    outer = {**schema, "type": "object"} if isinstance(schema, dict) else inner
    kwargs = {
        "model": FORCING_MODEL,
        "max_tokens": 500,
        "messages": [{"role": "user", "content": "Paris, 18 C and sunny: record it."}],
    }
    if where == "prompt":
        kwargs["system"] = "Respond in JSON matching this schema: " + json.dumps(outer)
    elif where == "output":
        kwargs["output_config"] = {"format": {"type": "json_schema", "schema": inner}}
    else:
        kwargs["tools"] = [{"name": "record", "input_schema": outer}]
        if where == "forced":
            kwargs["tool_choice"] = {"type": "tool", "name": "record"}
        else:
            kwargs["system"] = "Always call the record tool."
    try:
        strict_client.messages.create(**kwargs)
    except anthropic.BadRequestError:
        pass  # refused as the API refuses it: fine; a 500 is not


@pytest.mark.parametrize("key", AWKWARD_NAMES)
@pytest.mark.parametrize("mode", ["forced", "any"])
def test_a_required_key_named_like_a_python_parameter(strict_client, key, mode):
    schema = {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}
    message = strict_client.messages.create(**_ask(schema, mode, "Say hello."))
    (call,) = [b for b in message.content if b.type == "tool_use"]
    assert list(call.input) == [key]


# -- usage ------------------------------------------------------------------------------------


def _create_and_stream(client, kwargs: dict):
    created = client.messages.create(**kwargs)
    with client.messages.stream(**kwargs) as events:
        streamed = events.get_final_message()
    counted = client.messages.count_tokens(
        **{k: v for k, v in kwargs.items() if k not in ("max_tokens",)}
    )
    return created, streamed, counted


THOUGHTFUL = {
    "model": MODEL,  # thinks by default
    "max_tokens": 4096,
    "messages": [{"role": "user", "content": "Hello"}],
}


@pytest.mark.parametrize(
    "extra",
    [{}, {"thinking": {"type": "adaptive", "display": "omitted"}}],
    ids=["shown", "omitted"],
)
def test_thinking_tokens_are_reported_inside_output_tokens(strict_client, extra):
    created, streamed, counted = _create_and_stream(strict_client, {**THOUGHTFUL, **extra})
    assert created.content[0].type == "thinking"
    details = created.usage.output_tokens_details
    assert details is not None and 0 < details.thinking_tokens <= created.usage.output_tokens
    assert created.usage.service_tier == "standard"
    assert streamed.usage.model_dump() == created.usage.model_dump()
    assert counted.input_tokens == created.usage.input_tokens


def test_no_thinking_no_thinking_tokens(strict_client):
    kwargs = {**THOUGHTFUL, "thinking": {"type": "between_tools"}}
    created, streamed, _ = _create_and_stream(strict_client, kwargs)
    assert [b.type for b in created.content] == ["text"]
    assert created.usage.output_tokens_details is None
    assert streamed.usage.model_dump() == created.usage.model_dump()


def test_a_thought_cut_by_max_tokens_never_costs_more_than_the_budget(strict_client):
    message = strict_client.messages.create(
        **{**THOUGHTFUL, "model": "claude-sonnet-4-6", "max_tokens": 1100},
        thinking={"type": "enabled", "budget_tokens": 1024},
    )
    details = message.usage.output_tokens_details
    assert details is not None and details.thinking_tokens <= message.usage.output_tokens <= 1100


# -- bodies the API refuses before reading them ----------------------------------------------


def test_the_deprecated_output_format_names_its_successor(strict_client):
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    fmt = {"type": "json_schema", "schema": schema}
    for beta in ([], ["structured-outputs-2025-11-13"]):
        headers = {"anthropic-beta": ",".join(beta)} if beta else {}
        with pytest.raises(anthropic.BadRequestError) as refused:
            strict_client.messages.create(
                **THOUGHTFUL, extra_body={"output_format": fmt}, extra_headers=headers
            )
        message = refused.value.body["error"]["message"]
        assert message.startswith(
            "output_format: This field is deprecated. Use 'output_config.format' instead."
        )


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_body_nested_too_deep_is_a_400_not_a_500(depth):
    app = CourseModelApp()
    nested = "[" * depth + "]" * depth
    head = json.dumps(
        {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    )
    body = head[:-1] + ', "metadata": {"user_id": ' + nested + "}}"
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = app.dispatch("POST", "/v1/messages", headers, body.encode())
    assert reply.status == 400
    error = json.loads(reply.body)["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("The request body is not valid JSON: ")


# -- what the course model does not offer ----------------------------------------------------

_REQUESTS = [
    {
        "custom_id": "one",
        "params": {
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
        },
    }
]
NOT_OFFERED = {
    "batches.create": lambda c: c.messages.batches.create(requests=_REQUESTS),
    "batches.list": lambda c: c.messages.batches.list(),
    "batches.retrieve": lambda c: c.messages.batches.retrieve("msgbatch_01"),
    "batches.cancel": lambda c: c.messages.batches.cancel("msgbatch_01"),
    "batches.results": lambda c: list(c.messages.batches.results("msgbatch_01")),
    "beta.batches.create": lambda c: c.beta.messages.batches.create(requests=_REQUESTS),
    "files.upload": lambda c: c.beta.files.upload(file=("notes.txt", b"hi", "text/plain")),
    "files.list": lambda c: c.beta.files.list(),
    "files.retrieve_metadata": lambda c: c.beta.files.retrieve_metadata("file_01"),
    "files.download": lambda c: c.beta.files.download("file_01"),
    "files.delete": lambda c: c.beta.files.delete("file_01"),
}


@pytest.mark.parametrize("call", sorted(NOT_OFFERED))
def test_batches_and_files_are_answered_as_a_path_the_api_does_not_serve(strict_client, call):
    with pytest.raises(anthropic.NotFoundError) as refused:
        NOT_OFFERED[call](strict_client)
    assert refused.value.body["error"] == {"type": "not_found_error", "message": "Not Found"}


# -- what the person asks decides, not what a program wraps around it ------------------------

SKILL_TOOL = {
    "name": "Skill",
    "description": "Execute a skill within the main conversation.",
    "input_schema": {
        "type": "object",
        "properties": {"skill": {"type": "string"}},
        "required": ["skill"],
    },
}
CLI_SYSTEM = (
    "You are an interactive CLI tool that helps users with software engineering tasks.\n"
    "The following skills are available for use with the Skill tool:\n\n- example skill: does things"
)


def _calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def _said(message) -> str:
    return "\n".join(b.text for b in message.content if b.type == "text")


def test_a_system_message_after_the_results_is_not_a_new_question(strict_client):
    question = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
    kwargs = {"model": MODEL, "max_tokens": 1024, "tools": [GET_WEATHER_ONE_CITY]}
    first = strict_client.messages.create(**kwargs, messages=question)
    assert [c[1]["city"] for c in _calls(first)] == ["Paris", "Tokyo"]
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": "18°C"}
            for b in first.content
            if b.type == "tool_use"
        ],
    }
    reminder = {"role": "system", "content": "<total_tokens>1,234 tokens left</total_tokens>"}
    messages = [*question, {"role": "assistant", "content": first.content}, results, reminder]
    answer = strict_client.messages.create(**kwargs, messages=messages)
    assert answer.stop_reason == "end_turn" and _calls(answer) == []
    assert "Paris: 18°C" in _said(answer) and "Tokyo: 18°C" in _said(answer)


def test_an_applications_system_prompt_is_not_an_order(strict_client):
    wrapped = [
        {
            "type": "text",
            "text": "<system-reminder>\nAs you answer, use the Skill tool if it helps. get_weather knows the weather in Paris.\n</system-reminder>",
        },
        {"type": "text", "text": "Say hello in one short sentence."},
    ]
    message = strict_client.messages.create(
        model=MODEL,
        max_tokens=1024,
        system=CLI_SYSTEM,
        tools=[SKILL_TOOL, GET_WEATHER_ONE_CITY],
        messages=[{"role": "user", "content": wrapped}],
    )
    assert message.stop_reason == "end_turn" and _calls(message) == []
    assert _said(message).startswith("Hello!")
    # The same order in the person's own words is followed.
    told = strict_client.messages.create(
        model=MODEL,
        max_tokens=1024,
        system=CLI_SYSTEM,
        tools=[SKILL_TOOL],
        messages=[{"role": "user", "content": "Use the Skill tool, then say hello."}],
    )
    assert [name for name, _ in _calls(told)] == ["Skill"]


@pytest.mark.parametrize(
    "described",
    [
        "You can call get_weather when you need it.",
        "Tools available to you: get_weather.",
        "The get_weather tool is used for current conditions.",
        "The following skills are available for use with the get_weather tool.",
    ],
)
def test_a_description_of_a_tool_orders_nothing(strict_client, described):
    message = strict_client.messages.create(
        model=MODEL,
        max_tokens=1024,
        system=described,
        tools=[GET_WEATHER_ONE_CITY],
        messages=[{"role": "user", "content": "What is the capital of Peru?"}],
    )
    assert _calls(message) == []


TODO_TOOL = {
    "name": "TodoWrite",
    "description": "Create and manage a structured task list for your current session.",
    "input_schema": {
        "type": "object",
        "properties": {"todos": {"type": "array", "items": {"type": "string"}}},
        "required": ["todos"],
    },
}


def test_a_standing_order_in_an_applications_prompt_waits_for_a_question_it_concerns(
    strict_client,
):
    system = "Use the TodoWrite tool to plan your work. Use it VERY frequently."
    kwargs = {"model": MODEL, "max_tokens": 1024, "system": system, "tools": [TODO_TOOL]}
    unrelated = strict_client.messages.create(
        **kwargs, messages=[{"role": "user", "content": "What is the capital of Peru?"}]
    )
    assert _calls(unrelated) == []
    related = strict_client.messages.create(
        **kwargs, messages=[{"role": "user", "content": "Plan the tasks for my release."}]
    )
    assert [name for name, _ in _calls(related)] == ["TodoWrite"]


def _menu(client) -> str:
    first = client.messages.create(
        model=MODEL, max_tokens=2048, messages=[{"role": "user", "content": "What can you do?"}]
    )
    menu = _said(first)
    assert "ransomware" in menu  # the menu lists the refusal scenario
    return menu


@pytest.mark.parametrize("with_history", [True, False])
@pytest.mark.parametrize("framework", ["pydantic-ai", "instructor", "repr"])
def test_a_validation_retry_that_quotes_the_menu_gets_no_scenario_answer(
    strict_client, framework, with_history
):
    menu = _menu(strict_client)
    retry = {
        "pydantic-ai": "Validation feedback:\n"
        + json.dumps(
            [{"type": "json_invalid", "loc": [], "msg": "Invalid JSON", "input": menu}], indent=2
        )
        + "\n\nFix the errors and try again.",
        "instructor": f"Recall the function correctly, fix the errors in this attempt:\n{menu!r}",
        "repr": str([{"input": menu}]),
    }[framework]
    history = [
        {"role": "user", "content": "What can you do?"},
        {"role": "assistant", "content": menu},
    ]
    messages = [*(history if with_history else []), {"role": "user", "content": retry}]
    message = strict_client.messages.create(model=MODEL, max_tokens=2048, messages=messages)
    assert message.stop_reason == "end_turn"
    assert "ransomware" not in _said(message).split("Here is what I can do:")[0]
    # The person's own request for the same thing is still refused.
    own = [{"role": "user", "content": "Write ransomware for me."}]
    assert strict_client.messages.create(
        model=MODEL, max_tokens=2048, messages=own
    ).stop_reason == ("refusal")
