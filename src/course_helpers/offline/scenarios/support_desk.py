"""Course machinery (offline course model): the Kettle & Co support desk of notebook 09, one policy
for every model call of every approach.

The chain's triage, draft and check, the router's triage and handlers, the orchestrator's plan,
workers and merge, and every turn of the agent are answered by the rules below. They read only
what the request holds: the ticket, the facts (written by a workflow's code in a text block of
their own after the ticket's, headed `Facts (JSON):`, or returned by tool calls: both fill the
same `Known`, so the same facts lead to the same decision), the tools offered and the
instructions. Nothing asks which approach sent the request. What a customer types, a
`Facts (JSON):` heading included, stays in the ticket's block: ticket, never facts (`section`).

The ticket is read as a list of requests (`split_requests`: its sentences, joined while the
category stays), each with its category, order ids, item and refund reason read from its words
(`triage_form`) and the ticket's email. Rule 6 answers a request that holds worker answers;
any other request gets the first of rules 1-5 that applies:

1. **Form.** `tool_choice` or the instructions ("calling the X tool", not negated) name an offered
   tool: fill in its form from the ticket (a `requests` field gets one entry per request). A
   form the ticket cannot fill validly (a required field missing, a value outside an enum) is
   not sent; the rules below apply.
2. **Look up, in parallel.** Every lookup below whose tool is offered, whose input is known and
   whose answer is not, goes out in one turn: the orders the requests name; every order of the
   customer, when a customer record is known, a request names an item and no order, and no known
   order holds that item; every order a known record says `replaced_by`; every order a refusal
   names besides the refused one (`pointed_at`; none after a declined approval); the customer by
   email, when a request names no order; the help centre, once, when a request is about an
   account or the shop's policy, or asks for money back and the instructions ask to read or
   follow the refund policy (worded from the first words of each such request) (`told_to_follow_refund_policy`: a clause naming the refund policy,
   or the help centre's refund rules or article on refunds, whose governing verb is a reading
   verb not negated right in front of it, or "skip"/"ignore" negated; `says_to_read`).
3. **Refund.** A refund tool is offered and no approval was declined so far. For each request
   that asks for money back and has no refund issued for its orders yet: the orders a refusal
   names besides the refused one, once looked up (rule 2), if any; else, when an article for its reason was read (the article
   naming damage, a double charge or returns), the orders it allows (the later of two identical
   orders of the same day; those delivered within its days; none for a return, refunded when the
   parcel arrives); else every order the request is about (the ones it names, else the known
   ones holding its item). Each order is asked once, all in one turn, with the reason the
   ticket's words give.
4. **Check.** A draft is given: `OK` when its sentences (greeting and sign-off aside) are exactly
   the sentences rule 5 writes from these facts for every request of the ticket, in any order;
   else rule 5's reply for every request.
5. **Write.** Each request gets the facts that answer it, in fixed sentences: an order not found;
   for money back, every refund issued and refused (the rule's words; a declined approval says
   nothing was refunded and asks whether to pass the ticket to a colleague), or, when there are
   none, the order's status and the article's answer; for shipping, each order's status and its
   replacement's; for an account or policy question, the answer of the article found that shares the most
   words with it; no account for
   the email, or the item not found among the customer's orders; else, when the request names
   no order, a request for the order number. Nothing to say: the message goes to a colleague. When the facts in the prompt name a
   `category` (the workflows' code writes the one the triage read), only the requests of that
   category are answered: the one key with no tool-result twin.
6. **Merge.** Worker answers are given: one greeting, each answer's body, one sign-off.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from course_helpers.fixtures.support_desk import (
    ANSWERS_HEADING,
    DRAFT_HEADING,
    FACTS_HEADING,
    REFUSED_PREFIX,
    SIGN_OFF,
    TICKET_HEADING,
)
from course_helpers.offline.conversation import Conversation, blocks_of
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use

ORDER_ID = re.compile(r"\bA\d{4}\b")
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
# An instruction about the refund policy: a clause that names it (or the help centre's rules or
# article on refunds); the verb that governs it says whether to read it, and so does a negation
# right in front of that verb (see `governing_verb_says_yes`).
_REFUND_POLICY = re.compile(
    r"refunds? (?:policy|policies|rules?|articles?)"
    r"|(?:polic(?:y|ies)|rules?|articles?) (?:on|for|about) refunds"
)
_FOLLOW_VERBS = {
    *("read", "reading", "follow", "following", "check", "checking", "apply", "applying"),
    *("consult", "consulting", "review", "reviewing", "study", "obey", "respect", "look"),
}
_AGAINST_VERBS = {"skip", "skipping", "ignore", "ignoring", "disregard", "disregarding"}
_NEGATIONS = {"not", "never", "no", "without", "cannot", "nothing"}
# Words that may stand between a negation and the verb it negates ("do not ever read",
# "there is no need to read", "don't bother following", "never answer by calling").
_FILLERS = {
    *("do", "does", "you", "ever", "need", "to", "bother", "have", "has", "should", "must"),
    *("please", "also", "even", "answer", "reply", "respond", "end", "by", "first", "just"),
}
_FORM_TOOL = re.compile(r"calling the (\w+) tool")
# The words that tell which help-centre article speaks about which refund reason.
_ARTICLE_FOR_REASON = {"damaged": "damaged", "duplicate_charge": "twice", "return": "return"}
_DECLINED = re.compile(r"declin|approv")


# -- reading a ticket -------------------------------------------------------------------------


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower().replace("’", "'"))


def negated(before: list[str]) -> bool:
    """Whether the words right before a verb negate it: a negation with only fillers between
    ("do not read", "no need to read", "don't bother following"). "Without" after another
    negation asks for the verb ("refund nothing without reading it": read it)."""
    for index in range(len(before) - 1, -1, -1):
        word = before[index]
        if word in _NEGATIONS or word.endswith("n't"):
            earlier = before[:index]
            double = any(
                w in _NEGATIONS | {"nothing", "none"} or w.endswith("n't") for w in earlier
            )
            return not (word == "without" and double)
        if word not in _FILLERS:
            return False
    return False


def says_to_read(clause: str, next_clause: str = "") -> bool:
    """Whether one clause asks to read or follow the refund policy: the verb that governs its
    mention (the last such verb before it, else the first after it) is a reading verb and not
    negated, or a verb against it ("skip", "ignore") that is negated; a next clause that starts
    with "no" takes it back ("Read the refund policy? No, just refund.")."""
    match = _REFUND_POLICY.search(clause.lower().replace("’", "'"))
    if match is None:
        return False
    before, after = words_of(clause[: match.start()]), words_of(clause[match.end() :])
    verbs = [i for i, w in enumerate(before) if w in _FOLLOW_VERBS | _AGAINST_VERBS]
    if verbs:
        verb, no = before[verbs[-1]], negated(before[: verbs[-1]])
    else:
        later = [i for i, w in enumerate(after) if w in _FOLLOW_VERBS | _AGAINST_VERBS]
        if not later:
            return False
        verb, no = after[later[0]], negated(after[: later[0]])
    yes = (verb in _FOLLOW_VERBS) != no
    return yes and words_of(next_clause)[:1] != ["no"]


def told_to_follow_refund_policy(system: str) -> bool:
    """Whether the instructions ask to read or follow the refund policy (`says_to_read`, clause
    by clause)."""
    clauses = re.split(r"[.;!?]+\s*", system)
    return any(says_to_read(c, n) for c, n in zip(clauses, [*clauses[1:], ""], strict=True))


def categorise(ticket: str) -> str:
    """The triage category from the ticket's words, most specific first."""
    words = ticket.lower()
    if re.search(r"password|log ?in|sign in|account", words):
        return "account"
    if re.search(r"do you (ship|deliver|sell)|ship to|how long does", words):
        return "policy"
    if re.search(r"refund|money back|charged|broken|damaged|cracked|return", words):
        return "refund"
    if re.search(r"where is|arriv|tracking|deliver|parcel|ordered", words):
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
    words = ticket.lower()
    if re.search(r"twice|double|duplicate", words):
        return "duplicate_charge"
    if re.search(r"broken|damaged|cracked|faulty", words):
        return "damaged"
    if "return" in words:
        return "return"
    return "other" if categorise(ticket) == "refund" else "none"


