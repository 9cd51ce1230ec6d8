"""The support desk of notebook 09: the shared desk and its refund rule, the judge, the four
approaches on the course model (on each current model, and with the variant model that behaves
differently), and the course model's support policy reacting to results, not to cases."""

from __future__ import annotations

import copy

import anthropic
import pytest

from course_helpers.fixtures.support_desk import CASES, ORDERS, Desk, RefundRefused
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.scenarios.support_tickets import (
    categorise,
    item_of,
    reason_of,
    split_requests,
)
from course_helpers.workflows.agent import run_support_agent
from course_helpers.workflows.harness import (
    APPROACHES,
    compare,
    results_table,
    run_case,
    spread,
    summary_table,
)
from course_helpers.workflows.measure import judge, modelled_seconds
from course_helpers.workflows.plots import plot_results

CASE = {c.name.split()[0]: c for c in CASES}


def client_for(model: CourseModel | None = None) -> anthropic.Anthropic:
    return CourseModelApp(model or CourseModel()).client(_strict_response_validation=True)


@pytest.fixture(scope="module")
def results():
    return {(r.case.name.split()[0], r.approach): r for r in compare(client_for())}


def test_desk_lookups_and_refund_ledger():
    desk = Desk()
    assert desk.look_up_order("#a1007")["replaced_by"] == "A1010"
    with pytest.raises(LookupError):
        desk.look_up_order("A9999")
    assert desk.look_up_customer("SAM@example.com")["orders"][0] == "A1009"
    assert desk.search_kb("ship to Norway")[0]["title"] == "Shipping abroad"
    desk.refund("A1002", "damaged")
    assert desk.look_up_order("A1002")["refunded"] is True
    assert desk.refunds == [{"order_id": "A1002", "amount": 24.0, "reason": "damaged"}]
    with pytest.raises(RefundRefused, match="already refunded"):
        desk.refund("A1002", "damaged")
    assert Desk().refunds == []  # a fresh desk per run


@pytest.mark.parametrize(
    ("order_id", "reason", "refused"),
    [
        ("A1002", "damaged", None),
        ("A1001", "damaged", "not been delivered"),
        ("A1005", "damaged", "more than 30 days"),
        ("A1004", "duplicate_charge", None),
        ("A1003", "duplicate_charge", "duplicate order is A1004"),
        ("A1002", "duplicate_charge", "no other order"),
        ("A1011", "return", "return label"),
        ("A1011", "other", "a colleague must decide"),
    ],
)
def test_the_refund_rule_lives_in_the_desk(order_id, reason, refused):
    desk = Desk()
    if refused is None:
        assert desk.refund(order_id, reason)["status"] == "issued"
    else:
        with pytest.raises(RefundRefused, match=refused):
            desk.refund(order_id, reason)
        assert desk.refunds == []


def test_desk_tools_have_schemas_from_the_signatures():
    definitions = {t.name: t.definition() for t in Desk().tools()}
    assert set(definitions) == {"look_up_order", "look_up_customer", "search_kb", "refund"}
    refund = definitions["refund"]["input_schema"]
    assert refund["required"] == ["order_id", "reason"]
    assert refund["properties"]["reason"]["enum"] == [
        "damaged",
        "duplicate_charge",
        "return",
        "other",
    ]


def test_judge_checks_facts_and_refunds():
    case = CASE["P3"]
    ok, why = judge(case, "refunded 24.00", [{"order_id": "A1002"}])
    assert ok and why == ""
    ok, why = judge(case, "nothing", [])
    assert not ok and "lacks" in why and "refunded nothing" in why
    ok, _ = judge(case, "24.00", [{"order_id": "A1002"}, {"order_id": "A1001"}])
    assert not ok  # one refund too many is a failure too


def test_the_course_model_reads_tickets_by_their_words():
    expected = {
        "P1": "shipping",
        "P2": "account",
        "P3": "refund",
        "P4": "policy",
        "P5": "shipping",
        "U1": "shipping",
        "U2": "shipping",
        "U3": "refund",
        "U4": "refund",
        "U5": "refund",
        "U6": "shipping",
    }
    assert {key: categorise(case.ticket) for key, case in CASE.items()} == expected
    assert item_of(CASE["P5"].ticket) == "blue kettle"
    assert item_of(CASE["U4"].ticket) == "mugs"
    assert item_of(CASE["P1"].ticket) == ""
    assert reason_of(CASE["U3"].ticket) == "duplicate_charge"
    assert reason_of(CASE["U4"].ticket) == "return"
    assert split_requests(CASE["U5"].ticket) == [
        "My teapot from order #A1002 arrived cracked, please refund it.",
        "Also, where is order #A1001?",
    ]
    assert len(split_requests(CASE["P5"].ticket)) == 1


def test_designed_cases_are_solved_by_every_approach(results):
    for key, case in CASE.items():
        if case.kind == "predictable":
            for approach in APPROACHES:
                assert results[key, approach].success, (key, approach, results[key, approach].why)


def test_each_unpredictable_outcome_has_its_reason(results):
    solved = {
        key: {a for a in APPROACHES if results[key, a].success}
        for key, case in CASE.items()
        if case.kind == "unpredictable"
    }
    # A result points at the next lookup: only the loop goes back for it.
    assert solved["U1"] == solved["U2"] == {"agent"}
    # The rule in the shared refund tool decides: everyone gets it right.
    assert solved["U3"] == solved["U4"] == set(APPROACHES)
    # Two requests: the router takes one branch.
    assert solved["U5"] == {"chain", "orchestrator", "agent"}
    # Twelve orders: the agent searches one at a time and hits its step limit.
    assert solved["U6"] == {"chain", "router", "orchestrator"}
    assert results["U6", "agent"].trace[-1] == "ended: step_limit, passed to a person"


