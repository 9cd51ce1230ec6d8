"""A learner's broken agent loop fails offline exactly as it fails live: same status, type, text.

Each test starts from a correct weather conversation (the model asked for two parallel
`get_weather` calls), makes one classic mistake while sending the results back through the
real SDK, and checks the 400 the API answers with.
"""

from __future__ import annotations

import anthropic
import pytest

MISSING = (
    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)
ORPHAN = (
    "messages.{index}.content.{position}: unexpected `tool_use_id` found in `tool_result` "
    "blocks: {tool_id}. Each `tool_result` block must have a corresponding `tool_use` block in "
    "the previous message."
)


@pytest.fixture
def turn(client, kit):
    """The first turn of the weather conversation: the request and the model's tool calls."""
    question = kit.user(kit.WEATHER_QUESTION)
    reply = client.messages.create(
        model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=[question]
    )
    assert reply.stop_reason == "tool_use"
    calls = [b for b in reply.content if b.type == "tool_use"]
    assert [c.input["city"] for c in calls] == ["Paris", "Tokyo"]
    return question, reply, calls


def _result(call, kit, **extra) -> dict:
    content = kit.WEATHER_RESULTS[call.input["city"]]
    return {"type": "tool_result", "tool_use_id": call.id, "content": content, **extra}


def _rejected(client, kit, messages: list) -> str:
    """Send the conversation; it must fail with a 400 invalid_request_error. Return its message."""
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages
        )
    error = caught.value
    assert error.status_code == 400
    assert error.body["type"] == "error"
    assert error.body["error"]["type"] == "invalid_request_error"
    assert error.request_id and error.body["request_id"] == error.request_id
    return error.body["error"]["message"]


def test_a_dropping_the_tool_use_block_orphans_the_results(client, kit, turn, wire):
    question, reply, calls = turn
    # the learner kept the words, not the tool calls (nor the thinking)
    only_text = next(b.text for b in reply.content if b.type == "text")
    messages = [
        question,
        {"role": "assistant", "content": only_text},
        kit.user([_result(c, kit) for c in calls]),
    ]
    message = _rejected(client, kit, messages)
    assert message == ORPHAN.format(index=2, position=0, tool_id=calls[0].id)
    assert "unexpected `tool_use_id` found in `tool_result` blocks" in message
    assert len(wire.requests) == 2  # a 400 is a bug in the request: never retried


def test_b_parallel_results_split_over_two_messages(client, kit, turn):
    question, reply, calls = turn
    messages = [
        question,
        {"role": "assistant", "content": reply.content},
        kit.user([_result(calls[0], kit)]),
        kit.user([_result(calls[1], kit)]),
    ]
    # Checked on the messages as sent (before same-role messages merge): the first user
    # message answers Paris only, so Tokyo's call has no result immediately after.
    assert _rejected(client, kit, messages) == MISSING.format(ids=calls[1].id)


def test_c_no_tool_result_at_all(client, kit, turn):
    question, reply, calls = turn
    messages = [
        question,
        {"role": "assistant", "content": reply.content},
        kit.user("Thanks, go on."),
    ]
    message = _rejected(client, kit, messages)
    assert message == MISSING.format(ids=f"{calls[0].id}, {calls[1].id}")
    assert "`tool_use` ids were found without `tool_result` blocks immediately after" in message


def test_d_text_before_the_tool_results(client, kit, turn):
    question, reply, calls = turn
    messages = [
        question,
        {"role": "assistant", "content": reply.content},
        kit.user(
            [{"type": "text", "text": "Here are the results:"}, *(_result(c, kit) for c in calls)]
        ),
    ]
    # Only the leading run of tool_result blocks answers the calls: none here.
    assert _rejected(client, kit, messages) == MISSING.format(ids=f"{calls[0].id}, {calls[1].id}")


