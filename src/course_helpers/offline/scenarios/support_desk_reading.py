"""Course machinery (offline course model): how the support desk of notebook 09 reads a request,
the same for every caller: a ticket's requests (category, order ids, item, refund reason,
email), the blocks a program writes after the ticket, the facts the request holds however they
arrived (`Known`); what the instructions say (the refund policy, a writer's role, a check's
word and completeness, the sign-off) is read in `support_desk_instructions`. The rules that use them are in `support_desk`; this
module registers no scenario."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from course_helpers.fixtures.support_desk import (
    ANSWERS_HEADING,
    DRAFT_HEADING,
    FACTS_HEADING,
    PLAN_TOOL_NAME,
    TRIAGE_TOOL_NAME,
)
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.reading import EMAIL as _EMAIL
from course_helpers.offline.scenarios.support_desk_instructions import (  # noqa: F401 (re-exported)
    ADDRESSED,
    checks_completeness,
    negated,
    role_scope,
    role_sentence,
    says_to_read,
    sign_off,
    told_to_follow_refund_policy,
    words_of,
)
from course_helpers.offline.scenarios.support_desk_request import (
    CUSTOMER,
    HELP,
    ORDER,
    REFUND,
    desk_tool,
    facts_given,
    instructions_of,
    operation_called,
    section_text,
    ticket_text,
)
from course_helpers.offline.scenarios.support_desk_verdict import approval_word  # noqa: F401

# An order id, also written with a hyphen or a space after its letter ("A-1001", "a 1001").
ORDER_ID = re.compile(r"\b[Aa][- ]?\d{4}\b")
STOPWORDS = {
    *("a", "an", "and", "are", "be", "but", "can't", "do", "does", "don't", "for", "from"),
    *("get", "have", "hi", "how", "i", "i'd", "i'm", "in", "is", "it", "it's", "its", "like"),
    *("me", "my", "of", "on", "or", "please", "so", "that", "the", "this", "to", "was"),
    *("what", "when", "where", "which", "with", "would", "you", "your", "never", "arrived"),
}
_NOT_ITEMS = {
    *("order", "orders", "email", "password", "number", "money", "tracking", "confirmation"),
    *("refund", "page", "week", "month", "day", "days", "account", "parcel"),
}
_ITEM = re.compile(
    r"\b(?:my|a|an|the)\s+(?:(?:two|three|four|five|six|some|several|same)\s+)?"
    r"([a-z'-]+(?:\s+[a-z'-]+)?)"
)
# What holds the items is not an item ("my package with two mugs": mugs): a container's item
# is the one it is with ("with", "of", "containing"; «посылка с кружками»).
_CONTAINERS = {
    *("package", "packages", "parcel", "parcels", "order", "orders", "box", "boxes"),
    *("delivery", "deliveries", "shipment", "shipments", "посылка", "посылку", "посылке"),
    *("посылки", "коробка", "коробку", "заказ", "заказе"),
}
_CONTAINED = re.compile(
    r"\s+(?:with|of|containing|holding|со?)\s+(?:(?:my|the|a|an|two|three|four|five|six"
    r"|some|several|[0-9]+|двумя|тремя|моими|моей|моим)\s+)?([a-zа-яё'-]+(?:\s+[a-zа-яё'-]+)?)"
)
_CONTAINER = re.compile(r"(?<![a-zа-яё])(?:" + "|".join(sorted(_CONTAINERS)) + r")(?![a-zа-яё])")
# The words for damage, one list for the category and the refund reason of every caller.
_DAMAGE = (
    r"\b(?:broken|broke|damaged|cracked|faulty|shattered|smashed|chipped|dented)\b"
    r"|\bin (?:pieces|bits)\b|\b(?:doesn't|does not|didn't|did not|won't|will not) work\b"
    r"|\bstopped working\b|\b(?:ruined|wrecked|destroyed|crushed|smashed up)\b|\bglass everywhere\b"
    r"|\bin (?:a |an )?(?:terrible|awful|horrible|bad|poor|sorry|dreadful) (?:state|condition|shape)\b"
)
# The words for being charged twice, and for sending an item back, the same for every caller.
_DOUBLE = r"\btwice\b|\bdouble\b|\bduplicate\b|\b(?:two|2) times\b"
_RETURN = (
    r"\breturn|\bsen[dt](?:ing)? back\b|\bsen[dt](?:ing)?(?: [\w']+){1,3} back\b"
    r"|\bgiv(?:e|ing) (?:[\w']+ ){0,3}?back\b|\bexchang"
)
_SHIPPING = re.compile(
    r"where(?: is|'s| are)|\bwhere\b(?:\s+\S+){1,4}?\s+(?:is|are)\b|arriv|tracking|deliver|parcel|ordered|show(?:n|ed)? up|turn(?:ed)? up"
    r"|(?:not|never|n't) (?:yet )?(?:come|came|received|got)|still waiting|on its way"
)

# The words that tell which help-centre article speaks about which refund reason.
_ARTICLE_FOR_REASON = {"damaged": "damaged", "duplicate_charge": "twice", "return": "return"}


# -- reading a ticket -------------------------------------------------------------------------


def order_ids_in(text: str) -> list[str]:
    """The order ids a text names, in any case and spelling ("a1001", "A-1001" and "a 1001"
    are A1001), each once."""
    return list(dict.fromkeys(re.sub(r"[- ]", "", i).upper() for i in ORDER_ID.findall(text)))


def categorise(ticket: str) -> str:
    """The triage category from the ticket's words, most specific first."""
    words = ticket.lower().replace("’", "'")
    if re.search(r"password|log ?in|sign in|account", words):
        return "account"
    if re.search(r"do you (ship|deliver|sell)|ship to|how long does", words):
        return "policy"
    charges = r"refund|money back|charged|billed|\b(?:double|duplicate|extra) charges?\b"
    if any(re.search(words_for, words) for words_for in (charges, _DAMAGE, _RETURN)):
        return "refund"
    if re.search(_SHIPPING, words):
        return "shipping"
    return "other"


