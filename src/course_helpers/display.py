"""Show a conversation (the `messages` list and a response) as a readable transcript.

Used from notebook 01 on. In Jupyter a transcript renders as self-contained HTML; everywhere
else (stored notebook outputs, GitHub, a terminal, doctests) it is deterministic plain text::

    ── user ────────────────────────────────────────────────────────────────
    What's the weather in Paris?
    ── assistant ──────────────────────────────── tool_use · in 412 · out 38
    [tool_use #1 get_weather] {"city": "Paris"}

Every `tool_use` id gets a short label (`#1`, `#2`, ...) in order of appearance, and the
`tool_result` that answers it shows the same label, so the pairing the API insists on can be
seen at a glance. A result shows no tool name: a `tool_result` block carries only the id of
its call. A result that answers no earlier call is flagged.

The display never raises on odd input: a learner's broken list is exactly what it must show.
"""

from __future__ import annotations

import hashlib
import html
import json
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course_helpers.truncate import visible

__all__ = [
    "MAX_LINES",
    "Transcript",
    "normalize",
    "render_html",
    "render_text",
    "show",
    "show_message",
    "to_plain",
]

WIDTH = 100  # no text/plain line is longer than this
HEADER_WIDTH = 72  # turn headers are padded with ─ to this width
MAX_LINES = 20  # long text is folded after this many lines
THINKING_LINES = 3  # thinking is collapsed to this many lines in text/plain
ORPHAN = "(no matching tool_use)"
_MISSING = object()  # a key that is absent, as opposed to None
_EMPTY = "empty content (allowed only in a final assistant message)"


# ── plain data ──────────────────────────────────────────────────────────────────────────────


def to_plain(obj: Any) -> Any:
    """Return `obj` as JSON-ready plain data (dicts, lists, str, numbers, bool, None).

    SDK objects and other pydantic models are dumped with
    `model_dump(mode="json", exclude_none=True)` (or `to_dict()`), so a `ToolUseBlock`
    becomes the same dict you would have written by hand. Anything else that cannot be
    represented becomes a short `<TypeName>` string: never a repr with a memory address.
    """
    return _plain(obj, set())


def _plain(obj: Any, path: set[int]) -> Any:
    """Convert `obj` recursively; `path` holds the containers being converted (cycle guard)."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if id(obj) in path:
        return "<cycle>"
    path = path | {id(obj)}
    if isinstance(obj, Mapping):
        return {str(key): _plain(value, path) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(item, path) for item in obj]
    dumped = _dump_model(obj)
    if dumped is not None:
        return _plain(dumped, path)
    if isinstance(obj, bytes | bytearray):
        return f"<{len(obj)} bytes>"
    return f"<{type(obj).__name__}>"


def _dump_model(obj: Any) -> dict | list | None:
    """Dump a pydantic / SDK object to plain data, or return None if it is not one."""
    dumpers = (
        lambda: obj.model_dump(mode="json", exclude_none=True, by_alias=True),
        lambda: obj.to_dict(),
    )
    for dump in dumpers:
        try:
            result = dump()
        except Exception:
            continue
        if isinstance(result, dict | list):
            return result
    return None


def _as_list(messages: Any) -> list[Any]:
    """Accept a list of messages, one message, None or any iterable; never raise."""
    if messages is None:
        return []
    if isinstance(messages, str | bytes | Mapping) or _dump_model(messages) is not None:
        return [messages]
    if isinstance(messages, Iterable):
        try:
            return list(messages)
        except Exception:
            return [messages]
    return [messages]


def normalize(messages: Any) -> list[dict[str, Any]]:
    """Return `messages` as a list of plain message dicts, SDK objects turned into dicts.

    Content blocks such as `TextBlock` or `ToolUseBlock` (what `response.content` holds)
    become the dicts the API documents. Items that are not messages at all are wrapped as
    `{"role": None, "content": <item as plain data>}` so callers can always index them.
    """
    result = []
    for item in _as_list(messages):
        plain = to_plain(item)
        result.append(plain if isinstance(plain, dict) else {"role": None, "content": plain})
    return result


# ── the view: what each turn and block shows, shared by text and HTML ─────────────────────


@dataclass
class Block:
    """One content block, resolved for display (labels looked up, notes attached)."""

    kind: str  # text, tool_use, tool_result, thinking, redacted, search, media, unknown, note
    type: str = ""
    text: str = ""
    data: Any = None
    name: str = ""
    label: str = ""
    ref: str = ""
    anchor: bool = False  # the first block with this label carries the HTML anchor
    error: bool = False
    orphan: bool = False
    note: str = ""
    children: list[Block] = field(default_factory=list)
    results: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Turn:
    """One message of the conversation, with its blocks and (for responses) stop and usage."""

    role: str
    blocks: list[Block]
    index: int | None = None  # position in `messages`; None for the response
    stop_reason: str | None = None
    stop_detail: str = ""
    usage: dict | None = None
    note: str = ""
    content: Any = None  # plain content, to recognise a response already appended


class _Links:
    """Give tool_use ids short labels and find the call a result answers."""

    def __init__(self) -> None:
        self.labels: dict[str, str] = {}
        self.names: dict[str, str] = {}

    def call(self, tool_id: Any, name: str) -> tuple[str, bool]:
        """Label a call; return (label, first) where `first` is False for a repeated id."""
        key = tool_id if isinstance(tool_id, str) and tool_id else None
        if key in self.labels:
            return self.labels[key], False
        label = f"#{len(self.labels) + 1}"
        self.labels[key if key is not None else f"\0{label}"] = label
        if key is not None:
            self.names[key] = name
        return label, True

    def result(self, tool_id: Any) -> tuple[str, str] | None:
        """Return (label, tool name) of the earlier call with this id, or None."""
        if isinstance(tool_id, str) and tool_id in self.labels:
            return self.labels[tool_id], self.names.get(tool_id, "")
        return None


def _text(value: Any) -> str:
    """A display string for a name or id that may be missing or of the wrong type."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _call_block(raw: dict, links: _Links, kind: str) -> Block:
    """tool_use and server_tool_use: label the id, keep the input for JSON display."""
    name = _text(raw.get("name"))
    label, first = links.call(raw.get("id"), name)
    block = Block(kind, raw.get("type", kind), data=raw.get("input"), name=name, label=label)
    block.ref, block.anchor = _text(raw.get("id")), first
    if not first:
        block.note = "duplicate id"
    elif not block.ref:
        block.note = "no id"
    return block


