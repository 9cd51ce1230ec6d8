"""Course machinery: shorten tool output before the model reads it.

Notebook 05's dispatcher imports it, and notebooks 07 and 10 show what it keeps.

Every character a tool returns is sent again on every later turn of the loop, so a tool result
is paid for many times. We keep the head (where a command says what it is doing) and the tail
(where errors and summaries usually are) and replace the middle with a line that says how much
was cut, so the model knows the text is incomplete and can ask for a narrower view.

`truncate()` shortens a string you already have. `HeadTail` does the same job piece by piece,
for output that arrives in chunks and may be far too large to hold in memory (a command that
prints 50 MB). Both give exactly the same result for the same text.

`visible()` is the other half of showing untrusted text to a person: it writes control
characters (a newline inside a file name, a terminal escape, the right-to-left override U+202E
that makes `exe.txt` look like `txt.exe`) as escapes, so what is shown is what is there.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Characters that change how the text around them is displayed: bidirectional embeddings,
# overrides and isolates (U+202A-U+202E, U+2066-U+2069), the marks U+200E/U+200F/U+061C,
# zero-width characters, and marks and fillers that draw nothing (the combining grapheme
# joiner U+034F, Hangul and Khitan fillers, variation selectors), which hide a difference between names.
_INVISIBLE = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2066\u2067\u2068\u2069\ufeff"
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0\U00016fe4"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


# Categories written as escapes wherever they are: controls, formatting characters, surrogates,
# private-use and unassigned code points (which draw nothing, or nothing one can tell apart),
# and the line and paragraph separators.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Marks that combine with the character before them: shown as they are after a letter (an
# accent), escaped after a blank, at the start, or after something escaped, where they draw
# nothing of their own and could hide inside a run of spaces.
_COMBINING = frozenset({"Mn", "Me"})


# The ASCII control characters (and DEL), by which of newline and tab are kept as they are.
_ASCII_CONTROLS = {
    kept: re.compile(
        "[" + "".join(re.escape(chr(c)) for c in [*range(32), 127] if chr(c) not in kept) + "]"
    )
    for kept in ("", "\n", "\t", "\n\t")
}


_MAX_STACKED_MARKS = 30  # a taller pile of combining marks is escaped rather than drawn


def _needs_escape(char: str) -> bool:
    """Escaped wherever it is (combining marks depend on what is before them: `visible`)."""
    return char in _INVISIBLE or unicodedata.category(char) in _ESCAPED_CATEGORIES


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def _escaped(match: re.Match) -> str:
    return _escape(match.group(0))


def _draws(char: str) -> bool:
    """True for a character shown as itself that leaves a mark (not a blank, not escaped)."""
    category = unicodedata.category(char)
    return not (
        char in _INVISIBLE or category in _ESCAPED_CATEGORIES or category == "Zs" or char.isspace()
    )


def _on_a_base(text: str, index: int) -> bool:
    """Whether the combining mark at `index` sits on a drawn character (through other marks)."""
    for back in range(index - 1, max(index - 1 - _MAX_STACKED_MARKS, -1), -1):
        if unicodedata.category(text[back]) not in _COMBINING:
            return _draws(text[back])
    return False


def visible(text: str, *, keep_newlines: bool = False, keep_tabs: bool = False) -> str:
    """`text` with every control or invisible character written as an escape.

    A tab becomes `\\t`, a newline `\\n` (kept as real line breaks and tabs with keep_newlines
    and keep_tabs), U+202E `\\u202e`, an escape character `\\x1b`, an unassigned or private-use
    code point `\\U000e0080`, a combining mark with nothing to combine with (after a blank, at
    the start, after something escaped) `\\u0300`. Printable text, accents on letters and
    emoji are unchanged.
    """
    if not isinstance(text, str):
        raise TypeError(f"visible() needs text (str), got {type(text).__name__}")
    kept = ("\n" if keep_newlines else "") + ("\t" if keep_tabs else "")
    if text.isascii():  # the common case, fast: only the ASCII controls to escape
        return _ASCII_CONTROLS[kept].sub(_escaped, text)

    return "".join(visible_pieces(text, keep_newlines=keep_newlines, keep_tabs=keep_tabs))


def visible_pieces(text: str, *, keep_newlines: bool = False, keep_tabs: bool = False) -> list[str]:
    """What `visible()` writes for each character of `text`, one piece per character.

    `"".join(visible_pieces(text))` is `visible(text)`; the pieces let a caller keep whole
    characters (never half of an escape) when it must stop at a given length. The cost is
    the same for any text (binary read as text included): one table look-up per character,
    done in C, and Python only for each run of combining marks and each distinct character
    beyond the first 65,536 code points.
    """
    if not isinstance(text, str):
        raise TypeError(f"visible_pieces() needs text (str), got {type(text).__name__}")
    kept = ("\n" if keep_newlines else "") + ("\t" if keep_tabs else "")
    table = _escapes(kept)
    if not text.isascii():
        astral = set(_ASTRAL.findall(text))
        if astral:
            table = dict(table)
            table.update((char, _escape(char)) for char in astral if _needs_escape(char))
    pieces = list(map(table.get, text, text))
    if text.isascii() or _marks().isdisjoint(text):
        return pieces  # no combining mark
    # One byte per character, 1 for a combining mark: the runs of 1 are the runs of marks.
    for run in _RUN_OF_ONES.finditer(bytes(map(_marks().__contains__, text))):
        start, end = run.span()
        on_a_base = start > 0 and _draws(text[start - 1])
        first = start + _MAX_STACKED_MARKS if on_a_base else start
        if first < end:  # marks with nothing drawn under them (or too tall a pile): escaped
            pieces[first:end] = map(_mark_escape, text[first:end])
    return pieces


@functools.cache
def _escapes(kept: str) -> dict[str, str]:
    """Each character of the first 65,536 code points escaped wherever it is, with its escape."""
    return {
        chr(code): _escape(chr(code))
        for code in range(0x10000)
        if chr(code) not in kept and _needs_escape(chr(code))
    }


@functools.cache
def _marks() -> frozenset[str]:
    """Every combining mark (Mn, Me) of the planes that have any."""
    return frozenset(
        chr(code)
        for block in (range(0x300, 0x20000), range(0xE0000, 0xE1000))
        for code in block
        if unicodedata.category(chr(code)) in _COMBINING
    )


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_RUN_OF_ONES = re.compile(b"\x01+")
_mark_escape = functools.cache(_escape)  # a few thousand combining marks at most


def clip(text: str, width: int, *, marker: str = "...") -> str:
    """`text` if it fits in `width` characters, else its start and `marker`, `width` in all.

    For one short line shown to a person (a name, a value in a message). Tool output for the
    model goes through `truncate()`, which keeps the tail too and says how much was cut.
    """
    return text if len(text) <= width else text[: width - len(marker)] + marker


def cut_marker(count: int) -> str:
    """The line put where text was removed, with the count written for people: 12,345."""
    return f"\n[... {count:,} characters cut from the middle ...]\n"


def _check_limits(limit: int, head: float) -> None:
    """Fail early and clearly on arguments that would make the arithmetic meaningless."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an int, got {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"limit must be 0 or more, got {limit}")
    if isinstance(head, bool) or not isinstance(head, int | float):
        raise TypeError(f"head must be a number between 0 and 1, got {type(head).__name__}")
    if not 0 <= head <= 1:
        raise ValueError(f"head must be between 0 and 1, got {head}")


