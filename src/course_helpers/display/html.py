"""Course machinery (display of histories): the text/html transcript Jupyter shows.

One job: lay out resolved turns (`model.py`) as one self-contained HTML fragment, inline styles
only (no CSS file, no JavaScript), so it looks the same in JupyterLab, VS Code and on GitHub.
Each `tool_result` links to the call it answers; long text and thinking fold into `<details>`.

The fragment is stored in notebooks, so it is written one element per line: a re-run that changes
one message changes a few lines of the stored output, not one line of several KB. A newline only
goes where the browser collapses it (between blocks, or between inline parts already separated by
a space). Text shown with `white-space:pre-wrap` keeps its own newlines and gets none added: its
opening tag ends on the next line (`<div style="..."` then `>text`), so the long style and the
text are on lines of their own.
"""

from __future__ import annotations

import hashlib
import html
import json
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
from course_helpers.display.plain import to_plain
from course_helpers.display.shown import shown

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


def _lines(*parts: str) -> str:
    """Parts of a fragment one per line, empty ones left out."""
    return "\n".join(part for part in parts if part)


def _open(tag: str, style: str, attrs: str = "") -> str:
    """An opening tag; for pre-wrap text its `>` starts the next line, so the text starts there."""
    css = _STYLE.get(style, style)
    end = "\n>" if "white-space:pre-wrap" in css else ">"
    return f'<{tag}{attrs} style="{css}"{end}'


def _span(style: str, text: str, title: str = "") -> str:
    """An inline span with one of the named styles."""
    attr = f' title="{_e(title)}"' if title else ""
    return f"{_open('span', style, attr)}{_e(text)}</span>"


def _folded_html(text: str, max_lines: int, style: str = "text") -> str:
    """Text in a pre-wrap div; lines after `max_lines` inside a closed <details>."""
    lines = text.split("\n")
    head = f"{_open('div', style)}{_e(chr(10).join(lines[:max_lines]))}</div>"
    if len(lines) <= max_lines:
        return head
    rest, summary = "\n".join(lines[max_lines:]), more_lines(len(lines) - max_lines)
    return _lines(
        head,
        "<details>",
        f'<summary style="{_STYLE["summary"]}">{_e(summary)}</summary>',
        f"{_open('div', style)}{_e(rest)}</div>",
        "</details>",
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
        return f"{_open('pre', 'pre')}{_e(json_text(value, pretty=True))}</pre>"

    def call(self, block: Block) -> str:
        """tool_use / server_tool_use: label, name, id, input."""
        attr = f' id="{self.anchor(block.label)}"' if block.anchor and block.label else ""
        parts = [
            _span("chip", block.type),
            self.label(block, link=False),
            f"<b>{_e(block.name)}</b>",
        ]
        parts += [_span("warn", block.note) if block.note else "", self.ref(block)]
        card = _open("div", "card", attr)
        return _lines(card, *parts, self.json(block.data), "</div>")

    def result_head(self, block: Block) -> str:
        """Chip, link to the call, tool name, ERROR badge, orphan flag, id."""
        parts = [_span("chip", block.type), self.label(block, link=True)]
        parts.append(f"<b>{_e(block.name)}</b>" if block.name else "")
        parts.append(_span("error", "ERROR") if block.error else "")
        parts.append(_span("warn", ORPHAN) if block.orphan else "")
        parts.append(self.ref(block))
        return _lines(*parts)

    def result(self, block: Block) -> str:
        """tool_result: head, then its content blocks."""
        head = self.result_head(block)
        if block.children:
            body = _lines(*(self.block(child, text_style="output") for child in block.children))
        else:  # right after the head, with no space: as it has always been shown
            head, body = head + _span("dim", "(no content)"), ""
        card = _open("div", "error_card" if block.error else "card")
        return _lines(card, head, body, "</div>")

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
            items.append(f"<li>{link}\n{_span('id', url)}</li>")
        listing = _lines('<ul style="margin:2px 0;padding-left:20px;">', *items, "</ul>")
        card = _open("div", "error_card" if block.error else "card")
        text = _span("dim", block.text)
        return _lines(card, self.result_head(block), text, listing * bool(items), "</div>")

    def thinking(self, block: Block) -> str:
        """thinking: closed <details>, dimmed; the signature is never included."""
        count = len(block.text.split("\n"))
        summary = f"thinking · {count} line{'s' * (count != 1)}"
        return _lines(
            '<details style="margin:2px 0;">',
            f'<summary style="{_STYLE["summary"]}">{_e(summary)}</summary>',
            _folded_html(block.text, self.max_lines, "dim"),
            "</details>",
        )

    def unknown(self, block: Block) -> str:
        """Anything else: type name, note and JSON."""
        if block.ref or block.orphan:
            head = self.result_head(block)
        else:
            head = _lines(
                _span("chip", block.type), _span("warn", block.note) if block.note else ""
            )
        return _lines(_open("div", "card"), head, self.json(block.data), "</div>")

    def block(self, block: Block, text_style: str = "text") -> str:
        """Dispatch one block by kind (text inside a tool_result uses the `output` style)."""
        if block.kind == "text":
            note = f"{_open('div', 'dim')}{_e(block.note)}</div>" if block.note else ""
            return _lines(_folded_html(block.text, self.max_lines, text_style), note)
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
            return _lines('<div style="margin:2px 0;">', chip, text, "</div>")
        return self.unknown(block)

    def turn(self, turn: Turn) -> str:
        """One message: a coloured left rule, the role, stop reason and usage, the blocks."""
        colour, background = _ROLE_COLOURS.get(turn.role, ("#9a6700", "#fff8c5"))
        where = f"messages[{turn.index}]" if turn.index is not None else "response"
        role = (
            f'<span style="font-weight:700;color:{colour};" title="{where}">{_e(turn.role)}</span>'
        )
        about = meta(turn)
        head = f'<div style="{_STYLE["head"]}">{role}{" · " + _e(about) if about else ""}</div>'
        note = f"<div>{_span('warn', '⚠ ' + turn.note)}</div>" if turn.note else ""
        body = [self.block(block) for block in turn.blocks]
        style = (
            f"margin:6px 0;padding:4px 8px;border-left:3px solid {colour};"
            f"background:{background};color:{_INK};"
        )
        return _lines(f'<div style="{style}">', head, note, *body, "</div>")

    def render(self, turns: list[Turn], title: str | None) -> str:
        """The whole transcript."""
        parts = [f'<div style="{_STYLE["title"]}">{_e(shown(title))}</div>' if title else ""]
        parts += [self.turn(turn) for turn in turns]
        if not turns:
            parts.append(_span("dim", "(no messages)"))
        return _lines(_open("div", "box", ' class="course-transcript"'), *parts, "</div>")


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
    return _HtmlRenderer(prefix, fold_limit(max_lines)).render(turns, title)
