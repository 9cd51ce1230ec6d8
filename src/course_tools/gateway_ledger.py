"""The workshop gateway's ledger: what each participant has spent and holds, kept on disk.

Course machinery (instructor tool). A budget is a cap only if a request's worst case is
set aside *before* it is forwarded: `reserve` holds the most a request can use (its input
tokens, counted, plus its `max_tokens`) and refuses it when spent + held + that worst case
would pass the budget. Requests in flight therefore see each other's holds. When the answer
is in, `settle` replaces the hold by the tokens its `usage` reports; when the API answered with
an error (not billed), `release` drops the hold.

The ledger is written to its file after every change (a temporary file, then an atomic
rename), so a restart keeps it. Holds still open when the gateway stopped are counted as
spent when it starts again: their outcome is unknown, and the cap must still hold.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Hold:
    """Tokens set aside for one request in flight."""

    name: str
    tokens: int


class Ledger:
    """Tokens spent and held per participant (by name), safe to use from request threads."""

    def __init__(self, budget: int, path: Path | None = None) -> None:
        self.budget = budget
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._people: dict[str, dict] = {}
        if self.path and self.path.is_file():
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            for name, row in (saved.get("participants") or {}).items():
                person = self._person(name)
                person["spent"] = int(row.get("spent", 0)) + int(row.get("held", 0))
                person["calls"] = {k: int(v) for k, v in (row.get("calls") or {}).items()}
                person["refused"] = int(row.get("refused", 0))
                if row.get("budget") is not None:
                    person["budget"] = int(row["budget"])
            self._save()

    def _person(self, name: str) -> dict:
        return self._people.setdefault(name, {"spent": 0, "held": 0, "calls": {}, "refused": 0})

    def budget_of(self, name: str) -> int:
        """The participant's budget: their own (from the token file) or the gateway's."""
        with self._lock:
            return self._people.get(name, {}).get("budget", self.budget)

    def set_budget(self, name: str, budget: int | None) -> None:
        """The participant's own budget (None: the gateway's), as the token file says now."""
        with self._lock:
            person = self._person(name)
            if person.get("budget") == budget or (budget is None and "budget" not in person):
                return
            if budget is None:
                del person["budget"]
            else:
                person["budget"] = budget
            self._save()

    def reserve(self, name: str, worst: int) -> Hold | None:
        """Hold `worst` tokens for a request, or None when that could pass the budget."""
        with self._lock:
            person = self._person(name)
            if person["spent"] + person["held"] + worst > person.get("budget", self.budget):
                return None
            person["held"] += worst
            self._save()
            return Hold(name, worst)

    def settle(self, hold: Hold, used: int) -> int:
        """Replace a hold by the tokens the answer used; the participant's total spent."""
        with self._lock:
            person = self._person(hold.name)
            person["held"] -= hold.tokens
            person["spent"] += used
            self._save()
            return person["spent"]

    def release(self, hold: Hold) -> None:
        """Drop a hold: the request was not billed (the API answered with an error)."""
        with self._lock:
            self._person(hold.name)["held"] -= hold.tokens
            self._save()

    def count_call(self, name: str, route: str) -> None:
        """One forwarded call of `route` (every forwarded call is counted, billed or not)."""
        with self._lock:
            calls = self._person(name)["calls"]
            calls[route] = calls.get(route, 0) + 1
            self._save()

    def count_refusal(self, name: str) -> None:
        with self._lock:
            self._person(name)["refused"] += 1
            self._save()

    def spent(self, name: str) -> int:
        with self._lock:
            return self._people.get(name, {}).get("spent", 0)

    def held(self, name: str) -> int:
        with self._lock:
            return self._people.get(name, {}).get("held", 0)

    def snapshot(self) -> dict:
        """A copy of the ledger, as it is saved."""
        with self._lock:
            return json.loads(json.dumps(self._state()))

    def _state(self) -> dict:
        return {"budget": self.budget, "participants": self._people}

    def _save(self) -> None:
        if self.path is None:
            return
        folder = self.path.parent
        handle, temporary = tempfile.mkstemp(prefix=".ledger-", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(self._state(), out, indent=1, sort_keys=True)
        os.replace(temporary, self.path)
