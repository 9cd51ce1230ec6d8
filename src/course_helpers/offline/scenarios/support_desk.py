"""Course machinery (offline course model): the Kettle & Co support desk of notebook 09, one policy
for every model call of every approach.

The chain's triage, draft and check, the router's triage and handlers, the orchestrator's plan,
workers and merge, and every turn of the agent are answered by the rules below. They read only
what the request holds, wherever it holds it (`support_desk_request`): the ticket (a part headed
as one, "Ticket:" or "Customer ticket:", in a user text or the system prompt; else the first
user message's texts that ask the shop something), the facts (JSON of order facts, under a
"Facts (JSON):", "Facts:" or "Order facts" heading or none, in any block of any user turn or in
the system prompt, or returned by tool calls: all fill the same `Known`, so the same facts lead
to the same decision), the tools offered and the instructions. Nothing asks which approach sent
the request, or reads a key only one approach writes. What a customer types, a `Facts (JSON):`
heading included, stays the customer's words: a user text that neither starts with a heading
nor marks the ticket with one is never cut, and facts in a text of their own are believed
before any typed inside another.

**When the desk engages** (`is_support_request`), by one rule for every caller: the person's
ticket asks a shop for something, that is, it names an order id or speaks of an order, a
delivery, a refund, an account or the shop's policy (`asks_the_shop`); and the request puts the
model at this shop's desk, that is, a tool that does one of the desk's operations is offered (an
order lookup, a customer lookup, a help-centre search or a refund, judged by what the tool's
name and description say: `desk_tool`; or the workflows' forms `triage_ticket`,
`plan_subtasks`), or the instructions' role states the model's role as support for the shop:
their first sentence that gives the model a role or a task, in any mood ("You check a draft
...", "Check a draft ...", "Tell Kettle & Co customers ...", "Act as ..."), names support,
customers, tickets, replies or a desk, and the instructions name Kettle & Co
(`states_desk_role`). Anything else is not the desk's: a question about something else gets the
plain answer any request gets, whatever the instructions say, and a "support" further down
another program's instructions engages nothing.

The ticket is read as a list of requests (`split_requests`: its sentences, a sentence cut in two
where "and", "also" or ";" joins two parts that each name an order and ask something; joined
while the category stays), each with its category, order ids, item and refund reason read from
its words (`triage_form`; order ids in any case; damage in one list of words, `_DAMAGE`) and
the ticket's email; a request naming no order and no item is about the one before's orders.
Rule 6 answers a request that holds worker answers; any other gets the first of rules 1-5 that
applies:

1. **Form.** `tool_choice` or the instructions ("calling the X tool", "use the X tool", not
   negated) name an offered
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
   follow the refund policy, one search worded from the first words of each such request
   (`told_to_follow_refund_policy`: a clause, quoted words left out, that speaks of refunds
   and of a source ruling on them, whose verb governing the source is one of consulting, not
   negated: "never issue a refund before you have looked at what the help centre says", "make
   sure you know the refund policy"; `says_to_read`).
3. **Refund.** A refund tool is offered and no approval was declined so far. For each request
   that asks for money back and has no refund issued for its orders yet: the orders a refusal
   names besides the refused one, once looked up (rule 2), if any; else, when an article for its reason was read (the article
   naming damage, a double charge or returns), the orders it allows (the later of two identical
   orders of the same day; those delivered within its days; none for a return, refunded when the
   parcel arrives); else every order the request is about (the ones it names, else the known
   ones holding its item). Each order is asked once, all in one turn, with the reason the
   ticket's words give.
4. **Check.** A draft is given: the approval word the instructions name ("answer with exactly
   OK", "respond with the single word PASS", "Answer APPROVED or REJECTED", «Ответь ОК»; `OK`
   when they name none; `support_desk_verdict`) when every sentence of the draft (greeting and
   sign-off aside) is one rule 5 writes from these facts for the ticket's requests and, when
   the instructions ask that every request be answered, it states all of them, in any order;
   else the word of rejection they name, if any, else rule 5's reply for every request.
5. **Write.** Each request gets the facts that answer it, in fixed sentences: an order not found;
   for money back, every refund issued and refused (the rule's words; a declined approval says
   nothing was refunded and asks whether to pass the ticket to a colleague), or, when there are
   none, the order's status and the article's answer; for shipping, each order's status and its
   replacement's; for an account or policy question, the answer of the article found that shares the most
   words with it; no account for
   the email, or the item not found among the customer's orders; else, when the request names
   no order, a request for the order number. Nothing to say: a question to the customer (what
   they need, and the order number unless the ticket gives it), never a promise that a colleague will reply.
   Which requests are answered is the writer's role, read from the whole of its instructions
   (`role_scope`): a sentence that asks to answer everything ("Answer every question the
   customer asks", "Answer all the customer's questions", "... and anything else they ask")
   makes it every request; else the role sentence (the first that gives a role or a task, in
   any mood) and the other sentences that state a role to the model ("You handle refunds"; not
   one about how to work: "You must read the refund policy ...", "You never promise ...") that
   name refunds (or being reimbursed), where an order is (tracking, delivery) or the help
   centre's articles (account, policy) limit it to requests of those kinds (all of them when
   the ticket has none); a sentence with "also" adds the kinds it names; naming no kind ("You
   write replies to support tickets", "You are the support agent") is every request.
6. **Merge.** Worker answers are given: one greeting, each answer's body, one sign-off.

Every reply (rules 4-6) ends with the name the instructions say to sign with ("sign as X",
"signed X", "the signature X"; `sign_off`), else "Kettle & Co support". With the form of rule 1 and the refund
policy of rule 2, that is all the instructions change. How a request is read (its requests, its
sections, `Known`) is in `support_desk_reading`, where its parts sit and which tool does what in
`support_desk_request`, what its instructions say in `support_desk_instructions`.
"""

