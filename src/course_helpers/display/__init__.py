"""Course machinery (display of histories): show a conversation as a readable transcript.

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

This module holds the displayable `Transcript` and `show` / `show_message`; each other job has
its own module: `plain` (SDK objects to plain data), `model` (the view: turns, blocks, labels),
`text` (the text/plain rendering) and `html` (the text/html rendering).
"""

from __future__ import annotations

from html import escape
from typing import Any

from course_helpers.display.html import render_html
from course_helpers.display.model import MAX_LINES, Block, Turn, build_turns, fold_limit
from course_helpers.display.plain import as_list, normalize, to_plain
from course_helpers.display.text import render_text

__all__ = [
    "MAX_LINES",
    "Block",
    "Transcript",
    "Turn",
    "build_turns",
    "normalize",
    "render_html",
    "render_text",
    "show",
    "show_message",
    "to_plain",
]


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
        self.messages = [to_plain(message) for message in as_list(messages)]
        self.response = to_plain(response)
        self.usages = to_plain(usages)
        self.title = None if title is None else str(title)
        self.max_lines = fold_limit(max_lines)

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
            return f"<pre>(transcript could not be rendered: {escape(type(exc).__name__, quote=True)})</pre>"

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