def _link(block: Block, raw: dict, links: _Links) -> Block:
    """Point a result block at its call: label and name, or the orphan flag."""
    block.ref = _text(raw.get("tool_use_id"))
    found = links.result(raw.get("tool_use_id"))
    if found is None:
        block.orphan = True
    else:
        block.label, block.name = found
    return block


def _tool_result(raw: dict, links: _Links) -> Block:
    """tool_result: linked to its call; content (str or blocks) shown as children."""
    block = _link(
        Block("tool_result", "tool_result", error=raw.get("is_error") is True), raw, links
    )
    block.name = ""  # a tool_result carries only its call's id, not the tool's name
    content = raw.get("content")
    if isinstance(content, str):
        block.children = [Block("text", "text", text=content)]
    elif isinstance(content, list):
        block.children = [_block(item, links) for item in content]
    elif content is not None:
        block.children = [_unknown(content, "content should be a string or a list of blocks")]
    return block


def _search_result(raw: dict, links: _Links) -> Block:
    """web_search_tool_result: a list of titles and urls, or an error code."""
    block = _link(Block("search", raw.get("type", "")), raw, links)
    content = raw.get("content")
    if isinstance(content, list):
        for item in content:
            item = item if isinstance(item, dict) else {}
            block.results.append((_text(item.get("title")), _text(item.get("url"))))
        block.text = f"{len(block.results)} result" + ("" if len(block.results) == 1 else "s")
    elif isinstance(content, dict):
        block.error = True
        block.text = _text(content.get("error_code")) or json.dumps(content)
    return block


def _media(raw: dict, links: _Links) -> Block:
    """image and document: a placeholder naming the source, never the data."""
    source = raw.get("source") if isinstance(raw.get("source"), dict) else {}
    kind = source.get("type")
    parts = [_text(raw.get("title"))]
    if kind == "base64":
        size = len(_text(source.get("data"))) * 3 // 4
        parts += [_text(source.get("media_type")), f"base64, {_size(size)}"]
    elif kind == "url":
        parts.append(_text(source.get("url")))
    elif kind == "file":
        parts.append(f"file {_text(source.get('file_id'))}")
    elif kind == "text":
        parts.append(f"plain text, {len(_text(source.get('data')))} chars")
    elif kind:
        parts.append(_text(kind))
    return Block("media", raw.get("type", ""), text=", ".join(p for p in parts if p))


def _size(n: int) -> str:
    """A byte count as B or kB."""
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} kB"