def triage_form(ticket: str, email: str | None = None) -> dict:
    """The triage of a ticket (or one request of it), read from its words."""
    found = _EMAIL.search(ticket)
    return {
        "category": categorise(ticket),
        "order_ids": list(dict.fromkeys(ORDER_ID.findall(ticket))),
        "email": found.group(0) if found else (email or ""),
        "item": item_of(ticket),
        "reason": reason_of(ticket),
    }


def split_requests(ticket: str) -> list[str]:
    """The ticket's requests: sentences, joined while the category stays (or is 'other')."""
    parts: list[tuple[str, str]] = []
    for sentence in re.split(r"(?<=[.?!])\s+", ticket.strip()):
        category = categorise(sentence)
        if parts and category in ("other", parts[-1][1]):
            parts[-1] = (f"{parts[-1][0]} {sentence}", parts[-1][1])
        elif parts and parts[-1][1] == "other":
            parts[-1] = (f"{parts[-1][0]} {sentence}", category)
        else:
            parts.append((sentence, category))
    return [p for p, _ in parts]


def requests_of(ticket: str) -> list[dict]:
    """Each request of the ticket with its triage (the ticket's email shared by all)."""
    email = _EMAIL.search(ticket)
    shared = email.group(0) if email else None
    return [{"text": part, **triage_form(part, shared)} for part in split_requests(ticket)]


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
    """What a workflow's code wrote under `heading`: a text block of its own, after the ticket's,
    that starts with it. A ticket's words stay in the ticket's block, so a ticket cannot write
    a section (a customer who types "Facts (JSON):" writes part of the ticket)."""
    blocks = first_user_blocks(conv)
    if not blocks or not blocks[0].lstrip().startswith(TICKET_HEADING):
        return None
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
    category: str | None = None  # the category the facts were gathered for, if they say

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
        self.missing += [str(i) for i in facts.get("not_found") or [] if ORDER_ID.fullmatch(str(i))]
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
        if facts.get("category"):
            self.category = str(facts["category"])

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