from __future__ import annotations

import json
import re

from course_helpers.fixtures.support_desk import (
    ANSWERS_HEADING,
    DRAFT_HEADING,
    REFUSED_PREFIX,
)
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.scenarios.support_desk_reading import (
    CUSTOMER,
    HELP,
    ORDER,
    REFUND,
    STOPWORDS,
    Known,
    approval_word,
    asks_the_shop,
    at_the_desk,
    checks_completeness,
    desk_tool,
    instructions_of,
    known_from,
    negated,
    order_ids_in,
    requests_of,
    role_scope,
    section,
    sign_off,
    ticket_of,
    told_to_follow_refund_policy,
    triage_form,
    words_of,
)
from course_helpers.offline.scenarios.support_desk_verdict import rejection

# "Call the X tool", "Fill in the X form", "using tool X", «вызвав инструмент X», «заполни
# форму X»: the name next to the word for a tool or a form.
_FORM_TOOL = re.compile(
    r"\b(?:calling|call|using|use|fill(?:ing)? (?:in|out)|complete|submit)(?: the)?"
    r" (?:(?:tool|form|function) [\"'`«]?(\w+)|[\"'`«]?(\w+)[\"'`»]? (?:tool|form|function)\b)"
    r"|(?<![а-яё])(?:вызв|вызов|вызыв|использ|заполн|примен)[а-яё]*"
    r" (?:инструмент|форм|функци)[а-яё]* [\"'`«]?(\w+)",
    re.IGNORECASE,
)
_DECLINED = re.compile(r"declin|approv")
# Rule 5 with nothing to say: a question to the customer; nothing hands the ticket over, so the
# reply promises no colleague.
# It never asks for an order number the ticket states.
NOTHING_TO_SAY = (
    "I am not sure yet what you need from us. Could you tell me a little more, with the order "
    "number if it is about an order? It looks like A1234 and is in your confirmation email."
)