def _text_block(raw: dict, links: _Links) -> Block:
    """text: the words; a count of citations if any."""
    text = raw.get("text")
    if not isinstance(text, str):
        return _unknown(raw, "text block without a string 'text'")
    cites = raw.get("citations")
    note = f"{len(cites)} citation{'s' * (len(cites) != 1)}" if isinstance(cites, list) else ""
    return Block("text", "text", text=text, note=note)


def _thinking(raw: dict, links: _Links) -> Block:
    """thinking: shown collapsed; the signature is never shown."""
    return Block("thinking", "thinking", text=_text(raw.get("thinking")))


def _redacted(raw: dict, links: _Links) -> Block:
    """redacted_thinking: only that it is there."""
    return Block("redacted", "redacted_thinking", text="(encrypted, sent back as is)")


_HANDLERS = {
    "text": _text_block,
    "tool_use": lambda raw, links: _call_block(raw, links, "tool_use"),
    "server_tool_use": lambda raw, links: _call_block(raw, links, "server_tool_use"),
    "tool_result": _tool_result,
    "web_search_tool_result": _search_result,
    "thinking": _thinking,
    "redacted_thinking": _redacted,
    "image": _media,
    "document": _media,
}


def _unknown(value: Any, note: str, type_name: str = "") -> Block:
    """A block we cannot show specially: its type name, a note and its JSON."""
    if not type_name:
        type_name = value.get("type") if isinstance(value, dict) else type(value).__name__
    return Block("unknown", _text(type_name) or "?", data=value, note=note)


def _generic(raw: dict, links: _Links) -> Block:
    """Other block types: still link server-tool calls and results by id, else JSON."""
    if "tool_use_id" in raw:
        return _link(Block("unknown", _text(raw.get("type")), data=raw.get("content")), raw, links)
    if {"id", "name", "input"} <= raw.keys():
        return _call_block(raw, links, "server_tool_use")
    note = "block without a 'type'" if "type" not in raw else "block type not shown specially"
    return _unknown(raw, note)


def _block(raw: Any, links: _Links) -> Block:
    """Resolve one content block; anything odd becomes an `unknown` block with a note."""
    if isinstance(raw, str):
        return _unknown(raw, "a bare string in a content list; blocks are dicts", "str")
    if not isinstance(raw, dict):
        return _unknown(raw, "not a content block")
    handler = _HANDLERS.get(raw.get("type"), _generic)  # type: ignore[arg-type]
    try:
        return handler(raw, links)
    except Exception as exc:  # a display must not fail on a learner's odd block
        return _unknown(raw, f"could not display ({type(exc).__name__})")


def _content_blocks(content: Any, links: _Links) -> list[Block]:
    """The blocks of a message's content (a string or a list), with notes for odd content."""
    if isinstance(content, str):
        if content:
            return [Block("text", "text", text=content)]
        return [Block("note", text=_EMPTY)]
    if isinstance(content, list):
        if content:
            return [_block(item, links) for item in content]
        return [Block("note", text=_EMPTY)]
    if content is _MISSING:
        return [Block("note", text="no 'content' key")]
    if content is None:
        return [Block("note", text="content is None")]
    return [_unknown(content, "content should be a string or a list of blocks")]


_ROLE_NOTES = {
    "system": "the system prompt goes in the `system` parameter, not in messages",
}


def _role(value: Any) -> tuple[str, str]:
    """The role to show and a note if it is not one the API accepts."""
    if not isinstance(value, str) or not value:
        return "(no role)", "role should be 'user' or 'assistant'"
    role = value if len(value) <= 30 else value[:29] + "…"
    if value in ("user", "assistant"):
        return role, ""
    return role, _ROLE_NOTES.get(value, "role should be 'user' or 'assistant'")


def _message_turn(index: int, msg: Any, links: _Links) -> Turn:
    """One message (already plain data) as a turn."""
    if not isinstance(msg, dict):
        note = "not a message; expected {'role': ..., 'content': ...}"
        return Turn("?", [_unknown(msg, note)], index=index)
    role, note = _role(msg.get("role"))
    content = msg.get("content", _MISSING)
    turn = Turn(role, _content_blocks(content, links), index=index, note=note, content=content)
    _set_meta(turn, msg)
    return turn


