"""Course machinery (offline course model): a few more kinds of value a request states, for the
fields of a tool the person asks for (`scenarios/asked_tool.py`): a date, an id, a ticker, a
language, quoted text and what to search for.

    date_in("Book me a trip to Rome on 12 May.")              # "12 May"
    id_in("Set ticket T-12 to high priority.", "ticket_id")  # "T-12"
    ticker_in("Price of AAPL?")                               # "AAPL"
    language_in("Translate 'good morning' into Spanish.")     # "Spanish"
    quoted_in("Translate 'good morning' into Spanish.")       # "good morning"
    searched_in("Find me red running shoes.")                 # "red running shoes"

`value_for(field, schema, said)` picks the reader a field's name asks for and gives the value in
the form the field's schema asks (an ISO date for `format: date`, a language code for a
two-letter pattern), or None when the request states none.
"""

from __future__ import annotations

import re
from typing import Any

from course_helpers.offline.dates import date_in, iso_date
from course_helpers.offline.described import with_described
from course_helpers.offline.labelled_values import currency_in, labelled_in, place_in
from course_helpers.offline.schemas import is_valid

LANGUAGES = {
    "English": "en", "Spanish": "es", "French": "fr", "German": "de", "Italian": "it",
    "Portuguese": "pt", "Russian": "ru", "Chinese": "zh", "Japanese": "ja", "Korean": "ko",
    "Dutch": "nl", "Polish": "pl", "Turkish": "tr", "Arabic": "ar", "Hindi": "hi",
    "Swedish": "sv", "Ukrainian": "uk", "Greek": "el", "Czech": "cs", "Finnish": "fi",
}  # fmt: skip
_QUOTED = re.compile(r"(?<!\w)'([^'\n]+)'(?!\w)|\"([^\"\n]+)\"|“([^”\n]+)”|«([^»\n]+)»")
_SEARCH_VERBS = re.compile(
    r"\b(?:find|search(?: for)?|look(?:ing)? (?:for|up)|seek|browse|show)\s+"
    r"(?:me\s+|us\s+)?(?:for\s+)?(?:some\s+|a\s+|an\s+|the\s+|any\s+)?(?P<what>[^.?!\n]+)",
    re.IGNORECASE,
)
_TICKER = re.compile(r"(?<![\w$])\$?([A-Z]{1,5})(?![\w'])")
_NOT_TICKERS = frozenset({"I", "A", "OK", "AM", "PM", "US", "UK", "EU", "CEO", "ETF", "USD"})
_COMPANY = re.compile(
    r"\b([A-Z][A-Za-z&.-]+(?: [A-Z][A-Za-z&.-]+)*)(?:'s|’s)|\b(?:of|for) ([A-Z]\w+)"
)


def id_in(text: str, field: str) -> str | None:
    """The id the text gives for an id field: the token after the field's own noun ("ticket
    T-12" for `ticket_id`), else the first token with a digit that is not a date or a sum."""
    noun = re.split(r"_|(?=[A-Z])|-", field)[0].lower()
    token = r"#?([A-Za-z]*[-_]?\d[\w-]*)"
    if noun and noun not in ("id", "number"):
        after = re.search(rf"\b{re.escape(noun)}s?(?: (?:id|number|no\.?))?:? {token}", text, re.I)
        if after:
            return after.group(1)
    for match in re.finditer(rf"(?<![\w.]){token}", text):
        value = match.group(1)
        if not date_in(text[match.start() : match.start() + 12]) or not value.isdigit():
            return value.rstrip("-")
    return None


def ticker_in(text: str) -> str | None:
    """The ticker the text states ("AAPL"), else the company it names ("Apple's")."""
    for match in _TICKER.finditer(text):
        if match.group(1) not in _NOT_TICKERS:
            return match.group(1)
    company = _COMPANY.search(text)
    if company is None:
        return None
    name = company.group(1) or company.group(2)
    return None if name.lower() in ("what", "how", "who", "which", "me", "the") else name


def language_in(text: str, *, source: bool = False) -> str | None:
    """The language to translate into (after "into", "to", "in"), or from (after "from")."""
    names = "|".join(LANGUAGES)
    before = r"from" if source else r"into|to|in"
    match = re.search(rf"\b(?:{before})\s+({names})\b", text, re.IGNORECASE)
    return match.group(1).capitalize() if match else None


def quoted_in(text: str) -> str | None:
    """The first text the request quotes."""
    match = _QUOTED.search(text)
    return next(g for g in match.groups() if g) if match else None


def searched_in(text: str) -> str | None:
    """What the person asks to find: a quoted text, else the words after "find me", "search
    for", "look for"."""
    quoted = quoted_in(text)
    if quoted:
        return quoted
    match = _SEARCH_VERBS.search(text)
    if match is None:
        return None
    what = re.sub(r",?\s*(?:please|for me)\s*$", "", match.group("what").strip(), flags=re.I)
    return what or None


def _words(field: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", field)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


_ADDRESS = re.compile(r"\bhttps?://[^\s<>\"')\]]+|\bwww\.[^\s<>\"')\]]+")


def address_in(text: str) -> str | None:
    """The first web address the text gives ("https://example.com/a", "www.example.com")."""
    match = _ADDRESS.search(text)
    return match.group(0).rstrip(".,;:!?") if match else None


def _kind(field: str, schema: dict) -> str | None:
    words = _words(field)
    if schema.get("format") in ("date", "date-time") or {"date", "day", "when"} & set(words):
        return "date"
    if {"ticker", "symbol"} & set(words):
        return "ticker"
    if schema.get("format") in ("uri", "url", "iri") or {"url", "uri", "link", "href"} & set(words):
        return "address"
    if {"language", "lang", "locale"} & set(words) or field in ("target", "source", "to"):
        return "language"
    if {"query", "q", "search", "keywords", "keyword", "terms", "term"} & set(words):
        return "search"
    if words and words[-1] in ("text", "phrase", "sentence", "word", "words"):
        return "quoted"
    if len(words) > 1 and words[-1] in ("id", "number", "no", "ref", "code"):
        return "id"
    return None


def value_for(field: str, schema: Any, said: str) -> str | None:
    """The value of the field's kind the request states, in the form its schema asks."""
    schema = with_described(schema) if isinstance(schema, dict) else {}
    if schema.get("type", "string") != "string":
        return None
    kind = _kind(field, schema)
    if kind == "date":
        stated, iso = date_in(said), iso_date(said)
        forms = [stated, iso] if schema.get("format") != "date" else [iso]
    elif kind == "language":
        name = language_in(said, source="source" in _words(field) or field == "from")
        forms = [name, LANGUAGES.get(name or "")]
    else:
        reader = {
            "ticker": ticker_in,
            "search": searched_in,
            "quoted": quoted_in,
            "address": address_in,
        }.get(kind or "")
        forms = [reader(said)] if reader else [id_in(said, field)] if kind == "id" else []
    # A value given by naming it: "titled 'Budget review'", "from London", "to EUR".
    forms += [currency_in(field, said), place_in(field, said), labelled_in(field, said)]
    return next((v for v in forms if v and is_valid(v, schema) is not False), None)
