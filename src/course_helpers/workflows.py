"""One job built three ways: a prompt chain, a router, an agent (built in notebook 09).

The job is a support desk for Kettle & Co, a small kitchenware shop: read a customer's ticket,
find the facts (orders, help-centre articles), issue a refund when the rules allow it, and write
the reply. The shop's systems are the `Desk` below: plain Python with a few orders, customers and
articles, and a ledger of the refunds issued in one run.

- `run_chain`: a fixed sequence of model calls (triage → draft → check), with code in between
  that fetches facts and applies the refund rule. Always three calls.
- `run_router`: one call sorts the ticket into a category; code hands it to a specialised
  handler with its own prompt and its own fixed path. Two calls (one for tickets it escalates).
- `run_support_agent`: the agent loop of notebook 04 with the desk's tools; the model decides
  which lookups to make and when it is done. As many calls as the ticket needs.

`compare()` runs cases through approaches and `results_table()` / `plot_results()` show calls,
tokens, latency and success side by side. Success is judged by code (`judge`): the reply must
contain the case's facts and exactly the expected refunds must have been issued.

Offline, latency is *modelled* from the token counts (the course model answers instantly):
`CALL_SECONDS` per call, plus input and output tokens at fixed speeds. Live, it is measured.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from course_helpers.client import MODEL, detect_backend
from course_helpers.loop import run_agent
from course_helpers.tools import Tool, tool

# ---------------------------------------------------------------------------------------------
# The shop's systems: orders, customers, help-centre articles, and a refund ledger.

ORDERS: dict[str, dict] = {
    "A1001": {
        "placed": "3 June",
        "items": ["espresso cups (set of 4)"],
        "total": 32.00,
        "status": "shipped",
        "carrier": "DHL",
        "tracking": "TRK-4471",
        "eta": "Thursday",
    },
    "A1002": {
        "placed": "28 May",
        "items": ["glass teapot"],
        "total": 24.00,
        "status": "delivered",
        "delivered_days_ago": 4,
    },
    "A1003": {
        "placed": "1 June",
        "items": ["chef's knife"],
        "total": 59.00,
        "status": "shipped",
        "carrier": "UPS",
        "tracking": "TRK-6120",
        "eta": "Friday",
    },
    "A1004": {
        "placed": "1 June",
        "items": ["chef's knife"],
        "total": 59.00,
        "status": "shipped",
        "carrier": "UPS",
        "tracking": "TRK-6121",
        "eta": "Friday",
    },
    "A1005": {
        "placed": "2 April",
        "items": ["bread bin"],
        "total": 45.00,
        "status": "delivered",
        "delivered_days_ago": 61,
    },
    "A1007": {
        "placed": "20 May",
        "items": ["cast-iron pan"],
        "total": 68.00,
        "status": "lost in transit",
        "carrier": "DHL",
        "tracking": "TRK-3307",
        "replaced_by": "A1010",
    },
    "A1008": {
        "placed": "30 May",
        "items": ["blue kettle"],
        "total": 49.00,
        "status": "shipped",
        "carrier": "DPD",
        "tracking": "TRK-5512",
        "eta": "Wednesday",
    },
    "A1009": {
        "placed": "4 June",
        "items": ["tea towels (set of 3)"],
        "total": 15.00,
        "status": "processing",
    },
    "A1010": {
        "placed": "31 May",
        "items": ["cast-iron pan (replacement for A1007)"],
        "total": 0.00,
        "status": "shipped",
        "carrier": "DHL",
        "tracking": "TRK-9020",
        "eta": "Tuesday",
    },
    "A1011": {
        "placed": "12 May",
        "items": ["stoneware mugs (2)"],
        "total": 36.00,
        "status": "delivered",
        "delivered_days_ago": 12,
    },
}

CUSTOMERS: dict[str, dict] = {
    "sam@example.com": {"name": "Sam Okafor", "orders": ["A1009", "A1008", "A1005"]},
    "lee@example.com": {"name": "Lee Marsh", "orders": ["A1004", "A1003"]},
    "ana@example.com": {"name": "Ana Costa", "orders": ["A1011"]},
}

ARTICLES: list[dict] = [
    {
        "id": "password",
        "title": "Resetting your password",
        "keywords": ["password", "forgot", "login", "log", "reset", "account", "sign"],
        "answer": "Choose 'Forgot password' on the login page and we email you a link that "
        "works for 24 hours. Already signed in? Settings > Security > Change password.",
    },
    {
        "id": "shipping-abroad",
        "title": "Shipping abroad",
        "keywords": ["ship", "shipping", "abroad", "country", "norway", "switzerland", "eu"],
        "answer": "We ship to the EU, the UK, Norway and Switzerland. Norway and Switzerland: "
        "5-7 working days, EUR 12 flat. EU and UK: 3-5 working days, EUR 6.",
    },
    {
        "id": "damaged",
        "title": "Refunds for damaged or faulty items",
        "keywords": ["refund", "damaged", "broken", "faulty", "cracked", "money"],
        "answer": "Items that arrive damaged or faulty are refunded in full within 30 days of "
        "delivery; you keep or recycle the item. Refunds reach your card in 5-10 working days.",
    },
    {
        "id": "returns",
        "title": "Returning items",
        "keywords": ["return", "returns", "send", "back", "unused", "money", "refund"],
        "answer": "Unused items can be returned within 30 days of delivery: open Orders > "
        "Return in your account and print the return label. We refund the items once the "
        "parcel reaches us.",
    },
    {
        "id": "double-charge",
        "title": "Charged twice",
        "keywords": ["charged", "twice", "double", "duplicate", "refund"],
        "answer": "If you were charged twice for the same items on the same day, we refund the "
        "later, duplicate order in full straight away.",
    },
    {
        "id": "lost",
        "title": "Lost parcels",
        "keywords": ["lost", "tracking", "parcel", "where", "late", "arrived"],
        "answer": "A parcel with no scan for 10 days is marked 'lost in transit' and we send a "
        "replacement under a new order number, with its own tracking number.",
    },
]

REFUND_WINDOW_DAYS = 30


@dataclass
class Desk:
    """The shop's systems for one run: lookups, help-centre search and a refund ledger."""

    orders: dict[str, dict] = field(default_factory=lambda: ORDERS)
    customers: dict[str, dict] = field(default_factory=lambda: CUSTOMERS)
    articles: list[dict] = field(default_factory=lambda: ARTICLES)
    refunds: list[dict] = field(default_factory=list)

    def look_up_order(self, order_id: str) -> dict:
        """Look up one order by its id (like A1001): items, total in EUR, status, carrier,
        tracking number and expected delivery day when shipped, days since delivery when
        delivered, and `replaced_by` when a lost order was replaced by a new one."""
        key = order_id.strip().lstrip("#").upper()
        if key not in self.orders:
            raise LookupError(f"No order {order_id!r}. Order ids look like A1001.")
        refunded = any(r["order_id"] == key for r in self.refunds)
        return {"order_id": key, **self.orders[key], "refunded": refunded}

    def look_up_customer(self, email: str) -> dict:
        """Find a customer by email address: their name and their order ids, newest first."""
        key = email.strip().lower()
        if key not in self.customers:
            raise LookupError(f"No customer with the email {email!r}.")
        return {"email": key, **self.customers[key]}

    def search_kb(self, query: str) -> list[dict]:
        """Search the help centre (shipping, returns, refunds, accounts). Returns at most two
        articles, best first, each with its title and the answer it gives customers."""
        words = set(re.findall(r"[a-z]+", query.lower()))
        scored = [(len(words & set(a["keywords"])), a) for a in self.articles]
        best = [a for score, a in sorted(scored, key=lambda s: -s[0]) if score > 0][:2]
        return [{"title": a["title"], "answer": a["answer"]} for a in best]

    def refund(self, order_id: str, amount: float, reason: str) -> dict:
        """Refund `amount` EUR of an order to the customer's card. It cannot be undone: refund
        only what the help-centre rules allow. An order can be refunded once."""
        order = self.look_up_order(order_id)
        if order["refunded"]:
            raise ValueError(f"Order {order['order_id']} was already refunded.")
        if not 0 < amount <= order["total"]:
            raise ValueError(f"Amount must be between 0 and the order total {order['total']:.2f}.")
        entry = {"order_id": order["order_id"], "amount": round(amount, 2), "reason": reason}
        self.refunds.append(entry)
        return {
            "refund_id": f"R-{order['order_id']}",
            "order_id": order["order_id"],
            "amount": round(amount, 2),
            "status": "issued",
            "reaches_card_in": "5-10 working days",
        }

    def tools(self) -> list[Tool]:
        """The desk's four operations as tools for the agent."""
        return [
            tool(self.look_up_order),
            tool(self.look_up_customer),
            tool(self.search_kb),
            tool(self.refund),
        ]