def _set_meta(turn: Turn, msg: dict) -> None:
    """Take stop_reason, stop details and usage from a dumped Message (if present)."""
    if isinstance(msg.get("stop_reason"), str) and turn.stop_reason is None:
        turn.stop_reason = msg["stop_reason"]
        details = msg.get("stop_details")
        if isinstance(details, dict) and details.get("category"):
            turn.stop_detail = _text(details["category"])
        elif isinstance(msg.get("stop_sequence"), str):
            turn.stop_detail = json.dumps(msg["stop_sequence"], ensure_ascii=False)
    if isinstance(msg.get("usage"), dict) and turn.usage is None:
        turn.usage = msg["usage"]


def _add_response(turns: list[Turn], response: Any, links: _Links) -> None:
    """Show the response as the final assistant turn (or annotate it if already appended)."""
    if not isinstance(response, dict):
        turns.append(Turn("?", [_unknown(response, "response is not a Message")]))
        return
    content = response.get("content", _MISSING)
    last = turns[-1] if turns else None
    if last is not None and last.role == "assistant" and last.content == content:
        _set_meta(last, response)  # the learner already appended response.content
        return
    role, note = _role(response.get("role", "assistant"))
    turn = Turn(role, _content_blocks(content, links), note=note, content=content)
    _set_meta(turn, response)
    turns.append(turn)


def _apply_usages(turns: list[Turn], usages: Any) -> None:
    """Give the i-th assistant turn usages[i] (a Usage, a dict, or a Message) if it has none."""
    if not isinstance(usages, list):
        return
    assistant_turns = [turn for turn in turns if turn.role == "assistant"]
    for turn, usage in zip(assistant_turns, usages, strict=False):
        if isinstance(usage, dict) and isinstance(usage.get("usage"), dict):
            _set_meta(turn, usage)  # a whole Message was passed
        elif isinstance(usage, dict) and turn.usage is None:
            turn.usage = usage


def build_turns(messages: Any, response: Any = None, usages: Any = None) -> list[Turn]:
    """Resolve a conversation into turns and blocks (plain data in, plain data out)."""
    links = _Links()
    turns = [_message_turn(i, to_plain(msg), links) for i, msg in enumerate(_as_list(messages))]
    if response is not None:
        _add_response(turns, to_plain(response), links)
    _apply_usages(turns, to_plain(usages))
    return turns


def _usage_text(usage: dict) -> str:
    """`in 123 · out 45` plus cache and web-search counts when the usage reports them."""

    def count(key: str) -> str:
        value = usage.get(key)
        return str(value) if isinstance(value, int) else "?"

    parts = [f"in {count('input_tokens')}", f"out {count('output_tokens')}"]
    if "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage:
        read, write = usage.get("cache_read_input_tokens"), usage.get("cache_creation_input_tokens")
        parts += [f"cache read {read or 0}", f"cache write {write or 0}"]
    server = usage.get("server_tool_use")
    if isinstance(server, dict) and server.get("web_search_requests"):
        parts.append(f"web search {server['web_search_requests']}")
    return " · ".join(parts)


def _meta(turn: Turn) -> str:
    """The stop reason and usage shown in a turn's header."""
    parts = []
    if turn.stop_reason:
        detail = f" ({turn.stop_detail})" if turn.stop_detail else ""
        parts.append(turn.stop_reason + detail)
    if turn.usage is not None:
        parts.append(_usage_text(turn.usage))
    return " · ".join(parts)


def _json(value: Any, pretty: bool = False) -> str:
    """JSON for display: unicode kept, key order kept (it is the model's order).

    Invisible formatting characters (U+202E and its kind) are written as escapes, so a tool
    input shown to a person reads as what it is (notebook 07).
    """
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None, default=str)
        return visible(text, keep_newlines=True)
    except Exception:
        return f"<{type(value).__name__}>"


# ── text/plain ──────────────────────────────────────────────────────────────────────────────


def _wrap(text: str, width: int = WIDTH) -> list[str]:
    """Split text into lines of at most `width` characters, keeping the line breaks."""
    lines: list[str] = []
    text = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4).rstrip()
    for line in text.split("\n"):
        line = line.rstrip()
        if len(line) <= width:
            lines.append(line)
        else:
            lines += textwrap.wrap(line, width=width, break_on_hyphens=False) or [""]
    return lines


def _fold(lines: list[str], max_lines: int) -> list[str]:
    """Keep the first `max_lines` lines and say how many were left out."""
    if len(lines) <= max_lines:
        return lines
    hidden = len(lines) - max_lines
    return lines[:max_lines] + [f"… {hidden} more line{'s' * (hidden != 1)}"]


