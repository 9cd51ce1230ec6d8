"""Exercise 09's checks, proven both ways: plausible wrong solutions fail with a message that
names their mistake, and correct solutions written differently pass."""

from __future__ import annotations

import pytest

from course_helpers import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_choose,
    check_hybrid,
    check_with_replacements,
)
from course_helpers.lessons.workflows.agent import run_support_agent
from course_helpers.lessons.workflows.router import HANDLERS, run_router
from course_helpers.lessons.workflows.steps import (
    Attempt,
    look_up_orders,
    orders_in_question,
    triage,
)

# -- exercise 1: with_replacements -------------------------------------------------------------


def right_loop(desk, orders, max_hops=3):
    found, seen = [], {o["order_id"] for o in orders}
    for order in orders:
        found.append(order)
        current = order
        for _ in range(max_hops):
            next_id = current.get("replaced_by")
            if not next_id or next_id in seen:
                break
            seen.add(next_id)
            try:
                current = desk.look_up_order(next_id)
            except LookupError:
                break
            found.append(current)
    return found


def wrong_reads_a_key_it_does_not_have(desk, orders, max_hops=3):
    """right_loop, but the orders' id read as order["id"]: a KeyError of its own code."""
    found, seen = [], {o["id"] for o in orders}
    for order in orders:
        found.append(order)
        current = order
        for _ in range(max_hops):
            next_id = current.get("replaced_by")
            if not next_id or next_id in seen:
                break
            seen.add(next_id)
            try:
                current = desk.look_up_order(next_id)
            except LookupError:
                break
            found.append(current)
    return found


def right_recursive(desk, orders, max_hops=3):
    result: list[dict] = []

    def have(order_id):
        return any(o["order_id"] == order_id for o in [*result, *orders])

    def follow(order, hops):
        pointer = order.get("replaced_by")
        if not pointer or hops == 0 or have(pointer):
            return
        try:
            replacement = desk.look_up_order(pointer)
        except LookupError:
            return
        result.append(replacement)
        follow(replacement, hops - 1)

    for order in orders:
        result.append(order)
        follow(order, max_hops)
    return result


def right_while(desk, orders, max_hops=3):
    out = list(orders)
    position = 0
    for order in orders:
        position = out.index(order) + 1
        hops, pointer = 0, order.get("replaced_by")
        while pointer and hops < max_hops and pointer not in {o["order_id"] for o in out}:
            hops += 1
            try:
                replacement = desk.look_up_order(pointer)
            except LookupError:
                break
            out.insert(position, replacement)
            position += 1
            pointer = replacement.get("replaced_by")
    return out


def wrong_one_hop(desk, orders, max_hops=3):
    found = []
    for order in orders:
        found.append(order)
        if order.get("replaced_by"):
            found.append(desk.look_up_order(order["replaced_by"]))
    return found


def wrong_endless(desk, orders, max_hops=3):
    found = []
    for order in orders:
        found.append(order)
        current = order
        while current.get("replaced_by"):
            current = desk.look_up_order(current["replaced_by"])
            found.append(current)
    return found


def wrong_no_hop_limit(desk, orders, max_hops=3):
    found, seen = [], {o["order_id"] for o in orders}
    for order in orders:
        found.append(order)
        current = order
        while current.get("replaced_by") and current["replaced_by"] not in seen:
            seen.add(current["replaced_by"])
            try:
                current = desk.look_up_order(current["replaced_by"])
            except LookupError:
                break
            found.append(current)
    return found


def wrong_no_memory(desk, orders, max_hops=3):
    found = []
    for order in orders:
        found.append(order)
        current = order
        for _ in range(max_hops):
            if not current.get("replaced_by"):
                break
            try:
                current = desk.look_up_order(current["replaced_by"])
            except LookupError:
                break
            found.append(current)
    return found


def wrong_crashes_on_missing(desk, orders, max_hops=3):
    found, seen = [], {o["order_id"] for o in orders}
    for order in orders:
        found.append(order)
        current = order
        for _ in range(max_hops):
            pointer = current.get("replaced_by")
            if not pointer or pointer in seen:
                break
            seen.add(pointer)
            current = desk.look_up_order(pointer)
            found.append(current)
    return found


def wrong_only_replacements(desk, orders, max_hops=3):
    return [
        right_loop(desk, [o], max_hops)[-1] if o.get("replaced_by") else o
        for o in orders  # the last order of each chain, the original dropped
    ]


