"""Course machinery (offline course model): values a request states in a phrase of its own, for the
fields `filling` fills: a value written after the field's own words, the things a request orders,
what a log or a note is to record, and whether a field holds a date (`dates.py` reads it).

    labelled_value("card_number", "Pay with card 4111 1111 1111 1111, expiry 12/27")
    # "4111 1111 1111 1111"   (and "12/27" for `expiry`)
    items_listed("I need eggs, milk and bread.")        # ["eggs", "milk", "bread"]
    recorded("Log that the backup finished.")          # "The backup finished."
"""

from __future__ import annotations

import re


def field_words(name: str) -> list[str]:
    """The words of a field's name: `card_number` and `cardNumber` give card, number."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


_DATE_FIELD = re.compile(r"(?<![a-z])date|Date|(?:^|_)(?:day|when)$")


def is_date_field(name: str) -> bool:
    """Whether a field holds a date: `date`, `start_date`, `departureDate`, `when`."""
    return _DATE_FIELD.search(name) is not None


# A word of a field's name that says only what kind of value it holds, not what it is.
_GENERIC = frozenset({"number", "num", "no", "code", "id", "value", "string", "str"})
# A value written with digits: "4111 1111 1111 1111", "12/27", "DE89 3704 0044 0532 0130 00".
_CODE = r"[A-Za-z0-9]*\d[\w/-]*"


def labelled_value(name: str, text: str) -> str | None:
    """The value the text writes after the field's own words ("card 4111 1111 1111 1111" for
    `card_number`, "expiry 12/27" for `expiry`, "IBAN DE89 3704 ..." for `iban`): a value with
    digits, its groups kept together, after the name's words said together, else after its
    one telling word (with any ending: "expires" for `expiry`)."""
    words = field_words(name)
    telling = [w for w in words if w not in _GENERIC and len(w) > 2]
    heads = [r"\s+".join(map(re.escape, words))] if len(words) > 1 else []
    heads += [re.escape(w[: max(4, len(w) - 2)]) + r"\w*" for w in telling]
    for head in heads:
        match = re.search(
            rf"\b{head}(?:\s+(?:number|no\.?|code|date|is|of))?\s*(?::|=|#)?\s*"
            rf"({_CODE}(?:\s{_CODE})*)",
            text,
            re.IGNORECASE,
        )
        if match:
            return match.group(1).rstrip(".-/")
    return None


_ORDERING = r"order|need|buy|want|get|add|bring|pack|purchase|grab|pick up|include|put|send|ship"
# The list ends where the sentence does or a phrase about something else begins.
_LIST = re.compile(
    rf"\b(?:{_ORDERING})\s+(?:me\s+|us\s+)?(?!(?:to|it|that|this|them|you)\b)(.+?)"
    r"(?=\s+(?:for|to|from|by|at|on|in|with|please|today|tomorrow)\b|[.!?;\n]|$)",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:a|an|the|some|more)\s+", re.IGNORECASE)


def items_listed(text: str) -> list[str] | None:
    """The things a request orders, needs or buys, when it lists two or more ("Order food and
    silk", "I need eggs, milk and bread"): each of a word or three, without its article."""
    for match in _LIST.finditer(text):
        parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", match.group(1).strip())
        items = [_ARTICLE.sub("", part).strip() for part in parts]
        if len(items) >= 2 and all(re.fullmatch(r"[\w'-]+(?: [\w'-]+){0,2}", i) for i in items):
            return items
    return None


# "Log that the backup finished.", "Note: the server restarted.", "Write down that we met."
_RECORD = re.compile(
    r"^(?:please\s+)?(?:log|note(?: down)?|record|write down|jot down|remember|post|say"
    r"|add (?:a |an )?(?:note|log entry|entry))\s+(?:(?:down|it|here)\s+)?"
    r"(?:that\s+|saying\s+|:\s*)[\"“']?(\w[^\"”\n]*?)[\"”']?\s*[.!?]?$",
    re.IGNORECASE,
)


def recorded(text: str) -> str | None:
    """What a request asks to be logged, noted or recorded, as a sentence of its own: the
    content of the order ("Log that the backup finished." gives "The backup finished."), not
    the order itself."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text.strip()):
        match = _RECORD.match(sentence.strip())
        if match:
            said = match.group(1).strip()
            return said[:1].upper() + said[1:] + ("" if said[-1:] in ".!?" else ".")
    return None