def _tagged(head: str, body: list[str], max_lines: int) -> list[str]:
    """`[tag] body` on one line when it fits, else the tag and the body indented below."""
    body = _fold(body, max_lines)
    if not body:
        return [head]
    if len(body) == 1 and len(head) + 1 + len(body[0].lstrip()) <= WIDTH:
        return [f"{head} {body[0].lstrip()}"]
    return [head] + [f"  {line}" if line else "" for line in body]


def _tag(*parts: str) -> str:
    """`[tool_use #1 name]`: the non-empty parts in brackets."""
    return "[" + " ".join(part for part in parts if part) + "]"


def _json_lines(value: Any) -> list[str]:
    """Compact JSON if it fits on a line, else pretty JSON, wrapped."""
    compact = _json(value)
    if len(compact) <= WIDTH - 2:
        return [compact]
    return _wrap(_json(value, pretty=True), WIDTH - 2)


def _block_text(block: Block, max_lines: int) -> list[str]:
    """The text/plain lines of one block."""
    note = f"({block.note})" if block.note else ""
    if block.kind == "text":
        lines = _fold(_wrap(block.text), max_lines)
        return lines + ([f"[{block.note}]"] if block.note else [])
    if block.kind in ("tool_use", "server_tool_use"):
        head = _tag(block.type, block.label, block.name, note)
        return _tagged(head, _json_lines(block.data), max_lines)
    if block.kind == "tool_result":
        return _result_text(block, max_lines)
    if block.kind == "search":
        head = f"{_result_head(block)} {block.text}".rstrip()
        body = [f"- {title} <{url}>" for title, url in block.results]
        return _tagged(head, _wrap("\n".join(body), WIDTH - 2), max_lines)
    if block.kind == "thinking":
        return _tagged("[thinking]", _wrap(block.text, WIDTH - 2), THINKING_LINES)
    if block.kind == "note":
        return [f"[!] {block.text}"]
    if block.kind in ("redacted", "media"):
        return [_tag(block.type, block.text)]
    head = _result_head(block) if block.ref or block.orphan else _tag(block.type or "?", note)
    return _tagged(head, _json_lines(block.data), max_lines)


def _result_head(block: Block) -> str:
    """`[tool_result #1 name ERROR]` or `[tool_result (no matching tool_use)]`."""
    flag = ORPHAN if block.orphan else ""
    return _tag(block.type, block.label, block.name, "ERROR" if block.error else "", flag)


def _result_text(block: Block, max_lines: int) -> list[str]:
    """A tool_result: its head, then its content blocks (inline when one short line)."""
    body: list[str] = []
    for child in block.children:
        if child.kind == "text":
            body += _wrap(child.text, WIDTH - 2)
        else:
            body += _block_text(child, max_lines)
    if not block.children:
        body = ["(no content)"]
    return _tagged(_result_head(block), body, max_lines)


def _header(left: str, right: str = "", fill: str = "─") -> str:
    """`── role ────── right`, padded to HEADER_WIDTH."""
    left = f"{fill * 2} {left} "
    right = f" {right}" if right else ""
    return left + fill * max(3, HEADER_WIDTH - len(left) - len(right)) + right


def _enforce_width(lines: list[str]) -> list[str]:
    """A last guard: no line longer than WIDTH, whatever the content."""
    out: list[str] = []
    for line in lines:
        out += [line] if len(line) <= WIDTH else textwrap.wrap(line, WIDTH) or [""]
    return out


def _turns_text(turns: list[Turn], title: str | None, max_lines: int) -> str:
    """The text/plain rendering of resolved turns."""
    lines: list[str] = []
    if title:
        lines.append(_header(title if len(title) <= 80 else title[:79] + "…", fill="═"))
    for turn in turns:
        lines.append(_header(turn.role, _meta(turn)))
        if turn.note:
            lines.append(f"[!] {turn.note}")
        for block in turn.blocks:
            lines += _block_text(block, max_lines)
    if not turns:
        lines.append("(no messages)")
    return "\n".join(_enforce_width(lines))


def render_text(
    messages: Any,
    *,
    response: Any = None,
    usages: Any = None,
    title: str | None = None,
    max_lines: int = MAX_LINES,
) -> str:
    """The conversation as deterministic text, lines at most 100 characters (no ids)."""
    turns = build_turns(messages, response, usages)
    return _turns_text(turns, title, _max_lines(max_lines))


def _max_lines(value: Any) -> int:
    """A usable fold limit: a positive int, else the default."""
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else MAX_LINES
    )


# ── text/html ───────────────────────────────────────────────────────────────────────────────

_FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;"
_MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace;"
_WRAP = "white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;"
_INK, _DIM, _LINK = "#1f2328", "#57606a", "#0550ae"
_ROLE_COLOURS = {"user": ("#0969da", "#f6f8fa"), "assistant": ("#8250df", "#ffffff")}
_STYLE = {
    "box": f"max-width:100%;box-sizing:border-box;color:{_INK};background:#ffffff;"
    "border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;font-size:13px;"
    f"line-height:1.45;text-align:left;overflow-wrap:anywhere;{_FONT}",
    "title": f"font-weight:600;font-size:14px;margin:0 0 6px 0;color:{_INK};",
    "head": f"font-size:12px;color:{_DIM};margin:0 0 2px 0;",
    "text": f"{_WRAP}margin:2px 0;color:{_INK};",
    "pre": f"{_WRAP}{_MONO}max-height:16em;overflow:auto;margin:3px 0 0 0;padding:4px 6px;"
    f"background:#f6f8fa;color:{_INK};border:1px solid #d8dee4;border-radius:4px;"
    "font-size:12px;line-height:1.4;",
    "card": f"margin:4px 0;padding:4px 6px;border:1px solid #d0d7de;border-radius:4px;"
    f"background:#ffffff;color:{_INK};",
    "error_card": f"margin:4px 0;padding:4px 6px;border:1px solid #cf222e;"
    f"border-left:4px solid #cf222e;border-radius:4px;background:#ffebe9;color:{_INK};",
    "chip": f"{_MONO}display:inline-block;padding:0 5px;border-radius:8px;font-size:11px;"
    "background:#eaeef2;color:#24292f;",
    "label": f"{_MONO}display:inline-block;padding:0 5px;border-radius:8px;font-size:11px;"
    f"background:#ddf4ff;color:{_LINK};font-weight:600;text-decoration:none;",
    "error": "display:inline-block;padding:0 5px;border-radius:8px;font-size:11px;"
    "background:#cf222e;color:#ffffff;font-weight:700;",
    "warn": f"{_WRAP}display:inline-block;padding:0 5px;border-radius:4px;font-size:12px;"
    "background:#fff8c5;color:#7d4e00;",
    "id": f"{_MONO}font-size:11px;color:{_DIM};",
    "dim": f"{_WRAP}color:{_DIM};margin:2px 0;",
    # Tool output (code, diffs, JSON strings) in monospace, so indentation and columns line up.
    "output": f"{_WRAP}{_MONO}margin:3px 0 0 0;color:{_INK};font-size:12px;line-height:1.4;",
    "summary": f"cursor:pointer;color:{_DIM};font-size:12px;",
    "link": f"color:{_LINK};text-decoration:underline;",
}


def _e(text: Any) -> str:
    """HTML-escape any value as text."""
    return html.escape(str(text), quote=True)


def _span(style: str, text: str, title: str = "") -> str:
    """An inline span with one of the named styles."""
    attr = f' title="{_e(title)}"' if title else ""
    return f'<span style="{_STYLE[style]}"{attr}>{_e(text)}</span>'


def _folded_html(text: str, max_lines: int, style: str = "text") -> str:
    """Text in a pre-wrap div; lines after `max_lines` inside a closed <details>."""
    lines = text.split("\n")
    head = f'<div style="{_STYLE[style]}">{_e(chr(10).join(lines[:max_lines]))}</div>'
    if len(lines) <= max_lines:
        return head
    rest, hidden = "\n".join(lines[max_lines:]), len(lines) - max_lines
    summary = f"… {hidden} more line{'s' * (hidden != 1)}"
    return (
        f'{head}<details><summary style="{_STYLE["summary"]}">{_e(summary)}</summary>'
        f'<div style="{_STYLE[style]}">{_e(rest)}</div></details>'
    )