def item_of(ticket: str) -> str:
    """The item a ticket is about, in its own words ('' when it names none): a package, parcel
    or box is not an item, what it holds is ("My package with two mugs arrived late": mugs)."""
    said = ticket.lower()
    found = [(m.start(), _candidate(m.group(1))) for m in _ITEM.finditer(said)]
    for container in _CONTAINER.finditer(said):
        held = _CONTAINED.match(said, container.end())
        phrase = held.group(1) if held else ""
        if re.match(r"[а-яё]", phrase):  # a Russian item is one word: «с кружками опоздала»
            phrase = phrase.split()[0]
        found.append((container.start(), _candidate(phrase)))
    return next((item for _, item in sorted(found) if item), "")


def _candidate(phrase: str) -> str:
    """An item named by a phrase, its trailing small words dropped ('' when it is none)."""
    words = phrase.split()
    while words and words[-1] in STOPWORDS:
        words.pop()
    if words and not set(words) & (_NOT_ITEMS | STOPWORDS | _CONTAINERS):
        return " ".join(words)
    return ""


def reason_of(ticket: str) -> str:
    """Why a ticket wants money back, from its words."""
    words = ticket.lower().replace("’", "'")
    if re.search(_DOUBLE, words):
        return "duplicate_charge"
    if re.search(_DAMAGE, words):
        return "damaged"
    if re.search(_RETURN, words):
        return "return"
    return "other" if categorise(ticket) == "refund" else "none"


def triage_form(ticket: str, email: str | None = None) -> dict:
    """The triage of a ticket (or one request of it), read from its words."""
    found = _EMAIL.search(ticket)
    return {
        "category": categorise(ticket),
        "order_ids": order_ids_in(ticket),
        "email": found.group(0) if found else (email or ""),
        "item": item_of(ticket),
        "reason": reason_of(ticket),
    }


# Where one sentence may hold two requests: "and", "also", "and also", or a semicolon.
_JOINS = re.compile(r"(\s*;\s*|,?\s+(?:and\s+also|and|also)\s+)", re.IGNORECASE)


def asks_by_itself(part: str) -> bool:
    """Whether a part of a sentence is a request of its own: it names an order and has its own
    verb of asking (its words give it a category: "refund order #A1002", "tell me where order
    #A1001 is"; not "order #A1003" or "my mug")."""
    return bool(order_ids_in(part)) and categorise(part) != "other"


def pieces_of(sentence: str) -> list[str]:
    """A sentence cut where "and", "also" or ";" joins two parts that each ask by themselves
    (`asks_by_itself`); any other part stays with the one before it."""
    cut = _JOINS.split(sentence)
    pieces, joins = [cut[0]], cut[1::2]
    for join, part in zip(joins, cut[2::2], strict=True):
        if asks_by_itself(part) and asks_by_itself(pieces[-1]):
            pieces.append(part)
        else:
            pieces[-1] = f"{pieces[-1]}{join}{part}"
    return [p.strip() for p in pieces if p.strip()]


