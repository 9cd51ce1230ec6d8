"""A top-level `cache_control` (automatic caching) caches up to the last cacheable block.

The SDK's `messages.create`, `messages.count_tokens` and their beta twins take it; the course
model puts one breakpoint on the last cacheable block, so it moves with the conversation.
"""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from course_helpers.offline.tokens import MIN_CACHEABLE_TOKENS, automatic_breakpoint, segments

AUTO = {"type": "ephemeral"}
# About 1 300 estimated tokens: above the 1 024-token minimum for a cached prefix.
LONG_SYSTEM = "You are the course's helpful reviewer. Answer briefly and cite files. " * 75
COUNTED = ("model", "messages", "system", "tools", "cache_control")


def _request(kit, messages: list[dict], **extra: Any) -> dict:
    return {
        "model": kit.MODEL,
        "max_tokens": 1024,
        "system": LONG_SYSTEM,
        "messages": messages,
        "cache_control": AUTO,
        **extra,
    }


def _count(client, kwargs: dict) -> int:
    return client.messages.count_tokens(
        **{k: v for k, v in kwargs.items() if k in COUNTED}
    ).input_tokens


def _total(usage) -> int:
    return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens


def _refusal(create, **kwargs: Any) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(**kwargs)
    return caught.value.body["error"]["message"]


def test_the_same_request_twice_writes_then_reads(client, kit):
    kwargs = _request(kit, [kit.user("Hello")])
    total = _count(client, kwargs)
    assert total > MIN_CACHEABLE_TOKENS

    first = client.messages.create(**kwargs).usage
    # the breakpoint sits on the last block: the whole prompt is written
    assert (first.cache_creation_input_tokens, first.cache_read_input_tokens) == (total, 0)
    assert first.input_tokens == 0
    assert first.cache_creation.ephemeral_5m_input_tokens == total

    second = client.messages.create(**kwargs).usage
    assert (second.cache_read_input_tokens, second.cache_creation_input_tokens) == (total, 0)
    assert _total(second) == total


def test_without_it_nothing_is_cached(client, kit):
    kwargs = _request(kit, [kit.user("Hello")])
    del kwargs["cache_control"]
    for _ in range(2):
        usage = client.messages.create(**kwargs).usage
        assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0


def test_the_breakpoint_moves_with_the_conversation(client, kit):
    question = kit.user(kit.WEATHER_QUESTION)
    turn1 = _request(kit, [question], tools=[kit.GET_WEATHER])
    first = client.messages.create(**turn1)
    written = first.usage.cache_creation_input_tokens
    assert written == _count(client, turn1) > MIN_CACHEABLE_TOKENS

    history = [question, {"role": "assistant", "content": first.content}]
    turn2 = {**turn1, "messages": [*history, kit.weather_results(first)]}
    second = client.messages.create(**turn2)
    total = _count(client, turn2)
    # the old end is read back, only the new turns are written, the new end is cached
    assert second.usage.cache_read_input_tokens == written
    assert second.usage.cache_creation_input_tokens == total - written > 0
    assert second.usage.input_tokens == 0

    again = client.messages.create(**turn2).usage
    assert (again.cache_read_input_tokens, again.cache_creation_input_tokens) == (total, 0)


def test_below_the_minimum_nothing_is_cached(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], system="Be brief.")
    assert _count(client, kwargs) < MIN_CACHEABLE_TOKENS
    for _ in range(2):
        usage = client.messages.create(**kwargs).usage
        assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0


def test_one_hour_ttl_is_reported_apart(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], cache_control={**AUTO, "ttl": "1h"})
    usage = client.messages.create(**kwargs).usage
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == 0


def test_count_tokens_accepts_it_and_counts_the_same(client, kit):
    kwargs = _request(kit, [kit.user("Hello")])
    without = {k: v for k, v in kwargs.items() if k != "cache_control"}
    assert _count(client, kwargs) == _count(client, without)
    beta = client.beta.messages.count_tokens(
        **{k: v for k, v in kwargs.items() if k in COUNTED}
    ).input_tokens
    assert beta == _count(client, without)


def test_the_beta_endpoint_caches_the_same_way(client, kit):
    kwargs = _request(kit, [kit.user("Hello")])
    first = client.beta.messages.create(**kwargs).usage
    second = client.beta.messages.create(**kwargs).usage
    assert first.cache_creation_input_tokens == second.cache_read_input_tokens > 0


# -- the limit of four breakpoints, counted together with block markers ----------------------
def _marked_system(count: int) -> list[dict]:
    return [
        {"type": "text", "text": f"Part {n}. " + LONG_SYSTEM, "cache_control": AUTO}
        for n in range(count)
    ]


def test_three_block_markers_and_the_automatic_one_are_accepted(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], system=_marked_system(3))
    usage = client.messages.create(**kwargs).usage
    assert usage.cache_creation_input_tokens == _count(client, kwargs)


def test_four_block_markers_and_the_automatic_one_are_refused(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], system=_marked_system(4))
    wording = "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert _refusal(client.messages.create, **kwargs) == wording
    counted = {k: v for k, v in kwargs.items() if k in COUNTED}
    assert _refusal(client.messages.count_tokens, **counted) == wording
    del kwargs["cache_control"]
    client.messages.create(**kwargs)  # the four block markers alone are fine


