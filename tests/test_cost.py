"""Cost accounting, cache breakpoints, the budget and the long task of notebook 10."""

from __future__ import annotations

import os
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import anthropic
import pytest

from course_helpers.cost import (
    AUDIT_TASK,
    AUDIT_TOOLS,
    FAILED,
    HANDBOOK,
    SHIPMENTS,
    Budget,
    billed,
    billed_input,
    cache_floor,
    delivery_log,
    prompt_tokens,
    turns_table,
    with_cache,
)
from course_helpers.loop import run_agent
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.pairing import check_pairing

ROOT = Path(__file__).resolve().parents[1]


def client_for(model: CourseModel | None = None) -> anthropic.Anthropic:
    return CourseModelApp(model or CourseModel()).client(_strict_response_validation=True)


def audit(client=None, **levers):
    """The audit on the course's loop, as notebook 10 runs it."""
    messages = [{"role": "user", "content": AUDIT_TASK}]
    return run_agent(
        client or client_for(),
        messages=messages,
        tools=AUDIT_TOOLS,
        system=HANDBOOK,
        **{"max_steps": 40, **levers},  # the audit takes 24 calls
    )


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
        assert log.splitlines()[-1].startswith("FINAL STATUS")
    with pytest.raises(LookupError):
        delivery_log("A9999")


def test_the_long_run_and_its_levers():
    naive = audit()
    assert naive.ending == "end_turn" and naive.steps == len(SHIPMENTS) + 2
    sizes = [prompt_tokens(u) for u in naive.usage]
    assert all(b > a for a, b in pairwise(sizes))  # history is resent: input grows
    for order_id in FAILED:
        assert order_id in naive.final_text
    both = audit(result_limit=1000, prepare=with_cache)
    assert both.final_text == naive.final_text
    paid = sum(billed_input(u) for u in both.usage)
    assert paid / sum(billed_input(u) for u in naive.usage) <= 0.35
    assert paid == pytest.approx(cache_floor(both.usage), rel=0.05)
    assert sum(u["cache_read_input_tokens"] for u in both.usage[2:]) > 0
    assert "all" in turns_table(both.usage, rows=4)
    # The run's own count includes the cached tokens: every token sent, as in the naive run.
    assert both.input_tokens == sum(prompt_tokens(u) for u in both.usage) > 0
    assert both.uncached_input_tokens < both.input_tokens and "(cache: " in both.summary()
    assert naive.input_tokens == naive.uncached_input_tokens


def test_budget_ends_the_run_with_a_valid_history():
    budget = Budget(limit=40_000)
    run = audit(budget=budget)
    assert run.ending == "budget_limit" and run.detail == str(budget)
    assert budget.spent == pytest.approx(sum(billed(u) for u in run.usage))
    assert budget.spent <= budget.limit < budget.spent + budget.last
    assert check_pairing(run.messages) == []
    assert str(budget).endswith(f"in {run.steps} calls")


def test_variant_model_does_not_break_the_run():
    run = audit(client_for(CourseModel(variant=True)), result_limit=1000, prepare=with_cache)
    assert run.ending == "end_turn"
    assert check_pairing(run.messages) == []


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
