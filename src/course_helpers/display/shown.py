"""Course machinery (display of histories): every string a transcript shows, made safe to show.

One job: `shown(text)` is what the view model (`model.py`) stores for any text it will print,
whatever its source (a tool result, the model's text or thinking, a tool name, an id):

- control and invisible characters are written as escapes with `visible()`: an escape
  character is `\\x1b`, a carriage return `\\r`, U+202E `\\u202e`; newlines and tabs stay
  (a Windows line end `\\r\\n` is a line end);
- a character that Unicode normalisation (NFC) would change is written as its escape, so two
  names that differ only in how an accent is stored (`café.py` with U+00E9, `café.py` with
  `e` + U+0301) never look the same: the second is shown `cafe\\u0301.py`;
- a line longer than `LONG_LINE` characters is cut there, with the number of characters not
  shown, so a result of one 5 MB line costs what 10,000 characters cost, in both renderings.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from course_helpers.plumbing.truncate import visible

LONG_LINE = 10_000  # characters of one line a transcript keeps; the rest is counted
_MARKS = ("Mn", "Mc", "Me")


def not_shown(count: int) -> str:
    """What replaces the end of a line that is too long to keep."""
    return f" … {count:,} characters not shown"


def cut_long_lines(text: str, limit: int = LONG_LINE) -> str:
    """`text` with every line longer than `limit` cut there and the rest counted (linear)."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    if all(len(line) <= limit for line in lines):
        return text
    return "\n".join(
        line if len(line) <= limit else line[:limit] + not_shown(len(line) - limit)
        for line in lines
    )


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def _marked_line(line: str) -> str:
    """One line not in NFC: each base character with its accents, written as escapes where
    NFC would change them (the accents that would merge into the letter, a singleton such as
    U+212B ANGSTROM SIGN or U+037E GREEK QUESTION MARK)."""
    out: list[str] = []
    start = 0
    for index in range(1, len(line) + 1):
        if index < len(line) and unicodedata.category(line[index]) in _MARKS:
            continue
        cluster = line[start:index]
        if unicodedata.is_normalized("NFC", cluster):
            out.append(cluster)
        else:
            base, marks = cluster[0], cluster[1:]
            if unicodedata.category(base) in _MARKS or not unicodedata.is_normalized("NFC", base):
                base = _escape(base)
            out.append(base + "".join(_escape(mark) for mark in marks))
        start = index
    return "".join(out)


def mark_unnormalised(text: str) -> str:
    """`text` unchanged if it is in NFC (almost every text); else the characters NFC would
    change written as escapes, line by line."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return "\n".join(
        line if unicodedata.is_normalized("NFC", line) else _marked_line(line)
        for line in text.split("\n")
    )


def shown(text: str) -> str:
    """`text` as a transcript shows it: long lines cut, non-NFC characters and control or
    invisible characters escaped, newlines and tabs kept."""
    if not isinstance(text, str):
        text = str(text)
    text = cut_long_lines(text.replace("\r\n", "\n"))
    return visible(mark_unnormalised(text), keep_newlines=True, keep_tabs=True)


def _escape_block(block: Any) -> None:  # a `model.Block` (not imported: model imports this)
    """Every string of a block that a renderer prints, passed through `shown()`."""
    block.type, block.text, block.name = shown(block.type), shown(block.text), shown(block.name)
    block.ref, block.note = shown(block.ref), shown(block.note)
    block.results = [(shown(title), shown(url)) for title, url in block.results]
    for child in block.children:
        _escape_block(child)


def escape_turns(turns: list[Any]) -> None:  # `model.Turn`s
    """Escape, in place, what resolved turns show: tool results, text, thinking, tool names,
    ids, block types, roles, notes and stop details."""
    for turn in turns:
        turn.role, turn.note = shown(turn.role), shown(turn.note)
        turn.stop_detail = shown(turn.stop_detail)
        for block in turn.blocks:
            _escape_block(block)
