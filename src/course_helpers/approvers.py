"""Ready-made approval policies, and what a person sees before saying yes (course machinery, 07).

Notebook 07 builds the `Gate` and the `Decision` it expects (`course_helpers.lessons.gate`); the
policies here answer for it: `AllowAll` and `DenyAll`, the two extremes; `Scripted`, answers
written in advance for CI and stored notebooks; `AskInTerminal`, the person at the keyboard.
Buttons in a notebook are `course_helpers.widgets.approval_buttons.ApprovalPanel`.

What a person sees before saying yes is `describe_call()`: every argument, `path` first and then
the short ones (so `write_file` shows its `path` before a long `content`, whatever order the model
wrote them in), control and bidirectional characters escaped, a character Unicode normalisation (NFC) would
change escaped too (two names that differ only in how an accent is stored never look alike), long runs of blanks (spaces,
tabs, other Unicode spaces, blank lines) counted. A call too long to show whole is refused with
a reason that says so, never approved unseen.
"""

from __future__ import annotations

import builtins
import itertools
import json
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from course_helpers.display.shown import mark_unnormalised
from course_helpers.lessons.dispatch import is_yes
from course_helpers.lessons.gate import Decision
from course_helpers.plumbing.truncate import visible

SHOW_LIMIT = 20_000  # characters of a call a person is shown; a longer call is refused


class AllowAll:
    """Approve everything. For demos of what goes wrong without a gate, and trusted tests."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(True, "every call is allowed by this policy", "AllowAll")


class DenyAll:
    """Refuse everything dangerous: the safe default when no one can be asked."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(False, "every dangerous call is refused by this policy", "DenyAll")


class Scripted:
    """Answers written in advance, for CI and notebooks that must run without a person.

    A list gives one answer per call, in order; a dict gives one answer per tool name.
    When the script has no answer, the call is denied (and the reason says so), because
    refusing is the safe way to fail. `remaining` lets a test check every answer was used.
    """

    def __init__(self, answers: list[bool] | Mapping[str, bool]) -> None:
        if isinstance(answers, Mapping):
            values, self._by_tool, self._queue = answers.values(), dict(answers), None
        elif isinstance(answers, list | tuple):
            values, self._by_tool, self._queue = answers, None, list(answers)
        else:
            raise TypeError(f"Scripted needs a list or a dict of answers, got {answers!r}")
        if not all(isinstance(value, bool) for value in values):
            raise TypeError("Scripted answers must be True or False, not strings or numbers")
        self.asked = 0

    @property
    def remaining(self) -> int | None:
        """Answers not used yet (None for a dict, whose answers can be used many times)."""
        return None if self._queue is None else len(self._queue)

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        self.asked += 1
        answer = self._next_answer(tool_name)
        if answer is None:
            return Decision(False, f"the script has no answer for call {self.asked}", "Scripted")
        reason = "the script says yes" if answer else "the script says no"
        return Decision(answer, reason, "Scripted")

    def _next_answer(self, tool_name: str) -> bool | None:
        if self._by_tool is not None:
            return self._by_tool.get(tool_name)
        return self._queue.pop(0) if self._queue else None


# A run of 8 or more characters that draw nothing (spaces, tabs, other Unicode spaces, Hangul
# and braille blanks, the musical null notehead, and every character `visible()` would write as an escape: zero-width,
# unassigned, a lone combining mark), mixed in any order, or of 8 or more blank lines, could
# push the dangerous part of a call off the screen: it is shown as a count instead.
_BLANK_RUN = 8
_BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\U0001d159")
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n){7,}")


def _draws_nothing(char: str) -> bool:
    """True for a character that leaves no mark of its own on the screen (not a newline)."""
    return char != "\n" and (char.isspace() or char in _BLANK_CHARACTERS or visible(char) != char)


GUTTER = "    │ "  # before every line of a value: the prompt's own lines never start with it


def _count_blanks(text: str) -> str:
    what = {" ": "spaces", "\t": "tabs"}.get(text[0]) if len(set(text)) == 1 else None
    return f"⟨{len(text):,} {what or 'blank characters'}⟩"


def _count_blank_lines(run: re.Match) -> str:
    return f"\n⟨{run.group(0).count(chr(10)) - 1:,} blank lines⟩\n"


