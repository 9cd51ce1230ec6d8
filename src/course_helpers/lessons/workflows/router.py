"""Way 2 of notebook 09: a router. One triage call picks a handler; each handler fetches only
what its kind of ticket needs and writes the reply with a prompt of its own (one more call)."""

from __future__ import annotations

from collections.abc import Callable

import anthropic

from course_helpers.client import MODEL
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.workflows.steps import (
    ESCALATION,
    MAX_CALLS,
    Attempt,
    look_up_orders,
    orders_in_question,
    refund_step,
    triage,
    within_budget,
    write,
)

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.workflows.router`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
HANDLER_SYSTEMS = {
    "shipping": "You tell Kettle & Co customers where their order is, from the order facts "
    "given: status, carrier, tracking number, expected day. Be brief; sign as Kettle & Co "
    "support.",
    "refund": "You tell Kettle & Co customers the outcome of their refund request, from the "
    "facts given: the refunds issued, or why not. Be brief; sign as Kettle & Co support.",
    "help": "You answer Kettle & Co customers from the help-centre articles given, and only "
    "from them. Be brief; sign as Kettle & Co support.",
}


def handle_shipping(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> str:
    """Where is my order: the orders in question, then one call."""
    facts = {"category": "shipping", "item": found["item"], **look_up_orders(desk, found)}
    facts["orders"] = orders_in_question(found, facts["orders"])
    attempt.trace.append(f"shipping handler: {len(facts['orders'])} order(s)")
    return write(client, HANDLER_SYSTEMS["shipping"], ticket, facts, attempt, model)


def handle_refund(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> str:
    """Money back: the desk's refund rule on each order in question, then one call."""
    looked_up = look_up_orders(desk, found)
    orders = orders_in_question(found, looked_up["orders"])
    facts = {"category": "refund", "orders": orders, **refund_step(desk, found, orders)}
    facts["articles"] = desk.search_kb(ticket)
    if not orders:
        facts["not_found"] = looked_up["not_found"] or ["no order in question"]
    attempt.trace.append(
        f"refund handler: {len(facts['refunds'])} issued, {len(facts['refused'])} refused"
    )
    return write(client, HANDLER_SYSTEMS["refund"], ticket, facts, attempt, model)


def handle_help(client, desk: Desk, ticket: str, found: dict, attempt: Attempt, model) -> str:
    """A question for the help centre: search it, then one call."""
    facts = {"category": found["category"], "articles": desk.search_kb(ticket)}
    attempt.trace.append(f"help handler: {len(facts['articles'])} article(s)")
    return write(client, HANDLER_SYSTEMS["help"], ticket, facts, attempt, model)


HANDLERS: dict[str, Callable[..., str]] = {
    "shipping": handle_shipping,
    "refund": handle_refund,
    "account": handle_help,
    "policy": handle_help,
}


# From notebooks/09_choose_workflow_or_agent.ipynb
@within_budget
def run_router(
    client: anthropic.Anthropic,
    desk: Desk,
    ticket: str,
    model: str = MODEL,
    max_calls: int = MAX_CALLS,
) -> Attempt:
    """Triage → the category's handler (one more call), or a person (no call)."""
    attempt = Attempt(reply="", max_calls=max_calls)
    found = triage(client, ticket, attempt, model)
    handler = HANDLERS.get(found["category"])
    if handler is None:
        attempt.reply = ESCALATION
        attempt.trace.append("no handler: passed to a person")
        return attempt
    attempt.reply = handler(client, desk, ticket, found, attempt, model)
    return attempt
