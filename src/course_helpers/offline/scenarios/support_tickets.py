"""The Kettle & Co support desk, for notebook 09: the same tickets for a workflow and an agent.

Three situations, each recognised from what the program sends:

- **triage**: a request that forces the `triage_ticket` tool. The model reads the ticket and
  fills in a category (from its words), the order ids written in it and an email address.
- **writing from facts**: no tools, and a user message with a `Ticket:` part and a
  `Facts (JSON):` part (a workflow's drafting or handler step). The model writes the reply from
  the facts only: an order's status and tracking number, a refund issued or declined, the
  help-centre article; with no order among the facts it asks for the order number. With a
  `Draft reply:` part as well (a checking step) it answers `OK`.
- **the agent**: tools named `look_up_order` and `search_kb` are offered. The model chooses
  its next calls from the ticket and from the results it got back: a customer lookup when the
  ticket has an email but no order id, then that customer's orders one by one (newest first)
  until one holds the item the ticket names; the replacement of a lost order; the help centre
  before any refund; a refund when the rules and the orders allow it (the later of two
  identical orders placed the same day; a damaged item delivered within 30 days). It answers
  when nothing is left to look up. An `is_error` result is reported, never papered over; a
  declined refund leads to an honest "a colleague must approve this".
"""

from __future__ import annotations

import json
import re

from course_helpers.offline.conversation import Conversation, ToolCall
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use

_ORDER_ID = re.compile(r"\bA\d{4}\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_STOPWORDS = {
    *("a", "an", "and", "are", "be", "but", "can't", "do", "does", "don't", "for", "from"),
    *("get", "have", "hi", "how", "i", "i'd", "i'm", "in", "is", "it", "it's", "its", "like"),
    *("me", "my", "of", "on", "or", "please", "so", "that", "the", "this", "to", "was"),
    *("what", "when", "where", "which", "with", "would", "you", "your"),
}


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


def _ticket(conv: Conversation) -> str:
    """The ticket text: after a `Ticket:` heading when there is one, else the user's text."""
    said = conv.first_user_text
    if "Ticket:" in said:
        said = said.split("Ticket:", 1)[1].split("\n\nFacts (JSON):", 1)[0]
    return said.strip()


# -- step 1 of a workflow: triage -------------------------------------------------------------


@scenario(
    "support_triage",
    "Triage a support ticket when forced to use a tool named triage_ticket (notebook 09)",
    priority=34,
)
def support_triage(conv: Conversation) -> Reply | None:
    if conv.forced_tool != "triage_ticket":
        return None
    ticket = _ticket(conv)
    email = _EMAIL.search(ticket)
    return Reply(
        [
            tool_use(
                "triage_ticket",
                category=categorise(ticket),
                order_ids=list(dict.fromkeys(_ORDER_ID.findall(ticket))),
                email=email.group(0) if email else "",
            )
        ]
    )


# -- the writing steps of a workflow ----------------------------------------------------------


@scenario(
    "support_reply",
    "Write a support reply from 'Ticket:' and 'Facts (JSON):' parts (check a 'Draft reply:')",
    priority=34,
)
def support_reply(conv: Conversation) -> Reply | None:
    said = conv.last_user_text
    if conv.tools or "Facts (JSON):" not in said or "Ticket:" not in said:
        return None
    if "Draft reply:" in said:
        return say("OK")
    raw = said.split("Facts (JSON):", 1)[1].split("\n\nDraft reply:", 1)[0]
    try:
        facts = json.loads(raw)
    except ValueError:
        return say("I could not read the facts I was given, so I cannot answer this ticket yet.")
    return say(_reply_from_facts(facts))


def _order_sentence(order: dict) -> str:
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


def _refund_sentence(refund: dict) -> str:
    return (
        f"I have refunded EUR {refund['amount']:.2f} for order {refund['order_id']} "
        f"(reference {refund.get('refund_id', '?')}); it reaches your card in "
        f"{refund.get('reaches_card_in', '5-10 working days')}."
    )


def _reply_from_facts(facts: dict) -> str:
    category = facts.get("category", "other")
    orders = facts.get("orders") or []
    lines = ["Hello,", ""]
    if category in ("account", "policy") or not (orders or facts.get("not_found")):
        articles = facts.get("articles") or []
        if articles and category in ("account", "policy"):
            lines.append(articles[0]["answer"])
        elif category in ("shipping", "refund"):
            lines.append(
                "I could not find an order number in your message. Could you send it? It looks "
                "like A1234 and is in your confirmation email."
            )
        else:
            lines.append("I have passed your message to a colleague, who will reply soon.")
    for missing in facts.get("not_found") or []:
        lines.append(f"I could not find an order {missing}; could you check the number?")
    lines.extend(_order_sentence(o) for o in orders)
    if facts.get("refund"):
        lines.append(_refund_sentence(facts["refund"]))
    if facts.get("refund_declined"):
        declined = facts["refund_declined"]
        lines.append(f"I cannot refund order {declined['order_id']}: {declined['reason']}.")
    return "\n".join([*lines, "", "Kettle & Co support"])


# -- the agent ---------------------------------------------------------------------------------


def _parsed(call: ToolCall) -> object:
    if call.result is None or call.is_error:
        return None
    try:
        return json.loads(call.result)
    except ValueError:
        return None


def _kb_query(ticket: str, category: str) -> str:
    words = ticket.lower()
    if category == "refund":
        if re.search(r"twice|double|duplicate", words):
            return "charged twice refund"
        if "return" in words:
            return "return items refund"
        return "refund damaged item"
    content = [w for w in re.findall(r"[a-z']+", words) if w not in _STOPWORDS]
    return " ".join(content[:6])


def _item_words(order: dict) -> set[str]:
    """The words naming an order's items ('blue kettle' -> blue, kettle)."""
    words = re.findall(r"[a-z]{3,}", " ".join(order.get("items") or []).lower())
    return {w for w in words if w not in _STOPWORDS and w not in ("set", "replacement")}


class _Seen:
    """What the agent has learnt from its tool results so far."""

    def __init__(self, conv: Conversation) -> None:
        self.calls = [c for c in conv.calls() if c.result is not None]
        self.orders: dict[str, dict] = {}
        self.failed_orders: dict[str, str] = {}
        self.customer: dict | None = None
        self.customer_error: str | None = None
        self.articles: list[dict] = []
        self.refunds: list[dict] = []
        self.declined: list[tuple[dict, str]] = []
        for call in self.calls:
            data = _parsed(call)
            argument = str(next(iter(call.input.values()), "")).strip().lstrip("#").upper()
            if call.name == "look_up_order":
                if isinstance(data, dict):
                    self.orders[str(data.get("order_id", argument))] = data
                else:
                    self.failed_orders[argument] = call.result or "no result"
            elif call.name == "look_up_customer":
                if isinstance(data, dict):
                    self.customer = data
                else:
                    self.customer_error = call.result or "no result"
            elif call.name == "search_kb" and isinstance(data, list):
                self.articles.extend(a for a in data if isinstance(a, dict))
            elif call.name == "refund":
                if isinstance(data, dict):
                    self.refunds.append(data)
                elif self._newly_declined(call):
                    self.declined.append((call.input, call.result or ""))

    def _newly_declined(self, call: ToolCall) -> bool:
        """A refund refused for another reason than a repeat, not reported yet."""
        repeat = "already refunded" in (call.result or "")
        seen = any(wanted == call.input for wanted, _ in self.declined)
        return call.is_error and not repeat and not seen

    def looked_up(self, order_id: str) -> bool:
        return order_id in self.orders or order_id in self.failed_orders

    def searched(self) -> bool:
        return any(c.name == "search_kb" for c in self.calls)

    def refund_tried(self) -> bool:
        return any(c.name == "refund" for c in self.calls)


def _relevant_orders(ticket: str, seen: _Seen) -> list[dict]:
    """The orders the ticket is about: the ones it names, the customer's matching order, and
    the replacements of lost ones."""
    words = set(re.findall(r"[a-z]+", ticket.lower()))
    named = list(dict.fromkeys(_ORDER_ID.findall(ticket)))
    chosen = [seen.orders[i] for i in named if i in seen.orders]
    if not named and seen.customer:
        chosen = [o for o in seen.orders.values() if _item_words(o) & words][:1]
    for order in list(chosen):
        replacement = order.get("replaced_by")
        if replacement and replacement in seen.orders:
            chosen.append(seen.orders[replacement])
    return chosen


def _next_calls(conv: Conversation, ticket: str, category: str, seen: _Seen) -> list[dict]:
    """The tool calls of the next turn (several when they do not depend on each other)."""
    order_arg = conv.argument_for("look_up_order", ("order_id",))
    named = list(dict.fromkeys(_ORDER_ID.findall(ticket)))
    email = _EMAIL.search(ticket)
    todo: list[dict] = []
    unknown = seen.customer is None and seen.customer_error is None
    if not named and email and unknown and conv.offers("look_up_customer"):
        argument = conv.argument_for("look_up_customer", ("email",))
        return [tool_use("look_up_customer", **{argument: email.group(0)})]
    todo += [tool_use("look_up_order", **{order_arg: i}) for i in named if not seen.looked_up(i)]
    if not named and seen.customer:
        words = set(re.findall(r"[a-z]+", ticket.lower()))
        matched = any(_item_words(o) & words for o in seen.orders.values())
        waiting = [i for i in seen.customer.get("orders") or [] if not seen.looked_up(i)]
        if not matched and waiting:
            # One at a time, newest first: stop as soon as the item turns up.
            todo.append(tool_use("look_up_order", **{order_arg: waiting[0]}))
    for order in seen.orders.values():
        replacement = order.get("replaced_by")
        if replacement and not seen.looked_up(replacement):
            todo.append(tool_use("look_up_order", **{order_arg: replacement}))
    if category in ("refund", "account", "policy") and not seen.searched():
        todo.append(
            tool_use(
                "search_kb",
                **{conv.argument_for("search_kb", ("query",)): _kb_query(ticket, category)},
            )
        )
    if todo or category != "refund" or seen.refund_tried() or not conv.offers("refund"):
        return todo
    decision = _refund_decision(ticket, _relevant_orders(ticket, seen))
    if decision:
        order, reason = decision
        return [
            tool_use("refund", order_id=order["order_id"], amount=order["total"], reason=reason)
        ]
    return []


def _refund_decision(ticket: str, orders: list[dict]) -> tuple[dict, str] | None:
    """Which order to refund under the help-centre rules, if any."""
    words = ticket.lower()
    if re.search(r"twice|double|duplicate", words) and len(orders) >= 2:
        first, second = sorted(orders, key=lambda o: o.get("order_id", ""))[:2]
        same = first.get("items") == second.get("items") and first.get("placed") == second.get(
            "placed"
        )
        if same and not second.get("refunded"):
            return second, "duplicate charge"
    if re.search(r"broken|damaged|cracked|faulty", words):
        for order in orders:
            recent = order.get("delivered_days_ago", 999) <= 30
            if order.get("status") == "delivered" and recent and not order.get("refunded"):
                return order, "arrived damaged"
    return None


def _agent_answer(ticket: str, category: str, seen: _Seen) -> str:
    lines = ["Hello,", ""]
    orders = _relevant_orders(ticket, seen)
    for order_id, error in seen.failed_orders.items():
        lines.append(f"I could not find order {order_id} ({error.strip()[:120]}).")
    if seen.customer_error:
        lines.append(f"I could not find your customer account ({seen.customer_error.strip()}).")
    if not orders and seen.customer and not seen.failed_orders:
        lines.append("I could not find an order with that item on your account.")
    for order in orders:
        if "replacement" in " ".join(order.get("items") or []):
            lines.append(
                f"The replacement, order {order.get('order_id')}, has shipped with "
                f"{order.get('carrier', 'our carrier')}: tracking number {order.get('tracking')}, "
                f"expected on {order.get('eta')}."
            )
        else:
            lines.append(_order_sentence(order))
    for refund in seen.refunds:
        lines.append(_refund_sentence(refund))
    for wanted, _error in seen.declined:
        amount = wanted.get("amount")
        shown = f"EUR {amount:.2f} " if isinstance(amount, int | float) else ""
        lines.append(
            f"The refund of {shown}for order {wanted.get('order_id')} needs a colleague's "
            "approval; they will confirm it within one working day."
        )
    if category in ("account", "policy") or (category == "refund" and "return" in ticket.lower()):
        if seen.articles:
            lines.append(seen.articles[0].get("answer", ""))
        elif category != "refund":
            lines.append("I could not find a help-centre article on this; a colleague will reply.")
    if len(lines) == 2:
        lines.append("I could not find anything to act on; a colleague will look at your message.")
    return "\n".join([*lines, "", "Kettle & Co support"])


@scenario(
    "support_agent",
    "Answer a support ticket as an agent with look_up_order, search_kb (and look_up_customer, "
    "refund): 'Where is my order #A1001?' (notebook 09)",
    priority=35,
)
def support_agent(conv: Conversation) -> Reply | None:
    if not conv.offers("look_up_order", "search_kb") or conv.forced_tool:
        return None
    ticket = _ticket(conv)
    if not ticket:
        return None
    category = categorise(ticket)
    seen = _Seen(conv)
    calls = _next_calls(conv, ticket, category, seen) if conv.tools_allowed else []
    if calls:
        names = ", ".join(sorted({c["name"] for c in calls}))
        return Reply([text(f"Next I need {names}."), *calls])
    return say(_agent_answer(ticket, category, seen))
