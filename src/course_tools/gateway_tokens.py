"""The workshop gateway's list of participants: a name and a workshop token per line.

Course machinery (instructor tool). The file looks like this:

    # name   token
    ada      ws-3f9c1a7e52d04b8c
    bob      ws-91d0e2b7c4a85f36

Blank lines and lines starting with `#` are skipped. A line that is not exactly a name and a
token is skipped too, and reported by its line number only (never its content: it may hold a
token). The gateway rereads the file at every request, so deleting a participant's line
revokes their token at their next request; giving a participant a new token under the same
name keeps what they have spent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


def parse(text: str) -> tuple[dict[str, str], list[int]]:
    """({token: name}, the numbers of the lines that could not be read)."""
    names: dict[str, str] = {}
    bad: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2 or fields[1] in names:
            bad.append(number)
            continue
        name, token = fields
        names[token] = name
    return names, bad


class TokenFile:
    """The participants of a token file, reread at every request (it is a few lines long)."""

    def __init__(self, path: Path, log: Callable[[str], None] = print) -> None:
        self.path = Path(path)
        self._log = log
        self._lock = threading.Lock()
        self._text: str | None = None
        self._names: dict[str, str] = {}
        self.refresh()

    def refresh(self) -> None:
        """Read the file again; parse it and say so when its text changed."""
        try:
            text = self.path.read_text(encoding="utf-8")
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
            self._log(f"token file line {number}: expected 'name token', line skipped")
        self._log(f"token file read: {len(self._names)} participants")

    def name_for(self, token: str) -> str | None:
        """The participant's name, or None for a token that is not (or no longer) in the file."""
        self.refresh()
        with self._lock:
            return self._names.get(token) if token else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._names)
