"""Way 1 of notebook 09: a prompt chain. Triage → code → draft → check, always three calls."""

from __future__ import annotations

import re

import anthropic

from course_helpers.client import MODEL
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.workflows.steps import (
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
# ---- `# Saved in course_helpers.lessons.workflows.chain`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
DRAFT_SYSTEM = (
    "You write replies to customer support tickets for Kettle & Co, a kitchenware shop. "
    "Use only the facts given; never promise anything the facts do not show. Be brief and "
    "friendly, and sign as Kettle & Co support."
)
CHECK_SYSTEM = (
    "You check a draft reply to a Kettle & Co support ticket against the facts. If every "
    "statement in the draft is supported by the facts, and the draft answers every request in "
    "the ticket that the facts can answer, answer with exactly OK. Otherwise answer with the "
    "corrected reply and nothing else."
)


# From notebooks/09_choose_workflow_or_agent.ipynb
@within_budget
def run_chain(
    client: anthropic.Anthropic,
    desk: Desk,
    ticket: str,
    model: str = MODEL,
    max_calls: int = MAX_CALLS,
) -> Attempt:
    """Triage → (code: orders, refunds under the desk's rule, help centre) → draft → check."""
    attempt = Attempt(reply="", max_calls=max_calls)
    found = triage(client, ticket, attempt, model)
    # Between the calls, ordinary code fetches what the triage points at.
    facts = {"category": found["category"], "item": found["item"], **look_up_orders(desk, found)}
    facts["orders"] = orders_in_question(found, facts["orders"])
    if found["category"] == "refund":
        facts |= refund_step(desk, found, facts["orders"])
    facts["articles"] = desk.search_kb(ticket)
    attempt.trace.append(
        f"code: {len(facts['orders'])} order(s) in question, "
        f"{len(facts.get('refunds', []))} refund(s), {len(facts['articles'])} article(s)"
    )
    attempt.reply = write(client, DRAFT_SYSTEM, ticket, facts, attempt, model)
    attempt.trace.append("draft")
    verdict = write(client, CHECK_SYSTEM, ticket, facts, attempt, model, draft=attempt.reply)
    rewritten = bool(verdict) and not re.fullmatch(r"\W*OK\W*", verdict)
    if rewritten:
        attempt.reply = verdict
    attempt.trace.append("check: " + ("rewritten" if rewritten else "OK"))
    return attempt