def test_d_text_after_the_tool_results_is_fine(client, kit, turn):
    question, reply, calls = turn
    messages = [
        question,
        {"role": "assistant", "content": reply.content},
        kit.user([*(_result(c, kit) for c in calls), {"type": "text", "text": "Anything else?"}]),
    ]
    answer = client.messages.create(
        model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages
    )
    assert answer.stop_reason == "end_turn"


def test_e_a_wrong_tool_use_id(client, kit, turn):
    question, reply, calls = turn
    wrong = "toolu_01" + "X" * 24
    results = [_result(calls[0], kit), {**_result(calls[1], kit), "tool_use_id": wrong}]
    messages = [question, {"role": "assistant", "content": reply.content}, kit.user(results)]
    # The assistant message comes first: its Tokyo call is reported unanswered.
    assert _rejected(client, kit, messages) == MISSING.format(ids=calls[1].id)


def test_e_an_extra_result_with_a_wrong_id(client, kit, turn):
    question, reply, calls = turn
    wrong = "toolu_01" + "X" * 24
    results = [*(_result(c, kit) for c in calls), {**_result(calls[0], kit), "tool_use_id": wrong}]
    messages = [question, {"role": "assistant", "content": reply.content}, kit.user(results)]
    assert _rejected(client, kit, messages) == ORPHAN.format(index=2, position=2, tool_id=wrong)


def test_e_the_same_result_twice(client, kit, turn):
    question, reply, calls = turn
    results = [*(_result(c, kit) for c in calls), _result(calls[0], kit)]
    messages = [question, {"role": "assistant", "content": reply.content}, kit.user(results)]
    assert _rejected(client, kit, messages) == (
        "messages.2.content.2: each tool_use must have a single result. Found multiple "
        f"`tool_result` blocks with id: {calls[0].id}"
    )