# With no facts, a request the ticket states is answered as far as it can be: what was asked,
# and that the order's details are not to hand. It never asks for what the ticket gives.
_UNSEEN = {
    "refund": "You asked for a refund for {orders}. I cannot see {that} here, so I cannot refund "
    "{it} or tell you more yet.",
    "shipping": "You asked where {orders} {is_}. I cannot see {that} here, so I cannot tell you "
    "yet.",
}


def nothing_to_say(requests: list[dict]) -> str:
    named = list(dict.fromkeys(i for r in requests for i in r["order_ids"]))
    if not named:
        return NOTHING_TO_SAY
    stated = []
    for request in requests:
        ids = request["order_ids"]
        if ids and request["category"] in _UNSEEN:
            one = len(ids) == 1
            orders = f"order {ids[0]}" if one else f"orders {', '.join(ids)}"
            stated.append(
                _UNSEEN[request["category"]].format(
                    orders=orders,
                    that="that order" if one else "those orders",
                    it="it" if one else "them",
                    is_="is" if one else "are",
                )
            )
    if stated:
        return " ".join(dict.fromkeys(stated))
    orders = f"order {named[0]}" if len(named) == 1 else f"orders {', '.join(named)}"
    return (
        f"I am not sure yet what you need from us about {orders}. Could you tell me a little more?"
    )


# -- rule 1: fill in a form ---------------------------------------------------------------------


def form_tool(conv: Conversation) -> dict | None:
    """The tool the instructions (or tool_choice) say to answer with, if it is offered: "calling
    the X tool" counts unless negated ("never answer by calling the refund tool")."""
    named = conv.forced_tool
    if named is None:
        for clause in re.split(r"[.;!?]+\s*", instructions_of(conv)):
            for match in _FORM_TOOL.finditer(clause):
                name = next(g for g in match.groups() if g)
                if conv.tool(name) and not negated(words_of(clause[: match.start()])):
                    named = name
                    break
            if named:
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
    order_tool, customer_tool = desk_tool(conv, ORDER), desk_tool(conv, CUSTOMER)
    help_tool, system = desk_tool(conv, HELP), instructions_of(conv)
    if order_tool:
        argument = conv.argument_for(order_tool, ("order_id",))
        wanted = [i for r in requests for i in r["order_ids"]]
        if known.customer and any(not r["order_ids"] and r["item"] for r in requests):
            items = [r["item"] for r in requests if not r["order_ids"] and r["item"]]
            if not any(known.holding(item) for item in items):
                wanted += list(known.customer.get("orders") or [])
        wanted += [str(o["replaced_by"]) for o in known.orders.values() if o.get("replaced_by")]
        wanted += pointed_at(known)
        wanted = [i for i in dict.fromkeys(wanted) if not known.looked_up(i)]
        calls += [tool_use(order_tool, **{argument: i}) for i in wanted]
    email = next((r["email"] for r in requests if not r["order_ids"] and r["email"]), "")
    unknown = known.customer is None and not known.no_customer
    if email and unknown and customer_tool:
        argument = conv.argument_for(customer_tool, ("email",))
        calls.append(tool_use(customer_tool, **{argument: email}))
    follow = told_to_follow_refund_policy(system)
    needs = [
        r
        for r in requests
        if r["category"] in ("account", "policy") or (r["category"] == "refund" and follow)
    ]
    if needs and known.articles is None and help_tool:
        # One search, worded from every request that needs the help centre (the first words
        # of each), so a question later in a ticket is searched for as well as the first one.
        parts = [r.get("text", ticket) for r in needs] if len(needs) > 1 else [ticket]
        words = [w for p in parts for w in query_words(p)[:8]]
        argument = conv.argument_for(help_tool, ("query",))
        calls.append(tool_use(help_tool, **{argument: " ".join(words)}))
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
            i for order_id, why in known.refused.items() for i in order_ids_in(why) if i != order_id
        )
    )