def refund_allowed(order: dict) -> tuple[bool, str]:
    """The refund rule a workflow applies in code: delivered, within the window, not refunded."""
    if order.get("refunded"):
        return False, "it was already refunded"
    if order.get("status") != "delivered":
        return False, f"it has not been delivered yet (status: {order.get('status')})"
    if order.get("delivered_days_ago", 0) > REFUND_WINDOW_DAYS:
        return False, f"it was delivered more than {REFUND_WINDOW_DAYS} days ago"
    return True, ""


# ---------------------------------------------------------------------------------------------
# The cases: tickets, and what a correct outcome contains.


@dataclass(frozen=True)
class Case:
    """A ticket and its correct outcome: facts the reply must state, orders to refund."""

    name: str
    kind: str  # "predictable" or "unpredictable"
    ticket: str
    facts: tuple[str, ...]
    refunds: tuple[str, ...] = ()


CASES: list[Case] = [
    Case(
        "P1 where is A1001",
        "predictable",
        "Hi, where is my order #A1001? It's been a week.",
        ("TRK-4471",),
    ),
    Case(
        "P2 password",
        "predictable",
        "I forgot my password and can't log in. What do I do?",
        ("Forgot password",),
    ),
    Case(
        "P3 broken teapot",
        "predictable",
        "My glass teapot from order #A1002 arrived broken. I'd like a refund please.",
        ("24.00",),
        ("A1002",),
    ),
    Case(
        "P4 ship to Norway",
        "predictable",
        "Do you ship to Norway, and how long does delivery take?",
        ("5-7 working days",),
    ),
    Case(
        "U1 kettle, no order id",
        "unpredictable",
        "I ordered a blue kettle but lost the confirmation email, so I don't have the order "
        "number. My email is sam@example.com. Where is it?",
        ("TRK-5512",),
    ),
    Case(
        "U2 lost, replaced",
        "unpredictable",
        "Where is order #A1007? The tracking page hasn't changed for ten days.",
        ("TRK-9020",),
    ),
    Case(
        "U3 charged twice",
        "unpredictable",
        "I was charged twice for the same chef's knife: orders #A1003 and #A1004. Please fix this.",
        ("59.00",),
        ("A1004",),
    ),
    Case(
        "U4 return mugs",
        "unpredictable",
        "I'd like to return the two mugs I bought last month and get my money back. "
        "My email is ana@example.com.",
        ("A1011", "return label"),
    ),
]


