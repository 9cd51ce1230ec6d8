"""Way 3 of notebook 09: orchestrator–workers. One call splits the ticket into its requests
(as many as it holds: the model decides how many); each request goes to a worker, the
router's handler for its kind, with one call; a last call merges the answers into one reply
(skipped when there is a single answer)."""

from __future__ import annotations

import json

import anthropic

from course_helpers.client import MODEL
from course_helpers.fixtures.support_desk import (
    ANSWERS_HEADING,
    PLAN_TOOL_NAME,
    TICKET_HEADING,
    Desk,
)
from course_helpers.lessons.workflows.router import HANDLERS
from course_helpers.lessons.workflows.steps import (
    ESCALATION,
    MAX_CALLS,
    TRIAGE_FIELDS,
    Attempt,
    create,
    fill_form,
    read_form,
    reply_text,
    within_budget,
)

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.workflows.orchestrator`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
PLAN_TOOL = {
    "name": PLAN_TOOL_NAME,
    "description": "Split one customer support ticket into its separate requests, in the "
    "ticket's order, each with its own triage. A ticket asking one thing has one request.",
    "input_schema": {
        "type": "object",
        "properties": {
            "requests": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {
                            "type": "string",
                            "description": "The part of the ticket that makes this request.",
                        },
                        **TRIAGE_FIELDS,
                    },
                    "required": ["text", *TRIAGE_FIELDS],
                },
            }
        },
        "required": ["requests"],
    },
}
PLAN_SYSTEM = (
    "You plan the work on customer support tickets for Kettle & Co, a kitchenware shop. Always "
    f"answer by calling the {PLAN_TOOL_NAME} tool exactly once; write no other text."
)
MERGE_SYSTEM = (
    "You merge the answers colleagues wrote to the parts of one customer's ticket into a single "
    "reply: one greeting, every answer's content, nothing added. Sign as Kettle & Co support."
)


# From notebooks/09_choose_workflow_or_agent.ipynb
def plan(client: anthropic.Anthropic, ticket: str, attempt: Attempt, model: str = MODEL) -> list:
    """The orchestrator's call: the ticket's requests, each a triage form plus its text."""
    form = fill_form(client, PLAN_SYSTEM, PLAN_TOOL, ticket, attempt, model)
    requests = form.get("requests") if isinstance(form, dict) else None
    parts = [
        {"text": str(r.get("text") or ticket), **read_form(r)}
        for r in requests or []
        if isinstance(r, dict)
    ]
    attempt.trace.append(f"plan → {[p['category'] for p in parts]}")
    return parts


@within_budget
def run_orchestrator(
    client: anthropic.Anthropic,
    desk: Desk,
    ticket: str,
    model: str = MODEL,
    max_calls: int = MAX_CALLS,
) -> Attempt:
    """Plan → one worker per request → merge (when there is more than one answer)."""
    attempt = Attempt(reply="", max_calls=max_calls)
    answers = []
    for part in plan(client, ticket, attempt, model):
        handler = HANDLERS.get(part["category"])
        if handler is None:
            attempt.trace.append("a request with no worker: passed to a person")
            answers.append(ESCALATION)
            continue
        answers.append(handler(client, desk, part["text"], part, attempt, model))
    if len(answers) <= 1:
        attempt.reply = answers[0] if answers else ESCALATION
        return attempt
    response = create(
        client,
        attempt,
        model=model,
        system=MERGE_SYSTEM,
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"{TICKET_HEADING}\n{ticket}"},
                    {"type": "text", "text": f"{ANSWERS_HEADING}\n{json.dumps(answers, indent=1)}"},
                ],
            }
        ],
    )
    attempt.reply = reply_text(response)
    attempt.trace.append(f"merge {len(answers)} answers")
    return attempt
