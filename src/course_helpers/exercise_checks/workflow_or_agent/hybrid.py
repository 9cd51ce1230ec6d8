"""Course machinery (exercise checks): exercise 09.3, `check_hybrid`: a router in front of the agent,
decided from the data.
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
from course_helpers.exercise_checks.workflow_or_agent.hybrid_desk import (
    DECOYS,
    LOUD_REPLY,
    OTHER_TICKET,
    QUIET_REPLY,
    REPLACED_REFUND_TICKET,
    REPLACEMENT_TICKET,
    _is_agent,
    _rewording_client,
    _straight_to_agent,
)


def _run_hybrid(
    hybrid: Callable, ticket: str, orders: dict | None = None, wording: str | None = None
):
    """The learner's hybrid on one ticket: its Attempt, the desk, and the requests it sent.
    With `wording`, every reply to a request without the agent's tools says that instead."""
    __tracebackhide__ = True
    from course_helpers.fixtures.support_desk import Desk
    from course_helpers.lessons.workflows.steps import Attempt

    if wording is None:
        client, recorder = recording_client()
    else:
        client, recorder = _rewording_client(wording)
    desk = Desk() if orders is None else Desk(orders=orders)
    attempt = run_learner(hybrid, client, desk, ticket, name="hybrid")
    if not isinstance(attempt, Attempt):
        fail(
            f"hybrid returned {short_repr(attempt)}; it must return an Attempt.",
            "start with attempt = Attempt(reply='') and return it, as run_router does.",
        )
    agent_ran = any(_is_agent(r) for r in recorder.requests)
    if len(attempt.usage) != len(recorder.requests):
        fail(
            f"hybrid sent {len(recorder.requests)} requests but its Attempt counts "
            f"{len(attempt.usage)} calls: the comparison would miss some of its cost.",
            "pass the same Attempt to triage and the handler; add the agent's usage to it.",
        )
    if agent_ran and not any(str(line).startswith("ended: ") for line in attempt.trace):
        fail(
            f"hybrid ran the agent on {ticket!r}, but its Attempt's trace holds none of the "
            f"agent's trace ({short_repr(attempt.trace)}): the comparison cannot show which "
            "tools the agent called, nor how its run ended.",
            "add the agent's usage AND its trace to your Attempt: attempt.trace += agent.trace.",
        )
    return attempt, desk, recorder.requests, agent_ran


def _check_replaced_elsewhere(hybrid: Callable) -> None:
    """P5 (the blue kettle, by email) on a desk where another of Sam's orders was replaced."""
    __tracebackhide__ = True
    import copy

    from course_helpers.fixtures.support_desk import CASES, ORDERS
    from course_helpers.lessons.workflows.scoring import judge

    orders = copy.deepcopy(ORDERS)
    orders["A1005"] |= {"status": "lost in transit", "replaced_by": "A1012"}
    orders["A1012"] = {**orders["A1010"], "items": ["bread bin (replacement for A1005)"]}
    case = next(c for c in CASES if c.name.startswith("P5"))
    attempt, desk, requests, agent_ran = _run_hybrid(hybrid, case.ticket, orders)
    if agent_ran:
        fail(
            f"on {case.ticket!r}, with Sam's bread bin order A1005 replaced, hybrid ran the "
            "agent: it looked for replaced_by in every order it looked up, and A1005 is not one "
            "the ticket is about (the ticket asks about the blue kettle, A1008).",
            "look for replaced_by only in the orders in question: orders_in_question(found, "
            "look_up_orders(desk, found)['orders']).",
        )
    ok, why = judge(case, attempt.reply, desk.refunds)
    if len(requests) != 2 or not ok:
        fail(
            f"on {case.ticket!r}, with another of Sam's orders replaced, hybrid made "
            f"{len(requests)} calls" + ("" if ok else f" and got it wrong: {why}") + ".",
            "triage once, then the shipping handler: the replaced order is not in question.",
        )