class _HtmlRenderer:
    """Render resolved turns as one self-contained HTML fragment (inline styles only)."""

    def __init__(self, prefix: str, max_lines: int) -> None:
        self.prefix, self.max_lines = prefix, max_lines

    def anchor(self, label: str) -> str:
        """The element id of a call's label: unique per transcript, deterministic."""
        return f"{self.prefix}-call-{label.lstrip('#')}"

    def label(self, block: Block, link: bool) -> str:
        """The `#1` label: a link to the call on the result side."""
        if not block.label:
            return ""
        if link:
            href = f"#{self.anchor(block.label)}"
            return f'<a href="{href}" style="{_STYLE["label"]}">{_e(block.label)}</a>'
        return _span("label", block.label)

    def ref(self, block: Block) -> str:
        """The raw id, small, with a tooltip."""
        return _span("id", block.ref, title=block.ref) if block.ref else ""

    def json(self, value: Any) -> str:
        """Pretty JSON in a scrolling monospace block."""
        return f'<pre style="{_STYLE["pre"]}">{_e(_json(value, pretty=True))}</pre>'

    def call(self, block: Block) -> str:
        """tool_use / server_tool_use: label, name, id, input."""
        attr = f' id="{self.anchor(block.label)}"' if block.anchor and block.label else ""
        parts = [
            _span("chip", block.type),
            self.label(block, link=False),
            f"<b>{_e(block.name)}</b>",
        ]
        parts += [_span("warn", block.note) if block.note else "", self.ref(block)]
        head = " ".join(part for part in parts if part)
        return f'<div{attr} style="{_STYLE["card"]}">{head}{self.json(block.data)}</div>'

    def result_head(self, block: Block) -> str:
        """Chip, link to the call, tool name, ERROR badge, orphan flag, id."""
        parts = [_span("chip", block.type), self.label(block, link=True)]
        parts.append(f"<b>{_e(block.name)}</b>" if block.name else "")
        parts.append(_span("error", "ERROR") if block.error else "")
        parts.append(_span("warn", ORPHAN) if block.orphan else "")
        parts.append(self.ref(block))
        return " ".join(part for part in parts if part)

    def result(self, block: Block) -> str:
        """tool_result: head, then its content blocks."""
        body = "".join(self.block(child, text_style="output") for child in block.children)
        if not block.children:
            body = _span("dim", "(no content)")
        style = _STYLE["error_card" if block.error else "card"]
        return f'<div style="{style}">{self.result_head(block)}{body}</div>'

    def search(self, block: Block) -> str:
        """web_search_tool_result: linked titles (http/https urls only) or the error code."""
        items = []
        for title, url in block.results:
            safe = url.startswith(("https://", "http://"))
            name = _e(title or url)
            link = (
                f'<a href="{_e(url)}" target="_blank" rel="noopener noreferrer" '
                f'style="{_STYLE["link"]}">{name}</a>'
                if safe
                else name
            )
            items.append(f"<li>{link} {_span('id', url)}</li>")
        listing = f'<ul style="margin:2px 0;padding-left:20px;">{"".join(items)}</ul>'
        style = _STYLE["error_card" if block.error else "card"]
        text = _span("dim", block.text)
        return f'<div style="{style}">{self.result_head(block)} {text}{listing * bool(items)}</div>'

    def thinking(self, block: Block) -> str:
        """thinking: closed <details>, dimmed; the signature is never included."""
        count = len(block.text.split("\n"))
        summary = f"thinking · {count} line{'s' * (count != 1)}"
        return (
            f'<details style="margin:2px 0;"><summary style="{_STYLE["summary"]}">'
            f"{_e(summary)}</summary>{_folded_html(block.text, self.max_lines, 'dim')}</details>"
        )

    def unknown(self, block: Block) -> str:
        """Anything else: type name, note and JSON."""
        if block.ref or block.orphan:
            head = self.result_head(block)
        else:
            head = _span("chip", block.type) + (
                " " + _span("warn", block.note) if block.note else ""
            )
        return f'<div style="{_STYLE["card"]}">{head}{self.json(block.data)}</div>'

    def block(self, block: Block, text_style: str = "text") -> str:
        """Dispatch one block by kind (text inside a tool_result uses the `output` style)."""
        if block.kind == "text":
            note = f'<div style="{_STYLE["dim"]}">{_e(block.note)}</div>' if block.note else ""
            return _folded_html(block.text, self.max_lines, text_style) + note
        if block.kind in ("tool_use", "server_tool_use"):
            return self.call(block)
        if block.kind == "tool_result":
            return self.result(block)
        if block.kind == "search":
            return self.search(block)
        if block.kind == "thinking":
            return self.thinking(block)
        if block.kind == "note":
            return f'<div style="margin:2px 0;">{_span("warn", "⚠ " + block.text)}</div>'
        if block.kind in ("redacted", "media"):
            chip, text = _span("chip", block.type), _span("dim", block.text)
            return f'<div style="margin:2px 0;">{chip} {text}</div>'
        return self.unknown(block)

    def turn(self, turn: Turn) -> str:
        """One message: a coloured left rule, the role, stop reason and usage, the blocks."""
        colour, background = _ROLE_COLOURS.get(turn.role, ("#9a6700", "#fff8c5"))
        where = f"messages[{turn.index}]" if turn.index is not None else "response"
        role = (
            f'<span style="font-weight:700;color:{colour};" title="{where}">{_e(turn.role)}</span>'
        )
        meta = _meta(turn)
        head = f'<div style="{_STYLE["head"]}">{role}{" · " + _e(meta) if meta else ""}</div>'
        note = f"<div>{_span('warn', '⚠ ' + turn.note)}</div>" if turn.note else ""
        body = "".join(self.block(block) for block in turn.blocks)
        style = (
            f"margin:6px 0;padding:4px 8px;border-left:3px solid {colour};"
            f"background:{background};color:{_INK};"
        )
        return f'<div style="{style}">{head}{note}{body}</div>'

    def render(self, turns: list[Turn], title: str | None) -> str:
        """The whole transcript."""
        parts = [f'<div style="{_STYLE["title"]}">{_e(title)}</div>' if title else ""]
        parts += [self.turn(turn) for turn in turns]
        if not turns:
            parts.append(_span("dim", "(no messages)"))
        return f'<div class="course-transcript" style="{_STYLE["box"]}">{"".join(parts)}</div>'


