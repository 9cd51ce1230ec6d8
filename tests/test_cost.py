"""Cost accounting, cache breakpoints, the budget and the long task of notebook 10."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import anthropic
import pytest

from course_helpers.fixtures.delivery_audit import (
    AUDIT_TASK,
    AUDIT_TOOLS,
    EXCEPTION_MARK,
    EXCEPTIONS,
    FAILED,
    FINAL_STATUS_MARK,
    HANDBOOK,
    HANDBOOK_ONE_PER_TURN,
    SHIPMENTS,
    delivery_log,
)
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.cost import (
    Budget,
    billed,
    billed_input,
    cache_floor,
    keep_what_matters,
    prompt_tokens,
    token_count,
    with_cache,
)
from course_helpers.lessons.pairing import pairing_problems
from course_helpers.measurement.cost_tables import plot_turns, turns_table
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.scenarios.delivery_audit import PARALLEL_READS
from course_helpers.plumbing.truncate import truncate

ROOT = Path(__file__).resolve().parents[1]


def client_for(model: CourseModel | None = None) -> anthropic.Anthropic:
    return CourseModelApp(model or CourseModel()).client(_strict_response_validation=True)


def audit(client=None, system=HANDBOOK_ONE_PER_TURN, tools=AUDIT_TOOLS, **levers):
    """The audit on the course's loop, as notebook 10 runs it (one log per turn by default)."""
    messages = [{"role": "user", "content": AUDIT_TASK}]
    return run_agent(
        client or client_for(),
        messages=messages,
        tools=tools,
        system=system,
        **{"max_steps": 40, **levers},  # one log per turn takes 24 calls
    )


GUARDED_TOOLS = [
    AUDIT_TOOLS[0],
    replace(AUDIT_TOOLS[1], function=lambda order_id: keep_what_matters(delivery_log(order_id))),
]


def test_documented_multipliers():
    usage = {
        "input_tokens": 100,
        "cache_creation_input_tokens": 1000,
        "cache_creation": {"ephemeral_5m_input_tokens": 600, "ephemeral_1h_input_tokens": 400},
        "cache_read_input_tokens": 2000,
        "output_tokens": 10,
    }
    assert billed_input(usage) == pytest.approx(100 + 1.25 * 600 + 2 * 400 + 0.1 * 2000)
    assert billed(usage) == pytest.approx(billed_input(usage) + 50)
    assert prompt_tokens(usage) == 3100
    # Without the split, every write counts as a 5-minute write.
    assert billed_input({"cache_creation_input_tokens": 100}) == pytest.approx(125)


def test_usage_is_read_the_same_from_a_dict_an_sdk_usage_and_a_message():
    fields = {
        "input_tokens": 7,
        "cache_creation_input_tokens": 100,
        "cache_creation": {"ephemeral_5m_input_tokens": 60, "ephemeral_1h_input_tokens": 40},
        "cache_read_input_tokens": 900,
        "output_tokens": 3,
    }
    usage = anthropic.types.Usage.model_validate(fields)
    message = anthropic.types.Message.model_validate(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "x",
            "content": [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": fields,
        }
    )
    for form in (fields, usage, message, {"usage": fields}):
        assert prompt_tokens(form) == 1007
        assert token_count(form, "cache_creation", "ephemeral_1h_input_tokens") == 40
        assert billed(form) == pytest.approx(7 + 1.25 * 60 + 2 * 40 + 0.1 * 900 + 5 * 3)
    # Absent and null fields count 0: a server that reports no cache at all.
    assert prompt_tokens({"input_tokens": 5, "cache_read_input_tokens": None}) == 5
    assert token_count({}, "cache_creation", "ephemeral_1h_input_tokens") == 0


def test_floor_writes_new_tokens_once_and_reads_the_rest():
    usages = [{"input_tokens": 1000}, {"input_tokens": 1500}, {"input_tokens": 1200}]
    assert cache_floor(usages) == pytest.approx(1.25 * 1000 + 1.25 * 500 + 0.1 * 1000 + 0.1 * 1200)


def marks(request: dict) -> int:
    found = sum("cache_control" in t for t in request.get("tools", []))
    found += sum("cache_control" in b for b in request.get("system", []) if isinstance(b, dict))
    for message in request["messages"]:
        content = message["content"]
        if not isinstance(content, str):
            found += sum(isinstance(b, dict) and "cache_control" in b for b in content)
    return found