def test_the_agent_costs_more_and_its_mistakes_are_refused_by_the_rule(results):
    for key in CASE:
        assert results[key, "agent"].input_tokens > results[key, "router"].input_tokens
    assert {results[k, "chain"].calls for k in CASE} == {3}
    assert {results[k, "router"].calls for k in CASE} == {2}
    assert results["U5", "orchestrator"].calls == 4  # plan, two workers, merge
    u3 = results["U3", "agent"].trace
    refunds = [line for line in u3 if line.startswith("refund(")]
    assert refunds[0].startswith("refund(A1003, duplicate_charge) ✗ ")  # refused, with why:
    assert "the later, duplicate order is A1004" in refunds[0]
    assert refunds[1:] == ["refund(A1004, duplicate_charge)"]  # issued: no mark
    assert results["U3", "agent"].refunds == [
        {"order_id": "A1004", "amount": 59.0, "reason": "duplicate_charge"}
    ]
    u4 = [line for line in results["U4", "agent"].trace if line.startswith("refund(")]
    assert len(u4) == 1 and u4[0].startswith("refund(A1011, return) ✗ ")
    assert "return label" in u4[0]
    unpredictable = [
        results[k, "agent"].calls for k, c in CASE.items() if c.kind == "unpredictable"
    ]
    assert len(set(unpredictable)) > 2  # the number of steps depends on the data


def test_the_agent_reacts_to_results_not_to_cases():
    """The same ticket, different data: the course model's path follows the results."""
    orders = copy.deepcopy(ORDERS)
    del orders["A1007"]["replaced_by"]
    orders["A1007"]["status"] = "shipped"
    attempt = run_support_agent(client_for(), Desk(orders=orders), CASE["U1"].ticket)
    assert attempt.trace == ["look_up_order(A1007)", "ended: end_turn"]
    assert "TRK-3307" in attempt.reply
    orders["A1007"]["replaced_by"] = "A1008"  # a different pointer is followed too
    attempt = run_support_agent(client_for(), Desk(orders=orders), CASE["U1"].ticket)
    assert attempt.trace[:2] == ["look_up_order(A1007)", "look_up_order(A1008)"]


def test_workflows_use_the_email_and_every_named_order(results):
    assert "look" not in " ".join(results["P5", "router"].trace)  # lookups are code, not calls
    assert "TRK-5512" in results["P5", "router"].reply
    assert results["U3", "chain"].refunds[0]["order_id"] == "A1004"
    assert "TRK-4471" in results["U5", "chain"].reply


@pytest.mark.parametrize("model", ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"])
def test_every_approach_runs_on_each_current_model(model):
    client = client_for()
    for case in (CASE["P3"], CASE["U1"], CASE["U5"]):
        for approach in APPROACHES:
            result = run_case(client, approach, case, model=model)
            assert result.calls >= 2, (model, approach, case.name)
            assert result.reply.strip(), (model, approach, case.name)


def test_latency_is_modelled_offline_and_deterministic(results):
    assert not any(r.measured for r in results.values())
    usage = [{"input_tokens": 20_000, "output_tokens": 60}]
    assert modelled_seconds(usage) == pytest.approx(0.5 + 1 + 1)
    for result in results.values():  # each run keeps its calls' usage: its latency can be redone
        assert result.calls == len(result.usage)
        assert result.seconds == modelled_seconds(result.usage)
    again = compare(client_for(), CASES[:2])
    assert [r.seconds for r in again] == [
        results[c.name.split()[0], a].seconds for c in CASES[:2] for a in APPROACHES
    ]


def test_spread_reports_identical_runs_offline():
    table = spread(client_for(), [CASE["U1"]], times=2)
    row = table.splitlines()[1]
    assert row.startswith("U1 lost, replaced") and "2/2" in row
    assert "-" not in row.split("2/2")[1]  # no range: the runs agree


def test_tables_and_chart(results):
    rows = list(results.values())
    table = results_table(rows)
    assert all(c.name in table for c in CASES) and "modelled" in table
    assert "5/5" in summary_table(rows)
    import matplotlib

    matplotlib.use("Agg")
    figure = plot_results(rows)
    assert repr(figure) == "<Figure size 1100x640 with 4 Axes>"


def test_a_person_declining_a_refund_moves_no_money():
    desk = Desk()
    attempt = run_support_agent(
        client_for(), desk, CASE["U3"].ticket, approve=lambda name, args: name != "refund"
    )
    assert desk.refunds == []
    assert "approval" in attempt.reply


def test_step_limit_hands_the_ticket_to_a_person():
    attempt = run_support_agent(client_for(), Desk(), CASE["P5"].ticket, max_steps=1)
    assert attempt.trace[-1] == "ended: step_limit, passed to a person"
    assert "colleague" in attempt.reply


def test_variant_model_never_breaks_the_approaches():
    client = client_for(CourseModel(variant=True))
    for case in CASES:
        for approach in APPROACHES:
            result = run_case(client, approach, case)
            assert result.calls >= 1
            # The variant double-checks by repeating its last call; a refund is never paid twice.
            assert len(result.refunds) == len({r["order_id"] for r in result.refunds})
