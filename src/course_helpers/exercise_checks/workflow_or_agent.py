"""Course machinery (exercise checks): checks for notebook 09, Choose between a workflow and an
agent.

One file, though over 400 lines: like every check module it holds one notebook's checks, so
the lists below are the whole of what 09's three exercises must do; each check needs its own
made-up cases (replacement chains, measurements no real run gives, a desk with a replaced order).

`check_with_replacements(with_replacements)`, the arrow the chain lacks, enforces:
1. every order it is given comes back, in the same order, each followed by its replacements,
   in a new list (the list it is given is left as it came);
2. it follows a chain of replacements as far as it goes (not one hop only);
3. it makes at most `max_hops` lookups for each order's chain;
4. it never returns, or looks up, the same order twice (two orders replaced by the same one, a
   chain that loops back);
5. a replacement that does not exist is left out, without an exception, and the orders after it
   still come back;
6. an order without `replaced_by` costs no lookup;
7. plugged into the chain of notebook 09, it makes U1 and U2 right.

`check_choose(choose)`, choosing from measurements, enforces:
1. it returns a dict with one entry per case name found in the results;
2. each entry is the approach with the lowest cost among those that solved the case;
3. cost is input tokens plus five times output tokens (not input alone, not the number of calls:
   made-up results where the approach with the fewest calls costs the most; a weight of 4 or of
   6 for output tokens picks another approach than 5 does);
4. an approach that failed is never chosen, however cheap, and a failed agent does not send a
   case that a workflow solved to a person;
5. every approach counts (not the router alone, and the agent when it is the cheapest that
   solved it), and the decision comes from the results, not from a case's name or kind;
6. a case nothing solved goes to "person".

`check_hybrid(hybrid)`, a router in front of the agent, enforces:
1. it returns an Attempt whose usage counts every request it sent (the agent's too);
2. on the tickets the router's handlers answer (P1-P5, U3) it makes two calls (one triage, one
   handler) and never runs the agent;
3. when an order in question was replaced (U1, U2) it runs the agent, and every case it is run
   on comes out right; only the orders in question count (P5, the kettle, on a desk where
   another of the customer's orders was replaced, takes the fixed path); when it runs the
   agent, the Attempt holds the agent's trace too;
4. the decision comes from the looked-up orders, not the ticket's words (a desk where A1001 was
   replaced sends "Where is my order #A1001?" to the agent);
5. nor from the words of a reply: a ticket about A1010, whose record names the order it replaced,
   takes the fixed path although the handler's reply says "replacement", and a refund ticket on
   the replaced A1007, whose handler's reply never says it, goes to the agent;
6. nor from any wording at all: run again with every handler's reply rewritten (the agent's
   turns untouched), the tickets that must take the fixed path get a reply full of the words a
   hybrid might watch for (replacement, refused, no rule, lost, a colleague...), and the tickets
   that need the agent get a reply with none of them; each decision must stay the same;
7. a ticket no handler fits goes to the agent;
8. where the data needs the agent it goes there straight after the lookups: one triage call and
   the agent's calls, no handler's call, and no refund asked of the desk except by the agent's
   own refund tool calls (a handler run first would ask for refunds before the agent starts).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import httpx2

from course_helpers.exercise_checks.common import (
    Recorder,
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


# -- exercise 2: choose from the measurements ------------------------------------------------------


def _expected_choice(results: list, case_name: str) -> str:
    solved = [r for r in results if r.case.name == case_name and r.success]
    if not solved:
        return "person"
    return min(solved, key=lambda r: r.input_tokens + 5 * r.output_tokens).approach


def _hint(results: list, name: str, said: object) -> str:
    """The likeliest mistake behind a wrong choice for one case."""
    rows = [r for r in results if r.case.name == name]
    solved = [r for r in rows if r.success]
    if not solved:
        return "when no approach got it right, the ticket goes to a person: 'person'."
    if said == "person":
        return "some approach solved it: choose the cheapest of those, not a person."
    mine = next((r for r in rows if r.approach == said), None)
    if mine is not None and not mine.success:
        return "only results with r.success count: a cheap wrong answer is not an answer."
    if said == min(solved, key=lambda r: r.input_tokens).approach:
        return "cost is input_tokens + 5 * output_tokens: output tokens cost five times more."
    if said == min(solved, key=lambda r: r.calls).approach:
        return "cost is tokens, not calls: one call can carry more tokens than three."
    return (
        "every approach counts: compare the cost of all those that solved it, and decide from "
        "the results, not from the case's name or kind."
    )


def _fake(result, approach: str, **changes):
    return dataclasses.replace(result, approach=approach, **changes)


def check_choose(choose: Callable) -> None:
    """09 · `choose(results)`: per case, the cheapest approach that solved it, else 'person'."""
    __tracebackhide__ = True
    from course_helpers.fixtures.support_desk import CASES
    from course_helpers.measurement.workflows import compare

    client, _ = recording_client()
    results = compare(client)
    said = run_learner(choose, results, name="choose")
    if not isinstance(said, dict):
        fail(
            f"choose returned {short_repr(said)}; it must return a dict: case name -> approach.",
            "build {case.name: approach} for every case in the results.",
        )
    names = [c.name for c in CASES]
    if sorted(said) != sorted(names):
        fail(
            f"choose returned keys {short_repr(sorted(said))}; expected the {len(names)} case "
            "names of the results.",
            "use r.case.name as the key, one entry per case.",
        )
    for name in names:
        expected = _expected_choice(results, name)
        if said[name] != expected:
            fail(
                f"choose says {said[name]!r} for {name!r}; the cheapest approach that solved it "
                f"is {expected!r}.",
                _hint(results, name, said[name]),
            )
    template = results[0]
    for label, rows, case_name, expected, hint in _made_up_situations(template):
        chosen = run_learner(choose, rows, name="choose")
        got = chosen.get(case_name)
        if case_name not in chosen:
            fail(f"on made-up results where {label}, choose has no entry for that case.", hint)
        if got != expected:
            fail(f"on made-up results where {label}, choose says {got!r}.", hint)
    passed("choose picks the cheapest approach that got each case right")


def _made_up_situations(template) -> list[tuple[str, list, str, str, str]]:
    """Results no real run gives, each catching one wrong way to choose."""
    case = dataclasses.replace(template.case, name="X1 made up", kind="predictable")
    other = dataclasses.replace(template.case, name="X2 made up", kind="unpredictable")

    def row(approach, success, tokens_in, tokens_out, which=case, calls=2):
        return _fake(
            template,
            approach,
            case=which,
            success=success,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            calls=calls,
        )

    return [
        (
            "the chain solved it and the router failed",
            [
                row("chain", True, 800, 100),
                row("router", False, 500, 90),
                row("agent", True, 2000, 150),
            ],
            case.name,
            "chain",
            "every approach counts: a chain or an orchestrator can be the cheapest that worked.",
        ),
        (
            "the cheapest approach failed",
            [row("router", False, 100, 10), row("agent", True, 2000, 150)],
            case.name,
            "agent",
            "only results with r.success count: a cheap wrong answer is not an answer.",
        ),
        (
            "the orchestrator reads less but writes much more than the router",
            [row("router", True, 700, 50), row("orchestrator", True, 600, 100)],
            case.name,
            "router",
            "cost is input_tokens + 5 * output_tokens: output tokens cost five times more.",
        ),
        (
            "the agent made the fewest calls but read the most tokens",
            [row("agent", True, 3000, 200, calls=2), row("chain", True, 800, 100, calls=3)],
            case.name,
            "chain",
            "cost is tokens, not calls: one call can carry more tokens than three.",
        ),
        (
            "the agent failed and two workflows solved it",
            [
                row("agent", False, 2000, 150),
                row("router", True, 700, 60),
                row("chain", True, 900, 80),
            ],
            case.name,
            "router",
            "a failed agent does not send the case to a person: choose the cheapest approach "
            "that solved it.",
        ),
        (
            "the agent solved it for less than the workflows that solved it too",
            [
                row("agent", True, 600, 40, calls=4),
                row("router", True, 700, 60),
                row("chain", True, 900, 80, calls=3),
            ],
            case.name,
            "agent",
            "every approach counts, the agent too: when it is the cheapest that solved it, "
            "choose it.",
        ),
        (
            "the router reads 1000 and writes 100 tokens, the orchestrator 1405 and 10 (a "
            "weight of 4 for output picks the router, 5 the orchestrator)",
            [row("router", True, 1000, 100), row("orchestrator", True, 1405, 10)],
            case.name,
            "orchestrator",
            "cost is input_tokens + 5 * output_tokens: output tokens cost five times more "
            "(not four, not six times).",
        ),
        (
            "the router reads 1000 and writes 100 tokens, the orchestrator 1495 and 10 (a "
            "weight of 5 for output picks the router, 6 the orchestrator)",
            [row("router", True, 1000, 100), row("orchestrator", True, 1495, 10)],
            case.name,
            "router",
            "cost is input_tokens + 5 * output_tokens: output tokens cost five times more "
            "(not four, not six times).",
        ),
        (
            "nothing solved the case",
            [row("router", False, 500, 90), row("agent", False, 2000, 150)],
            case.name,
            "person",
            "when no approach got it right, the ticket goes to a person: 'person'.",
        ),
        (
            "an 'unpredictable' case was solved by the router, cheaper than the agent",
            [row("router", True, 500, 90, other), row("agent", True, 2000, 150, other)],
            other.name,
            "router",
            "decide from the results (success and cost), not from the case's name or kind.",
        ),
    ]


# -- exercise 3: a router in front of the agent --------------------------------------------------

AGENT_TOOL = "look_up_order"
OTHER_TICKET = "Can I change the colour of my kettle? I'm sam@example.com."
# A1010's record names the order it replaced: the handler's reply says "replacement", but
# nothing in question was replaced.
REPLACEMENT_TICKET = "Where is my order #A1010?"
# A1007 was replaced, but the refund handler's reply is about the refund, not the replacement.
REPLACED_REFUND_TICKET = "I want my money back for order #A1007, the pan never came."
# The cases run again with the handlers' replies rewritten (rule 6).
DECOYS = ("P1", "P3", "U1", "U2", "U3")


# Replies written over the handlers' (never the agent's) to test that wording decides nothing.
LOUD_REPLY = (
    "Hello,\n\nYour order was lost in transit, so we sent a replacement; the replaced order "
    "could not be refunded: there is no help-centre rule for that. I could not refund it, and a "
    "colleague will look at it.\n\nKettle & Co support"
)
QUIET_REPLY = "Hello,\n\nThank you for writing to us.\n\nKettle & Co support"


@dataclasses.dataclass
class _RewordingRecorder(Recorder):
    """A Recorder that rewrites the text of every reply to a request without the agent's tools."""

    wording: str = ""

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)
        body = self.requests[-1] if self.requests else {}
        agent = AGENT_TOOL in [t.get("name") for t in body.get("tools") or []]
        if request.url.path.rstrip("/") != "/v1/messages" or body.get("stream") or agent:
            return response
        answer = json.loads(response.content)
        for block in answer.get("content") or []:
            if block.get("type") == "text":
                block["text"] = self.wording
        return httpx2.Response(response.status_code, json=answer)