def wrong_duplicates(desk, orders, max_hops=3):
    found = []
    for order in orders:
        found.append(order)
        current, chain = order, {order["order_id"]}
        for _ in range(max_hops):
            pointer = current.get("replaced_by")
            if not pointer or pointer in chain:
                break
            chain.add(pointer)
            try:
                current = desk.look_up_order(pointer)
            except LookupError:
                break
            found.append(current)
    return found


def wrong_looks_up_everything(desk, orders, max_hops=3):
    refreshed = [desk.look_up_order(o["order_id"]) for o in orders]
    return right_loop(desk, refreshed, max_hops)


def wrong_hops_shared_by_all_orders(desk, orders, max_hops=3):
    found, seen, hops = [], {o["order_id"] for o in orders}, 0
    for order in orders:
        found.append(order)
        current = order
        while hops < max_hops and current.get("replaced_by") not in (None, *seen):
            seen.add(current["replaced_by"])
            hops += 1
            try:
                current = desk.look_up_order(current["replaced_by"])
            except LookupError:
                break
            found.append(current)
    return found


def wrong_replacements_last(desk, orders, max_hops=3):
    chained = right_loop(desk, orders, max_hops)
    return [*orders, *(o for o in chained if o not in orders)]


def wrong_gives_up_at_a_missing_one(desk, orders, max_hops=3):
    found, seen = [], {o["order_id"] for o in orders}
    for order in orders:
        found.append(order)
        current = order
        for _ in range(max_hops):
            next_id = current.get("replaced_by")
            if not next_id or next_id in seen:
                break
            seen.add(next_id)
            try:
                current = desk.look_up_order(next_id)
            except LookupError:
                return found  # the orders after this one are lost
            found.append(current)
    return found