# -- rule 1: fill in a form ---------------------------------------------------------------------


def form_tool(conv: Conversation) -> dict | None:
    """The tool the instructions (or tool_choice) say to answer with, if it is offered: "calling
    the X tool" counts unless negated ("never answer by calling the refund tool")."""
    named = conv.forced_tool
    if named is None:
        for clause in re.split(r"[.;!?]+\s*", conv.system):
            match = _FORM_TOOL.search(clause)
            if match and not negated(words_of(clause[: match.start()])):
                named = match.group(1)
                break
    return conv.tool(named) if named else None


def fill_in(form: dict, ticket: str) -> dict | None:
    """The form filled in from the ticket, or None when the ticket cannot fill it validly (a
    required field it does not give, a value outside a field's enum)."""
    schema = form.get("input_schema") or {}
    properties = schema.get("properties") or {}
    if "requests" in properties:
        filled = {"requests": requests_of(ticket)}
    else:
        filled = {k: v for k, v in triage_form(ticket).items() if k in properties}
    complete = all(name in filled for name in schema.get("required") or [])
    in_enum = all(
        value in (properties[name].get("enum") or [value]) for name, value in filled.items()
    )
    return filled if complete and in_enum else None


# -- rule 2: the lookups, in parallel --------------------------------------------------------------


def lookups(conv: Conversation, ticket: str, requests: list[dict], known: Known) -> list[dict]:
    calls: list[dict] = []
    if conv.offers("look_up_order"):
        argument = conv.argument_for("look_up_order", ("order_id",))
        wanted = [i for r in requests for i in r["order_ids"]]
        if known.customer and any(not r["order_ids"] and r["item"] for r in requests):
            items = [r["item"] for r in requests if not r["order_ids"] and r["item"]]
            if not any(known.holding(item) for item in items):
                wanted += list(known.customer.get("orders") or [])
        wanted += [str(o["replaced_by"]) for o in known.orders.values() if o.get("replaced_by")]
        wanted += pointed_at(known)
        wanted = [i for i in dict.fromkeys(wanted) if not known.looked_up(i)]
        calls += [tool_use("look_up_order", **{argument: i}) for i in wanted]
    email = next((r["email"] for r in requests if not r["order_ids"] and r["email"]), "")
    unknown = known.customer is None and not known.no_customer
    if email and unknown and conv.offers("look_up_customer"):
        argument = conv.argument_for("look_up_customer", ("email",))
        calls.append(tool_use("look_up_customer", **{argument: email}))
    follow = told_to_follow_refund_policy(conv.system)
    needs = [
        r
        for r in requests
        if r["category"] in ("account", "policy") or (r["category"] == "refund" and follow)
    ]
    if needs and known.articles is None and conv.offers("search_kb"):
        # One search, worded from every request that needs the help centre (the first words
        # of each), so a question later in a ticket is searched for as well as the first one.
        parts = [r.get("text", ticket) for r in needs] if len(needs) > 1 else [ticket]
        words = [w for p in parts for w in query_words(p)[:8]]
        argument = conv.argument_for("search_kb", ("query",))
        calls.append(tool_use("search_kb", **{argument: " ".join(words)}))
    return calls


def query_words(text_: str) -> list[str]:
    """The words of a text worth searching the help centre for."""
    return [w for w in re.findall(r"[a-z']+", text_.lower()) if w not in STOPWORDS]