def check_hybrid(hybrid: Callable) -> None:
    """09 · `hybrid(client, desk, ticket)`: the router's fixed paths, the agent where data says."""
    __tracebackhide__ = True
    import copy

    from course_helpers.fixtures.support_desk import CASES, ORDERS
    from course_helpers.lessons.workflows.scoring import judge

    for case in CASES:
        if not case.name.startswith(("P", "U1", "U2", "U3")):
            continue
        attempt, desk, requests, agent_ran = _run_hybrid(hybrid, case.ticket)
        designed = case.kind == "predictable" or case.name.startswith("U3")
        if designed and agent_ran:
            fail(
                f"hybrid ran the agent on {case.name!r}, which the router's handler answers in "
                "two calls: the agent costs three times the tokens here.",
                "run the agent only when the orders in question point at other orders "
                "(replaced_by), or when no handler fits.",
            )
        if designed and len(requests) != 2:
            fail(
                f"hybrid made {len(requests)} calls on {case.name!r}; the router's path is two "
                "(triage, then the handler).",
                "triage once, then call HANDLERS[category](client, desk, ticket, found, attempt, "
                "MODEL); run_router would triage a second time.",
            )
        if not designed and not agent_ran:
            fail(
                f"hybrid did not run the agent on {case.name!r}, where the order in question "
                "was replaced by another order.",
                "after triage, look up the orders in question; if one has replaced_by, hand "
                "the ticket to run_support_agent.",
            )
        ok, why = judge(case, attempt.reply, desk.refunds)
        if not ok:
            fail(
                f"hybrid got {case.name!r} wrong: {why}.",
                "return the reply of the path you chose (the handler's text, or the agent's "
                "attempt.reply).",
            )
    orders = copy.deepcopy(ORDERS)
    orders["A1001"]["replaced_by"] = "A1010"
    _, _, _, agent_ran = _run_hybrid(hybrid, CASES[0].ticket, orders)
    if not agent_ran:
        fail(
            "on a desk where order A1001 was replaced, hybrid still sent 'Where is my order "
            "#A1001?' down the fixed path.",
            "decide from the looked-up orders (replaced_by), not from the ticket's words.",
        )
    _, _, _, agent_ran = _run_hybrid(hybrid, REPLACEMENT_TICKET)
    if agent_ran:
        fail(
            f"hybrid ran the agent on {REPLACEMENT_TICKET!r}: order A1010 was not replaced (its "
            "items only say what it replaced), and the shipping handler answers it.",
            "decide from the looked-up orders (replaced_by), not from the words of a reply.",
        )
    _, _, _, agent_ran = _run_hybrid(hybrid, REPLACED_REFUND_TICKET)
    if not agent_ran:
        fail(
            f"hybrid did not run the agent on {REPLACED_REFUND_TICKET!r}, though order A1007 "
            "was replaced: the refund handler's reply never mentions the replacement.",
            "decide from the looked-up orders (replaced_by), not from the words of a reply.",
        )
    replaced = copy.deepcopy(ORDERS)
    replaced["A1001"]["replaced_by"] = "A1010"
    for ticket, desk_orders, needs_agent in [
        *((c.ticket, None, c.name[:2] in ("U1", "U2")) for c in CASES if c.name[:2] in DECOYS),
        (CASES[0].ticket, replaced, True),
        (REPLACEMENT_TICKET, None, False),
        (REPLACED_REFUND_TICKET, None, True),
    ]:
        wording = QUIET_REPLY if needs_agent else LOUD_REPLY
        _, _, _, agent_ran = _run_hybrid(hybrid, ticket, desk_orders, wording=wording)
        if agent_ran != needs_agent:
            said = "said nothing of the kind" if needs_agent else "was full of such words"
            fail(
                f"on {ticket!r} hybrid {'did not run' if needs_agent else 'ran'} the agent once "
                f"the handler's reply {said}: its decision follows the wording of a reply.",
                "decide from the looked-up orders (replaced_by) and the triage's category, "
                "never from the words of a reply.",
            )
    for ticket in [
        *(c.ticket for c in CASES if c.name[:2] in ("U1", "U2")),
        REPLACED_REFUND_TICKET,
    ]:
        _, desk, requests, _ = _run_hybrid(hybrid, ticket)
        _straight_to_agent(ticket, desk, requests)
    _check_replaced_elsewhere(hybrid)
    _, _, _, agent_ran = _run_hybrid(hybrid, OTHER_TICKET)
    if not agent_ran:
        fail(
            f"for a ticket the router has no handler for ({OTHER_TICKET!r}), hybrid did not "
            "run the agent.",
            "when the category is not in HANDLERS, hand the ticket to run_support_agent.",
        )
    passed("hybrid takes the fixed path where it can and the agent where the data needs it")