def judge(case: Case, reply: str, refunds: list[dict]) -> tuple[bool, str]:
    """Success by code: every fact is in the reply and exactly the expected orders were refunded."""
    missing = [fact for fact in case.facts if fact.lower() not in reply.lower()]
    refunded = sorted(r["order_id"] for r in refunds)
    problems = [f"reply lacks {fact!r}" for fact in missing]
    if refunded != sorted(case.refunds):
        problems.append(
            f"refunded {refunded or 'nothing'}, expected {list(case.refunds) or 'none'}"
        )
    return not problems, "; ".join(problems)


# ---------------------------------------------------------------------------------------------
# Shared pieces of the two workflows.

CATEGORIES = ["shipping", "refund", "account", "policy", "other"]

TRIAGE_TOOL = {
    "name": "triage_ticket",
    "description": "Record the triage of one customer support ticket: its category, the order "
    "ids written in it and the customer's email address if it gives one.",
    "input_schema": {
        "type": "object",
        "properties": {
            "category": {
                "type": "string",
                "enum": CATEGORIES,
                "description": "shipping: where an order is; refund: money back, damage, "
                "returns, double charges; account: logins and passwords; policy: general "
                "questions about the shop; other: anything else.",
            },
            "order_ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Order ids written in the ticket, like A1001. Empty if none.",
            },
            "email": {
                "type": "string",
                "description": "The customer's email address if the ticket gives one, else ''.",
            },
        },
        "required": ["category", "order_ids", "email"],
    },
}