def split_requests(ticket: str) -> list[str]:
    """The ticket's requests: its sentences (a sentence with two requests joined by "and",
    "also" or ";" counts as two: `pieces_of`), joined while the category stays (or is
    'other')."""
    parts: list[tuple[str, str]] = []
    sentences = re.split(r"(?<=[.?!])\s+", ticket.strip())
    for sentence in (p for s in sentences for p in pieces_of(s)):
        category = categorise(sentence)
        if parts and category in ("other", parts[-1][1]):
            parts[-1] = (f"{parts[-1][0]} {sentence}", parts[-1][1])
        elif parts and parts[-1][1] == "other":
            parts[-1] = (f"{parts[-1][0]} {sentence}", category)
        else:
            parts.append((sentence, category))
    return [p for p, _ in parts]


def requests_of(ticket: str) -> list[dict]:
    """Each request of the ticket with its triage (the ticket's email shared by all). A request
    that names no order and no item is about the orders of the request before it ("My teapot
    from order #A1002 arrived with a hole. Can I get my money back?")."""
    email = _EMAIL.search(ticket)
    shared = email.group(0) if email else None
    requests = [{"text": part, **triage_form(part, shared)} for part in split_requests(ticket)]
    for before, request in zip(requests, requests[1:], strict=False):
        if not request["order_ids"] and not request["item"]:
            request["order_ids"] = list(before["order_ids"])
    return requests


# -- whether the desk engages ------------------------------------------------------------------

SHOP = "Kettle & Co"
# The workflows' two forms (the desk's four operations are found by what each tool says:
# `desk_tool`).
DESK_FORMS = (TRIAGE_TOOL_NAME, PLAN_TOOL_NAME)
_SUPPORT_ROLE = re.compile(
    r"\b(?:support|customers?|customer's|tickets?|help ?desk|desk|repl(?:y|ies))\b"
    r"|(?<![а-яё])(?:поддержк|клиент|покупател|обращени|тикет|заявк)\w*"
    r"|(?<![а-яё])ответ(?:а|у|ом|е|ы|ов|ам|ами|ах)?(?![а-яё])"
)


# A role that answers people for the shop, when the role names the shop itself ("You are a
# writer for Kettle & Co, answering people who wrote to us").
_WRITER_ROLE = re.compile(r"\b(?:writer|answer(?:s|ing)?|respond(?:s|ing)?|agent|representative)\b")


def asks_the_shop(ticket: str) -> bool:
    """Whether a ticket asks a shop for something: it names an order id, or its words are about
    an order, a delivery, a refund, an account or the shop's policy (`categorise` is not
    "other")."""
    return bool(order_ids_in(ticket)) or categorise(ticket) != "other"


def states_desk_role(system: str, shown: str = "") -> bool:
    """Whether the instructions make the model this shop's support: their role (the first
    sentence that gives the model a role or a task, in any mood: "You check a draft ...",
    "Check a draft ...", "Act as ...", "Your job is ..."; `role_sentence`) names support,
    customers, tickets, replies or a desk, and the instructions name the shop; or the role
    names the shop itself and answering people for it ("You are a writer for Kettle & Co,
    answering people who wrote to us"). The shop may instead be named in what the program
    shows the model (`shown`: a draft or worker answers signed by the shop). A "support"
    further down, or in another program's role, does not count."""
    role = role_sentence(system).lower()
    for_the_shop = SHOP.lower() in role and bool(_WRITER_ROLE.search(role))
    named = SHOP.lower() in f"{system}\n{shown}".lower()
    return (bool(_SUPPORT_ROLE.search(role)) or for_the_shop) and named


def at_the_desk(conv: Conversation) -> bool:
    """Whether the request puts the model at this shop's desk: a tool that does one of the
    desk's operations (`desk_tool`) or one of its forms is offered, or the instructions state
    the role (`states_desk_role`)."""
    operations = (ORDER, CUSTOMER, HELP, REFUND)
    offered = any(desk_tool(conv, op) for op in operations) or any(map(conv.offers, DESK_FORMS))
    shown = [section_text(conv, kind) or "" for kind in ("draft", "answers")]
    return offered or states_desk_role(instructions_of(conv), "\n".join(shown))


def ticket_of(conv: Conversation) -> str:
    """The ticket, wherever the request puts it (`ticket_text`): a part headed as a ticket
    ("Ticket:", "Customer ticket:"), in a user text or the system prompt; else the first user
    message's texts that ask the shop something (a preamble block before it is not the
    ticket); else its first text."""
    return ticket_text(conv, asks_the_shop)


def section(conv: Conversation, heading: str) -> str | None:
    """What a program wrote under a heading of this kind (the draft, the worker answers),
    wherever it sits (`section_text`); a customer's words are never cut into sections."""
    kind = {DRAFT_HEADING: "draft", ANSWERS_HEADING: "answers", FACTS_HEADING: "facts"}[heading]
    return section_text(conv, kind)