def refunds_to_ask(conv: Conversation, requests: list[dict], known: Known) -> list[dict]:
    refund_tool = desk_tool(conv, REFUND)
    if not refund_tool or declined(known):
        return []
    argument = conv.argument_for(refund_tool, ("order_id",))
    props = ((conv.tool(refund_tool) or {}).get("input_schema") or {}).get("properties") or {}
    reason = next((k for k in props if k != argument and "reason" in k), "reason")
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
        for order in (o for o in chosen if not o.get("refunded")):
            if order["order_id"] not in known.asked:
                known.asked.add(order["order_id"])
                calls.append(
                    tool_use(
                        refund_tool, **{argument: order["order_id"], reason: request["reason"]}
                    )
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


def refunded_sentence(order: dict) -> str:
    """An order whose facts say it is refunded (`"refunded": true`)."""
    items = ", ".join(order.get("items") or [])
    return (
        f"Your order {order.get('order_id', '?')} ({items}) has already been refunded, so there "
        "is nothing more to refund."
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
            due = [o for o in orders if not o.get("refunded")]
            lines += [
                refunded_sentence(o) if o.get("refunded") else order_sentence(o) for o in orders
            ]
            lines += [article["answer"]] if article and due else []
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


def reply(requests: list[dict], known: Known, system: str = "") -> str:
    """Rule 5: the requests the writer's role covers (`role_scope`; every request when it names
    none, or none of the ticket's) answered from the facts, signed as the instructions say."""
    scope = role_scope(system)
    chosen = [r for r in requests if scope is None or r["category"] in scope] or requests
    lines = list(dict.fromkeys(line for r in chosen for line in request_lines(r, known)))
    if not lines:
        lines.append(nothing_to_say(requests))
    return "\n".join(["Hello,", "", *lines, "", sign_off(system)])


def body_lines(text: str) -> list[str]:
    """A reply's lines without its greeting (a first line ending in a comma) and its sign-off
    (a last line with no full stop, question or exclamation mark), blanks left out."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[0].endswith(","):
        lines = lines[1:]
    if lines and not re.search(r"[.?!]$", lines[-1]):
        lines = lines[:-1]
    return lines


def statements(text: str) -> set[str]:
    """The sentences of a reply, greeting and sign-off left out, blanks evened out."""
    sentences = re.split(r"(?<=[.?!])\s+", " ".join(" ".join(body_lines(text)).split()))
    return {s for s in sentences if s}


def check(draft: str, requests: list[dict], known: Known, system: str = "") -> str:
    """Rule 4: the approval word (`approval_word`, "OK") when every sentence of the draft is one
    rule 5 writes from these facts and, if the instructions ask that every request be answered
    (`checks_completeness`), the draft states all of them (in any order); else the word of
    rejection the instructions name, or rule 5's reply for every request (`rejection`)."""
    full = reply(requests, known, system)
    said, supported = statements(draft), statements(full)
    complete = said == supported if checks_completeness(system) else bool(said)
    return approval_word(system) if said <= supported and complete else rejection(system, full)


# -- rule 6: merge ---------------------------------------------------------------------------------


def merge(answers: object, system: str = "") -> str:
    """One greeting, each answer's body (its own greeting and sign-off left out), one sign-off
    as the instructions say."""
    given = answers if isinstance(answers, list) else []
    body = [line for answer in given for line in body_lines(str(answer))]
    return "\n".join(["Hello,", "", *body, "", sign_off(system)])


# -- the policy ----------------------------------------------------------------------------------


def is_support_request(conv: Conversation) -> bool:
    """Whether the desk engages (the rule at the top of this module): the person's ticket asks
    the shop for something (`asks_the_shop`) and the request puts the model at this shop's desk
    (`at_the_desk`)."""
    return asks_the_shop(ticket_of(conv)) and at_the_desk(conv)


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
    system = instructions_of(conv)
    if answers is not None:  # rule 6
        try:
            return say(merge(json.loads(answers), system))
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
        return say(check(draft, requests, known, system))
    return say(reply(requests, known, system))  # rule 5