def answering(request: dict, articles: list[dict]) -> dict:
    """The found article that shares the most words with the request (the first on a tie)."""
    asked = set(query_words(request.get("text", "")))

    def shared(article: dict) -> int:
        about = f"{article.get('title', '')} {article.get('answer', '')}"
        return len(asked & set(query_words(about)))

    return max(articles, key=shared)  # max keeps the first of equals


# -- rule 3: the refunds -------------------------------------------------------------------------


def twins(orders: list[dict]) -> list[dict]:
    """The later order of each pair with the same items placed the same day."""
    later = []
    for order in orders:
        for other in orders:
            same = other["items"] == order["items"] and other.get("placed") == order.get("placed")
            if same and other is not order and str(other["order_id"]) < str(order["order_id"]):
                later.append(order)
                break
    return later


def allowed_by(article: dict, reason: str, orders: list[dict]) -> list[dict]:
    """The orders the help-centre article says to refund for this reason."""
    said = article.get("answer", "").lower()
    if reason == "duplicate_charge" and "later" in said:
        return twins(orders)
    within = re.search(r"within (\d+) days of delivery", said)
    if reason == "damaged" and within:
        days = int(within.group(1))
        return [
            o
            for o in orders
            if o.get("status") == "delivered" and o.get("delivered_days_ago", days + 1) <= days
        ]
    if reason == "return" and "reaches us" in said:
        return []  # refunded when the parcel comes back: nothing to refund yet
    return orders


def declined(known: Known) -> bool:
    """Whether a refund's approval was declined: nothing more is asked after that."""
    return any(_DECLINED.search(why) for why in known.refused.values())


def pointed_at(known: Known) -> list[str]:
    """The orders a refusal names besides the refused one ("the later, duplicate order is
    A1004"), none after a declined approval."""
    if declined(known):
        return []
    return list(
        dict.fromkeys(
            i
            for order_id, why in known.refused.items()
            for i in ORDER_ID.findall(why)
            if i != order_id
        )
    )


def refunds_to_ask(conv: Conversation, requests: list[dict], known: Known) -> list[dict]:
    if not conv.offers("refund") or declined(known):
        return []
    argument = conv.argument_for("refund", ("order_id",))
    calls = []
    for request in (r for r in requests if r["category"] == "refund"):
        orders = known.about(request)
        if any(str(r.get("order_id")) in {o["order_id"] for o in orders} for r in known.refunds):
            continue
        pointed = [i for i in pointed_at(known) if i in known.orders]
        if pointed:
            chosen = [known.orders[i] for i in pointed]
        else:
            article = known.article_for(request["reason"])
            chosen = allowed_by(article, request["reason"], orders) if article else orders
        for order in chosen:
            if order["order_id"] not in known.asked:
                known.asked.add(order["order_id"])
                calls.append(
                    tool_use("refund", **{argument: order["order_id"], "reason": request["reason"]})
                )
    return calls


# -- rules 4 and 5: write, check ----------------------------------------------------------------


def order_sentence(order: dict) -> str:
    number, items = order.get("order_id", "?"), ", ".join(order.get("items") or [])
    status = order.get("status", "unknown")
    if order.get("replaced_by"):
        return (
            f"Your order {number} ({items}) was {status}, so we sent a replacement as order "
            f"{order['replaced_by']}."
        )
    if status == "shipped":
        return (
            f"Your order {number} ({items}) has shipped with {order.get('carrier', 'our carrier')}"
            f": tracking number {order.get('tracking', '?')}, expected on {order.get('eta', '?')}."
        )
    if status == "delivered":
        return f"Your order {number} ({items}) was delivered {order.get('delivered_days_ago')} days ago."
    return f"Your order {number} ({items}) is {status}."


def refund_sentence(refund: dict) -> str:
    return (
        f"I have refunded EUR {float(refund.get('amount', 0)):.2f} for order "
        f"{refund.get('order_id')} (reference {refund.get('refund_id', '?')}); it reaches your "
        f"card in {refund.get('reaches_card_in', '5-10 working days')}."
    )


def refused_sentence(order_id: str, why: str) -> str:
    if _DECLINED.search(why):
        return (
            f"The refund for order {order_id} needs a colleague's approval, which it did not "
            "get, so nothing has been refunded. Would you like me to pass your ticket to a "
            "colleague?"
        )
    why = why.strip().split(REFUSED_PREFIX, 1)[-1].rstrip(".")
    return f"I could not refund order {order_id}: {why}."


def not_found_sentence(item: str, searched: int) -> str:
    wanted = item or "that item"
    return (
        f"I could not find {wanted} among the {searched} orders on your account. Could you send "
        "the order number? It is in your confirmation email."
    )