def _prefix(*parts: Any) -> str:
    """A deterministic id prefix derived from the content, so two transcripts differ."""
    data = json.dumps(to_plain(list(parts)), sort_keys=True, default=str, ensure_ascii=True)
    return "tr-" + hashlib.sha1(data.encode()).hexdigest()[:8]


def render_html(
    messages: Any,
    *,
    response: Any = None,
    usages: Any = None,
    title: str | None = None,
    max_lines: int = MAX_LINES,
) -> str:
    """The conversation as a self-contained HTML fragment (inline styles, no CSS or JS)."""
    turns = build_turns(messages, response, usages)
    prefix = _prefix(messages, response, usages, title)
    return _HtmlRenderer(prefix, _max_lines(max_lines)).render(turns, title)


# ── the displayable object ──────────────────────────────────────────────────────────────────


class Transcript:
    """A snapshot of a conversation that Jupyter shows as HTML and everything else as text.

    The messages are copied as plain data when the transcript is made, so a transcript
    keeps showing the conversation as it was even if the list grows afterwards.
    """

    def __init__(
        self,
        messages: Any,
        *,
        response: Any = None,
        usages: Any = None,
        title: str | None = None,
        max_lines: int = MAX_LINES,
    ) -> None:
        self.messages = [to_plain(message) for message in _as_list(messages)]
        self.response = to_plain(response)
        self.usages = to_plain(usages)
        self.title = None if title is None else str(title)
        self.max_lines = _max_lines(max_lines)

    def _kwargs(self) -> dict[str, Any]:
        return {"response": self.response, "usages": self.usages, "title": self.title}

    def text(self) -> str:
        """The text/plain rendering."""
        try:
            return render_text(self.messages, max_lines=self.max_lines, **self._kwargs())
        except Exception as exc:  # last resort: a display must never break a cell
            return f"(transcript could not be rendered: {type(exc).__name__})"

    def html(self) -> str:
        """The text/html rendering."""
        try:
            return render_html(self.messages, max_lines=self.max_lines, **self._kwargs())
        except Exception as exc:
            return f"<pre>(transcript could not be rendered: {_e(type(exc).__name__)})</pre>"

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())

    def __repr__(self) -> str:
        return self.text()

    __str__ = __repr__


def _display(transcript: Transcript) -> None:
    """Display in IPython/Jupyter (HTML + text), or print the text elsewhere."""
    try:
        from IPython.display import display
    except ImportError:
        print(transcript.text())
        return
    display(transcript)


def show(
    messages: Any,
    *,
    response: Any = None,
    usages: Any = None,
    title: str | None = None,
    max_lines: int = MAX_LINES,
) -> None:
    """Display a conversation; `response` (a Message) is shown as the last assistant turn.

    `usages` gives token usage per assistant turn, in order (Usage objects, dicts, or whole
    Message responses). Displays immediately, so it also works inside a loop; keep a
    `Transcript(...)` instead if you want an object.
    """
    _display(
        Transcript(messages, response=response, usages=usages, title=title, max_lines=max_lines)
    )


def show_message(message: Any, *, title: str | None = None, max_lines: int = MAX_LINES) -> None:
    """Display one response (a Message): its content, stop_reason and usage."""
    _display(Transcript([], response=message, title=title, max_lines=max_lines))
