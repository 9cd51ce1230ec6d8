"""Course machinery (offline course model): where notebook 09's support desk finds the parts of a
request, the same for every caller: the ticket, the facts, a draft, worker answers and the
instructions, wherever the request puts them (one string or several text blocks, in any order,
under a heading or none, in the system prompt or a later user turn); and which offered tool does
which of the desk's operations, by what its name and description say. The rules that use them
are in `support_desk`; this module registers no scenario.

**Parts.** Every text the program sends (the system prompt, each text block of each user
message) is cut at heading lines into parts: a ticket ("Ticket:", "Customer ticket:", "Customer
wrote:", ...), facts ("Facts (JSON):", "Facts:", "Order facts:", ...), a draft ("Draft reply:")
and worker answers ("Worker answers (JSON):"), each also as "## Facts", "**Facts:**",
"<facts>...</facts>" or "Here are the facts:". JSON of order facts (an object with `orders`,
`refunds`, `customer`, ..., an order record, a list of them), or an order record written as
`key: value` lines, is facts by its content (`support_desk_facts`), under any heading line
("<order_info>", "### Order", "Here are the order details:") or none. In the system prompt's own words, facts count wherever they sit ("Order facts: {...}.").
What a person typed is never cut: a user text that neither starts with a heading nor marks
the ticket with one is one part, the person's words, whatever headings they type (a customer who
types "Facts (JSON):" writes part of the ticket). A part that is a text of its own is the
program's; when the request has one of a kind, it is believed before one found inside another
text (the facts a ticket's block holds are the customer's); inside one text, the last of a kind
counts (a program writes its facts after the ticket it frames)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from course_helpers.offline.conversation import Conversation, blocks_of
from course_helpers.offline.scenarios.instructions import tool_orders
from course_helpers.offline.scenarios.support_desk_facts import (
    facts_spans,
    leading_facts,
)

_PAREN = r"(?:\s*\([^)\n]{0,30}\))?"
_BOLD = r"(?:\*\*|__)?"
# A heading line: "Facts:", "**Facts:**", "## Facts" (its colon optional), "<facts>" (closed by
# "</facts>"), "Here are the facts:".
_HEADING = re.compile(
    rf"^[ \t]*(?:(?P<tag><)|(?P<hash>\#{{1,6}}[ \t]*))?{_BOLD}(?:here (?:are|is) )?(?:"
    rf"(?P<ticket>(?:the |a |new )?(?:customer(?:'s)? |support |incoming )?(?:ticket|message)"
    rf"(?: from the customer)?{_PAREN}|(?:the )?customer(?: wrote| says| asks)?)"
    rf"|(?P<facts>(?:(?:the|known|order|looked[- ]up|relevant|customer) )*facts{_PAREN}"
    rf"|order (?:data|records?|details){_PAREN})"
    rf"|(?P<draft>(?:the )?draft(?: reply| answer)?{_PAREN})"
    rf"|(?P<answers>(?:the )?(?:workers?'?|colleagues'?) answers{_PAREN})"
    rf"){_BOLD}[ \t]*(?(tag)>|(?(hash)(?::{_BOLD}|(?=\r?\n|$))|:{_BOLD}))[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_CLOSING_TAG = re.compile(r"</[A-Za-z][\w '-]{0,40}>")
# Any heading line, whatever it names ("<order_info>", "### Order", "Here are the order
# details:"): a heading of facts when what follows it is facts by its content (`leading_facts`).
_ANY_HEADING = re.compile(
    r"^[ \t]*(?:<[A-Za-z][\w-]{0,40}>|\#{1,6}[ \t]*[^\n#]{1,60}?[ \t]*:?(?=[ \t]*(?:\r?\n|$))"
    r"|(?:\*\*|__)?[A-Za-z][\w '()&/-]{0,50}:(?:\*\*|__)?)[ \t]*",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Part:
    kind: str  # "ticket", "facts", "draft", "answers", or "" (no heading: words or instructions)
    body: str
    source: str  # "system" or "user"
    own: bool  # the part is a whole text of its own
    turn: int  # the user message it is in (0 for the first; -1 for the system prompt)


@dataclass(frozen=True)
class Head:
    start: int
    end: int
    kind: str  # "ticket", "facts", "draft" or "answers"


def heads_in(text: str) -> list[Head]:
    """The heading lines of a text: the ones that name their kind (`_HEADING`), and any other
    heading line over facts (`_ANY_HEADING`, at most six words)."""
    named = [
        Head(m.start(), m.end(), next(k for k in ("ticket", "facts", "draft", "answers") if m[k]))
        for m in _HEADING.finditer(text)
    ]
    taken = [(h.start, h.end) for h in named]
    other = [
        Head(m.start(), m.end(), "facts")
        for m in _ANY_HEADING.finditer(text)
        if len(m.group(0).split()) <= 6
        and not any(b <= m.start() < e or m.start() <= b < m.end() for b, e in taken)
        and leading_facts(text[m.end() :]) is not None
    ]
    return sorted(named + other, key=lambda h: h.start)


def own_kind(text: str) -> str | None:
    """The kind of a text that is one part of its own: one heading at its start and no other,
    or facts (`leading_facts`) and nothing else."""
    heads = heads_in(text)
    if len(heads) == 1 and not text[: heads[0].start].strip():
        return heads[0].kind
    found = leading_facts(text) if not heads else None
    return "facts" if found and not found[1].strip() else None


def parts_of(text: str, source: str, turn: int, owned: set[str] = frozenset()) -> list[Part]:
    """One text cut into parts (see the module's docstring); a heading of a kind the request
    holds in a text of its own (`owned`) does not cut another text: it is that text's words."""
    heads = [h for h in heads_in(text) if own_kind(text) or h.kind not in owned]
    starts_with_heading = bool(heads) and not text[: heads[0].start].strip()
    if source == "user" and not starts_with_heading and not any(h.kind == "ticket" for h in heads):
        found = leading_facts(text)
        if found and not found[1].strip():
            return [Part("facts", json.dumps(found[0]), source, True, turn)]
        return [Part("", text.strip(), source, True, turn)] if text.strip() else []
    pieces: list[tuple[str, str]] = [("", text[: heads[0].start] if heads else text)]
    for head, after in zip(heads, [*heads[1:], None][: len(heads)], strict=True):
        body = text[head.end : after.start if after else len(text)]
        found = leading_facts(body) if head.kind == "facts" else None
        if found:  # the words after the facts are not facts
            pieces += [(head.kind, json.dumps(found[0])), ("", found[1])]
        else:
            pieces.append((head.kind, body))
    pieces = [(k, b.strip()) for k, b in ((k, _CLOSING_TAG.sub("", b)) for k, b in pieces)]
    pieces = [(k, b) for k, b in pieces if b]
    return [Part(k, b, source, len(pieces) == 1, turn) for k, b in pieces]


def request_parts(conv: Conversation) -> list[Part]:
    """Every part of the request: the system prompt's, then each user text block's, in order."""
    users = [m for m in conv.messages if m.get("role") == "user"]
    texts = [(conv.system, "system", -1)] + [
        (block.get("text", ""), "user", turn)
        for turn, message in enumerate(users)
        for block in blocks_of(message)
        if block.get("type") == "text"
    ]
    owned = {kind for text, _, _ in texts if (kind := own_kind(text))}
    return [part for text, source, turn in texts for part in parts_of(text, source, turn, owned)]


def believed(parts: list[Part], kind: str) -> list[Part]:
    """The parts of a kind the request holds: those that are texts of their own when there are
    any, else the last of the kind in each text."""
    of_kind = [p for p in parts if p.kind == kind]
    own = [p for p in of_kind if p.own]
    return own or list({(p.source, p.turn): p for p in of_kind}.values())


def section_text(conv: Conversation, kind: str) -> str | None:
    """The body of the first believed part of a kind (a draft, worker answers), or None."""
    found = believed(request_parts(conv), kind)
    return found[0].body if found else None


def facts_given(conv: Conversation) -> list[dict]:
    """Every set of facts the request's texts hold (headed or JSON by its content; the system
    prompt's too), each as `Known.add_facts` reads it. A heading over text that is not JSON of
    facts gives none."""
    parts = request_parts(conv)
    found = []
    for part in believed(parts, "facts"):
        parsed = leading_facts(part.body)
        found += [parsed[0]] if parsed is not None else []
    for part in (p for p in parts if p.kind == "" and p.source == "system"):
        found += json_in(part.body)
    return found


def json_in(text: str) -> list[dict]:
    """The facts anywhere in an unheaded text of the program's (instructions with facts below
    them, or inline: "Order facts: {...}."), JSON or `key: value` lines (`facts_spans`)."""
    return [facts for _, _, facts in facts_spans(text)]


def instructions_of(conv: Conversation) -> str:
    """The instructions: the system prompt's unheaded parts, without any facts JSON in them."""
    said = []
    for part in (p for p in request_parts(conv) if p.source == "system" and p.kind == ""):
        said.append(_without_json(part.body))
    return "\n".join(s for s in said if s.strip())


def _without_json(text: str) -> str:
    for begin, end, _ in reversed(facts_spans(text)):
        text = text[:begin] + text[end:]
    return text


def ticket_text(conv: Conversation, asks: object) -> str:
    """The ticket: the first part headed as one (a user text's first, then the system
    prompt's); else the first user message's unheaded texts that ask the shop something
    (`asks(text)`), joined; else its first unheaded text ('' when there is none)."""
    parts = request_parts(conv)
    headed = [p for p in parts if p.kind == "ticket"]
    headed.sort(key=lambda p: p.source == "system")
    if headed:
        return headed[0].body
    words = [p.body for p in parts if p.kind == "" and p.source == "user" and p.turn == 0]
    asking = [w for w in words if asks(w)]  # type: ignore[operator]
    return "\n\n".join(asking) if asking else (words[0] if words else "")


# -- which offered tool does which of the desk's operations --------------------------------------

ORDER, CUSTOMER, HELP, REFUND = "order", "customer", "help", "refund"
# The words for each operation, synonyms too (a purchase, shipment or parcel is an order; money
# back is a refund), one list for every caller.
_OPERATION_WORDS = {
    ORDER: {
        *("order", "orders", "purchase", "purchases", "shipment", "shipments", "parcel"),
        *("parcels", "package", "packages", "delivery", "deliveries", "tracking", "track"),
    },
    CUSTOMER: {"customer", "customers", "email", "account", "client", "buyer", "shopper"},
    HELP: {
        *("kb", "help", "centre", "center", "knowledge", "article", "articles", "faq", "policy"),
        *("guide", "guides", "docs", "documentation", "handbook", "manual", "policies"),
    },
    REFUND: {
        *("refund", "refunds", "refunded", "refunding", "reimburse", "reimbursement", "repay"),
        *("repayment", "money", "chargeback", "compensate", "compensation"),
    },
}
# A tool that reads a record kept about an order (a carrier's log) does not look the order up.
_RECORDS = {"log", "logs", "logbook"}
# Lookups only read: a tool whose name or description changes something is not one.
_CHANGES = {"cancel", "delete", "remove", "update", "change", "edit", "create", "send", "place"}


def tool_words(text: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return set(re.findall(r"[a-z]+", spaced.lower()))


def operation_of(tool: dict) -> str | None:
    """The desk operation a tool does, by what its name and the first sentence of its
    description say (a name word counts twice): an order lookup (which takes an order: an
    `order_id` or `id` field), a customer lookup, a help-centre search or a refund; None when
    they say none of these, or two alike."""
    name = tool_words(str(tool.get("name", "")).replace("_", " ").replace("-", " "))
    first = re.split(r"(?<=[.!?])\s", str(tool.get("description") or "").strip(), maxsplit=1)[0]
    described = tool_words(first)
    score = {op: 2 * len(name & w) + len(described & w) for op, w in _OPERATION_WORDS.items()}
    best = max(score.values())
    tops = [op for op, s in score.items() if s == best]
    if best == 0 or len(tops) > 1:
        return None
    if tops[0] != REFUND and (name | described) & _CHANGES:
        return None
    if tops[0] == ORDER and (name | described) & _RECORDS:
        return None  # "The carrier's delivery log of one shipment" is a log, not the order
    if tops[0] == ORDER and not _takes_an_order(tool):
        return None  # "The order ids shipped in a week" lists orders; it looks none up
    return tops[0]


def _takes_an_order(tool: dict) -> bool:
    """Whether the tool's input names an order (a field such as `order_id`, `order`, `id`),
    when its schema lists its fields."""
    schema = tool.get("input_schema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return True  # nothing said about its input
    names = properties
    named = r"order|purchase|shipment|parcel|package|(?:^|_)(?:id|number|ref|reference)$"
    return any(re.search(named, str(key), re.IGNORECASE) for key in names)


def desk_tool(conv: Conversation, operation: str) -> str | None:
    """The name of the first offered tool that does this operation (`operation_of`) and that
    the instructions do not forbid ("Never call the refund tool": `tool_orders`)."""
    forbidden = set(tool_orders(conv)[1])
    return next(
        (
            t["name"]
            for t in conv.tools
            if operation_of(t) == operation and t.get("name") not in forbidden
        ),
        None,
    )


def operation_called(conv: Conversation, name: str) -> str | None:
    """The operation of a tool the model called (judged by the tool as offered)."""
    return operation_of(conv.tool(name) or {"name": name})
