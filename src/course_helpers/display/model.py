"""Course machinery (display of histories): the view model both renderers draw from.

One job: resolve a conversation (plain data, see `plain.py`) into `Turn`s of `Block`s, with
everything a reader needs already worked out: the short `#1` label of each tool_use id, the
call a tool_result answers (or the orphan flag), notes on whatever the API would refuse, the
stop reason and the usage of each response. `text.py` and `html.py` only lay these out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from course_helpers.display.plain import as_list, to_plain
from course_helpers.display.shown import escape_turns, mark_unnormalised, shown
from course_helpers.plumbing.truncate import clip, visible

MAX_LINES = 20  # long text is folded after this many lines
ORPHAN = "(no matching tool_use)"
_MISSING = object()  # a key that is absent, as opposed to None
_EMPTY = "empty content (allowed only in a final assistant message)"


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
    role = clip(value, 30, marker="…")
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
    turns = [_message_turn(i, to_plain(msg), links) for i, msg in enumerate(as_list(messages))]
    if response is not None:
        _add_response(turns, to_plain(response), links)
    _apply_usages(turns, to_plain(usages))
    escape_turns(turns)  # after the ids are linked: both renderings print only escaped text
    return turns


# ── what both renderers show the same way ─────────────────────────────────────────────────


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


def meta(turn: Turn) -> str:
    """The stop reason and usage shown in a turn's header."""
    parts = []
    if turn.stop_reason:
        detail = f" ({turn.stop_detail})" if turn.stop_detail else ""
        parts.append(turn.stop_reason + detail)
    if turn.usage is not None:
        parts.append(_usage_text(turn.usage))
    return shown(" · ".join(parts))


def json_text(value: Any, pretty: bool = False) -> str:
    """JSON for display: unicode kept, key order kept (it is the model's order).

    Invisible formatting characters (U+202E and its kind) are written as escapes, so a tool
    input shown to a person reads as what it is (notebook 07).
    """
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None, default=str)
        return visible(mark_unnormalised(text), keep_newlines=True)
    except Exception:
        return f"<{type(value).__name__}>"


def more_lines(hidden: int) -> str:
    """What a fold says in place of the lines it hides."""
    return f"… {hidden} more line{'s' * (hidden != 1)}"


def fold_limit(value: Any) -> int:
    """A usable fold limit: a positive int, else the default."""
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else MAX_LINES
    )