def _shown_value(value: Any) -> str:
    """One argument as a person reads it: strings as they are, other values as JSON."""
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError, RecursionError):
            value = repr(value)
    # A character Unicode normalisation (NFC) would change is written as its escape first, so
    # `café.py` stored as `e` + U+0301 reads `cafe\u0301.py`, never the same as `café.py`.
    value = mark_unnormalised(value)
    # Runs are found before escaping, with the characters that draw nothing counted as blanks:
    # a zero-width or unassigned character every few spaces cannot break a long run of blanks
    # into short runs that are each too short to be counted. The rest is escaped.
    value = _BLANK_LINES.sub(_count_blank_lines, value)
    shown = []
    for blank, run in itertools.groupby(zip(value, _blank_flags(value), strict=True), key=_second):
        text = "".join(char for char, _ in run)
        if blank and len(text) >= _BLANK_RUN:
            shown.append(_count_blanks(text))
        else:
            shown.append(visible(text, keep_newlines=True, keep_tabs=True))
    return "".join(shown)


def _second(pair: tuple[str, bool]) -> bool:
    return pair[1]


def _blank_flags(value: str) -> Iterator[bool]:
    """For each character of `value`, whether it draws nothing; an accent on a letter draws."""
    after_base = False
    for char in value:
        if after_base and unicodedata.category(char) in ("Mn", "Me"):
            yield False
            continue
        blank = _draws_nothing(char)
        after_base = not blank and char != "\n"
        yield blank


def describe_call(tool_name: str, tool_input: Any, limit: int = SHOW_LIMIT) -> str | None:
    """The call as a person must see it before saying yes, or None if it is too long to show.

    One block per argument: `path` first if there is one, then the shortest first, so a long
    value cannot push the short dangerous part off the screen. Every line of a value starts
    with the gutter `│ `, so a value holding a line such as "Allow? [y/N]" or "The agent wants
    to call ..." cannot pass for the prompt's own text or for another argument, and a value of
    several lines says how many (a path ending in a newline shows as "path (2 lines)").
    """
    if isinstance(tool_input, dict):
        items = [
            (visible(mark_unnormalised(str(key))), _shown_value(value))
            for key, value in tool_input.items()
        ]
    else:
        items = [("input", _shown_value(tool_input))]
    items.sort(key=lambda item: (item[0] != "path", len(item[1]), item[0]))
    lines = [f"The agent wants to call {visible(mark_unnormalised(str(tool_name)))} with:"]
    for key, value in items:
        rows = value.split("\n")
        lines.append(f"  {key} ({len(rows)} lines):" if len(rows) > 1 else f"  {key}:")
        lines += [f"{GUTTER}{row}" for row in rows]
    shown = "\n".join(lines) + "\n"
    return shown if len(shown) <= limit else None


def too_long_reason(tool_name: str, tool_input: Any) -> str:
    """The reason given when a call cannot be shown whole: said plainly, and refused."""
    size = len(json.dumps(tool_input, ensure_ascii=False, default=repr))
    return (
        f"the call is too long to show a person in full ({size:,} characters of arguments; "
        f"the limit is {SHOW_LIMIT:,}), so it was refused rather than approved unseen"
    )


class AskInTerminal:
    """Ask the person at the keyboard, with input(). Only an explicit yes (y, yes) approves.

    If no one can answer (standard input is not a terminal, a notebook run without input,
    end of file), the call is denied with that reason instead of waiting forever: an agent
    run in CI must fail closed, not hang. `ask` replaces input(), for tests.
    """

    def __init__(self, ask: Callable[[str], str] | None = None) -> None:
        self._ask = ask

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        ask = self._ask or builtins.input  # looked up now: Jupyter replaces input() per cell
        shown = describe_call(tool_name, tool_input)
        if shown is None:
            return Decision(False, too_long_reason(tool_name, tool_input), "AskInTerminal")
        if _is_plain_input(ask) and not _stdin_is_terminal():
            reason = "no one can answer: standard input is not a terminal"
            return Decision(False, reason, "AskInTerminal")
        try:
            answer = ask(shown + "Allow? [y/N] ")
        except (EOFError, NotImplementedError, RuntimeError, OSError) as error:
            # StdinNotImplementedError (a kernel without input) is a NotImplementedError.
            return Decision(False, f"no one can answer ({type(error).__name__})", "AskInTerminal")
        if is_yes(answer):
            return Decision(True, "the person approved", "person")
        said = visible(answer.strip()[:40]) if isinstance(answer, str) else type(answer).__name__
        return Decision(False, f"the person declined (answered {said!r})", "person")


def _is_plain_input(ask: Callable[[str], str]) -> bool:
    """True for Python's own input(), which reads sys.stdin (not Jupyter's replacement)."""
    return getattr(ask, "__self__", None) is builtins and getattr(ask, "__name__", "") == "input"


def _stdin_is_terminal() -> bool:
    """Whether a person can type answers; a pipe or /dev/null means no one will."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or replaced stdin
        return False