@dataclass
class Attempt:
    """What one approach did with one ticket: its reply, each call's usage, and a trace."""

    reply: str
    usage: list[dict] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


def usage_of(response: Any) -> dict:
    """A response's usage as a plain dict (SDK object or dict)."""
    usage = response.usage
    return usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)


def reply_text(response: Any) -> str:
    """The text blocks of a response, joined."""
    return "\n".join(b.text for b in response.content if b.type == "text").strip()


def facts_message(ticket: str, facts: dict, draft: str | None = None) -> str:
    """The user message a writing step reads: the ticket, the facts as JSON, maybe a draft."""
    text = f"Ticket:\n{ticket}\n\nFacts (JSON):\n{json.dumps(facts, indent=1)}"
    return text + (f"\n\nDraft reply:\n{draft}" if draft is not None else "")


def look_up_all(desk: Desk, order_ids: list[str]) -> tuple[list[dict], list[str]]:
    """Every order that exists, and the ids that do not."""
    found, missing = [], []
    for order_id in order_ids:
        try:
            found.append(desk.look_up_order(order_id))
        except LookupError:
            missing.append(order_id)
    return found, missing


# ---------------------------------------------------------------------------------------------
# Way 1: a prompt chain.


def triage(client: anthropic.Anthropic, ticket: str, attempt: Attempt, model: str = MODEL) -> dict:
    """Step 1 of both workflows: one call, forced to answer with the triage tool."""
    response = client.messages.create(
        model=model,
        max_tokens=300,
        system="You triage customer support tickets for Kettle & Co, a kitchenware shop.",
        tools=[TRIAGE_TOOL],
        tool_choice={"type": "tool", "name": "triage_ticket"},
        messages=[{"role": "user", "content": f"Ticket:\n{ticket}"}],
    )
    attempt.usage.append(usage_of(response))
    found = next((b.input for b in response.content if b.type == "tool_use"), {})
    category = found.get("category") if found.get("category") in CATEGORIES else "other"
    order_ids = [str(i).strip().lstrip("#").upper() for i in found.get("order_ids") or []]
    result = {"category": category, "order_ids": order_ids, "email": found.get("email") or ""}
    attempt.trace.append(f"triage → {category}, order ids {order_ids}")
    return result


DRAFT_SYSTEM = (
    "You write replies to customer support tickets for Kettle & Co, a kitchenware shop. "
    "Use only the facts given; never promise anything the facts do not show. Be brief and "
    "friendly, and sign as Kettle & Co support."
)
CHECK_SYSTEM = (
    "You check a draft reply to a support ticket against the facts. If every statement in "
    "the draft is supported by the facts, answer with exactly OK. Otherwise answer with the "
    "corrected reply and nothing else."
)


def run_chain(client: anthropic.Anthropic, desk: Desk, ticket: str, model: str = MODEL) -> Attempt:
    """Triage → (code: fetch facts, apply the refund rule) → draft → check. Always 3 calls."""
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt, model)
    # The gate between the calls is ordinary code: fetch what the triage points at.
    orders, missing = look_up_all(desk, found["order_ids"])
    facts = {"category": found["category"], "orders": orders, "not_found": missing}
    facts["articles"] = desk.search_kb(ticket)
    if found["category"] == "refund" and orders:
        allowed, why = refund_allowed(orders[0])
        if allowed:
            facts["refund"] = desk.refund(orders[0]["order_id"], orders[0]["total"], "customer")
        else:
            facts["refund_declined"] = {"order_id": orders[0]["order_id"], "reason": why}
    attempt.trace.append(f"code: {len(orders)} order(s), {len(facts['articles'])} article(s)")
    message = facts_message(ticket, facts)
    draft = client.messages.create(
        model=model,
        max_tokens=600,
        system=DRAFT_SYSTEM,
        messages=[{"role": "user", "content": message}],
    )
    attempt.usage.append(usage_of(draft))
    attempt.reply = reply_text(draft)
    attempt.trace.append("draft")
    check = client.messages.create(
        model=model,
        max_tokens=600,
        system=CHECK_SYSTEM,
        messages=[{"role": "user", "content": facts_message(ticket, facts, attempt.reply)}],
    )
    attempt.usage.append(usage_of(check))
    verdict = reply_text(check)
    if verdict and not re.search(r"\bOK\W*$", verdict[-40:]):
        attempt.reply = verdict  # the checker rewrote the draft
    attempt.trace.append("check: " + ("OK" if attempt.reply != verdict else "rewritten"))
    return attempt


