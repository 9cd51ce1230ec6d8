"""Course machinery (offline course model): a string that matches a JSON Schema `pattern`.

A schema's `pattern` is a regular expression that must match somewhere in the string (it is not
anchored unless it says `^`/`$`). The course model reads it with Python's own regex parser
(`re._parser`) and writes a string from the parse: literals, character classes and ranges, the
categories `\\d \\w \\s`, `.`, repeats, groups and backreferences, alternation and anchors.
A lookahead `(?=X)` is met by writing a string for X where it stands: either before what follows
it, or over the start of it (`^(?=.*[A-Z])(?=.*\\d).{8}$` gives "A0aaaaaa"); a negative lookahead
and a lookbehind write nothing, and other characters and branches are tried when they fail.
Every answer is checked with `re.search`, and a pattern it cannot satisfy gives `None`, never a
string that fails it.

    string_matching("^[A-Z]{3}-[0-9]{4}$")           # "AAA-0000"
    string_matching("^[a-z]+$", min_length=5)        # "aaaaa"
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

_LIMIT = 600_000  # characters: a longer string does not fit in any reply
# Characters tried, in order, where a class or `.` leaves the choice open.
_POOL = "axA0 _-.1bB@/:+#zZ9"
_CATEGORY = {
    sre.CATEGORY_DIGIT: "0123456789",
    sre.CATEGORY_NOT_DIGIT: "aA -_",
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "aA0_-",
    sre.CATEGORY_WORD: "aA0_bc",
    sre.CATEGORY_NOT_WORD: " -.@",
}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)}


class _Unsolved(Exception):
    """The pattern asks for something the generator does not write."""


def string_matching(
    pattern: str, *, min_length: int = 0, max_length: int | None = None, variant: int = 0
) -> str | None:
    """A string that `re.search(pattern, ...)` matches, within the length bounds, or None.

    `variant` picks other characters and branches, for a second, different answer.
    """
    try:
        compiled = re.compile(pattern)
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    high = max_length if max_length is not None else _LIMIT
    low = max(min_length, 0)
    # A repeat inside a repeat ("^(a+)+$") makes a string that does not match take exponential
    # time to reject: such a pattern is only checked on what the writer wrote for it (never
    # padded), and the first miss (one for each way of meeting a lookahead) ends the search
    # rather than stalling the server.
    nested = _has_nested_repeat(parsed)
    # How many times past its minimum each repeat runs: every count up to the length asked
    # for (an anchored pattern cannot be padded), then a few larger ones.
    stretches = sorted({*range(min(low, 80) + 1), 1, 2, 4, 8, 16, 64, low})
    # Ways to meet a lookahead: ignore it, write its text before what follows, or over it.
    ways = _WAYS if _has_lookahead(parsed) else _WAYS[:1]
    misses = 0
    for stretch in stretches:
        for pick, way in ((p, w) for p in (variant, variant + 1, variant + 2) for w in ways):
            try:
                text = _Writer(stretch, pick, way).write(parsed)
            except (_Unsolved, RecursionError):
                continue
            if nested:
                if not low <= len(text) <= high:
                    continue
                if len(text) > _NESTED_CHECKED:
                    return None
                if compiled.search(text):
                    return text
                misses += 1
                if misses >= len(ways):  # one try for each way of meeting a lookahead
                    return None
                continue
            for padded in _padded(text, min_length):
                if len(padded) <= high and compiled.search(padded):
                    return padded
    return None


def quick_to_search(pattern: str) -> bool:
    """Whether `re.search(pattern, word)` is safe on any short word: it compiles and has no
    repeat inside a repeat (whose misses take exponential time)."""
    try:
        re.compile(pattern)
        return not _has_nested_repeat(sre_parse.parse(pattern))
    except (re.error, RecursionError, OverflowError, ValueError):
        return False


_NESTED_CHECKED = 4_000  # characters: a match of a nested repeat is quick; a miss is not
_WAYS = ("skip", "before", "over")


def _has_lookahead(parsed) -> bool:
    """Whether the pattern holds a positive lookahead `(?=...)` anywhere."""
    for op, value in parsed:
        if op is sre.ASSERT and value[0] == 1:
            return True
        inner = []
        if op in _REPEATS:
            inner = [value[2]]
        elif op is sre.SUBPATTERN:
            inner = [value[-1]]
        elif op is sre.BRANCH:
            inner = value[1]
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            inner = [value[1]]
        if any(_has_lookahead(part) for part in inner):
            return True
    return False


def _has_nested_repeat(parsed, inside: bool = False) -> bool:
    """Whether a repeat holds another repeat or a choice of branches ("^(a|a)+$" backtracks
    as badly), directly or through groups."""
    for op, value in parsed:
        if op in _REPEATS or (op == sre.BRANCH and inside):
            if inside:
                return True
            if _has_nested_repeat(value[2], True):
                return True
        elif op == sre.SUBPATTERN:
            if _has_nested_repeat(value[-1], inside):
                return True
        elif op == sre.BRANCH:
            if any(_has_nested_repeat(branch, inside) for branch in value[1]):
                return True
        elif op in (sre.ASSERT, sre.ASSERT_NOT) and _has_nested_repeat(value[1], inside):
            return True
    return False


def _padded(text: str, low: int) -> list[str]:
    """`text`, then lengthened to `low` characters after it or before it (an unanchored
    pattern allows either), with letters or spaces."""
    if len(text) >= low:
        return [text]
    extra, space = "x" * (low - len(text)), " " * (low - len(text))
    return [text + extra, extra + text, text + space, space + text]


class _Writer:
    def __init__(self, stretch: int, pick: int, way: str = "skip") -> None:
        self.stretch, self.pick, self.way = stretch, pick, way
        self.groups: dict[int, str] = {}
        self.size = 0

    def write(self, items: object) -> str:
        items = list(items)  # type: ignore[call-overload]
        for place, (op, arg) in enumerate(items):
            if op is sre.ASSERT and arg[0] == 1 and self.way != "skip":
                head = "".join(self._item(op, arg) for op, arg in items[:place])
                # The lookaheads that stand together all look from here: their texts go
                # one after another, then what follows them.
                ahead, rest = [], place
                while rest < len(items) and items[rest][0] in (sre.ASSERT, sre.ASSERT_NOT):
                    op, arg = items[rest]
                    if op is sre.ASSERT and arg[0] == 1:
                        ahead.append(self.write(arg[1]))
                    rest += 1
                looked, tail = "".join(ahead), self.write(items[rest:])
                if self.way == "over":
                    return head + looked + tail[len(looked) :]
                return head + looked + tail
        return "".join(self._item(op, arg) for op, arg in items)

    def _item(self, op: object, arg: object) -> str:
        text = self._one(op, arg)
        self.size += len(text)
        if self.size > _LIMIT:
            raise _Unsolved("too long")
        return text

    def _one(self, op: object, arg: object) -> str:
        if op is sre.LITERAL:
            return chr(arg)  # type: ignore[arg-type]
        if op is sre.NOT_LITERAL:
            return self._choose(lambda c: ord(c) != arg)
        if op is sre.ANY:
            return self._choose(lambda c: c != "\n")
        if op is sre.IN:
            return self._class(arg)  # type: ignore[arg-type]
        if op in _REPEATS:
            low, high, body = arg  # type: ignore[misc]
            count = low + self.stretch if high is sre.MAXREPEAT else min(high, low + self.stretch)
            return "".join(self.write(body) for _ in range(count))
        if op is sre.SUBPATTERN:
            group, _add, _remove, body = arg  # type: ignore[misc]
            text = self.write(body)
            if group is not None:
                self.groups[group] = text
            return text
        if op is sre.BRANCH:
            branches = arg[1]  # type: ignore[index]
            return self.write(branches[self.pick % len(branches)])
        if op is sre.GROUPREF:
            return self.groups.get(arg, "")  # type: ignore[call-overload]
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            return ""  # anchors and lookarounds write nothing; re.search judges the result
        if op is getattr(sre, "ATOMIC_GROUP", None):
            return self.write(arg)
        raise _Unsolved(str(op))

    def _choose(self, allowed) -> str:  # noqa: ANN001
        fits = [c for c in _POOL if allowed(c)]
        if not fits:
            raise _Unsolved("no character")
        return fits[self.pick % len(fits)]

    def _class(self, items: list) -> str:
        if items and items[0][0] is sre.NEGATE:
            return self._choose(lambda c: not _in_class(c, items[1:]))
        options: list[str] = []
        for op, arg in items:
            if op is sre.LITERAL:
                options.append(chr(arg))
            elif op is sre.RANGE:
                low, high = arg
                options.extend(chr(low + k) for k in range(min(high - low + 1, 26)))
            elif op is sre.CATEGORY:
                options.extend(_CATEGORY.get(arg, ""))
        if not options:
            raise _Unsolved("empty class")
        return options[self.pick % len(options)]


def _in_class(char: str, items: list) -> bool:
    code = ord(char)
    for op, arg in items:
        if op is sre.LITERAL and arg == code:
            return True
        if op is sre.RANGE and arg[0] <= code <= arg[1]:
            return True
        if op is sre.CATEGORY and arg in _CATEGORY_TEST and re.match(_CATEGORY_TEST[arg], char):
            return True
    return False


_CATEGORY_TEST = {
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
}
