"""Course machinery (offline course model): cache diagnostics, why a prefix missed the cache.

A request that carries `diagnostics` opts in: the course model keeps a fingerprint of it (hashes
and token estimates per part of the prompt, never the text) under the id of its response. A later
request that names that id in `diagnostics.previous_message_id` is compared with it, in the order
the documented reasons come (`types/cache_miss_reason.py` of the SDK), and the response's
`diagnostics.cache_miss_reason` says where the two first differ:

- `model_changed`: another `model` (or `speed`);
- `system_changed`: the same model, another `system`;
- `tools_changed`: the same model and system, `tools` added, removed, changed or reordered;
- `messages_changed`: an earlier entry of `messages` differs, instead of entries only appended;
- `unavailable`: model, system, tools and messages match but `thinking` or `tool_choice` differs;
- `previous_message_not_found`: no fingerprint under that id (an unknown id, or a request that
  did not opt in). It does not mean this request changed.

The first four carry `cache_missed_input_tokens`: the estimated tokens of the previous request's
prompt from the point of difference on, in cache order (tools → system → messages), which would
have been read had the prefix matched. `diagnostics` is `null` when the request did not supply it,
when `previous_message_id` is `null` (the first turn), and when nothing differs. The comparison is
about the request's structure, whether or not the cache hit. The real API may answer
`{"cache_miss_reason": null}` while its comparison is still running; the course model never does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from course_helpers.offline.tokens import Segment

_OTHER = ("thinking", "tool_choice")  # prompt-affecting parameters outside the four parts


def _hash(value: object) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Fingerprint:
    model: str
    system: str
    tools: str
    other: str
    messages: tuple[tuple[str, int], ...]  # (hash, tokens) per message
    tools_tokens: int
    system_tokens: int

    @classmethod
    def of(cls, body: dict, parts: list[Segment]) -> Fingerprint:
        tools = body.get("tools") or []
        system = body.get("system")
        systems = (1 if system else 0) if isinstance(system, str) else len(system or [])
        tool_parts, rest = parts[: len(tools)], parts[len(tools) :]
        system_parts, message_parts = rest[:systems], rest[systems:]
        per_message: dict[int, list[Segment]] = {}
        for part in message_parts:
            per_message.setdefault(part.value["m"], []).append(part)
        return cls(
            model=_hash([body.get("model"), body.get("speed")]),
            system=_hash([p.key for p in system_parts]),
            tools=_hash([p.key for p in tool_parts]),
            other=_hash([body.get(k) for k in _OTHER]),
            messages=tuple(
                (_hash([p.key for p in group]), sum(p.tokens for p in group))
                for _, group in sorted(per_message.items())
            ),
            tools_tokens=sum(p.tokens for p in tool_parts),
            system_tokens=sum(p.tokens for p in system_parts),
        )


def _reason(before: Fingerprint, now: Fingerprint) -> dict | None:
    message_tokens = sum(t for _, t in before.messages)
    everything = before.tools_tokens + before.system_tokens + message_tokens
    if before.model != now.model:
        return {"type": "model_changed", "cache_missed_input_tokens": everything}
    if before.system != now.system:
        missed = before.system_tokens + message_tokens
        return {"type": "system_changed", "cache_missed_input_tokens": missed}
    if before.tools != now.tools:
        return {"type": "tools_changed", "cache_missed_input_tokens": everything}
    for index, (key, _) in enumerate(before.messages):
        if index >= len(now.messages) or now.messages[index][0] != key:
            missed = sum(t for _, t in before.messages[index:])
            return {"type": "messages_changed", "cache_missed_input_tokens": missed}
    if before.other != now.other:
        return {"type": "unavailable"}
    return None


class Fingerprints:
    """The fingerprints of the requests that opted in, by the id of their response."""

    def __init__(self) -> None:
        self._by_id: dict[str, Fingerprint] = {}

    def diagnose(self, body: dict, parts: list[Segment], message_id: str) -> dict | None:
        """The response's `diagnostics` for this request (None: the field is null)."""
        asked = body.get("diagnostics")
        if not isinstance(asked, dict):
            return None
        now = Fingerprint.of(body, parts)
        previous_id = asked.get("previous_message_id")
        before = None if previous_id is None else self._by_id.get(previous_id)
        self._by_id[message_id] = now
        if previous_id is None:
            return None
        if before is None:
            return {"cache_miss_reason": {"type": "previous_message_not_found"}}
        reason = _reason(before, now)
        return None if reason is None else {"cache_miss_reason": reason}