def _rewording_client(wording: str):
    from course_helpers.offline import default_app

    recorder = _RewordingRecorder(wording=wording)
    client = default_app().client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


def _is_agent(request: dict) -> bool:
    return AGENT_TOOL in [t.get("name") for t in request.get("tools") or []]


def _agent_refund_calls(requests: list[dict]) -> int:
    """How many refund tool calls the agent made (its last request holds its whole history)."""
    last = next((r for r in reversed(requests) if _is_agent(r)), None)
    return sum(
        1
        for message in (last or {}).get("messages") or []
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use" and block.get("name") == "refund"
    )


def _straight_to_agent(ticket: str, desk, requests: list[dict]) -> None:
    """On a ticket whose data needs the agent: one triage call, then only the agent's calls."""
    __tracebackhide__ = True
    other = [r for r in requests if not _is_agent(r)]
    if len(other) > 1:
        fail(
            f"on {ticket!r} hybrid sent {len(other)} requests besides the agent's: a handler "
            "ran before (or after) the agent, a call whose reply nobody reads.",
            "after triage, look up the orders in question and decide; when one was replaced, "
            "hand the ticket to run_support_agent without running the handler.",
        )
    asked = len(desk.refunds) + len(desk.refused)
    if asked != _agent_refund_calls(requests):
        fail(
            f"on {ticket!r} the desk was asked for {asked} refund(s), the agent's refund tool "
            f"for {_agent_refund_calls(requests)}: something else asked the desk for money "
            "before the agent started.",
            "decide before any handler runs: a handler's refund_step asks the desk for refunds.",
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