# -- what the request holds: the facts, however they arrived --------------------------------------


def item_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in ("set", "for")}


@dataclass
class Known:
    """Every fact the request holds, from the facts its texts hold (`facts_given`) and from
    tool results."""

    orders: dict[str, dict] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # order ids with no record
    customer: dict | None = None
    no_customer: bool = False
    searched_orders: int | None = None  # how many of the customer's orders were looked at
    articles: list[dict] | None = None  # None: the help centre was not searched
    refunds: list[dict] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # order id -> why
    asked: set[str] = field(default_factory=set)  # orders a refund was asked for

    def add_order(self, order: dict) -> None:
        self.orders[str(order.get("order_id"))] = order

    def add_articles(self, articles: list) -> None:
        self.articles = [*(self.articles or []), *(a for a in articles if isinstance(a, dict))]

    def add_refused(self, order_id: str, why: str) -> None:
        self.refused[order_id] = why
        self.asked.add(order_id)

    def add_facts(self, facts: dict) -> None:
        """The facts a workflow's code wrote into the prompt."""
        for order in facts.get("orders") or []:
            if isinstance(order, dict):
                self.add_order(order)
        self.missing += [
            re.sub(r"[- ]", "", str(i)).upper()
            for i in facts.get("not_found") or []
            if ORDER_ID.fullmatch(str(i))
        ]
        self.no_customer = self.no_customer or bool(facts.get("customer_not_found"))
        if isinstance(facts.get("customer"), dict):  # a customer record, as look_up_customer gives
            self.customer = facts["customer"]
            self.searched_orders = len(self.customer.get("orders") or [])
        if "searched_orders" in facts:
            self.searched_orders = int(facts["searched_orders"])
        if "articles" in facts:
            self.add_articles(facts.get("articles") or [])
        for refund in facts.get("refunds") or []:
            self.refunds.append(refund)
            self.asked.add(str(refund.get("order_id")))
        for refusal in facts.get("refused") or []:
            self.add_refused(str(refusal.get("order_id", "?")), str(refusal.get("why", "")))

    def add_results(self, conv: Conversation) -> None:
        """The facts the desk's tools returned in this conversation."""
        for call in conv.calls():
            if call.result is None:
                continue
            try:
                data = None if call.is_error else json.loads(call.result)
            except ValueError:
                data = None
            argument = str(next(iter(call.input.values()), "")).strip().lstrip("#").upper()
            operation = operation_called(conv, call.name)
            if operation == ORDER:
                if isinstance(data, dict):
                    self.add_order(data)
                else:
                    self.missing.append(argument)
            elif operation == CUSTOMER:
                if isinstance(data, dict):
                    self.customer = data
                    self.searched_orders = len(data.get("orders") or [])
                else:
                    self.no_customer = True
            elif operation == HELP:
                self.add_articles(data if isinstance(data, list) else [])
            elif operation == REFUND:
                if isinstance(data, dict):
                    self.refunds.append(data)
                    self.asked.add(argument)
                else:
                    self.add_refused(argument, call.result or "")

    def looked_up(self, order_id: str) -> bool:
        return order_id in self.orders or order_id in self.missing

    def holding(self, item: str) -> list[dict]:
        """The known orders whose items share a word with `item`."""
        wanted = item_words(item)
        return [o for o in self.orders.values() if wanted & item_words(" ".join(o["items"]))]

    def about(self, request: dict) -> list[dict]:
        """The orders a request is about: the ones it names, else the ones holding its item."""
        if request["order_ids"]:
            return [self.orders[i] for i in request["order_ids"] if i in self.orders]
        return self.holding(request["item"]) if request["item"] else []

    def with_replacements(self, orders: list[dict]) -> list[dict]:
        chosen = list(orders)
        for order in chosen:
            replacement = self.orders.get(str(order.get("replaced_by")))
            if replacement is not None and replacement not in chosen:
                chosen.append(replacement)
        return chosen

    def article_for(self, reason: str) -> dict | None:
        word = _ARTICLE_FOR_REASON.get(reason)
        for article in self.articles or []:
            if word and word in f"{article.get('title', '')} {article.get('answer', '')}".lower():
                return article
        return None


def known_from(conv: Conversation) -> Known:
    """The facts the request's texts hold, wherever they sit (`facts_given`), then the tool
    results."""
    known = Known()
    for facts in facts_given(conv):
        known.add_facts(facts)
    known.add_results(conv)
    return known