def test_a_marker_on_the_last_block_and_the_automatic_one_cache_one_prefix(client, kit):
    last = {"type": "text", "text": "Hello", "cache_control": AUTO}
    kwargs = _request(kit, [kit.user([last])])
    total = _count(client, kwargs)
    first = client.messages.create(**kwargs).usage
    assert first.cache_creation_input_tokens == total  # written once, not twice
    second = client.messages.create(**kwargs).usage
    assert second.cache_read_input_tokens == total


# -- its shape: the same refusals as a block marker's, with the top-level path ---------------
@pytest.mark.parametrize(
    ("marker", "wording"),
    [
        ("ephemeral", "cache_control: Input should be a valid dictionary"),
        (
            {"type": "persistent"},
            "cache_control: Input tag 'persistent' found using 'type' does not match any of "
            "the expected tags: 'ephemeral'",
        ),
        (
            {"type": "ephemeral", "ttl": "2h"},
            "cache_control.ephemeral.ttl: Input should be '5m' or '1h'",
        ),
    ],
    ids=["not-a-dict", "unknown-type", "unknown-ttl"],
)
def test_an_invalid_top_level_marker_is_refused(client, kit, marker, wording):
    kwargs = _request(kit, [kit.user("Hello")], cache_control=marker)
    assert _refusal(client.messages.create, **kwargs) == wording
    assert _refusal(client.beta.messages.create, **kwargs) == wording


def test_none_is_no_marker(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], cache_control=None)
    usage = client.messages.create(**kwargs).usage
    assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0


# -- TTL order: no `1h` breakpoint after a `5m` one, the automatic one coming last -----------
TTL_ORDER = (
    "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
    "Note that blocks are processed in the following order: `tools`, `system`, `messages`."
)


def _system(*ttls: str | None) -> list[dict]:
    blocks = []
    for n, ttl in enumerate(ttls):
        marker = AUTO if ttl is None else {**AUTO, "ttl": ttl}
        blocks.append(
            {"type": "text", "text": f"Part {n}. " + LONG_SYSTEM, "cache_control": marker}
        )
    return blocks


def test_a_one_hour_automatic_breakpoint_after_a_five_minute_marker_is_refused(client, kit):
    for earlier in (None, "5m"):
        kwargs = _request(kit, [kit.user("Hello")], system=_system(earlier))
        kwargs["cache_control"] = {**AUTO, "ttl": "1h"}
        assert _refusal(client.messages.create, **kwargs) == f"cache_control.ttl: {TTL_ORDER}"


def test_a_five_minute_automatic_breakpoint_after_a_one_hour_marker_is_accepted(client, kit):
    kwargs = _request(kit, [kit.user("Hello")], system=_system("1h"))
    usage = client.messages.create(**kwargs).usage
    assert usage.cache_creation.ephemeral_1h_input_tokens > 0
    assert usage.cache_creation.ephemeral_5m_input_tokens > 0
    assert usage.cache_creation_input_tokens == _count(client, kwargs)


def test_block_markers_follow_the_same_order(client, kit):
    refused = _request(kit, [kit.user("Hello")], system=_system("5m", "1h"))
    del refused["cache_control"]
    assert _refusal(client.messages.create, **refused) == f"system.1.cache_control.ttl: {TTL_ORDER}"
    tool = {**kit.GET_WEATHER, "cache_control": AUTO}
    late = {"type": "text", "text": "Hello", "cache_control": {**AUTO, "ttl": "1h"}}
    across = _request(kit, [kit.user([late])], system=LONG_SYSTEM, tools=[tool])
    del across["cache_control"]
    wording = f"messages.0.content.0.cache_control.ttl: {TTL_ORDER}"
    assert _refusal(client.messages.create, **across) == wording
    client.messages.create(**{**refused, "system": _system("1h", "5m")})


# -- which block is the last cacheable one -----------------------------------------------------
def _where(body: dict) -> object:
    parts = segments(body)
    point = automatic_breakpoint(body, parts)
    return None if point is None else parts[point].value


def test_the_last_cacheable_block_skips_thinking_blocks():
    thinking = {"type": "thinking", "thinking": "Look it up.", "signature": "sig"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}}
    body = {
        "model": "m",
        "cache_control": AUTO,
        "messages": [
            {"role": "user", "content": "Read a."},
            {"role": "assistant", "content": [call, thinking]},
        ],
    }
    assert _where(body) == {"m": 1, "role": "assistant", "b": call}


def test_without_messages_content_the_system_prompt_then_the_tools_are_last():
    tool = {"name": "read_file", "input_schema": {"type": "object"}}
    body = {"model": "m", "cache_control": AUTO, "tools": [tool], "system": "Be brief."}
    body["messages"] = [{"role": "user", "content": ""}]
    assert _where(body) == "Be brief."
    del body["system"]
    assert _where(body) == tool
    del body["cache_control"]
    assert _where(body) is None
