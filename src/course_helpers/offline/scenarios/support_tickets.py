"""Course machinery (offline course model): the Kettle & Co support desk, for notebook 09: the same
tickets for workflows and an agent.

The course model plays one documented policy per situation. Each reacts only to what the
request contains (the tools offered, the ticket's words, the results received), never to which
approach is asking or which case of the notebook it is.

- **triage**: `triage_ticket` is the only tool offered (auto or forced). The model fills in the
  form from the ticket: a category from its words (`categorise`), the order ids and email
  written in it, the item (the first noun phrase after "my", "a", "an" or "the" that is not
  about orders, emails or money) and the refund reason from its words.
- **planning**: `plan_subtasks` is the only tool offered. The model splits the ticket into
  sentences; a sentence starts a new request when its category differs from the current
  request's and is not "other"; each request gets the triage above, and the ticket's email.
- **writing from facts**: no tools, and a message with `Ticket:` and `Facts (JSON):` parts.
  The model states every fact it is given, in fixed sentences: each order's status (tracking
  number, or the order that replaced it), each refund issued or refused (with the rule's
  words), an order not found; with no order at all it asks for the order number; for a
  question it gives the first help-centre article. With a `Draft reply:` part it answers `OK`.
- **merging**: no tools, `Ticket:` and `Worker answers (JSON):`. One greeting, each answer's
  body, one sign-off.
- **the agent**: see `support_agent`, which plays the agent on the same desk with the
  sentences above.
"""

from __future__ import annotations

import json
import re

from course_helpers.fixtures.support_desk import (
    ANSWERS_HEADING,
    DRAFT_HEADING,
    FACTS_HEADING,
    PLAN_TOOL_NAME,
    REFUSED_PREFIX,
    SIGN_OFF,
    TICKET_HEADING,
    TRIAGE_TOOL_NAME,
)
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, say, scenario, tool_use

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
    """The triage the course model writes for a ticket (or one part of it)."""
    found = _EMAIL.search(ticket)
    return {
        "category": categorise(ticket),
        "order_ids": list(dict.fromkeys(ORDER_ID.findall(ticket))),
        "email": found.group(0) if found else (email or ""),
        "item": item_of(ticket),
        "reason": reason_of(ticket),
    }


def ticket_of(conv: Conversation) -> str:
    """The ticket text: after a `Ticket:` heading when there is one, else the user's text."""
    said = conv.first_user_text
    if TICKET_HEADING in said:
        said = said.split(TICKET_HEADING, 1)[1]
        for heading in (FACTS_HEADING, ANSWERS_HEADING):
            said = said.split(f"\n\n{heading}", 1)[0]
    return said.strip()


def _only_tool(conv: Conversation, name: str) -> bool:
    return conv.tool_names == [name] and conv.tools_allowed


# -- the forms: triage and planning ---------------------------------------------------------------


@scenario(
    "support_triage",
    "Triage a support ticket with a tool named triage_ticket (notebook 09)",
    priority=34,
)
def support_triage(conv: Conversation) -> Reply | None:
    if not _only_tool(conv, TRIAGE_TOOL_NAME):
        return None
    return Reply([tool_use(TRIAGE_TOOL_NAME, **triage_form(ticket_of(conv)))])


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


@scenario(
    "support_plan",
    "Split a support ticket into its requests with a tool named plan_subtasks (notebook 09)",
    priority=34,
)
def support_plan(conv: Conversation) -> Reply | None:
    if not _only_tool(conv, PLAN_TOOL_NAME):
        return None
    ticket = ticket_of(conv)
    email = _EMAIL.search(ticket)
    requests = [
        {"text": part, **triage_form(part, email.group(0) if email else None)}
        for part in split_requests(ticket)
    ]
    return Reply([tool_use(PLAN_TOOL_NAME, requests=requests)])


# -- the writing steps ------------------------------------------------------------------------------


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
    if re.search(r"declin|approv", why):
        return (
            f"The refund for order {order_id} needs a colleague's approval; they will confirm "
            "it within one working day."
        )
    why = why.strip().split(REFUSED_PREFIX, 1)[-1].rstrip(".")
    return f"I could not refund order {order_id}: {why}."


def not_found_sentence(item: str, searched: int) -> str:
    wanted = item or "that item"
    return (
        f"I could not find {wanted} among the {searched} orders on your account. Could you send "
        "the order number? It is in your confirmation email."
    )


def reply_from_facts(facts: dict) -> str:
    """A reply stating every fact given, in fixed sentences."""
    category = facts.get("category", "other")
    orders = facts.get("orders") or []
    lines = [order_sentence(o) for o in orders]
    lines += [refund_sentence(r) for r in facts.get("refunds") or []]
    lines += [
        refused_sentence(r.get("order_id", "?"), r.get("why", ""))
        for r in facts.get("refused") or []
    ]
    for missing in facts.get("not_found") or []:
        if ORDER_ID.fullmatch(str(missing)):
            lines.append(f"I could not find an order {missing}; could you check the number?")
    if facts.get("customer_not_found"):
        lines.append("I could not find an account with that email address.")
    if "searched_orders" in facts and not orders and not facts.get("customer_not_found"):
        lines.append(not_found_sentence(facts.get("item", ""), facts["searched_orders"]))
    articles = facts.get("articles") or []
    if category in ("account", "policy") and articles:
        lines.append(articles[0].get("answer", ""))
    if not lines and category in ("shipping", "refund"):
        lines.append(
            "I could not find an order number in your message. Could you send it? It looks "
            "like A1234 and is in your confirmation email."
        )
    if not lines:
        lines.append("I have passed your message to a colleague, who will reply soon.")
    return "\n".join(["Hello,", "", *lines, "", SIGN_OFF])


@scenario(
    "support_reply",
    "Write a support reply from 'Ticket:' and 'Facts (JSON):' parts (check a 'Draft reply:')",
    priority=34,
)
def support_reply(conv: Conversation) -> Reply | None:
    said = conv.last_user_text
    if conv.tools or FACTS_HEADING not in said or TICKET_HEADING not in said:
        return None
    if DRAFT_HEADING in said:
        return say("OK")
    raw = said.split(FACTS_HEADING, 1)[1].split(f"\n\n{DRAFT_HEADING}", 1)[0]
    try:
        facts = json.loads(raw)
    except ValueError:
        return say("I could not read the facts I was given, so I cannot answer this ticket yet.")
    return say(reply_from_facts(facts if isinstance(facts, dict) else {}))


@scenario(
    "support_merge",
    "Merge the answers to the parts of a support ticket ('Worker answers (JSON):')",
    priority=34,
)
def support_merge(conv: Conversation) -> Reply | None:
    said = conv.last_user_text
    if conv.tools or ANSWERS_HEADING not in said or TICKET_HEADING not in said:
        return None
    try:
        answers = json.loads(said.split(ANSWERS_HEADING, 1)[1])
    except ValueError:
        return say("I could not read the answers I was given.")
    body = []
    for answer in answers if isinstance(answers, list) else []:
        for line in str(answer).splitlines():
            if line.strip() and line.strip() not in ("Hello,", SIGN_OFF):
                body.append(line.strip())
    return say("\n".join(["Hello,", "", *body, "", SIGN_OFF]))