# ---------------------------------------------------------------------------------------------
# Way 2: a router with specialised handlers.

HANDLER_SYSTEMS = {
    "shipping": "You tell Kettle & Co customers where their order is, from the order facts "
    "given: status, carrier, tracking number, expected day. Be brief; sign as Kettle & Co "
    "support.",
    "refund": "You tell Kettle & Co customers the outcome of their refund request, from the "
    "facts given: the refund issued, or why not. Be brief; sign as Kettle & Co support.",
    "help": "You answer Kettle & Co customers from the help-centre articles given, and only "
    "from them. Be brief; sign as Kettle & Co support.",
}


def write_reply(
    client: anthropic.Anthropic, handler: str, ticket: str, facts: dict, attempt: Attempt, model
) -> None:
    """The one model call of a handler: its own short system prompt, only its facts."""
    response = client.messages.create(
        model=model,
        max_tokens=600,
        system=HANDLER_SYSTEMS[handler],
        messages=[{"role": "user", "content": facts_message(ticket, facts)}],
    )
    attempt.usage.append(usage_of(response))
    attempt.reply = reply_text(response)
    attempt.trace.append(f"{handler} handler writes the reply")


def handle_shipping(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> None:
    orders, missing = look_up_all(desk, found["order_ids"])
    facts = {"category": "shipping", "orders": orders, "not_found": missing}
    write_reply(client, "shipping", ticket, facts, attempt, model)


def handle_refund(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> None:
    orders, missing = look_up_all(desk, found["order_ids"][:1])
    facts = {"category": "refund", "orders": orders, "not_found": missing}
    if orders:
        allowed, why = refund_allowed(orders[0])
        if allowed:
            facts["refund"] = desk.refund(orders[0]["order_id"], orders[0]["total"], "customer")
        else:
            facts["refund_declined"] = {"order_id": orders[0]["order_id"], "reason": why}
    write_reply(client, "refund", ticket, facts, attempt, model)


def handle_help(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> None:
    facts = {"category": found["category"], "articles": desk.search_kb(ticket)}
    write_reply(client, "help", ticket, facts, attempt, model)


HANDLERS: dict[str, Callable[..., None]] = {
    "shipping": handle_shipping,
    "refund": handle_refund,
    "account": handle_help,
    "policy": handle_help,
}

ESCALATION = (
    "Thank you for your message. I have passed it to a colleague, who will reply within one "
    "working day. Kettle & Co support"
)


def run_router(client: anthropic.Anthropic, desk: Desk, ticket: str, model: str = MODEL) -> Attempt:
    """Triage → the category's handler (one more call), or escalation to a person (no call)."""
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt, model)
    handler = HANDLERS.get(found["category"])
    if handler is None:
        attempt.reply = ESCALATION
        attempt.trace.append("no handler: escalated to a person")
        return attempt
    handler(client, desk, ticket, found, attempt, model)
    return attempt


# ---------------------------------------------------------------------------------------------
# Way 3: the agent loop.

AGENT_SYSTEM = (
    "You are the support agent of Kettle & Co, a kitchenware shop. Answer the customer's "
    "ticket. Use the tools to find the facts: never guess an order's status or a tracking "
    "number. Follow the help-centre rules before issuing a refund. When you are done, write "
    "the reply to the customer, brief and friendly, signed Kettle & Co support."
)


def run_support_agent(
    client: anthropic.Anthropic,
    desk: Desk,
    ticket: str,
    model: str = MODEL,
    max_steps: int = 10,
    approve: Any = None,
) -> Attempt:
    """The loop from notebook 04 with the desk's tools; the model picks the path."""
    run = run_agent(
        client,
        messages=[{"role": "user", "content": ticket}],
        tools=desk.tools(),
        system=AGENT_SYSTEM,
        model=model,
        max_tokens=1024,
        max_steps=max_steps,
        approve=approve,
    )
    calls = [
        f"{b.name}({', '.join(map(str, b.input.values()))})"
        for m in run.messages
        if m["role"] == "assistant" and not isinstance(m["content"], str)
        for b in m["content"]
        if getattr(b, "type", "") == "tool_use"
    ]
    trace = [*calls, f"ended: {run.ending}"]
    return Attempt(reply=run.final_text, usage=run.usage, trace=trace)


APPROACHES: dict[str, Callable[..., Attempt]] = {
    "chain": run_chain,
    "router": run_router,
    "agent": run_support_agent,
}

# ---------------------------------------------------------------------------------------------
# Measuring.

# A model of latency, for the offline course model (which answers at once). Round numbers of
# the right order for a hosted model: a fixed cost per call, then reading and writing speeds.
CALL_SECONDS = 0.5
INPUT_TOKENS_PER_SECOND = 20_000
OUTPUT_TOKENS_PER_SECOND = 60


def prompt_size(usage: dict) -> int:
    """All input tokens of a call: uncached, written to and read from the cache."""
    return (
        usage.get("input_tokens", 0)
        + (usage.get("cache_creation_input_tokens") or 0)
        + (usage.get("cache_read_input_tokens") or 0)
    )


def modelled_seconds(usages: list[dict]) -> float:
    """Latency of a sequence of calls under the model above (not a measurement)."""
    return sum(
        CALL_SECONDS
        + prompt_size(u) / INPUT_TOKENS_PER_SECOND
        + u.get("output_tokens", 0) / OUTPUT_TOKENS_PER_SECOND
        for u in usages
    )


@dataclass
class CaseResult:
    """One case run through one approach, with its numbers and the verdict."""

    approach: str
    case: Case
    calls: int
    input_tokens: int
    output_tokens: int
    seconds: float
    measured: bool  # True: wall time; False: modelled from tokens
    success: bool
    why: str
    reply: str
    refunds: list[dict]
    trace: list[str]


def run_case(
    client: anthropic.Anthropic,
    approach: str,
    case: Case,
    model: str = MODEL,
    measure: bool | None = None,
) -> CaseResult:
    """Run one case through one approach on a fresh desk, and judge it."""
    measure = detect_backend().name != "offline" if measure is None else measure
    desk = Desk()
    start = time.perf_counter()
    attempt = APPROACHES[approach](client, desk, case.ticket, model=model)
    wall = time.perf_counter() - start
    success, why = judge(case, attempt.reply, desk.refunds)
    return CaseResult(
        approach=approach,
        case=case,
        calls=len(attempt.usage),
        input_tokens=sum(prompt_size(u) for u in attempt.usage),
        output_tokens=sum(u.get("output_tokens", 0) for u in attempt.usage),
        seconds=wall if measure else modelled_seconds(attempt.usage),
        measured=measure,
        success=success,
        why=why,
        reply=attempt.reply,
        refunds=list(desk.refunds),
        trace=attempt.trace,
    )


def compare(
    client: anthropic.Anthropic,
    cases: list[Case] = CASES,
    approaches: tuple[str, ...] = ("chain", "router", "agent"),
    model: str = MODEL,
) -> list[CaseResult]:
    """Every case through every approach, case by case."""
    return [run_case(client, a, c, model=model) for c in cases for a in approaches]


def results_table(results: list[CaseResult]) -> str:
    """One row per case, one column group per approach: calls, tokens in/out, seconds, ok."""
    approaches = list(dict.fromkeys(r.approach for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    by_key = {(r.case.name, r.approach): r for r in results}
    kind = "measured" if any(r.measured for r in results) else "modelled"
    head1 = f"{'':24}" + "".join(f" │ {a:<27}" for a in approaches)
    head2 = f"{'case':24}" + " │ calls     in   out     s  ok" * len(approaches)
    lines = [head1.rstrip(), head2, "─" * len(head2)]
    for case in cases:
        row = f"{case.name:24}"
        for approach in approaches:
            r = by_key.get((case.name, approach))
            if r is None:
                row += " │" + " " * 28
                continue
            mark = "✓" if r.success else "✗"
            row += (
                f" │ {r.calls:5} {r.input_tokens:6,} {r.output_tokens:5,} {r.seconds:5.1f}  {mark} "
            )
        lines.append(row.rstrip())
    lines.append(f"(s = latency in seconds, {kind}; in/out = input/output tokens of all calls)")
    return "\n".join(lines)


def summary_table(results: list[CaseResult]) -> str:
    """Per approach and kind of case: successes, then mean calls, tokens and seconds."""
    lines = [
        f"{'approach':8} {'cases':13} {'solved':>6} {'calls':>6} {'in':>7} {'out':>5} {'s':>5}"
    ]
    for approach in dict.fromkeys(r.approach for r in results):
        for kind in ("predictable", "unpredictable"):
            rows = [r for r in results if r.approach == approach and r.case.kind == kind]
            if not rows:
                continue
            n = len(rows)
            lines.append(
                f"{approach:8} {kind:13} {sum(r.success for r in rows):>3}/{n:<2} "
                f"{sum(r.calls for r in rows) / n:6.1f} "
                f"{sum(r.input_tokens for r in rows) / n:7,.0f} "
                f"{sum(r.output_tokens for r in rows) / n:5.0f} "
                f"{sum(r.seconds for r in rows) / n:5.1f}"
            )
    return "\n".join(lines)


COLOURS = {"chain": "#4C72B0", "router": "#DD8452", "agent": "#55A868"}


def plot_results(results: list[CaseResult]):
    """Four panels (calls, input tokens, output tokens, latency), one group of bars per case.

    A failed case's bar is pale and hatched. Returns the matplotlib Figure (10 x 6.4 inches at
    100 dpi, so its text form is always `<Figure size 1000x640 with 4 Axes>`).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    approaches = list(dict.fromkeys(r.approach for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    by_key = {(r.case.name, r.approach): r for r in results}
    kind = "measured" if any(r.measured for r in results) else "modelled"
    panels = [
        ("calls", "model calls"),
        ("input_tokens", "input tokens"),
        ("output_tokens", "output tokens"),
        ("seconds", f"latency, s ({kind})"),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), dpi=100, sharex=True)
    width = 0.8 / max(1, len(approaches))
    for ax, (attribute, label) in zip(axes.flat, panels, strict=True):
        for i, approach in enumerate(approaches):
            for j, case in enumerate(cases):
                r = by_key.get((case.name, approach))
                if r is None:
                    continue
                ax.bar(
                    j + (i - (len(approaches) - 1) / 2) * width,
                    getattr(r, attribute),
                    width,
                    color=COLOURS.get(approach, "grey"),
                    alpha=1.0 if r.success else 0.35,
                    hatch=None if r.success else "//",
                    edgecolor="white" if r.success else COLOURS.get(approach, "grey"),
                    label=approach if j == 0 else None,
                )
        split = sum(1 for c in cases if c.kind == "predictable") - 0.5
        ax.axvline(split, color="#888888", linewidth=0.8, linestyle="--")
        ax.set_title(label, fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
        ax.tick_params(labelsize=8)
    for ax in axes[1]:
        ax.set_xticks(range(len(cases)), [c.name.split()[0] for c in cases])
    axes[0, 0].yaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes.flat[1:3]:
        ax.yaxis.set_major_formatter(lambda value, _: f"{value:,.0f}")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.suptitle("Same tickets, three ways (P = predictable, U = unpredictable)", fontsize=11)
    fig.legend(
        handles,
        labels,
        loc="upper right",
        ncols=len(approaches),
        fontsize=8,
        frameon=False,
        title="pale, hatched = failed",
        title_fontsize=8,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig
