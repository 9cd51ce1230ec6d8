"""Course machinery (offline course model): the Kettle & Co support desk, for notebook 09: the
course model playing the agent.

Like the workflows' policies in `support_tickets`, this one reacts only to what the request
contains (the tools offered, the ticket's words, the results received), never to which case of
the notebook it is, and it states facts in the same sentences as the workflows' writer.

It plays when `look_up_order` and `search_kb` are offered. Each turn the model makes the first
group of calls below that is not empty (calls in one group go out together), and answers when
all are empty:
  1. every order id the ticket names, not looked up yet;
  2. the customer, when the ticket gives an email and names no order id;
  3. that customer's orders, one at a time, newest first, until one holds the ticket's item;
  4. every order id a result names (a replacement), not looked up yet;
  5. the help centre, once, when the ticket asks for money back or asks a question;
  6. when the ticket asks for money back: a refund of the orders in question, one at a time,
     in the order the ticket names them, for the reason its words give; after a refusal
     that names another order, that order. It stops at the first refund issued, or at a
     refusal that names no other order. The model does not check the rule first: the refund
     tool's rule is what stops a wrong refund;
  7. the answer, stating every fact the results gave, in the writer's sentences.
"""

from __future__ import annotations

import json
import re

from course_helpers.fixtures.support_desk import SIGN_OFF
from course_helpers.offline.conversation import Conversation, ToolCall
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.scenarios.support_tickets import (
    ORDER_ID,
    STOPWORDS,
    not_found_sentence,
    order_sentence,
    refund_sentence,
    refused_sentence,
    ticket_of,
    triage_form,
)


def _parsed(call: ToolCall) -> object:
    if call.result is None or call.is_error:
        return None
    try:
        return json.loads(call.result)
    except ValueError:
        return None


def _item_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in ("set", "for")}


class _Seen:
    """What the agent has learnt from its tool results so far."""

    def __init__(self, conv: Conversation) -> None:
        self.orders: dict[str, dict] = {}
        self.failed_orders: dict[str, str] = {}
        self.customer: dict | None = None
        self.customer_error: str | None = None
        self.articles: list[dict] = []
        self.searched = False
        self.refunds: list[dict] = []
        self.refused: dict[str, str] = {}
        for call in (c for c in conv.calls() if c.result is not None):
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
            elif call.name == "search_kb":
                self.searched = True
                if isinstance(data, list):
                    self.articles.extend(a for a in data if isinstance(a, dict))
            elif call.name == "refund":
                if isinstance(data, dict):
                    self.refunds.append(data)
                else:
                    self.refused[argument] = call.result or ""

    def looked_up(self, order_id: str) -> bool:
        return order_id in self.orders or order_id in self.failed_orders

    def holding(self, item: str) -> list[dict]:
        """The orders looked up so far whose items share a word with `item`."""
        wanted = _item_words(item)
        return [o for o in self.orders.values() if wanted & _item_words(" ".join(o["items"]))]


def _in_question(form: dict, seen: _Seen) -> list[dict]:
    """The orders the ticket is about: the ones it names, else the customer's with its item."""
    if form["order_ids"]:
        return [seen.orders[i] for i in form["order_ids"] if i in seen.orders]
    return seen.holding(form["item"])[:1] if form["item"] else []


def _with_replacements(orders: list[dict], seen: _Seen) -> list[dict]:
    chosen = list(orders)
    for order in chosen:
        replacement = order.get("replaced_by")
        if replacement in seen.orders and seen.orders[replacement] not in chosen:
            chosen.append(seen.orders[replacement])
    return chosen


def _refund_next(conv: Conversation, form: dict, seen: _Seen) -> list[dict]:
    """Rule 6: the next refund to try, if any."""
    if form["category"] != "refund" or seen.refunds or not conv.offers("refund"):
        return []
    if seen.refused:
        last_why = list(seen.refused.values())[-1]
        todo = [i for i in ORDER_ID.findall(last_why) if i not in seen.refused]
    else:
        todo = [o["order_id"] for o in _in_question(form, seen)]
    if not todo:
        return []  # nothing in question, or a refusal that names no other order: stop
    return [tool_use("refund", order_id=todo[0], reason=form["reason"])]


def agent_next_calls(conv: Conversation, form: dict, seen: _Seen) -> list[dict]:
    """The first non-empty group of rules 1-6 (see the module's docstring)."""
    order_arg = conv.argument_for("look_up_order", ("order_id",))
    named = [i for i in form["order_ids"] if not seen.looked_up(i)]
    if named:
        return [tool_use("look_up_order", **{order_arg: i}) for i in named]
    unknown = seen.customer is None and seen.customer_error is None
    if not form["order_ids"] and form["email"] and unknown and conv.offers("look_up_customer"):
        argument = conv.argument_for("look_up_customer", ("email",))
        return [tool_use("look_up_customer", **{argument: form["email"]})]
    if not form["order_ids"] and seen.customer and not seen.holding(form["item"]):
        waiting = [i for i in seen.customer.get("orders") or [] if not seen.looked_up(i)]
        if waiting:
            return [tool_use("look_up_order", **{order_arg: waiting[0]})]
    pointed = [
        o["replaced_by"]
        for o in seen.orders.values()
        if o.get("replaced_by") and not seen.looked_up(o["replaced_by"])
    ]
    if pointed:
        return [tool_use("look_up_order", **{order_arg: i}) for i in pointed]
    if form["category"] in ("refund", "account", "policy") and not seen.searched:
        words = [w for w in re.findall(r"[a-z']+", ticket_of(conv).lower()) if w not in STOPWORDS]
        query = conv.argument_for("search_kb", ("query",))
        return [tool_use("search_kb", **{query: " ".join(words[:8])})]
    return _refund_next(conv, form, seen)


def agent_answer(form: dict, seen: _Seen) -> str:
    """Rule 7: every fact the results gave, in the writer's sentences."""
    lines = []
    for order_id, error in seen.failed_orders.items():
        lines.append(f"I could not find order {order_id} ({error.strip()[:120]}).")
    if seen.customer_error:
        lines.append("I could not find an account with that email address.")
    orders = _with_replacements(_in_question(form, seen), seen)
    lines += [order_sentence(o) for o in orders]
    if seen.customer and not form["order_ids"] and not orders:
        lines.append(not_found_sentence(form["item"], len(seen.customer.get("orders") or [])))
    lines += [refund_sentence(r) for r in seen.refunds]
    refunded = {r.get("order_id") for r in seen.refunds}
    for order_id, why in seen.refused.items():
        superseded = any(i in refunded for i in ORDER_ID.findall(why) if i != order_id)
        if not superseded:
            lines.append(refused_sentence(order_id, why))
    if form["category"] in ("account", "policy") and seen.articles:
        lines.append(seen.articles[0].get("answer", ""))
    if not lines:
        lines.append("I could not find anything to act on; a colleague will look at your message.")
    return "\n".join(["Hello,", "", *lines, "", SIGN_OFF])


@scenario(
    "support_agent",
    "Answer a support ticket as an agent with look_up_order, search_kb (and look_up_customer, "
    "refund): 'Where is my order #A1001?' (notebook 09)",
    priority=35,
)
def support_agent(conv: Conversation) -> Reply | None:
    if not conv.offers("look_up_order", "search_kb") or conv.forced_tool:
        return None
    ticket = ticket_of(conv)
    if not ticket:
        return None
    form = triage_form(ticket)
    seen = _Seen(conv)
    calls = agent_next_calls(conv, form, seen) if conv.tools_allowed else []
    if calls:
        names = ", ".join(sorted({c["name"] for c in calls}))
        return Reply([text(f"Next I need {names}."), *calls])
    return say(agent_answer(form, seen))
