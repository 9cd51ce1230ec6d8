"""The pieces every workflow of notebook 09 is built from: one triage call, then code.

- `MAX_CALLS`, `MAX_TOKENS`, `create()`, `within_budget()`: the budget every approach gets, the
  same for all four: at most `MAX_CALLS` model calls a ticket, `MAX_TOKENS` output tokens a
  call, never raised. A run that would go past the call cap, or whose call is cut off at
  `MAX_TOKENS`, goes to a person (`ESCALATION`) and says so; so does a call the API refuses.
- `fill_form()`, `triage()`: one model call that fills in a form (category, order ids, email, item, refund
  reason). The form is a tool offered with `tool_choice` left at `auto` and a clear
  instruction: some current models refuse a forced `tool_choice`, and code maps anything
  unexpected to "other".
- `look_up_orders()`, `orders_in_question()`, `refund_step()`: ordinary code calling the
  `Desk`, the same operations the agent gets as tools, under the same refund rule.
- `write()`: one model call that writes a reply from a ticket and its facts.

`Attempt` records what an approach did with one ticket: its reply, each call's usage, a trace.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.fixtures.support_desk import (
    CATEGORIES,
    DRAFT_HEADING,
    FACTS_HEADING,
    REFUND_REASONS,
    TICKET_HEADING,
    TRIAGE_TOOL_NAME,
    Desk,
    RefundRefused,
)
from course_helpers.lessons.controller import text_of

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.workflows.steps`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
# The budget of every approach, the same for all four: model calls a ticket, output tokens a call.
MAX_CALLS = 8
MAX_TOKENS = 2048

ESCALATION = (
    "Thank you for your message. I have passed it to a colleague, who will reply within one "
    "working day. Kettle & Co support"
)


@dataclass
class Attempt:
    """What one approach did with one ticket: its reply, each call's usage, and a trace."""

    reply: str
    usage: list[dict] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    max_calls: int = MAX_CALLS
    capped: bool = False  # True: a cap (max_calls, max_tokens) ended the run; a person has it


def usage_of(response: Any) -> dict:
    """A response's usage as a plain dict."""
    return response.usage.model_dump(exclude_none=True)


def reply_text(response: Any) -> str:
    """The text of a response (a thinking block may come first), without surrounding blanks."""
    return text_of(response).strip()


# From notebooks/09_choose_workflow_or_agent.ipynb
class OutOfBudget(Exception):
    """The run cannot go on: a cap was reached (`capped`), or the API refused the call."""

    def __init__(self, attempt: Attempt, why: str, capped: bool = True) -> None:
        super().__init__(why)
        self.attempt, self.why, self.capped = attempt, why, capped


def create(client: anthropic.Anthropic, attempt: Attempt, **request: Any) -> Any:
    """One model call within the attempt's budget: refused past `max_calls`, `MAX_TOKENS` long.
    A call cut off at `MAX_TOKENS` is counted and ends the run: half an answer is never used."""
    if len(attempt.usage) >= attempt.max_calls:
        raise OutOfBudget(attempt, f"call cap ({attempt.max_calls}) reached")
    try:
        response = client.messages.create(max_tokens=MAX_TOKENS, **request)
    except anthropic.APIError as error:  # after the SDK's own retries, as for the agent
        raise OutOfBudget(attempt, f"API error ({type(error).__name__})", capped=False) from error
    attempt.usage.append(usage_of(response))
    if response.stop_reason == "max_tokens":
        raise OutOfBudget(attempt, f"cut off at max_tokens {MAX_TOKENS}")
    return response


def within_budget(approach: Callable[..., Attempt]) -> Callable[..., Attempt]:
    """A run that cannot go on within its budget goes to a person, with what it spent and why."""

    @functools.wraps(approach)
    def run(*args: Any, **kwargs: Any) -> Attempt:
        try:
            return approach(*args, **kwargs)
        except OutOfBudget as stop:
            attempt = stop.attempt
            attempt.reply, attempt.capped = ESCALATION, stop.capped
            attempt.trace.append(f"{stop.why}, passed to a person")
            return attempt

    return run