def test_with_cache_marks_tools_system_and_the_moving_end():
    run = audit(max_steps=3)
    request = {
        "model": "m",
        "max_tokens": 10,
        "system": "rules",
        "tools": [t.definition() for t in AUDIT_TOOLS],
        "messages": run.messages[:5],
    }
    marked = with_cache(request)
    assert marks(marked) == 4
    assert "cache_control" in marked["tools"][-1] and "cache_control" in marked["system"][-1]
    assert "cache_control" in marked["messages"][-1]["content"][-1]
    assert "cache_control" in marked["messages"][-3]["content"][-1]
    assert marks(request) == 0  # the original is untouched
    # Markers left in the history are removed: never more than four.
    run.messages[0] = {
        "role": "user",
        "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
    }
    assert marks(with_cache({**request, "messages": run.messages[:5]})) == 4
    one_hour = with_cache(request, ttl="1h")
    assert one_hour["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_with_cache_on_a_first_request():
    marked = with_cache(
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hello"}]}
    )
    assert marked["messages"][0]["content"] == [
        {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
    ]


def test_logs_keep_their_status_at_the_end():
    assert len(SHIPMENTS) == 22
    for order_id in SHIPMENTS:
        log = delivery_log(order_id)
        assert len(log) < 4000  # below the dispatcher's own cap: only result_limit cuts
        assert log.splitlines()[-1].startswith(FINAL_STATUS_MARK)
        assert (EXCEPTION_MARK in log) == (order_id in EXCEPTIONS)
    with pytest.raises(LookupError):
        delivery_log("A9999")


def test_blind_truncation_loses_the_exception_and_the_guard_keeps_it():
    (order_id,) = EXCEPTIONS
    log = delivery_log(order_id)
    assert "EXCEPTION" not in truncate(log, 1000)  # it sits in the middle, where the cut falls
    kept = keep_what_matters(log)
    assert kept.splitlines()[0] == log.splitlines()[0]
    assert [line for line in kept.splitlines() if "EXCEPTION" in line or "FINAL" in line] == [
        line for line in log.splitlines() if "EXCEPTION" in line or "FINAL" in line
    ]
    assert "[40 routine scan lines left out]" in kept and len(kept) < 400


def report_problems(run) -> set[str]:
    return {line.split(":")[0] for line in run.final_text.splitlines()[1:]}


def test_the_long_run_and_its_levers():
    naive = audit()
    assert naive.ending == "end_turn" and naive.steps == len(SHIPMENTS) + 2
    sizes = [prompt_tokens(u) for u in naive.usage]
    assert all(b > a for a, b in pairwise(sizes))  # history is resent: input grows
    assert report_problems(naive) == set(FAILED) | set(EXCEPTIONS)
    blind = audit(result_limit=1000)
    assert report_problems(blind) == set(FAILED)  # the exception was cut away
    guarded = audit(tools=GUARDED_TOOLS)
    assert guarded.final_text == naive.final_text
    assert guarded.input_tokens < blind.input_tokens < naive.input_tokens
    cached = audit(prepare=with_cache)
    assert cached.final_text == naive.final_text
    # The course model's cache follows the floor's rules: the cached run is exactly on it.
    assert sum(billed_input(u) for u in cached.usage) == pytest.approx(cache_floor(cached.usage))
    best = audit(system=HANDBOOK, tools=GUARDED_TOOLS, prepare=with_cache)
    assert best.final_text == naive.final_text
    whole = sum(billed(u) for u in best.usage) / sum(billed(u) for u in naive.usage)
    assert whole <= 0.1  # output counted too
    assert "all" in turns_table(best.usage, rows=4)
    # The run's own count includes the cached tokens: every token sent, as in the naive run.
    assert cached.input_tokens == sum(prompt_tokens(u) for u in cached.usage) > 0
    assert cached.uncached_input_tokens < cached.input_tokens and "(cache: " in cached.summary()
    assert naive.input_tokens == naive.uncached_input_tokens


def test_parallel_calls_take_fewer_turns_for_the_same_report():
    serial = audit()
    parallel = audit(system=HANDBOOK)
    batches = -(-len(SHIPMENTS) // PARALLEL_READS)
    assert parallel.steps == batches + 2 and parallel.final_text == serial.final_text
    calls = [len(tool_calls_of(m)) for m in parallel.messages if m["role"] == "assistant"]
    assert calls == [1, PARALLEL_READS, PARALLEL_READS, len(SHIPMENTS) - 2 * PARALLEL_READS, 0]
    assert pairing_problems(parallel.messages) == []  # every batch answered in one message
    assert sum(billed(u) for u in parallel.usage) < 0.3 * sum(billed(u) for u in serial.usage)
    # The same handbook with disable_parallel_tool_use: back to one log per turn.
    one_at_a_time = audit(
        system=HANDBOOK,
        prepare=lambda r: {**r, "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
    )
    assert one_at_a_time.steps == len(SHIPMENTS) + 2


def tool_calls_of(message: dict) -> list:
    content = message["content"]
    return [] if isinstance(content, str) else [b for b in content if b.type == "tool_use"]


def test_turns_table_counts_output_in_the_bill():
    run = audit(system=HANDBOOK)
    last = turns_table(run.usage).splitlines()[-1].split()
    assert last[0] == "all" and float(last[-1].replace(",", "")) == pytest.approx(
        sum(billed(u) for u in run.usage), abs=1
    )


def test_plot_turns_keeps_coinciding_runs_visible():
    naive = audit(system=HANDBOOK)
    figure = plot_turns({"uncached": naive.usage, "cached": naive.usage})
    first, second = figure.axes[0].lines
    assert list(first.get_ydata()) == list(second.get_ydata())
    assert first.get_linestyle() != second.get_linestyle()
    assert second.get_markerfacecolor() == "none"


def test_budget_ends_the_run_before_the_call_that_would_overspend():
    budget = Budget(limit=40_000)
    run = audit(wrap_sample=budget)
    assert run.ending == "budget_limit" and run.detail == str(budget)
    assert budget.spent == pytest.approx(sum(billed(u) for u in run.usage))
    costs = [billed(u) for u in run.usage]
    assert budget.last == costs[-1] and budget.growth == max(0.0, costs[-1] - costs[-2])
    assert budget.spent <= budget.limit < budget.spent + budget.last + budget.growth
    assert pairing_problems(run.messages) == []
    assert str(budget).endswith(f"in {run.steps} calls")
    # The estimate held: the call it refused would really have overspent.
    whole = audit()
    assert sum(billed(u) for u in whole.usage[: run.steps + 1]) > budget.limit


def test_variant_model_does_not_break_the_run():
    run = audit(client_for(CourseModel(variant=True)), system=HANDBOOK, prepare=with_cache)
    assert run.ending == "end_turn"
    assert pairing_problems(run.messages) == []


def test_benchmark_meets_its_target():
    # Token accounting, not timing: the ratio is the same on every machine.
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "loop_cost.py")],
        env={**os.environ, "COURSE_BACKEND": "offline"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("ratio reference / naive:")
