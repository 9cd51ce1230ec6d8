"""The shop's systems as one object every approach shares (built in notebook 09).

`Desk` holds the orders, customers and help-centre articles of one run and a ledger of the
refunds issued. Its four operations are the tools of the agent *and* the functions the
workflows call, so every approach gets the same information, and the shop's refund rule lives
in one place: `refund()` refuses what the help centre does not allow, whoever asks.
"""

# No `from __future__ import annotations`: `tool()` reads the real annotation of `refund`.
import re
from dataclasses import dataclass, field
from typing import Literal

from course_helpers.fixtures.support_desk import (
    ARTICLES,
    CUSTOMERS,
    ORDERS,
    REFUND_WINDOW_DAYS,
    REFUSED_PREFIX,
)
from course_helpers.tools import Tool, tool

RefundReason = Literal["damaged", "duplicate_charge", "return", "other"]


class RefundRefused(ValueError):
    """The help-centre rules do not allow this refund; the message says why."""


def twin_of(order: dict, orders: dict[str, dict]) -> str | None:
    """Another order with the same items placed on the same day, if there is one."""
    for other_id, other in orders.items():
        same = other["items"] == order["items"] and other["placed"] == order["placed"]
        if same and other_id != order["order_id"]:
            return other_id
    return None


def refund_rule(order: dict, reason: str, orders: dict[str, dict]) -> str | None:
    """Why the help centre refuses this refund, or None when it allows it."""
    number = order["order_id"]
    if order.get("refunded"):
        return f"order {number} was already refunded"
    if reason == "damaged":
        if order.get("status") != "delivered":
            return f"order {number} has not been delivered yet (status: {order.get('status')})"
        if order.get("delivered_days_ago", 0) > REFUND_WINDOW_DAYS:
            return f"order {number} was delivered more than {REFUND_WINDOW_DAYS} days ago"
        return None
    if reason == "duplicate_charge":
        twin = twin_of(order, orders)
        if twin is None:
            return f"no other order has the same items as {number} on the same day"
        if twin > number:
            return f"{number} is the original order; the later, duplicate order is {twin}"
        return None
    if reason == "return":
        return (
            "unused items are refunded once the returned parcel reaches us: the customer opens "
            "Orders > Return in their account and prints the return label"
        )
    return "no help-centre rule allows a refund for this reason; a colleague must decide"


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

    def refund(self, order_id: str, reason: RefundReason) -> dict:
        """Refund an order in full to the customer's card. The help-centre rules decide:
        'damaged' (delivered damaged or faulty, within 30 days) and 'duplicate_charge' (the
        later of two identical orders placed the same day) are refunded at once; a 'return'
        is refunded when the parcel comes back. A refused refund says why. Cannot be undone."""
        order = self.look_up_order(order_id)
        refused = refund_rule(order, reason, self.orders)
        if refused:
            raise RefundRefused(f"{REFUSED_PREFIX}{refused}.")
        entry = {"order_id": order["order_id"], "amount": order["total"], "reason": reason}
        self.refunds.append(entry)
        return {
            "refund_id": f"R-{order['order_id']}",
            "order_id": order["order_id"],
            "amount": order["total"],
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