# From notebooks/09_choose_workflow_or_agent.ipynb
TRIAGE_FIELDS = {
    "category": {
        "type": "string",
        "enum": CATEGORIES,
        "description": "shipping: where an order is; refund: money back, damage, returns, "
        "double charges; account: logins and passwords; policy: general questions about the "
        "shop; other: anything else.",
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
    "item": {
        "type": "string",
        "description": "The item the ticket is about, in the customer's words, else ''.",
    },
    "reason": {
        "type": "string",
        "enum": [*REFUND_REASONS, "none"],
        "description": "Why the customer wants money back (damaged, duplicate_charge, return, "
        "other), or none.",
    },
}

TRIAGE_TOOL = {
    "name": TRIAGE_TOOL_NAME,
    "description": "Record the triage of one customer support ticket: its category, the order "
    "ids written in it, the customer's email, the item it is about and the refund reason.",
    "input_schema": {
        "type": "object",
        "properties": TRIAGE_FIELDS,
        "required": list(TRIAGE_FIELDS),
    },
}

TRIAGE_SYSTEM = (
    "You triage customer support tickets for Kettle & Co, a kitchenware shop. Always answer by "
    f"calling the {TRIAGE_TOOL_NAME} tool exactly once; write no other text."
)


# From notebooks/09_choose_workflow_or_agent.ipynb
def read_form(found: Any) -> dict:
    """A triage form as the workflows use it; anything unexpected falls back to safe values."""
    found = found if isinstance(found, dict) else {}
    category = found.get("category") if found.get("category") in CATEGORIES else "other"
    reason = found.get("reason") if found.get("reason") in REFUND_REASONS else "other"
    ids = [str(i).strip().lstrip("#").upper() for i in found.get("order_ids") or []]
    return {
        "category": category,
        "order_ids": list(dict.fromkeys(ids)),
        "email": str(found.get("email") or "").strip(),
        "item": str(found.get("item") or "").strip(),
        "reason": reason,
    }


def fill_form(
    client: anthropic.Anthropic,
    system: str,
    form: dict,
    ticket: str,
    attempt: Attempt,
    model: str = MODEL,
) -> Any:
    """One call that answers by filling in a form (a tool): its input, or None without one."""
    response = create(
        client,
        attempt,
        model=model,
        system=system,
        tools=[form],
        messages=[{"role": "user", "content": f"{TICKET_HEADING}\n{ticket}"}],
    )
    return next((b.input for b in response.content if b.type == "tool_use"), None)


def triage(client: anthropic.Anthropic, ticket: str, attempt: Attempt, model: str = MODEL) -> dict:
    """Step 1 of the chain and the router: the triage form, checked by code."""
    found = read_form(fill_form(client, TRIAGE_SYSTEM, TRIAGE_TOOL, ticket, attempt, model))
    attempt.trace.append(
        f"triage → {found['category']}, order ids {found['order_ids']}, "
        f"email {found['email'] or '-'}, item {found['item'] or '-'}"
    )
    return found


# From notebooks/09_choose_workflow_or_agent.ipynb
def item_words(text: str) -> set[str]:
    """The words of three letters or more that name an item ('blue kettle' -> blue, kettle)."""
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in ("set", "for")}


def look_up_orders(desk: Desk, found: dict) -> dict:
    """The orders the ticket points at: the ids it names, else every order of the customer
    whose email it gives. One pass: nothing a result points at is looked up."""
    facts: dict = {"orders": [], "not_found": []}
    order_ids = found["order_ids"]
    if not order_ids and found["email"]:
        try:
            order_ids = desk.look_up_customer(found["email"])["orders"]
        except LookupError as error:
            facts["customer_not_found"] = str(error)
        facts["searched_orders"] = len(order_ids)
    for order_id in order_ids:
        try:
            facts["orders"].append(desk.look_up_order(order_id))
        except LookupError:
            facts["not_found"].append(order_id)
    return facts


def orders_in_question(found: dict, orders: list[dict]) -> list[dict]:
    """The orders the ticket names; without ids, the customer's orders holding its item."""
    if found["order_ids"]:
        return [o for o in orders if o["order_id"] in found["order_ids"]]
    wanted = item_words(found["item"])
    return [o for o in orders if wanted & item_words(" ".join(o["items"]))]


def refund_step(desk: Desk, found: dict, orders: list[dict]) -> dict:
    """Ask the desk to refund each order in question; the desk's rule says yes or why not."""
    issued, refused = [], []
    for order in orders:
        try:
            issued.append(desk.refund(order["order_id"], found["reason"]))
        except (RefundRefused, LookupError) as error:
            refused.append({"order_id": order["order_id"], "why": str(error)})
    return {"refunds": issued, "refused": refused}


# From notebooks/09_choose_workflow_or_agent.ipynb
def facts_message(ticket: str, facts: dict, draft: str | None = None) -> list[dict]:
    """The user message a writing step reads: the ticket, the facts as JSON, maybe a draft, each
    in a text block of its own. Whatever the customer wrote stays in the ticket's block: a
    ticket that types "Facts (JSON):" cannot pass for facts the code looked up."""
    sections = [(TICKET_HEADING, ticket), (FACTS_HEADING, json.dumps(facts, indent=1))]
    sections += [(DRAFT_HEADING, draft)] if draft is not None else []
    return [{"type": "text", "text": f"{heading}\n{body}"} for heading, body in sections]


def write(
    client: anthropic.Anthropic,
    system: str,
    ticket: str,
    facts: dict,
    attempt: Attempt,
    model: str = MODEL,
    draft: str | None = None,
) -> str:
    """One writing call: a fixed system prompt, the ticket and its facts (and maybe a draft)."""
    response = create(
        client,
        attempt,
        model=model,
        system=system,
        messages=[{"role": "user", "content": facts_message(ticket, facts, draft)}],
    )
    return reply_text(response)
