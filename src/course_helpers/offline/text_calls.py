"""Course machinery (offline course model): tool calls a program writes back as text.

Some agent frameworks (smolagents' tool-calling agent, through litellm) send the model's earlier
calls back as the assistant's text, "Calling tools:" and the list of calls, and their results as
the next user text, "Observation:" and what the tools returned. A model reads that transcript as
its own calls and their results. The course model does too: before it reads the request, each
such assistant text becomes the `tool_use` blocks it lists (only calls to offered tools), and the
observation right after it becomes their `tool_result` blocks. The request itself (what is
validated and counted) is not changed.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from course_helpers.offline.conversation import blocks_of

_CALLING = re.compile(r"^\s*Calling tools:\s*\n", re.MULTILINE)
_OBSERVATION = re.compile(r"^\s*Observation:\s*\n?", re.IGNORECASE)


def read_text_calls(body: dict) -> dict:
    """`body` with written-out calls and observations as tool_use and tool_result blocks."""
    offered = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    messages = body.get("messages")
    if not offered or not isinstance(messages, list):
        return body
    read: list[Any] = []
    pending: list[dict] = []
    for message in messages:
        if not isinstance(message, dict):
            read.append(message)
            continue
        said = "\n".join(b.get("text", "") for b in blocks_of(message) if b.get("type") == "text")
        if message.get("role") == "assistant" and not _has(message, "tool_use"):
            calls = _calls_in(said, offered)
            if calls:
                before = _CALLING.split(said, maxsplit=1)[0].strip()
                content = ([{"type": "text", "text": before}] if before else []) + calls
                read.append({**message, "content": content})
                pending = calls
                continue
        if message.get("role") == "user" and pending and _OBSERVATION.match(said):
            read.append({**message, "content": _results(pending, _OBSERVATION.sub("", said, 1))})
            pending = []
            continue
        pending = []
        read.append(message)
    return {**body, "messages": read}


def _has(message: dict, kind: str) -> bool:
    return any(b.get("type") == kind for b in blocks_of(message))


def _calls_in(said: str, offered: set) -> list[dict]:
    """The tool_use blocks a "Calling tools:" list names, when every call is to an offered tool."""
    found = _CALLING.search(said)
    if found is None:
        return []
    listed = _literal(said[found.end() :].strip())
    if not isinstance(listed, list) or not listed:
        return []
    calls = []
    for index, call in enumerate(listed):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or function.get("name") not in offered:
            return []
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            arguments = _literal(arguments)
        calls.append(
            {
                "type": "tool_use",
                "id": str(call.get("id") or f"toolu_text_{index}"),
                "name": function["name"],
                "input": arguments if isinstance(arguments, dict) else {},
            }
        )
    return calls


def _literal(written: str) -> Any:
    for read in (json.loads, ast.literal_eval):
        try:
            return read(written)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _results(calls: list[dict], observed: str) -> list[dict]:
    """One tool_result per call: a line each when the observation has one line per call."""
    lines = [line for line in observed.strip().splitlines() if line.strip()]
    parts = lines if len(lines) == len(calls) else [observed.strip()] * len(calls)
    return [
        {"type": "tool_result", "tool_use_id": call["id"], "content": part}
        for call, part in zip(calls, parts, strict=True)
    ]
