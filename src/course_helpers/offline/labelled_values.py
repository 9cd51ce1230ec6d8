"""Course machinery (offline course model): values a request gives by naming them, for a tool's
string fields that no reader of a kind (`request_values.py`) takes.

    labelled_in("title", "Create an event titled 'Budget review'")           # "Budget review"
    labelled_in("body", "with subject 'Lunch' and body 'See you at noon'")    # "See you at noon"
    labelled_in("start_time", "start_time: 2026-12-05T10:00:00Z")             # the timestamp
    currency_in("to_currency", "Convert 250 USD to EUR")                      # "EUR"
    place_in("origin", "Book a flight from London to New York")              # "London"

Only the person's own words are read (the caller passes them).
"""

from __future__ import annotations

import re

# What a field's name is also called when a request gives its value: "titled X", "named X".
_SAID_AS = {
    "title": ("titled", "called", "named", "title"),
    "name": ("named", "called", "name"),
    "subject": ("subject", "about"),
    "body": ("body", "saying", "text", "message"),
    "message": ("message", "saying", "text"),
}
_QUOTE = r"'([^'\n]+)'|\"([^\"\n]+)\"|“([^”\n]+)”|«([^»\n]+)»"
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
# A value given after a label, unquoted: up to a comma, a full stop at the end, or " and ".
_BARE = r"([^,;\n'\"“«]+?)(?=\s*(?:,|;|\n|\.\s|\.$|$|\s+and\s+))"


def _words(field: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", field)
    return [w.lower() for w in re.split(r"[\s_\-.$]+", spaced) if w]


def labelled_in(field: str, text: str) -> str | None:
    """The value the text gives after the field's own name or a word for it: quoted, a
    timestamp, or after a colon or an equals sign up to the next comma."""
    words = _words(field)
    if not words:
        return None
    heads = {re.escape(field), r"[\s_-]?".join(map(re.escape, words))}
    heads.update(re.escape(w) for w in _SAID_AS.get(words[-1], ()))
    if len(words) > 1 and len(words[0]) > 3:
        heads.add(re.escape(words[0][: max(4, len(words[0]) - 2)]) + r"\w*")  # "starting"
    head = "|".join(sorted(heads, key=len, reverse=True))
    lead = rf"\b(?:{head})\b(?:\s+(?:is|of|as|at|on))?\s*[:=]?\s*"
    for value in (_QUOTE, f"({_TIMESTAMP})"):
        match = re.search(lead + rf"(?:{value})", text, re.IGNORECASE)
        if match:
            return next(g for g in match.groups() if g)
    match = re.search(rf"\b(?:{head})\b\s*[:=]\s*{_BARE}", text, re.IGNORECASE)
    return match.group(1).strip() if match else None


_CODE = re.compile(r"\b([A-Z]{3})\b")
_CURRENCY_WORDS = {
    "dollars": "USD", "dollar": "USD", "euros": "EUR", "euro": "EUR", "pounds": "GBP",
    "pound": "GBP", "yen": "JPY", "francs": "CHF", "roubles": "RUB", "rubles": "RUB",
}  # fmt: skip
_TARGET = frozenset({"to", "target", "into", "quote", "dest", "destination", "out", "output"})


def currency_in(field: str, text: str) -> str | None:
    """A currency field's code: the first one the text names for a source (`from_currency`,
    `base`), the one after "to"/"into" for a target."""
    words = set(_words(field))
    if not words & {"currency", "ccy"} and field.lower() not in ("from", "to", "base"):
        return None
    spelled = re.sub(
        r"\b(" + "|".join(_CURRENCY_WORDS) + r")\b",
        lambda m: _CURRENCY_WORDS[m.group(1).lower()],
        text,
        flags=re.IGNORECASE,
    )
    codes = [c for c in _CODE.findall(spelled) if c not in ("THE", "AND", "FOR")]
    if not codes:
        return None
    if words & _TARGET:
        after = re.search(r"\b(?:to|into|in)\s+([A-Z]{3})\b", spelled)
        return after.group(1) if after else (codes[1] if len(codes) > 1 else None)
    return codes[0]


_PLACE = r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
_ORIGIN = frozenset({"origin", "from", "departure", "source", "start"})
_DESTINATION = frozenset({"destination", "to", "arrival", "dest", "end"})


def place_in(field: str, text: str) -> str | None:
    """A route's end the text names: "from London" for `origin`, "to New York" for
    `destination`."""
    words = set(_words(field))
    if words & _ORIGIN and not words & {"currency", "date", "time", "language"}:
        match = re.search(rf"\bfrom\s+{_PLACE}", text)
    elif words & _DESTINATION and not words & {"currency", "date", "time", "language"}:
        match = re.search(rf"\b(?:to|for)\s+{_PLACE}", text)
    else:
        return None
    return match.group(1) if match else None
