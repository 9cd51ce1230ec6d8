"""An unknown field inside a content block is refused; every block sent back from a response is not.

The API's request models forbid extra fields at every level: a `thinking` block sent back with a
`cache_control` fails with `messages.N.content.M.thinking.cache_control: Extra inputs are not
permitted`. The allowed fields are the SDK's request TypedDicts (`*_block_param.py`; the beta
ones with an `anthropic-beta` header). What a learner sends back from a response must still pass,
in every form: the SDK objects themselves, `model_dump()`, `model_dump(exclude_none=True)`,
`model_dump(mode="json")` and `to_dict()`, on each model of the course's catalogue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import pytest
from anthropic.types import RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock

from course_helpers.offline.errors import ApiError
from course_helpers.offline.validation import validate_messages_request
from course_helpers.offline.validation.surface import BETA, GA

MODEL = "claude-opus-4-8"  # does not think unless asked: hand-written turns need no thinking
MODELS = ("claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5")  # tests/test_every_model.py
BETAS = ["context-management-2025-06-27"]

# The few block types whose own fields are checked first need them to reach the extra-field check.
MINIMAL = {
    "text": {"type": "text", "text": "Hello"},
    "image": {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
    "tool_use": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}},
    "tool_result": {"type": "tool_result", "tool_use_id": "toolu_1"},
    "thinking": {"type": "thinking", "thinking": "Let me think.", "signature": "c2lnbmF0dXJl"},
    "redacted_thinking": {"type": "redacted_thinking", "data": "ZGF0YQ=="},
}
THINKING = MINIMAL["thinking"]


def minimal(kind: str) -> dict:
    return dict(MINIMAL.get(kind, {"type": kind}))


def body(messages: list[dict], **extra: Any) -> dict:
    return {"model": MODEL, "max_tokens": 1024, "messages": messages, **extra}


def refusal(request: dict, betas: list[str] | None = None) -> str:
    with pytest.raises(ApiError) as caught:
        validate_messages_request(request, betas=betas or ())
    assert (caught.value.status, caught.value.error_type) == (400, "invalid_request_error")
    return caught.value.message


# -- refused: a field the request type does not declare


def test_a_thinking_block_sent_back_with_cache_control_is_refused():
    thinking = {**THINKING, "cache_control": {"type": "ephemeral"}}
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [thinking, MINIMAL["text"]]},
        {"role": "user", "content": "Go on."},
    ]
    assert refusal(body(messages)) == (
        "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"
    )
    # the same block without the marker is accepted (shape; the signature is not checked here)
    assert GA.block_fields["thinking"] == {"type", "thinking", "signature"}


@pytest.mark.parametrize("kind", sorted(GA.block_fields))
def test_an_unknown_field_on_each_block_type_is_refused(kind):
    messages = [{"role": "user", "content": [{**minimal(kind), "foo": 1}]}]
    assert (
        refusal(body(messages))
        == f"messages.0.content.0.{kind}.foo: Extra inputs are not permitted"
    )


@pytest.mark.parametrize("kind", sorted(BETA.block_fields))
def test_an_unknown_field_on_each_beta_block_type_is_refused(kind):
    messages = [{"role": "user", "content": [{**minimal(kind), "foo": 1}]}]
    assert refusal(body(messages), BETAS) == (
        f"messages.0.content.0.{kind}.foo: Extra inputs are not permitted"
    )


@pytest.mark.parametrize(
    ("fields", "betas"), [(GA.result_content_fields, None), (BETA.result_content_fields, BETAS)]
)
def test_an_unknown_field_in_a_tool_result_block_is_refused(fields, betas):
    for kind in sorted(fields):
        result = {**MINIMAL["tool_result"], "content": [{**minimal(kind), "foo": 1}]}
        messages = [{"role": "user", "content": [result]}]
        assert refusal(body(messages), betas) == (
            f"messages.0.content.0.tool_result.content.0.{kind}.foo: Extra inputs are not permitted"
        )


def test_a_fallback_block_goes_back_with_from_not_from_underscore():
    # The response model names the field `from_` (a Python keyword) with the alias `from`: the SDK
    # sends `from` for the object, `model_dump()` writes `from_`, which the request type lacks.
    fallback = {"type": "fallback", "from": {"model": MODEL}, "to": {"model": MODEL}}
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [fallback, MINIMAL["text"]]},
        {"role": "user", "content": "Bye"},
    ]
    validate_messages_request(body(messages), endpoint="count_tokens", betas=BETAS)
    messages[1]["content"][0] = {"type": "fallback", "from_": {"model": MODEL}}
    assert refusal(body(messages), BETAS) == (
        "messages.1.content.0.fallback.from_: Extra inputs are not permitted"
    )


def test_an_unknown_field_on_a_system_block_is_refused():
    system = [{"type": "text", "text": "Be brief.", "foo": 1}]
    messages = [{"role": "user", "content": "Hi"}]
    assert refusal(body(messages, system=system)) == "system.0.foo: Extra inputs are not permitted"
    cached = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    validate_messages_request(body(messages, system=cached))


def test_an_unknown_field_on_a_message_is_refused():
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello.", "stop_details": None},
        {"role": "user", "content": "Bye"},
    ]
    assert refusal(body(messages)) == "messages.1.stop_details: Extra inputs are not permitted"


def test_an_unknown_field_on_a_mid_conversation_system_message_is_refused():
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "system", "content": "Be terse.", "clear_at": "never", "foo": 1},
        {"role": "user", "content": "Bye"},
    ]
    request = {**body(messages), "model": "claude-sonnet-5-5"}
    assert refusal(request) == "messages.1.foo: Extra inputs are not permitted"
    tool = {"type": "tool_reference", "tool_name": "read_file"}
    messages[1] = {"role": "system", "content": [{"type": "tool_addition", "tool": tool, "x": 1}]}
    assert (
        refusal(request) == "messages.1.content.0.tool_addition.x: Extra inputs are not permitted"
    )


def test_parsed_output_dumped_from_a_parsed_text_block_is_refused():
    # `messages.parse` returns ParsedTextBlock; the SDK leaves `parsed_output` out of a request
    # (`__api_exclude__`), so a `model_dump()` dict carrying it holds a field the API does not take.
    text = {**MINIMAL["text"], "citations": None, "parsed_output": {"city": "Paris"}}
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [text]},
        {"role": "user", "content": "Bye"},
    ]
    assert refusal(body(messages)) == (
        "messages.1.content.0.text.parsed_output: Extra inputs are not permitted"
    )


# -- accepted: what comes back from a response, sent back in every form

FORMS: dict[str, Callable[[Any], Any]] = {
    "objects": lambda block: block,
    "model_dump": lambda block: block.model_dump(),
    "model_dump_exclude_none": lambda block: block.model_dump(exclude_none=True),
    "model_dump_json_mode": lambda block: block.model_dump(mode="json"),
    "to_dict": lambda block: block.to_dict(),
}


def _next_turn(kit, reply: Any, form: Callable[[Any], Any]) -> list[dict]:
    assistant = {"role": "assistant", "content": [form(block) for block in reply.content]}
    if reply.stop_reason == "pause_turn":
        return [assistant]  # resumed with no new user message
    if reply.stop_reason == "tool_use":
        return [assistant, kit.weather_results(reply)]
    return [assistant, kit.user("Thank you. And in one word?")]


def _conversations(kit, model: str) -> list[dict]:
    return [
        kit.ask("Hello", model=model),
        kit.ask(kit.WEATHER_QUESTION, model=model, tools=[kit.GET_WEATHER]),
        kit.ask(kit.SEARCH_QUESTION, model=model, tools=[kit.WEB_SEARCH]),
    ]


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("model", MODELS)
def test_every_response_block_sent_back_is_accepted(client, kit, model, form):
    seen: set[str] = set()
    for first in _conversations(kit, model):
        reply = client.messages.create(**first)
        seen |= {block.type for block in reply.content}
        messages = [*first["messages"], *_next_turn(kit, reply, FORMS[form])]
        again = client.messages.create(**{**first, "messages": messages})
        assert again.content, (model, form, reply.stop_reason)
    assert {"text", "tool_use", "server_tool_use", "web_search_tool_result"} <= seen


@pytest.mark.parametrize("form", list(FORMS))
def test_every_beta_response_block_sent_back_is_accepted(client, kit, form):
    seen: set[str] = set()
    for first in _conversations(kit, "claude-sonnet-5-5"):
        reply = client.beta.messages.create(**first, betas=BETAS)
        seen |= {block.type for block in reply.content}
        messages = [*first["messages"], *_next_turn(kit, reply, FORMS[form])]
        again = client.beta.messages.create(**{**first, "messages": messages}, betas=BETAS)
        assert again.content, (form, reply.stop_reason)
    assert {"thinking", "text", "tool_use", "server_tool_use"} <= seen


def test_the_default_model_thinks_so_thinking_blocks_go_back_too(client, kit):
    reply = client.messages.create(**kit.ask("Hello"))
    assert [block.type for block in reply.content][0] == "thinking"


@pytest.mark.parametrize("form", list(FORMS))
def test_hand_built_response_blocks_keep_their_shape(form):
    """Blocks the course model does not write (redacted thinking) and every optional field set.

    `caller` and `toolset_name` are in ToolUseBlockParam; a `caller` of null, which `model_dump()`
    writes, is accepted by the first-party API (docs/models.md).
    """
    blocks = [
        RedactedThinkingBlock(type="redacted_thinking", data="ZGF0YQ=="),
        ThinkingBlock(type="thinking", thinking="Let me think.", signature="c2lnbmF0dXJl"),
        TextBlock(type="text", text="Reading it.", citations=None),
        ToolUseBlock(type="tool_use", id="toolu_1", name="read_file", input={"path": "a.py"}),
        ToolUseBlock(
            type="tool_use",
            id="toolu_2",
            name="read_file",
            input={"path": "b.py"},
            caller={"type": "direct"},
            toolset_name=None,
        ),
    ]
    sent = [FORMS[form](block) for block in blocks]
    if form == "objects":  # what the SDK puts on the wire for an object
        sent = [anthropic._utils._json.openapi_model_dump(block) for block in blocks]
    results = [
        {"type": "tool_result", "tool_use_id": tool_id, "content": "x = 1"}
        for tool_id in ("toolu_1", "toolu_2")
    ]
    messages = [
        {"role": "user", "content": "Read a.py and b.py."},
        {"role": "assistant", "content": sent},
        {"role": "user", "content": results},
    ]
    tools = [{"name": "read_file", "input_schema": {"type": "object"}}]
    for betas in ((), BETAS):
        validate_messages_request(body(messages, tools=tools), endpoint="count_tokens", betas=betas)
