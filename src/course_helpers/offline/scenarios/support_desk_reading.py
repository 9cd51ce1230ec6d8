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
    FACTS_HEADING,
    PLAN_TOOL_NAME,
    TICKET_HEADING,
    TRIAGE_TOOL_NAME,
)
from course_helpers.offline.conversation import Conversation, blocks_of
from course_helpers.offline.scenarios.support_desk_instructions import (  # noqa: F401 (re-exported)
    ADDRESSED,
    approval_word,
    checks_completeness,
    negated,
    role_scope,
    says_to_read,
    sign_off,
    told_to_follow_refund_policy,
    words_of,
)

ORDER_ID = re.compile(r"\b[Aa]\d{4}\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
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
_ITEM = re.compile(r"\b(?:my|a|an|the)\s+(?:two\s+|same\s+)?([a-z'-]+(?:\s+[a-z'-]+)?)")
# The words for damage, one list for the category and the refund reason of every caller.
_DAMAGE = (
    r"\b(?:broken|broke|damaged|cracked|faulty|shattered|smashed|chipped|dented)\b"
    r"|\bin (?:pieces|bits)\b|\b(?:doesn't|does not|didn't|did not|won't|will not) work\b"
    r"|\bstopped working\b"
)
_SHIPPING = re.compile(
    r"where(?: is|'s| are)|\bwhere\b(?:\s+\S+){1,4}?\s+(?:is|are)\b|arriv|tracking|deliver|parcel|ordered|show(?:n|ed)? up|turn(?:ed)? up"
    r"|(?:not|never|n't) (?:yet )?(?:come|came|received|got)|still waiting|on its way"
)

# The words that tell which help-centre article speaks about which refund reason.
_ARTICLE_FOR_REASON = {"damaged": "damaged", "duplicate_charge": "twice", "return": "return"}


# -- reading a ticket -------------------------------------------------------------------------


def order_ids_in(text: str) -> list[str]:
    """The order ids a text names, in any case ("a1001" is A1001), each once."""
    return list(dict.fromkeys(i.upper() for i in ORDER_ID.findall(text)))


def categorise(ticket: str) -> str:
    """The triage category from the ticket's words, most specific first."""
    words = ticket.lower().replace("’", "'")
    if re.search(r"password|log ?in|sign in|account", words):
        return "account"
    if re.search(r"do you (ship|deliver|sell)|ship to|how long does", words):
        return "policy"
    if re.search(r"refund|money back|charged|return", words) or re.search(_DAMAGE, words):
        return "refund"
    if re.search(_SHIPPING, words):
        return "shipping"
    return "other"


def item_of(ticket: str) -> str:
    """The item a ticket is about, in its own words ('' when it names none)."""
    for match in _ITEM.finditer(ticket.lower()):
        words = match.group(1).split()
        while words and words[-1] in STOPWORDS:
            words.pop()
        if words and not set(words) & (_NOT_ITEMS | STOPWORDS):
            return " ".join(words)
    return ""


def reason_of(ticket: str) -> str:
    """Why a ticket wants money back, from its words."""
    words = ticket.lower().replace("’", "'")
    if re.search(r"twice|double|duplicate", words):
        return "duplicate_charge"
    if re.search(_DAMAGE, words):
        return "damaged"
    if "return" in words:
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
# The desk's own tools: its four operations and the workflows' two forms.
DESK_TOOLS = ("look_up_order", "look_up_customer", "search_kb", "refund")
DESK_FORMS = (TRIAGE_TOOL_NAME, PLAN_TOOL_NAME)
_SUPPORT_ROLE = re.compile(r"\b(?:support|customers?|customer's|tickets?|help ?desk|desk)\b")


def asks_the_shop(ticket: str) -> bool:
    """Whether a ticket asks a shop for something: it names an order id, or its words are about
    an order, a delivery, a refund, an account or the shop's policy (`categorise` is not
    "other")."""
    return bool(order_ids_in(ticket)) or categorise(ticket) != "other"


def states_desk_role(system: str) -> bool:
    """Whether the instructions make the model this shop's support: their first sentence (the
    role) speaks to the model and names support, customers, tickets or a desk, and the
    instructions name the shop. A "support" further down, or in another program's role, does not count."""
    first = re.split(r"(?<=[.!?:])\s+|\n", system.strip(), maxsplit=1)[0].strip().lower()
    addressed = bool(ADDRESSED.match(first))
    return addressed and bool(_SUPPORT_ROLE.search(first)) and SHOP.lower() in system.lower()


def at_the_desk(conv: Conversation) -> bool:
    """Whether the request puts the model at this shop's desk: one of the desk's tools or forms
    is offered, or the instructions state the role (`states_desk_role`)."""
    offered = any(conv.offers(name) for name in (*DESK_TOOLS, *DESK_FORMS))
    return offered or states_desk_role(conv.system)


def first_user_blocks(conv: Conversation) -> list[str]:
    """The text blocks of the first user message (a plain string is one block)."""
    for message in conv.messages:
        if message.get("role") == "user":
            return [b.get("text", "") for b in blocks_of(message) if b.get("type") == "text"]
    return []


def ticket_of(conv: Conversation) -> str:
    """The ticket: the first text block of the first user message, without its `Ticket:`
    heading (a workflow's message) or as it stands (the agent's)."""
    blocks = first_user_blocks(conv)
    said = blocks[0].strip() if blocks else ""
    return said.removeprefix(TICKET_HEADING).strip()


def section(conv: Conversation, heading: str) -> str | None:
    """What a program wrote under `heading`: a text block of its own, after the first block of
    the first user message (the ticket, with or without a `Ticket:` heading), that starts with
    it. A ticket's words stay in the ticket's block, so a ticket cannot write a section (a
    customer who types "Facts (JSON):" writes part of the ticket)."""
    blocks = first_user_blocks(conv)
    found = [b.strip() for b in blocks[1:] if b.strip().startswith(heading)]
    return found[0].removeprefix(heading).strip() if found else None


# -- what the request holds: the facts, however they arrived --------------------------------------


def item_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in ("set", "for")}


@dataclass
class Known:
    """Every fact the request holds, from the `Facts (JSON):` section of a workflow's message
    and from tool results."""

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
            str(i).upper() for i in facts.get("not_found") or [] if ORDER_ID.fullmatch(str(i))
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
            if call.name == "look_up_order":
                if isinstance(data, dict):
                    self.add_order(data)
                else:
                    self.missing.append(argument)
            elif call.name == "look_up_customer":
                if isinstance(data, dict):
                    self.customer = data
                    self.searched_orders = len(data.get("orders") or [])
                else:
                    self.no_customer = True
            elif call.name == "search_kb":
                self.add_articles(data if isinstance(data, list) else [])
            elif call.name == "refund":
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
    known = Known()
    raw = section(conv, FACTS_HEADING)
    if raw is not None:
        try:
            facts = json.loads(raw)
        except ValueError:
            facts = {}
        known.add_facts(facts if isinstance(facts, dict) else {})
    known.add_results(conv)
    return known
