"""Course machinery (offline course model): a finished message as the server-sent events the real
API streams.

message_start → (content_block_start → content_block_delta… → content_block_stop) per block →
message_delta (stop reason, cumulative usage) → message_stop, with a ping after the start.
Text arrives in several `text_delta`s and tool input in several `input_json_delta`s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

TEXT_WORDS_PER_DELTA = 4
JSON_CHARS_PER_DELTA = 16


def frame(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _text_pieces(text: str) -> list[str]:
    words = re.findall(r"\s*\S+\s*|\s+", text)
    pieces = [
        "".join(words[i : i + TEXT_WORDS_PER_DELTA])
        for i in range(0, len(words), TEXT_WORDS_PER_DELTA)
    ]
    return pieces or [""]


def _json_pieces(raw: str) -> list[str]:
    return [raw[i : i + JSON_CHARS_PER_DELTA] for i in range(0, len(raw), JSON_CHARS_PER_DELTA)]


def _block_events(index: int, block: dict, partial_json: str | None) -> Iterator[tuple[str, dict]]:
    kind = block["type"]
    start = dict(block)
    deltas: list[dict] = []
    if kind == "text":
        start["text"] = ""
        deltas = [{"type": "text_delta", "text": p} for p in _text_pieces(block["text"])]
    elif kind in ("tool_use", "server_tool_use"):
        start["input"] = {}
        raw = partial_json if partial_json is not None else json.dumps(block["input"])
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _json_pieces(raw)]
        deltas = deltas or [{"type": "input_json_delta", "partial_json": ""}]
    elif kind == "thinking":
        start["thinking"], start["signature"] = "", ""
        deltas = [
            {"type": "thinking_delta", "thinking": p} for p in _text_pieces(block["thinking"])
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def events(message: dict, partial_json: dict[int, str] | None = None) -> Iterator[tuple[str, dict]]:
    """The (event name, data) pairs that stream `message`."""
    partial_json = partial_json or {}
    usage = message["usage"]
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": {**usage, "output_tokens": 1},
    }
    start["usage"].pop("server_tool_use", None)
    start["usage"].pop("output_tokens_details", None)  # known once the output is done
    if "context_management" in start:
        start["context_management"] = None  # known at the end: reported by message_delta
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        yield from _block_events(index, block, partial_json.get(index))
    final_usage = {
        k: usage[k]
        for k in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "server_tool_use",
            "output_tokens_details",
        )
        if k in usage
    }
    delta = {
        "stop_reason": message["stop_reason"],
        "stop_sequence": message["stop_sequence"],
        "stop_details": message.get("stop_details"),
    }
    final = {"type": "message_delta", "delta": delta, "usage": final_usage}
    if "context_management" in message:
        final["context_management"] = message["context_management"]
    yield "message_delta", final
    yield "message_stop", {"type": "message_stop"}


def stream_bytes(
    message: dict, partial_json: dict[int, str] | None = None, *, fail_after: int | None = None
) -> Iterator[bytes]:
    """The SSE body; with `fail_after`, an `error` event replaces the rest after that many frames.

    Frames of thinking blocks are not counted: the error lands in the answer itself.
    """
    thinking = {i for i, block in enumerate(message["content"]) if block["type"] == "thinking"}
    count = 0
    for name, data in events(message, partial_json):
        if data.get("index") in thinking:
            yield frame(name, data)
            continue
        count += 1
        if fail_after is not None and count > fail_after:
            error = {"type": "overloaded_error", "message": "Overloaded"}
            yield frame("error", {"type": "error", "error": error})
            return
        yield frame(name, data)