THINKING_WAYS = {
    "budget": ("claude-sonnet-4-6", {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
    "budget_opus_4_5": (
        "claude-opus-4-5",
        {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    ),
    "adaptive": ("claude-sonnet-5-5", {"thinking": {"type": "adaptive"}}),
    "adaptive_opus": ("claude-opus-5-5", {"thinking": {"type": "adaptive"}}),
    "adaptive_4_6": ("claude-sonnet-4-6", {"thinking": {"type": "adaptive"}}),
    "by_default": ("claude-sonnet-5-5", {}),
    "by_default_haiku": ("claude-haiku-5-5", {}),
}
MANUAL = {"budget", "budget_opus_4_5"}
NOT_FIRST = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`."
)


def _thinking_turn(client, kit, way):
    model, thinking = THINKING_WAYS[way]
    question = kit.user(kit.WEATHER_QUESTION)
    kwargs = {"model": model, "max_tokens": 2048, "tools": [kit.GET_WEATHER], **thinking}
    reply = client.messages.create(**kwargs, messages=[question])
    assert reply.content[0].type == "thinking"
    return kwargs, question, reply


def _sent_back(kit, question, reply, content):
    return [question, {"role": "assistant", "content": content}, kit.weather_results(reply)]


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("way", THINKING_WAYS)
def test_dropping_the_thinking_block(client, kit, way):
    """Manual thinking makes the block mandatory; adaptive thinking may skip it, so a turn
    without one is a history the model can write itself."""
    kwargs, question, reply = _thinking_turn(client, kit, way)
    without_thinking = [b for b in reply.content if b.type != "thinking"]
    dropped = _sent_back(kit, question, reply, without_thinking)
    if way in MANUAL:
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**kwargs, messages=dropped)
        assert caught.value.body["error"]["message"].startswith(NOT_FIRST)
    else:
        assert client.messages.create(**kwargs, messages=dropped).stop_reason == "end_turn"
    whole = _sent_back(kit, question, reply, reply.content)
    assert client.messages.create(**kwargs, messages=whole).stop_reason == "end_turn"


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("way", THINKING_WAYS)
def test_a_thinking_block_that_is_there_must_come_first(client, kit, way):
    kwargs, question, reply = _thinking_turn(client, kit, way)
    moved = [*reply.content[1:], reply.content[0]]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**kwargs, messages=_sent_back(kit, question, reply, moved))
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert caught.value.body["error"]["message"].startswith(NOT_FIRST)


MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("way", THINKING_WAYS)
@pytest.mark.parametrize("edit", ["reworded", "emptied"])
def test_an_altered_thinking_block_is_refused(client, kit, way, edit):
    kwargs, question, reply = _thinking_turn(client, kit, way)
    block = reply.content[0].to_dict()
    block["thinking"] = "I decided something else." if edit == "reworded" else ""
    altered = [block, *reply.content[1:]]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**kwargs, messages=_sent_back(kit, question, reply, altered))
    assert caught.value.body["error"]["message"] == f"messages.1.content.0: {MODIFIED}"


def test_an_altered_thinking_block_in_an_older_turn_has_an_invalid_signature(client, kit):
    kwargs, question, reply = _thinking_turn(client, kit, "adaptive")
    block = {**reply.content[0].to_dict(), "thinking": "Edited later."}
    messages = [
        *_sent_back(kit, question, reply, [block, *reply.content[1:]]),
        {"role": "assistant", "content": "Paris is rainy, Tokyo is sunny."},
        kit.user("Thanks!"),
    ]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**kwargs, messages=messages)
    assert caught.value.body["error"]["message"] == (
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    )


def test_a_signature_the_course_model_did_not_write_is_not_judged(client, kit):
    kwargs, question, reply = _thinking_turn(client, kit, "adaptive")
    foreign = {"type": "thinking", "thinking": "Recorded elsewhere.", "signature": "EqQBCkYIBx"}
    messages = _sent_back(kit, question, reply, [foreign, *reply.content[1:]])
    assert client.messages.create(**kwargs, messages=messages).stop_reason == "end_turn"


def test_g_a_tool_that_returned_none_gets_a_400_not_a_server_error(client, kit, turn, wire):
    question, reply, calls = turn
    # run_tool put the tool's return value in "content", and the tool returned None
    results = [{**_result(c, kit), "content": None} for c in calls]
    messages = [question, {"role": "assistant", "content": reply.content}, kit.user(results)]
    message = _rejected(client, kit, messages)
    assert message == "messages.2.content.0.tool_result.content: Input should be a valid list"
    assert len(wire.requests) == 2  # a bug in the request: not retried as a 500 would be
    # Leaving the field out is an empty result, which is accepted.
    empty = [{k: v for k, v in r.items() if k != "content"} for r in results]
    messages[-1] = kit.user(empty)
    assert client.messages.create(
        model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages
    ).stop_reason


def test_f_the_correct_loop_runs_to_end_turn(client, kit, turn, wire):
    question, reply, calls = turn
    messages = [question]
    response = reply
    for _ in range(5):
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            break
        calls = [b for b in response.content if b.type == "tool_use"]
        messages.append(kit.user([_result(c, kit) for c in calls]))
        response = client.messages.create(
            model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages
        )
    assert response.stop_reason == "end_turn"
    assert len(messages) == 4  # question, calls, results, answer
    text = "".join(b.text for b in response.content if b.type == "text")
    assert "Paris: 18°C, light rain" in text and "Tokyo: 24°C, sunny" in text
    assert len(wire.requests) == 2


@pytest.mark.anyio
async def test_async_client_gets_the_same_400(async_client, kit, turn):
    question, reply, calls = turn
    messages = [question, {"role": "assistant", "content": reply.content}, kit.user("Go on.")]
    with pytest.raises(anthropic.BadRequestError) as caught:
        await async_client.messages.create(
            model=kit.MODEL, max_tokens=1024, tools=[kit.GET_WEATHER], messages=messages
        )
    assert caught.value.body["error"]["message"] == MISSING.format(
        ids=f"{calls[0].id}, {calls[1].id}"
    )