class HeadTail:
    """Keep the first and last characters of a stream, counting what falls in between.

    Memory stays bounded by `limit` characters whatever the stream's size: pieces are added
    to the head until it is full, then to the tail, whose oldest characters are dropped.
    """

    def __init__(self, limit: int = 4000, *, head: float = 0.5) -> None:
        _check_limits(limit, head)
        self.head_room = int(limit * head)
        self.tail_room = limit - self.head_room
        self._head: list[str] = []
        self._head_size = 0
        self._tail = ""
        self.cut = 0

    def add(self, piece: str) -> None:
        """Take one more piece of the stream."""
        if not isinstance(piece, str):
            raise TypeError(f"expected text (str), got {type(piece).__name__}")
        if self._head_size < self.head_room:
            taken = piece[: self.head_room - self._head_size]
            self._head.append(taken)
            self._head_size += len(taken)
            piece = piece[len(taken) :]
        if piece:
            self._add_to_tail(piece)

    def _add_to_tail(self, piece: str) -> None:
        """Append to the tail, dropping its oldest characters beyond tail_room."""
        if len(piece) >= self.tail_room:
            # The new piece alone fills the tail: the old tail and the piece's start are cut.
            self.cut += len(self._tail) + len(piece) - self.tail_room
            self._tail = piece[len(piece) - self.tail_room :]
            return
        tail = self._tail + piece
        excess = len(tail) - self.tail_room
        if excess > 0:
            self.cut += excess
            tail = tail[excess:]
        self._tail = tail

    def text(self) -> str:
        """The kept text, with a marker where characters were cut (none if nothing was)."""
        head = "".join(self._head)
        if not self.cut:
            return head + self._tail
        return head + cut_marker(self.cut) + self._tail


def truncate(text: str, limit: int = 4000, *, head: float = 0.5) -> str:
    """Return `text` unchanged if it fits in `limit` characters, else its head and tail.

    `head` is the share of `limit` given to the beginning (0.5: half and half). The result
    is never longer than `limit` plus the marker line, which says how many characters were cut.
    """
    if not isinstance(text, str):
        raise TypeError(f"truncate() needs text (str), got {type(text).__name__}")
    kept = HeadTail(limit, head=head)
    kept.add(text)
    return kept.text()
