"""Streaming speaks the real SSE sequence and rebuilds exactly the message `create` returns."""

from __future__ import annotations

import json
import re

import pytest

from course_helpers.offline.sse import JSON_CHARS_PER_DELTA, TEXT_WORDS_PER_DELTA

HEADERS = {"x-api-key": "k", "content-type": "application/json", "anthropic-version": "2023-06-01"}
ORDER = re.compile(
    r"message_start( content_block_start( content_block_delta)* content_block_stop)*"
    r" message_delta message_stop"
)


def _dump(message) -> dict:
    """`model_dump()` without what the stream accumulator adds (`parsed_output`)."""
    data = message.model_dump()
    for block in data["content"]:
        block.pop("parsed_output", None)
    return data


def _prepared(case, app, client) -> dict:
    kwargs = case.kwargs(client)
    if case.fault:
        app.faults.inject(case.fault)
    return kwargs


def _sse_frames(raw: bytes) -> list[tuple[str, dict]]:
    """Parse an SSE body strictly: every frame has one `event:` line and one JSON `data:` line."""
    text = raw.decode()
    assert text.endswith("\n\n")
    frames = []
    for chunk in text[:-2].split("\n\n"):
        event, data = chunk.split("\n")
        assert event.startswith("event: ") and data.startswith("data: ")
        frames.append((event.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return frames


def _stream_frames(case, client, wire) -> list[tuple[str, dict]]:
    """The frames the app streams for this case, read straight from `dispatch`."""
    kwargs = case.kwargs(client)
    client.messages.create(**kwargs)  # to capture the exact body the SDK sends
    body = json.loads(wire.requests[-1].content) | {"stream": True}
    if case.fault:
        wire.app.faults.inject(case.fault)
    reply = wire.app.dispatch("POST", "/v1/messages", HEADERS, json.dumps(body).encode())
    assert reply.status == 200 and reply.headers["content-type"] == "text/event-stream"
    return _sse_frames(b"".join(reply.chunks()))


def test_stream_final_message_equals_create(case, app, client):
    created = client.messages.create(**_prepared(case, app, client))
    with client.messages.stream(**_prepared(case, app, client)) as stream:
        streamed = stream.get_final_message()
    assert _dump(streamed) == _dump(created)
    assert streamed.stop_reason == case.stop_reason


@pytest.mark.anyio
async def test_async_stream_final_message_equals_create(case, app, client, async_client):
    created = client.messages.create(**_prepared(case, app, client))
    async with async_client.messages.stream(**_prepared(case, app, client)) as stream:
        streamed = await stream.get_final_message()
    assert _dump(streamed) == _dump(created)


def test_event_order_is_the_api_sequence(case, client, wire):
    frames = _stream_frames(case, client, wire)
    names = [name for name, _ in frames]
    assert all(data["type"] == name for name, data in frames)
    assert ORDER.fullmatch(" ".join(n for n in names if n != "ping")), names
    assert "ping" in names
    # content block events carry the index of the block they build, counting from 0
    starts = [d["index"] for n, d in frames if n == "content_block_start"]
    assert starts == list(range(len(starts)))
    current, deltas = None, {}
    for name, data in frames:
        if name == "content_block_start":
            current = data["index"]
            deltas[current] = (data["content_block"]["type"], 0)
        elif name in ("content_block_delta", "content_block_stop"):
            assert data["index"] == current
        if name == "content_block_delta":
            kind, count = deltas[current]
            deltas[current] = (kind, count + 1)
    # every block streams at least one delta, except a server tool's result, which the API
    # sends whole in its content_block_start
    for kind, count in deltas.values():
        assert count == 0 if kind == "web_search_tool_result" else count >= 1, deltas
    start = frames[0][1]["message"]
    assert (start["content"], start["stop_reason"], start["stop_sequence"]) == ([], None, None)


def test_raw_stream_yields_the_same_events(case, app, client, wire):
    frames = [(n, d) for n, d in _stream_frames(case, client, wire) if n != "ping"]
    if case.fault:
        app.faults.inject(case.fault)
    events = list(client.messages.create(**case.kwargs(client), stream=True))
    assert [e.type for e in events] == [name for name, _ in frames]
    for event, (_, data) in zip(events, frames, strict=True):
        assert event.to_dict() == data


def test_deltas_are_split(case, client, wire):
    frames = _stream_frames(case, client, wire)
    deltas: dict[int, list[dict]] = {}
    for name, data in frames:
        if name == "content_block_delta":
            deltas.setdefault(data["index"], []).append(data["delta"])
    blocks = [d["content_block"] for n, d in frames if n == "content_block_start"]
    for index, block in enumerate(blocks):
        kinds = {d["type"] for d in deltas.get(index, [])}
        if block["type"] == "text":
            assert kinds == {"text_delta"}
            text = "".join(d["text"] for d in deltas[index])
            if len(text.split()) > TEXT_WORDS_PER_DELTA:
                assert len(deltas[index]) > 1
        elif block["type"] in ("tool_use", "server_tool_use"):
            assert kinds == {"input_json_delta"}
            raw = "".join(d["partial_json"] for d in deltas[index])
            if len(raw) > JSON_CHARS_PER_DELTA:
                assert len(deltas[index]) > 1
        else:
            assert block["type"] in ("thinking", "web_search_tool_result")


def _delta_counts(client, kwargs) -> list[tuple[str, int]]:
    counts: list[tuple[str, int]] = []
    for event in client.messages.create(**kwargs, stream=True):
        if event.type == "content_block_start":
            counts.append((event.content_block.type, 0))
        elif event.type == "content_block_delta":
            kind, count = counts[event.index]
            counts[event.index] = (kind, count + 1)
    return counts


def test_text_and_tool_input_arrive_in_several_deltas(client, kit):
    weather = _delta_counts(client, kit.ask(kit.WEATHER_QUESTION, tools=[kit.GET_WEATHER]))
    assert [kind for kind, _ in weather] == ["thinking", "text", "tool_use", "tool_use"]
    assert all(count > 1 for _, count in weather), weather
    essay = _delta_counts(client, kit.ask("Write a long essay about agents.", max_tokens=4096))
    assert essay[0][0] == "thinking" and essay[0][1] > 1  # thinking_delta(s), signature_delta
    assert essay[1] == ("text", essay[1][1]) and essay[1][1] > 100


def test_text_stream_gives_the_text(client, kit):
    kwargs = kit.ask("Write a long essay about agents.", max_tokens=4096)
    created = client.messages.create(**kwargs)
    with client.messages.stream(**kwargs) as stream:
        pieces = list(stream.text_stream)
    assert len(pieces) > 100
    assert "".join(pieces) == "".join(b.text for b in created.content if b.type == "text")


def test_message_delta_usage_is_cumulative(client, kit):
    kwargs = kit.ask(kit.WEATHER_QUESTION, tools=[kit.GET_WEATHER])
    created = client.messages.create(**kwargs)
    events = list(client.messages.create(**kwargs, stream=True))
    start, delta = events[0], events[-2]
    assert (start.type, delta.type) == ("message_start", "message_delta")
    # message_start: the prompt, and output so far; message_delta: the totals, not increments
    assert start.message.usage.input_tokens == created.usage.input_tokens
    assert start.message.usage.output_tokens < created.usage.output_tokens
    assert delta.usage.input_tokens == created.usage.input_tokens
    assert delta.usage.output_tokens == created.usage.output_tokens
    assert delta.usage.cache_read_input_tokens == created.usage.cache_read_input_tokens == 0


def test_tool_use_cut_by_max_tokens_has_the_same_partial_input_both_ways(client, kit):
    created = client.messages.create(**kit.CUT_IN_TOOL_USE)
    events = list(client.messages.create(**kit.CUT_IN_TOOL_USE, stream=True))
    with client.messages.stream(**kit.CUT_IN_TOOL_USE) as stream:
        streamed = stream.get_final_message()

    raw = "".join(
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.index == 2 and e.delta.type == "input_json_delta"
    )
    assert raw == '{"city": "Tokyo"'  # not valid JSON: the block was cut
    assert created.stop_reason == streamed.stop_reason == "max_tokens"
    assert created.content[2].input == streamed.content[2].input == {"city": "Tokyo"}
    assert created.content[2].id == streamed.content[2].id
