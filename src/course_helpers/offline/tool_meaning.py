"""Course machinery (offline course model): whether the person asks for what a tool does.

Real clients and agent frameworks send tools of their own: `book_trip`, `search_products`,
`get_stock_price`, `translate`. A model calls one when the person asks for the action or the
lookup the tool's name says, whatever the tool is. One rule for every tool:

- the person asks: a question ("Price of AAPL?"), an order ("Book me a trip to Rome."), or a
  wish ("I'd like to book a trip."), never a statement ("I booked a trip last year.") or a
  question about a word or the tool itself ("What is a stock price?", "What does translate do?");
- and the person's words say what the tool's name says. A name with its own verb (`book_trip`,
  `search_products`, `translate`) is asked for by that verb or a near synonym ("Find me red
  running shoes." asks `search_products`). A name whose verb says only "get" or "set"
  (`get_stock_price`, `set_priority`) is asked for by its last noun ("What is Apple's stock
  price?", "Set ticket T-12 to high priority.").

Words match by their stem ("booking" is "book", "prices" is "price"). Of several tools the one
whose name and description share most words with the request is asked for (`score`).

    serves(book_trip, "Book me a trip to Rome on 12 May.")   # True
    serves(book_trip, "What is 2+2?")                        # False
"""

from __future__ import annotations

import re

# Verbs that say only "look it up" or "change it": the noun after them says what the tool does.
GENERIC = frozenset(
    {
        "get", "fetch", "retrieve", "lookup", "look", "check", "show", "list", "query", "read",
        "set", "update", "change", "make", "do", "run", "tool", "info", "data", "by", "for",
        "of", "to", "from", "the", "a", "an", "current", "all", "new", "my", "user",
    }
)  # fmt: skip
# A verb of a tool's name and the verbs a person says for it (stems).
_SYNONYMS = (
    frozenset({"search", "find", "look", "seek", "lookup", "browse"}),
    frozenset({"book", "reserve"}),
    frozenset({"trip", "travel", "journey", "holiday", "vacation"}),
    frozenset({"translate", "translation", "translat"}),
    frozenset({"send", "email", "mail", "message"}),
    frozenset({"create", "add", "new"}),
    frozenset({"delete", "remove", "cancel"}),
    frozenset({"price", "cost", "quote", "worth"}),
    frozenset({"weather", "forecast"}),
    frozenset({"buy", "order", "purchase"}),
)
# What opens a person's order or wish before the verb: "please", "can you", "I'd like to".
_OPENING = re.compile(
    r"^(?:(?:please|kindly|now|ok(?:ay)?|hey|hi|so|and|then|also)[,!]?\s+)*"
    r"(?:(?:can|could|would|will) you\s+(?:please\s+)?|"
    r"i(?:'d| would) like(?: you)? to\s+|i (?:want|need)(?: you)? to\s+|help me\s+|"
    r"let'?s\s+|go ahead and\s+)?",
    re.IGNORECASE,
)
_STATEMENT_OPENERS = frozenset({"i", "we", "my", "our", "it", "this", "that", "there", "they"})
# A question about a word or a tool, not a request for what the tool does.
_ABOUT = re.compile(
    r"^(?:what(?:'s| is| are) (?:a|an|the meaning of)\b|what (?:does|can) (?:the )?\S+ (?:mean|do)\b|"
    r"how (?:does|do) \S+(?: \S+)? work\b|what (?:is|are) (?:the )?\S+ (?:tool|function)s?\b|"
    r"(?:tell me|talk) about (?:the )?(?:tool|function)s?\b|define\b)",
    re.IGNORECASE,
)


def stem(word: str) -> str:
    """The stem two forms of a word share: "booking", "booked", "books" are all "book"."""
    w = word.lower().removesuffix("'s").removesuffix("’s")
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("es") and re.search(r"(?:s|x|z|ch|sh)es$", w):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        w = w[:-1]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    w = w.removesuffix("e") if len(w) > 3 else w
    return w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls" else w


def stems(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'’]*", text)}


def _near(word: str) -> set[str]:
    """A stem with the stems of its near synonyms."""
    near = {word}
    for group in _SYNONYMS:
        group_stems = {stem(w) for w in group}
        if word in group_stems:
            near |= group_stems
    return near


def name_words(name: str) -> list[str]:
    """The words of a tool's name: `get_stock_price` and `getStockPrice` give get, stock,
    price (an MCP client's `mcp__server__` prefix left out)."""
    bare = re.sub(r"^mcp__[^_]+(?:_[^_]+)*?__", "", name)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", bare)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


def _key_words(name: str) -> tuple[str | None, str | None]:
    """The verb of a tool's name (None when it says only get, set...) and its last noun."""
    words = [w for w in name_words(name) if w.isalpha()]
    if not words:
        return None, None
    verb = None if words[0] in GENERIC else words[0]
    nouns = (
        [w for w in words[1:] if w not in GENERIC]
        if verb
        else [w for w in words if w not in GENERIC]
    )
    return verb, (nouns[-1] if nouns else None)


def is_asking(said: str) -> bool:
    """Whether the person asks for something in one of their sentences: a question, an order or
    a wish, not a statement and not a question about a word or a tool."""
    return any(_asks(sentence) for sentence in re.split(r"(?<=[.!?])\s+", said.strip()))


def _asks(sentence: str) -> bool:
    rest = _OPENING.sub("", sentence, count=1)
    if not rest or _ABOUT.search(rest):
        return False
    if sentence.endswith("?") or rest != sentence:
        return True
    first = re.match(r"[A-Za-z']+", rest)
    return bool(first) and first.group(0).lower() not in _STATEMENT_OPENERS


def served_by(tool: dict, said: str) -> str | None:
    """How the person asks for what the tool's name says it does: by its "verb" (`book_trip`
    and "Book me a trip."), by its last "noun" (`get_stock_price` and "Price of AAPL?"), or
    not at all (None)."""
    if not is_asking(said):
        return None
    verb, noun = _key_words(str(tool.get("name", "")))
    key = verb or noun
    if key is None or not _near(stem(key)) & stems(said):
        return None
    return "verb" if verb else "noun"


def serves(tool: dict, said: str) -> bool:
    """Whether the person asks for what the tool's name says it does."""
    return served_by(tool, said) is not None


def score(tool: dict, said: str) -> int:
    """How many of the request's words the tool's name and description share."""
    own = stems(" ".join(name_words(str(tool.get("name", "")))))
    own |= stems(str(tool.get("description", "")))
    own = {w for s in own for w in _near(s)} - {stem(w) for w in GENERIC}
    return len(own & stems(said))
