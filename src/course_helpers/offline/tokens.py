"""Course machinery (offline course model): token estimates and prompt-cache accounting.

The course model has no tokenizer: it estimates one token per four characters of the text and
JSON a request carries. The numbers are estimates (notebooks say so), but they are consistent:
`create`, streaming and `count_tokens` give the same count for the same request.

Prompt caching follows the documented rules in a simplified form:
- the cacheable prefix runs in the order tools → system → messages;
- a `cache_control` breakpoint on a block marks the end of a prefix to cache;
- a prefix shorter than `MIN_CACHEABLE_TOKENS` is not cached;
- a request reads the longest prefix that an earlier request wrote (looking back from each
  breakpoint over the preceding block boundaries) and writes the prefixes of its breakpoints
  beyond that;
- entries live five minutes (or an hour with `"ttl": "1h"`), refreshed on every read;
- a top-level `cache_control` (automatic caching) puts one more breakpoint on the last
  cacheable block of the request, so it moves forward as the conversation grows; thinking
  blocks and empty text are not cacheable and are skipped (see `automatic_breakpoint`).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass, field

MIN_CACHEABLE_TOKENS = 1024
LOOKBACK_BLOCKS = 20
IMAGE_TOKENS = 1500
MESSAGE_OVERHEAD = 4
REQUEST_OVERHEAD = 8


def estimate(text: str) -> int:
    """About four characters a token; any non-empty text is at least one token."""
    return math.ceil(len(text) / 4) if text else 0


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def block_tokens(block: object) -> int:
    """Estimated tokens of one content block as the model would read it."""
    if isinstance(block, str):
        return estimate(block)
    if not isinstance(block, dict):
        return estimate(_json(block))
    kind = block.get("type")
    if kind == "text":
        return estimate(block.get("text", ""))
    if kind in ("image", "document"):
        return IMAGE_TOKENS
    if kind == "thinking":
        return estimate(block.get("thinking", ""))
    if kind in ("tool_use", "server_tool_use"):
        return estimate(block.get("name", "")) + estimate(_json(block.get("input", {}))) + 4
    if kind == "tool_result":
        content = block.get("content") or ""
        if isinstance(content, str):
            return estimate(content) + 4
        return sum(block_tokens(b) for b in content) + 4
    stripped = {k: v for k, v in block.items() if k != "cache_control"}
    return estimate(_json(stripped))


def tool_tokens(tool: dict) -> int:
    stripped = {k: v for k, v in tool.items() if k != "cache_control"}
    return estimate(_json(stripped)) + 4


def _unmarked(value: object) -> object:
    """`value` without `cache_control`, at its top level or on the block of a message part."""
    if not isinstance(value, dict):
        return value
    value = {k: v for k, v in value.items() if k != "cache_control"}
    if isinstance(value.get("b"), dict):
        value["b"] = {k: v for k, v in value["b"].items() if k != "cache_control"}
    return value


@dataclass
class Segment:
    """One block of the prompt in cache order, with its size and cache marker."""

    value: object
    tokens: int
    breakpoint: str | None  # None, "5m" or "1h"

    @property
    def key(self) -> str:
        """The block as cached text, without its marker (computed only when caching is used)."""
        return _json(_unmarked(self.value))


# Blocks that cannot carry a breakpoint: the automatic one goes on the block before them.
UNCACHEABLE_BLOCKS = ("thinking", "redacted_thinking")


def _ttl(marker: object) -> str | None:
    if isinstance(marker, dict) and marker.get("type") == "ephemeral":
        return marker.get("ttl") or "5m"
    return None


def _cacheable(part: Segment) -> bool:
    value = part.value
    block = value.get("b") if isinstance(value, dict) and "m" in value else value
    if isinstance(block, str):
        return bool(block)
    if not isinstance(block, dict):
        return False
    if block.get("type") in UNCACHEABLE_BLOCKS:
        return False
    return not (block.get("type") == "text" and not block.get("text"))


def automatic_breakpoint(body: dict, parts: list[Segment]) -> int | None:
    """Where a top-level `cache_control` puts its breakpoint: the last cacheable block.

    The prompt is read in cache order (tools, system, messages), so the last cacheable block
    is the last content block of the last message that can carry a marker, else the end of
    the system prompt, else the last tool. A block that already carries its own marker keeps
    it (same place, one prefix).
    """
    if _ttl(body.get("cache_control")) is None:
        return None
    for index in range(len(parts) - 1, -1, -1):
        if _cacheable(parts[index]):
            return index
    return None


def segments(body: dict) -> list[Segment]:
    """The prompt as a list of blocks in cache order: tools, then system, then messages."""
    parts: list[Segment] = []

    def add(value: object, tokens: int, marker: object) -> None:
        ttl = _ttl(marker)
        # The marker is not part of the cached text: a block keeps its cache key when the
        # breakpoint moves on to a later block (the "moving end" of a conversation).
        parts.append(Segment(value, tokens, ttl))

    for tool in body.get("tools") or []:
        add(tool, tool_tokens(tool), tool.get("cache_control"))
    system = body.get("system")
    if isinstance(system, str) and system:
        add(system, estimate(system), None)
    elif isinstance(system, list):
        for block in system:
            add(block, block_tokens(block), block.get("cache_control"))
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        # A string is one text block: the same prompt, so the same cache key.
        text = [{"type": "text", "text": content}] if isinstance(content, str) else None
        blocks = text or list(content or [])
        for position, block in enumerate(blocks):
            tokens = block_tokens(block) + (MESSAGE_OVERHEAD if position == 0 else 0)
            marker = block.get("cache_control") if isinstance(block, dict) else None
            add({"m": index, "role": message.get("role"), "b": block}, tokens, marker)
    point = automatic_breakpoint(body, parts)
    if point is not None and parts[point].breakpoint is None:
        parts[point].breakpoint = _ttl(body["cache_control"])
    return parts


def input_tokens(body: dict, parts: list[Segment] | None = None) -> int:
    """The whole prompt's estimated size: what count_tokens answers."""
    parts = segments(body) if parts is None else parts
    return REQUEST_OVERHEAD + sum(s.tokens for s in parts)


