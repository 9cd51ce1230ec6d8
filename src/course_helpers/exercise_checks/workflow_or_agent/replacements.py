"""Course machinery (exercise checks): exercise 09.1, `with_replacements`: replacement chains, hop
limits, loops and missing orders.
"""

from __future__ import annotations

from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)

# -- exercise 1: follow replacements -------------------------------------------------------------


class _TooManyLookups(Exception):
    """Raised by the check's desk when a function keeps looking orders up."""


def _order(status: str, replaced_by: str | None = None) -> dict:
    order = {"placed": "1 June", "items": ["test item"], "total": 10.0, "status": status}
    if replaced_by:
        order["replaced_by"] = replaced_by
    return order


TEST_ORDERS = {
    # A chain of two replacements.
    "B1": _order("lost in transit", "B2"),
    "B2": _order("lost in transit", "B3"),
    "B3": _order("shipped"),
    # A chain that loops back.
    "C1": _order("lost in transit", "C2"),
    "C2": _order("lost in transit", "C1"),
    # A replacement that does not exist.
    "D1": _order("lost in transit", "D9"),
    # Two orders replaced by the same one.
    "E1": _order("lost in transit", "E3"),
    "E2": _order("lost in transit", "E3"),
    "E3": _order("shipped"),
    # A long chain.
    **{f"F{n}": _order("lost in transit", f"F{n + 1}") for n in range(1, 6)},
    "F6": _order("shipped"),
    # Nothing to follow.
    "G1": _order("delivered"),
}


def _counting_desk(limit: int = 12):
    from course_helpers.fixtures.support_desk import Desk

    class CountingDesk(Desk):
        lookups: list[str]

        def look_up_order(self, order_id: str) -> dict:
            self.lookups.append(order_id)
            if len(self.lookups) > limit:
                raise _TooManyLookups(order_id)
            return super().look_up_order(order_id)

    desk = CountingDesk(orders=TEST_ORDERS)
    desk.lookups = []
    return desk


def _follow(with_replacements: Callable, ids: list[str], max_hops: int | None = None):
    """Run the learner's function on fresh lookups of `ids`; the ids it returns, and its lookups."""
    __tracebackhide__ = True
    desk = _counting_desk()
    orders = [desk.look_up_order(i) for i in ids]
    given = list(orders)
    desk.lookups.clear()
    options = {} if max_hops is None else {"max_hops": max_hops}

    def call():
        try:
            return with_replacements(desk, orders, **options)
        except _TooManyLookups:
            fail(
                f"on {ids} your function kept looking orders up ({len(desk.lookups) - 1} "
                "lookups and counting): a chain that loops back never ends.",
                "remember the ids you have seen and stop at one you have seen, or at max_hops.",
            )
        except (KeyError, IndexError) as error:  # LookupErrors of its own code, not the desk's
            kind = type(error).__name__
            fail(
                f"on {ids} your function's own code raised {kind} ({error}), not the desk: "
                + (
                    f"it read the key {error.args[0]!r}, which the dict it read does not have."
                    if isinstance(error, KeyError) and error.args
                    else "it read past the end of a list."
                ),
                "read the fields an order has: its id is order['order_id'], and "
                "order.get('replaced_by') is None when it was not replaced.",
            )
        except LookupError as error:
            fail(
                f"on {ids} your function raised LookupError ({error}): a replacement that does "
                "not exist must not stop the reply.",
                "catch the LookupError of desk.look_up_order and leave that replacement out.",
            )

    returned = run_learner(call, name="with_replacements")
    if returned is orders or orders != given:
        fail(
            f"on {ids} with_replacements changed the list it was given "
            + (
                "and returned that same list"
                if returned is orders
                else f"(it now holds {[o.get('order_id') for o in orders]})"
            )
            + ": the caller's list of looked-up orders is refilled, though the exercise asks "
            "for a new list.",
            "build a new list (found = []), append to it, and return it; leave `orders` as "
            "it came.",
        )
    if not isinstance(returned, list) or not all(isinstance(o, dict) for o in returned):
        fail(
            f"with_replacements returned {short_repr(returned)}; it must return a list of orders "
            "(the dicts desk.look_up_order returns).",
            "start from the orders you were given and append each replacement you look up.",
        )
    return [o.get("order_id") for o in returned], list(desk.lookups)


def check_with_replacements(with_replacements: Callable) -> None:
    """09 · `with_replacements(desk, orders, max_hops=3)`: follow replaced_by in code."""
    __tracebackhide__ = True
    got, lookups = _follow(with_replacements, ["G1"])
    if got != ["G1"]:
        fail(
            f"for an order with nothing to follow (G1) it returned {got}.",
            "return the orders you were given, each followed by its replacements.",
        )
    if lookups:
        fail(
            f"for an order without replaced_by it looked up {lookups}.",
            "look up only what an order's replaced_by names.",
        )
    got, lookups = _follow(with_replacements, ["B1"])
    if "B1" not in got:
        fail(
            f"for B1 (replaced by B2, itself replaced by B3) it returned {got}: the order the "
            "ticket names is missing.",
            "keep every order you were given, then add its replacements after it.",
        )
    if got == ["B1", "B2"]:
        fail(
            "for B1 (replaced by B2, itself replaced by B3) it returned ['B1', 'B2']: it "
            "followed one hop, and B2 was replaced too.",
            "loop: after each lookup, look at the new order's replaced_by as well.",
        )
    if got != ["B1", "B2", "B3"]:
        fail(
            f"for B1 (replaced by B2, itself replaced by B3) it returned {got}; expected "
            "['B1', 'B2', 'B3'].",
            "each order first, then its replacements in the order you find them.",
        )
    got, lookups = _follow(with_replacements, ["C1"])
    if got != ["C1", "C2"]:
        fail(
            f"for C1 (replaced by C2, which points back to C1) it returned {got}; expected "
            "['C1', 'C2'].",
            "never add an order that is already in the list you return.",
        )
    got, lookups = _follow(with_replacements, ["F1"], max_hops=2)
    if len(lookups) > 2 or got != ["F1", "F2", "F3"]:
        fail(
            f"with max_hops=2, for F1 (a chain of five replacements) it made {len(lookups)} "
            f"lookups and returned {got}; expected 2 lookups and ['F1', 'F2', 'F3'].",
            "count the lookups of each order's chain and stop at max_hops.",
        )
    got, lookups = _follow(with_replacements, ["B1", "G1"])
    if sorted(got) == ["B1", "B2", "B3", "G1"] and got != ["B1", "B2", "B3", "G1"]:
        fail(
            f"for B1 (replaced by B2, then B3) and G1 it returned {got}; expected "
            "['B1', 'B2', 'B3', 'G1']: the reply reads each order with its replacements.",
            "append each order's replacements right after it, before the next order you were "
            "given.",
        )
    got, lookups = _follow(with_replacements, ["F1", "B1"], max_hops=2)
    if got != ["F1", "F2", "F3", "B1", "B2", "B3"]:
        fail(
            f"with max_hops=2, for F1 (a chain of five replacements) and B1 (a chain of two) it "
            f"returned {got} after {len(lookups)} lookups; expected "
            "['F1', 'F2', 'F3', 'B1', 'B2', 'B3']: max_hops limits each order's chain.",
            "start a new count of hops for every order you were given.",
        )
    got, lookups = _follow(with_replacements, ["E1", "E2"])
    if got != ["E1", "E3", "E2"] or len(lookups) > 1:
        fail(
            f"for E1 and E2 (both replaced by E3) it returned {got} after {len(lookups)} "
            "lookups; expected ['E1', 'E3', 'E2'] after one lookup.",
            "skip a replacement you already have: the same order must not appear twice.",
        )
    got, lookups = _follow(with_replacements, ["D1", "G1"])
    if got != ["D1", "G1"]:
        fail(
            f"for D1 (replaced by D9, which does not exist) and G1 it returned {got}; expected "
            "['D1', 'G1'].",
            "leave out a replacement whose lookup raises LookupError and go on with the next "
            "order; keep D1 itself.",
        )
    _check_chain_with(with_replacements)
    passed("with_replacements follows every replacement, in code, and stops")


def _check_chain_with(with_replacements: Callable) -> None:
    """The chain of notebook 09 with the learner's arrow added, on U1 and U2."""
    __tracebackhide__ = True
    from course_helpers.fixtures.support_desk import CASES, Desk
    from course_helpers.lessons.workflows.chain import DRAFT_SYSTEM
    from course_helpers.lessons.workflows.scoring import judge
    from course_helpers.lessons.workflows.steps import (
        Attempt,
        look_up_orders,
        orders_in_question,
        triage,
        write,
    )

    client, _ = recording_client()
    for case in [c for c in CASES if c.name.startswith(("U1", "U2"))]:
        desk, attempt = Desk(), Attempt(reply="")
        found = triage(client, case.ticket, attempt)
        facts = {"category": found["category"], "item": found["item"]}
        facts |= look_up_orders(desk, found)
        orders = orders_in_question(found, facts["orders"])
        facts["orders"] = run_learner(with_replacements, desk, orders, name="with_replacements")
        attempt.reply = write(client, DRAFT_SYSTEM, case.ticket, facts, attempt)
        ok, why = judge(case, attempt.reply, desk.refunds)
        print(f"chain + with_replacements on {case.name}: {'✓' if ok else '✗ ' + why}")
        if not ok:
            fail(
                f"the chain with your with_replacements still fails {case.name!r}: {why}.",
                "the replacement's record holds the tracking number: return it with the orders.",
            )
