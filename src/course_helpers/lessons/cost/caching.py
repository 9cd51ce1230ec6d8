"""Prompt caching: where a loop's `cache_control` breakpoints go (built in notebook 10, step 5).

`with_cache(request)` returns a copy of a request with breakpoints on the last tool, the end of
the system prompt and the moving end of the conversation, so each call reads the previous
call's prefix from the cache. It is a function from request to request, as the loop's
`prepare` takes: `run_agent(..., prepare=with_cache)`.
"""

from __future__ import annotations

from typing import Any

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.cost.caching`. Edit those cells, then run `make promote`.


# From notebooks/10_count_the_cost.ipynb
def plain_block(block: Any) -> dict:
    """A content block as a dict without a cache_control marker (SDK objects are dumped)."""
    if not isinstance(block, dict):
        block = block.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in block.items() if k != "cache_control"}


def as_blocks(content: Any) -> list:
    """A message's content as a list (a string becomes one text block, so it never changes)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def with_cache(request: dict, ttl: str | None = None) -> dict:
    """A copy of `request` with cache_control breakpoints where a loop needs them.

    1. the last tool (the tools never change during a run),
    2. the last block of the system prompt (neither does the system prompt),
    3. the last block of the last message: the moving end, so the next call reads all of it,
    4. the last block of the message before the previous assistant turn, which this call
       reads, in case the new turn holds more than the cache's 20-block lookback.

    Other markers in the request are removed, so there are never more than four. `ttl` "1h"
    asks for the 1-hour lifetime (writes cost 2 instead of 1.25).
    """
    marker = {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}
    request = dict(request)
    if request.get("tools"):
        tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in request["tools"]]
        tools[-1]["cache_control"] = marker
        request["tools"] = tools
    if request.get("system"):
        system = [plain_block(b) for b in as_blocks(request["system"])]
        system[-1]["cache_control"] = marker
        request["system"] = system
    messages = [{**m, "content": as_blocks(m["content"])} for m in request["messages"]]
    ends = [len(messages) - 1, len(messages) - 3]
    for index in ends:
        if index < 0 or not messages[index]["content"]:
            continue
        content = [plain_block(b) for b in messages[index]["content"]]
        content[-1]["cache_control"] = marker
        messages[index] = {**messages[index], "content": content}
    for index, message in enumerate(messages):
        if index not in ends:
            message["content"] = [
                plain_block(b) if isinstance(b, dict) else b for b in message["content"]
            ]
    request["messages"] = messages
    return request