def output_tokens(content: list[dict]) -> int:
    return sum(block_tokens(b) for b in content)


@dataclass
class CacheUse:
    read: int = 0
    written: int = 0
    written_1h: int = 0


@dataclass
class PromptCache:
    """Prefixes written by earlier requests, keyed by a hash of model and prefix."""

    entries: dict[str, float] = field(default_factory=dict)  # key -> expiry time
    clock: object = time.monotonic

    def account(self, body: dict, parts: list[Segment] | None = None) -> CacheUse:
        parts = segments(body) if parts is None else parts
        if not any(p.breakpoint for p in parts):
            return CacheUse()
        now = self.clock()
        prefix_keys, totals = [], []
        running = hashlib.sha256(str(body.get("model")).encode())
        total = REQUEST_OVERHEAD
        for part in parts:
            running.update(part.key.encode())
            prefix_keys.append(running.hexdigest())
            total += part.tokens
            totals.append(total)
        breakpoints = [i for i, p in enumerate(parts) if p.breakpoint]
        read_at = -1
        for point in breakpoints:
            for i in range(point, max(-1, point - LOOKBACK_BLOCKS), -1):
                if self.entries.get(prefix_keys[i], -1) > now and i > read_at:
                    read_at = i
                    break
        use = CacheUse(read=totals[read_at] if read_at >= 0 else 0)
        if read_at >= 0:
            self.entries[prefix_keys[read_at]] = now + 300
        covered = use.read
        for point in breakpoints:
            if point <= read_at or totals[point] < MIN_CACHEABLE_TOKENS:
                continue
            ttl = parts[point].breakpoint
            self.entries[prefix_keys[point]] = now + (3600 if ttl == "1h" else 300)
            if ttl == "1h":
                use.written_1h += totals[point] - covered
            use.written += totals[point] - covered
            covered = totals[point]
        return use