@pytest.mark.parametrize("function", [right_loop, right_recursive, right_while])
def test_correct_with_replacements_pass(function, capsys):
    check_with_replacements(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_one_hop, "followed one hop"),
        (wrong_endless, "loops back never ends"),
        (wrong_no_hop_limit, "max_hops=2"),
        (wrong_no_memory, "points back to C1"),
        (wrong_crashes_on_missing, "raised LookupError"),
        (wrong_reads_a_key_it_does_not_have, "own code raised KeyError ('id'), not the desk"),
        (wrong_only_replacements, "the order the ticket names is missing"),
        (wrong_duplicates, "both replaced by E3"),
        (wrong_looks_up_everything, "without replaced_by it looked up"),
        (wrong_hops_shared_by_all_orders, "max_hops limits each order's chain"),
        (wrong_replacements_last, "each order with its replacements"),
        (wrong_gives_up_at_a_missing_one, "expected ['D1', 'G1']"),
    ],
)
def test_wrong_with_replacements_fail_naming_the_mistake(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_with_replacements(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


# -- exercise 2: choose -------------------------------------------------------------------------


def cost(r):
    return r.input_tokens + 5 * r.output_tokens


def right_choose(results):
    chosen = {}
    for name in dict.fromkeys(r.case.name for r in results):
        solved = [r for r in results if r.case.name == name and r.success]
        chosen[name] = min(solved, key=cost).approach if solved else "person"
    return chosen


def right_choose_sorted(results):
    chosen = {r.case.name: "person" for r in results}
    for r in sorted((r for r in results if r.success), key=cost, reverse=True):
        chosen[r.case.name] = r.approach  # the cheapest is written last
    return chosen


def right_choose_with_cost_property(results):
    best: dict = {}
    for r in results:
        best.setdefault(r.case.name, None)
        if r.success and (best[r.case.name] is None or r.cost < best[r.case.name].cost):
            best[r.case.name] = r
    return {name: (r.approach if r else "person") for name, r in best.items()}


def wrong_router_only(results):
    return {
        r.case.name: ("router" if r.success else "agent") for r in results if r.approach == "router"
    }


def wrong_ignores_success(results):
    chosen = {}
    for name in dict.fromkeys(r.case.name for r in results):
        rows = [r for r in results if r.case.name == name]
        chosen[name] = min(rows, key=cost).approach
    return chosen


def wrong_input_only(results):
    chosen = {}
    for name in dict.fromkeys(r.case.name for r in results):
        solved = [r for r in results if r.case.name == name and r.success]
        chosen[name] = min(solved, key=lambda r: r.input_tokens).approach if solved else "person"
    return chosen


def wrong_agent_when_nothing(results):
    chosen = right_choose(results)
    return {name: ("agent" if a == "person" else a) for name, a in chosen.items()}


def wrong_by_kind(results):
    chosen = right_choose(results)
    kinds = {r.case.name: r.case.kind for r in results}
    return {
        n: ("agent" if kinds[n] == "unpredictable" and a != "person" else a)
        for n, a in chosen.items()
    }


def wrong_fewest_calls(results):
    chosen = {}
    for name in dict.fromkeys(r.case.name for r in results):
        solved = [r for r in results if r.case.name == name and r.success]
        chosen[name] = min(solved, key=lambda r: r.calls).approach if solved else "person"
    return chosen


def wrong_drops_unsolved(results):
    return {name: a for name, a in right_choose(results).items() if a != "person"}


def wrong_list(results):
    return [right_choose(results)[r.case.name] for r in results]


@pytest.mark.parametrize(
    "function", [right_choose, right_choose_sorted, right_choose_with_cost_property]
)
def test_correct_choose_pass(function, capsys):
    check_choose(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_router_only, "every approach counts"),
        (wrong_ignores_success, "only results with r.success count"),
        (wrong_input_only, "output tokens cost five times more"),
        (wrong_agent_when_nothing, "'person'"),
        (wrong_by_kind, "not from the case's name or kind"),
        (wrong_list, "it must return a dict"),
        (wrong_drops_unsolved, "has no entry for that case"),
        (wrong_fewest_calls, "cost is tokens, not calls"),
    ],
)
def test_wrong_choose_fail_naming_the_mistake(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_choose(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


# -- exercise 3: hybrid ---------------------------------------------------------------------------


def _agent_into(attempt, client, desk, ticket):
    agent = run_support_agent(client, desk, ticket)
    attempt.usage += agent.usage
    attempt.trace += agent.trace
    attempt.reply = agent.reply
    return attempt


def right_hybrid(client, desk, ticket):
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None or any(o.get("replaced_by") for o in orders):
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


def right_hybrid_by_hand(client, desk, ticket):
    """Looks the named orders up itself, and builds a fresh Attempt with every usage."""
    first = Attempt(reply="")
    found = triage(client, ticket, first)
    replaced = False
    for order in look_up_orders(desk, found)["orders"]:
        if order in orders_in_question(found, [order]) and "replaced_by" in order:
            replaced = True
    if found["category"] in HANDLERS and not replaced:
        first.reply = HANDLERS[found["category"]](client, desk, ticket, found, first, MODEL)
        return first
    agent = run_support_agent(client, desk, ticket)
    return Attempt(reply=agent.reply, usage=first.usage + agent.usage, trace=agent.trace)


def wrong_always_agent(client, desk, ticket):
    return _agent_into(Attempt(reply=""), client, desk, ticket)


def wrong_never_agent(client, desk, ticket):
    return run_router(client, desk, ticket)


def wrong_triages_twice(client, desk, ticket):
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    if found["category"] not in HANDLERS or any(o.get("replaced_by") for o in orders):
        return _agent_into(attempt, client, desk, ticket)
    routed = run_router(client, desk, ticket)
    attempt.usage += routed.usage
    attempt.reply = routed.reply
    return attempt


def wrong_by_words(client, desk, ticket):
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    handler = HANDLERS.get(found["category"])
    if handler is None or "tracking" in ticket.lower():
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


def wrong_router_then_agent_on_the_word(client, desk, ticket):
    """The router first; the agent when the reply says 'replacement' or no handler fits."""
    routed = run_router(client, desk, ticket)
    no_handler = routed.trace[-1].startswith("no handler")
    if no_handler or "replacement" in routed.reply.lower():
        return _agent_into(routed, client, desk, ticket)
    return routed


def wrong_router_then_agent_on_tuned_words(client, desk, ticket):
    """The router first; the agent when its reply says 'sent a replacement' or 'no help-centre
    rule': phrases tuned to the course model's sentences, still the words of a reply."""
    routed = run_router(client, desk, ticket)
    said = routed.reply.lower()
    if routed.trace[-1].startswith("no handler") or any(
        words in said for words in ("sent a replacement", "no help-centre rule")
    ):
        return _agent_into(routed, client, desk, ticket)
    return routed


def wrong_forgets_agent_usage(client, desk, ticket):
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None or any(o.get("replaced_by") for o in orders):
        attempt.reply = run_support_agent(client, desk, ticket).reply
        return attempt
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


def wrong_other_to_person(client, desk, ticket):
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None:
        attempt.reply = "A colleague will reply."
        return attempt
    if any(o.get("replaced_by") for o in orders):
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


@pytest.mark.parametrize("function", [right_hybrid, right_hybrid_by_hand])
def test_correct_hybrid_pass(function, capsys):
    check_hybrid(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_always_agent, "ran the agent on 'P1"),
        (wrong_never_agent, "did not run the agent on 'U1"),
        (wrong_triages_twice, "made 3 calls"),
        (wrong_by_words, "not from the ticket's words"),
        (wrong_router_then_agent_on_the_word, "not from the words of a reply"),
        (wrong_router_then_agent_on_tuned_words, "follows the wording of a reply"),
        (wrong_forgets_agent_usage, "its Attempt counts"),
        (wrong_other_to_person, "no handler for"),
    ],
)
def test_wrong_hybrid_fail_naming_the_mistake(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_hybrid(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


# -- the wrong variants a second review found ------------------------------------------------------


def wrong_person_when_the_agent_failed(results):
    chosen = right_choose(results)
    failed = {r.case.name for r in results if r.approach == "agent" and not r.success}
    return {name: ("person" if name in failed else a) for name, a in chosen.items()}


def wrong_agent_only_when_nothing_else_solved_it(results):
    chosen = {}
    for name in dict.fromkeys(r.case.name for r in results):
        solved = [r for r in results if r.case.name == name and r.success]
        workflows = [r for r in solved if r.approach != "agent"]
        chosen[name] = min(workflows or solved, key=cost).approach if solved else "person"
    return chosen


def _by_weight(weight):
    def choose(results):
        chosen = {}
        for name in dict.fromkeys(r.case.name for r in results):
            solved = [r for r in results if r.case.name == name and r.success]
            key = lambda r: r.input_tokens + weight * r.output_tokens  # noqa: E731
            chosen[name] = min(solved, key=key).approach if solved else "person"
        return chosen

    return choose


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_person_when_the_agent_failed, "a failed agent does not send the case"),
        (wrong_agent_only_when_nothing_else_solved_it, "the agent too"),
        (_by_weight(3), "output tokens cost five times more"),
        (_by_weight(4), "output tokens cost five times more"),
        (_by_weight(6), "output tokens cost five times more"),
        (_by_weight(10), "output tokens cost five times more"),
    ],
)
def test_wrong_choose_found_by_the_second_review_fail(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_choose(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


def wrong_handler_first_then_agent(client, desk, ticket):
    """Decides from the data, but runs the handler before handing over: a wasted call, and the
    refund handler asks the desk for money before the agent starts."""
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None:
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    if any(o.get("replaced_by") for o in orders):
        return _agent_into(attempt, client, desk, ticket)
    return attempt


def wrong_refund_step_before_the_agent(client, desk, ticket):
    """No handler call before the agent, but the refund step asks the desk first all the same."""
    from course_helpers.lessons.workflows.steps import refund_step

    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None or any(o.get("replaced_by") for o in orders):
        if found["category"] == "refund":
            refund_step(desk, found, orders)
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_handler_first_then_agent, "besides the agent's"),
        (wrong_refund_step_before_the_agent, "something else asked the desk for money"),
    ],
)
def test_wrong_hybrid_found_by_the_second_review_fail(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_hybrid(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


# -- the wrong variants a third set of learners wrote -----------------------------------------------


def wrong_refills_the_given_list(desk, orders, max_hops=3):
    """Right orders, but written back into the caller's list (the text asks for a new one)."""
    found = right_loop(desk, orders, max_hops)
    orders[:] = found
    return orders


def wrong_follows_every_looked_up_order(client, desk, ticket):
    """Looks for replaced_by in every order looked up, not only the ones in question."""
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = look_up_orders(desk, found)["orders"]
    handler = HANDLERS.get(found["category"])
    if handler is None or any(o.get("replaced_by") for o in orders):
        return _agent_into(attempt, client, desk, ticket)
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


def wrong_without_the_agent_trace(client, desk, ticket):
    """Adds the agent's usage and reply to the Attempt, not its trace."""
    attempt = Attempt(reply="")
    found = triage(client, ticket, attempt)
    orders = orders_in_question(found, look_up_orders(desk, found)["orders"])
    handler = HANDLERS.get(found["category"])
    if handler is None or any(o.get("replaced_by") for o in orders):
        agent = run_support_agent(client, desk, ticket)
        attempt.usage += agent.usage
        attempt.reply = agent.reply
        return attempt
    attempt.reply = handler(client, desk, ticket, found, attempt, MODEL)
    return attempt


def test_with_replacements_that_refills_the_given_list_fails():
    with pytest.raises(CheckFailed) as failure:
        check_with_replacements(wrong_refills_the_given_list)
    message = str(failure.value)
    assert "changed the list it was given" in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_follows_every_looked_up_order, "not one the ticket is about"),
        (wrong_without_the_agent_trace, "none of the agent's trace"),
    ],
)
def test_wrong_hybrid_found_by_the_third_review_fail(function, named):
    with pytest.raises(CheckFailed) as failure:
        check_hybrid(function)
    message = str(failure.value)
    assert named in message, message
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: ")
