"""The workshop gateway's list of participants: a name, a workshop token, maybe a budget.

Course machinery (instructor tool). The file looks like this:

    # name   token                budget (optional, tokens)
    ada      ws-3f9c1a7e52d04b8c
    bob      ws-91d0e2b7c4a85f36  900000

A participant without a third column has the gateway's `--budget`; one with it has that budget
instead (larger or smaller), for this participant only. Blank lines and lines starting with `#`
are skipped. A line that is not a name, a token and at most a whole-number budget is skipped
too, and reported by its line number only (never its content: it may hold a token). The
gateway rereads the file at every request, so deleting a participant's line revokes their
token at their next request, and a changed budget applies from their next request; giving a
participant a new token under the same name keeps what they have spent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple


class Participant(NamedTuple):
    name: str
    budget: int | None  # None: the gateway's --budget


def _budget(text: str) -> int | None:
    """A budget column: a whole number of tokens (`900000` or `900_000`), else None."""
    digits = text.replace("_", "")
    if not digits.isascii() or not digits.isdigit():
        return None
    return int(digits)


def parse(text: str) -> tuple[dict[str, Participant], list[int]]:
    """({token: Participant}, the numbers of the lines that could not be read)."""
    people: dict[str, Participant] = {}
    bad: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        budget = _budget(fields[2]) if len(fields) == 3 else None
        if (
            len(fields) not in (2, 3)
            or fields[1] in people
            or (len(fields) == 3 and budget is None)
        ):
            bad.append(number)
            continue
        people[fields[1]] = Participant(fields[0], budget)
    return people, bad


class TokenFile:
    """The participants of a token file, reread at every request (it is a few lines long)."""

    def __init__(self, path: Path, log: Callable[[str], None] = print) -> None:
        self.path = Path(path)
        self._log = log
        self._lock = threading.Lock()
        self._text: str | None = None
        self._names: dict[str, Participant] = {}
        self.refresh()

    def refresh(self) -> None:
        """Read the file again; parse it and say so when its text changed."""
        try:
            text = self.path.read_text(encoding="utf-8-sig")  # a BOM is no part of a name
        except (OSError, UnicodeDecodeError):
            text = ""
            problem = f"token file {self.path.name} cannot be read: every token is refused"
        else:
            problem = ""
        with self._lock:
            if text == self._text:
                return
            self._text = text
            self._names, bad = parse(text)
        if problem:
            self._log(problem)
        for number in bad:
            self._log(f"token file line {number}: expected 'name token [budget]', line skipped")
        self._log(f"token file read: {len(self._names)} participants")

    def participant(self, token: str) -> Participant | None:
        """Who holds the token, or None for a token that is not (or no longer) in the file."""
        self.refresh()
        with self._lock:
            return self._names.get(token) if token else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._names)