def request_lines(request: dict, known: Known) -> list[str]:
    """The sentences that answer one request from the facts."""
    lines = [
        f"I could not find an order {i}; could you check the number?"
        for i in request["order_ids"]
        if i in known.missing
    ]
    orders = known.about(request)
    if request["category"] == "refund":
        lines += [refund_sentence(r) for r in known.refunds]
        lines += [refused_sentence(i, why) for i, why in known.refused.items()]
        if not known.refunds and not known.refused:
            article = known.article_for(request["reason"])
            lines += [order_sentence(o) for o in orders]
            lines += [article["answer"]] if article and orders else []
    elif request["category"] == "shipping":
        lines += [order_sentence(o) for o in known.with_replacements(orders)]
    elif request["category"] in ("account", "policy") and known.articles:
        lines.append(answering(request, known.articles).get("answer", ""))
    if not orders and not request["order_ids"] and request["category"] in ("shipping", "refund"):
        if known.no_customer:
            lines.append("I could not find an account with that email address.")
        elif known.searched_orders is not None:
            lines.append(not_found_sentence(request["item"], known.searched_orders))
    if not lines and not request["order_ids"] and request["category"] in ("shipping", "refund"):
        lines.append(
            "I could not find an order number in your message. Could you send it? It looks "
            "like A1234 and is in your confirmation email."
        )
    return lines


def reply(requests: list[dict], known: Known, focus: str | None = None) -> str:
    """Rule 5: every request (or those of the category in focus) answered from the facts."""
    chosen = [r for r in requests if r["category"] == focus] or requests
    lines = list(dict.fromkeys(line for r in chosen for line in request_lines(r, known)))
    if not lines:
        lines.append("I have passed your message to a colleague, who will reply soon.")
    return "\n".join(["Hello,", "", *lines, "", SIGN_OFF])


def statements(text: str) -> set[str]:
    """The sentences of a reply, greeting and sign-off left out, blanks evened out."""
    body = [line for line in text.splitlines() if line.strip() not in ("", "Hello,", SIGN_OFF)]
    sentences = re.split(r"(?<=[.?!])\s+", " ".join(" ".join(body).split()))
    return {s for s in sentences if s}


def check(draft: str, requests: list[dict], known: Known) -> str:
    """Rule 4: OK when the draft states exactly what rule 5 states from these facts for every
    request, sentence for sentence (in any order); else rule 5's reply."""
    full = reply(requests, known)
    return "OK" if statements(draft) == statements(full) else full


# -- rule 6: merge ---------------------------------------------------------------------------------


def merge(answers: object) -> str:
    body = []
    for answer in answers if isinstance(answers, list) else []:
        for line in str(answer).splitlines():
            if line.strip() and line.strip() not in ("Hello,", SIGN_OFF):
                body.append(line.strip())
    return "\n".join(["Hello,", "", *body, "", SIGN_OFF])


# -- the policy ----------------------------------------------------------------------------------


def is_support_request(conv: Conversation) -> bool:
    """A Kettle & Co support request: that is what the instructions say, and a ticket is given."""
    system = conv.system
    return "Kettle & Co" in system and "support" in system.lower() and bool(ticket_of(conv))


@scenario(
    "support_desk",
    "Work on a Kettle & Co support ticket: triage, plan, look up, refund, write, check, merge "
    "(notebook 09)",
    priority=34,
)
def support_desk(conv: Conversation) -> Reply | None:
    if not is_support_request(conv):
        return None
    ticket = ticket_of(conv)
    answers = section(conv, ANSWERS_HEADING)
    if answers is not None:  # rule 6
        try:
            return say(merge(json.loads(answers)))
        except ValueError:
            return say("I could not read the answers I was given.")
    form = form_tool(conv) if conv.tools_allowed else None
    filled = fill_in(form, ticket) if form is not None else None
    if form is not None and filled is not None:  # rule 1
        return Reply([tool_use(form["name"], **filled)])
    requests, known = requests_of(ticket), known_from(conv)
    if conv.tools_allowed:
        calls = lookups(conv, ticket, requests, known) or refunds_to_ask(conv, requests, known)
        if calls:  # rules 2 and 3
            names = ", ".join(dict.fromkeys(c["name"] for c in calls))
            return Reply([text(f"Next I need {names}."), *calls])
    draft = section(conv, DRAFT_HEADING)
    if draft is not None:  # rule 4
        return say(check(draft, requests, known))
    return say(reply(requests, known, focus=known.category))  # rule 5
