"""Course machinery (display of histories): the text/plain transcript.

One job: lay out resolved turns (`model.py`) as deterministic plain text, what stored notebook
outputs, GitHub, a terminal and doctests show. No line is longer than `WIDTH`; no id is shown,
only the `#1` labels that pair a result with its call::

    ── user ────────────────────────────────────────────────────────────────
    What's the weather in Paris?
    ── assistant ──────────────────────────────── tool_use · in 412 · out 38
    [tool_use #1 get_weather] {"city": "Paris"}
"""

from __future__ import annotations

import textwrap
from typing import Any

from course_helpers.display.model import (
    MAX_LINES,
    ORPHAN,
    Block,
    Turn,
    build_turns,
    fold_limit,
    json_text,
    meta,
    more_lines,
)
from course_helpers.display.shown import shown
from course_helpers.plumbing.truncate import clip

WIDTH = 100  # no text/plain line is longer than this
HEADER_WIDTH = 72  # turn headers are padded with ─ to this width
THINKING_LINES = 3  # thinking is collapsed to this many lines in text/plain


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
    return lines[:max_lines] + [more_lines(len(lines) - max_lines)]


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
    compact = json_text(value)
    if len(compact) <= WIDTH - 2:
        return [compact]
    return _wrap(json_text(value, pretty=True), WIDTH - 2)


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
        lines.append(_header(clip(shown(title), 80, marker="…"), fill="═"))
    for turn in turns:
        lines.append(_header(turn.role, meta(turn)))
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
    return _turns_text(turns, title, fold_limit(max_lines))
