"""The checks of exercise notebook 13, proven both ways.

For every exercise: wrong solutions a learner could write, each failing with a hint that names
its own mistake (each message different), and correct solutions written another way, which
pass. The requirements are listed in `course_helpers.exercise_checks.subagents`.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import partial

import anthropic
import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    check_answer_turn,
    check_run_subagent,
    check_shared_budget,
)
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.cost import Budget
from course_helpers.lessons.cost.budget import OverBudget
from course_helpers.lessons.dispatch import dispatch, tool_result
from course_helpers.lessons.loop import StepLimitReached, agent_loop, sampler
from course_helpers.lessons.subagents import SubagentStopped
from exercise_variants.kit import assert_each_fails_its_own_way, failure_of


def _ending(run):
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped(f"the subagent ended with {run.ending}: {run.detail}")


# -- 1 · run_subagent ------------------------------------------------------------------------


def leaks_its_history(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
        approve=approve,
    )
    _ending(run)
    return str(run.messages)  # the whole history goes back to the parent


def returns_every_turn(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
        approve=approve,
    )
    _ending(run)
    return "\n".join(str(m["content"]) for m in run.messages if m["role"] == "assistant")


SHARED: list = []


def shares_one_history(client, prompt, tools, *, system, max_steps=8, approve=None):
    SHARED.append({"role": "user", "content": prompt})  # every subagent continues one list
    run = run_agent(
        client, messages=SHARED, tools=tools, system=system, max_steps=max_steps, approve=approve
    )
    return _ending(run)


def bypasses_the_gate(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
    )  # approve not passed on
    return _ending(run)


def hides_how_it_ended(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
        approve=approve,
    )
    return run.final_text  # a step limit reads like an answer


def ignores_its_system(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        max_steps=max_steps,
        approve=approve,
    )
    return _ending(run)


def ignores_max_steps(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(  # max_steps not passed on: run_agent's own limit applies
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        approve=approve,
    )
    return _ending(run)


class OwnStop(RuntimeError):
    """Right another way: a learner's own class by the lesson's name."""


OwnStop.__name__ = OwnStop.__qualname__ = "SubagentStopped"


def stops_with_a_plain_runtime_error(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
        approve=approve,
    )
    if run.ending != "end_turn":
        raise RuntimeError(f"the subagent ended with {run.ending}: {run.detail}")
    return run.final_text


def lets_the_loop_error_through(client, prompt, tools, *, system, max_steps=8, approve=None):
    """Notebook 04's loop, its StepLimitReached left to go up as it is."""
    registry = {t.name: t for t in tools}
    sample = sampler(
        client, model=MODEL, max_tokens=1024, system=system, tools=[t.definition() for t in tools]
    )
    messages = [{"role": "user", "content": prompt}]
    response = agent_loop(sample, partial(dispatch, registry, approve=approve), messages, max_steps)
    return "".join(b.text for b in response.content if b.type == "text")


@pytest.mark.parametrize(
    ("variant", "raised"),
    [
        (stops_with_a_plain_runtime_error, "RuntimeError"),
        (lets_the_loop_error_through, "StepLimitReached"),
    ],
    ids=["RuntimeError", "StepLimitReached"],
)
def test_a_stop_raised_as_another_error_is_named(variant, raised):
    text = failure_of(check_run_subagent, variant)
    assert f"raised {raised}, not SubagentStopped" in text, text
    assert "raise SubagentStopped(" in text, text


def _run(client, prompt, tools, system, max_steps, approve):
    return run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        max_steps=max_steps,
        approve=approve,
    )


def answers_a_refusal(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending in ("end_turn", "stop_sequence", "refusal", "max_tokens"):
        return run.final_text  # a refusal's final text is empty
    raise SubagentStopped(f"ended with {run.ending}")


def stops_only_at_the_step_limit(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending == "step_limit":
        raise SubagentStopped("hit the step limit")
    return run.final_text


def answers_a_cut_off(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending in ("end_turn", "max_tokens"):
        return run.final_text
    raise SubagentStopped(f"the subagent ended with {run.ending}: {run.detail}")


def answers_an_api_error(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending in ("end_turn", "error"):
        return run.final_text
    raise SubagentStopped(f"the subagent ended with {run.ending}: {run.detail}")


def misspells_a_field(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped(f"stopped after {run.stepz} calls")  # 'stepz': AttributeError


def names_only_the_step_limit(client, prompt, tools, *, system, max_steps=8, approve=None):
    run = _run(client, prompt, tools, system, max_steps, approve)
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped("the step limit stopped it" if run.ending == "step_limit" else "stopped")


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (answers_a_refusal, "when the model refused the subagent had no answer"),
        (stops_only_at_the_step_limit, "when the model refused the subagent had no answer"),
        (answers_a_cut_off, "cut off at max_tokens the subagent had no answer"),
        (answers_an_api_error, "when the API failed (529 overloaded) the subagent had no answer"),
        (misspells_a_field, "own code failed with AttributeError"),
        (
            names_only_the_step_limit,
            "does not say how the subagent ended (run.ending is 'refusal')",
        ),
    ],
    ids=["refusal", "step-limit-only", "max_tokens", "api-error", "typo", "vague"],
)
def test_every_ending_is_tried(variant, expected):
    text = failure_of(check_run_subagent, variant)
    assert expected in text, text
    assert "Traceback" not in text, text


def test_a_limit_not_passed_on_is_named():
    assert "pass max_steps" in failure_of(check_run_subagent, ignores_max_steps)


def test_run_subagent_mistakes_each_get_their_own_message():
    SHARED.clear()
    assert_each_fails_its_own_way(
        check_run_subagent,
        {
            "history leaked": (leaks_its_history, "That is the subagent's history"),
            "every turn": (returns_every_turn, "return only the final text"),
            "shared history": (shares_one_history, "fresh history"),
            "gate bypassed": (bypasses_the_gate, "bypassed the gate"),
            "ending hidden": (hides_how_it_ended, "as if it had answered"),
            "no system": (ignores_its_system, "system prompt it was given"),
        },
    )


def with_the_plain_loop(client, prompt, tools, *, system, max_steps=8, approve=None):
    """Notebook 04's loop itself, with notebook 05's dispatcher: right, written another way."""
    registry = {t.name: t for t in tools}
    sample = sampler(
        client, model=MODEL, max_tokens=1024, system=system, tools=[t.definition() for t in tools]
    )
    messages = [{"role": "user", "content": prompt}]
    try:
        response = agent_loop(
            sample, partial(dispatch, registry, approve=approve), messages, max_steps
        )
    except StepLimitReached as limit:
        raise SubagentStopped(f"the subagent stopped at its step limit: {limit}") from limit
    except anthropic.APIError as error:
        raise SubagentStopped(f"the subagent failed: the API said {error}") from error
    if response.stop_reason != "end_turn":
        raise SubagentStopped(f"the subagent stopped with stop_reason {response.stop_reason}")
    return "".join(b.text for b in response.content if b.type == "text")


def test_run_subagent_right_in_other_ways_passes(capsys):
    def with_run_agent(client, prompt, tools, *, system, max_steps=8, approve=None):
        run = run_agent(
            client,
            messages=[{"role": "user", "content": prompt}],
            tools=tools,
            system=system,
            max_steps=max_steps,
            approve=approve,
        )
        if run.ending != "end_turn":
            raise OwnStop(f"ended: {run.ending}")
        return run.final_text

    for right in (with_the_plain_loop, with_run_agent):
        check_run_subagent(right)
        assert "passed" in capsys.readouterr().out


# -- 2 · answer_turn -------------------------------------------------------------------------


def one_after_another(run_tool, calls):
    return {"role": "user", "content": [run_tool(c) for c in calls]}


def separate_messages(run_tool, calls):
    with ThreadPoolExecutor() as pool:
        results = list(pool.map(run_tool, calls))
    return [{"role": "user", "content": [r]} for r in results]


def as_they_finish(run_tool, calls):
    with ThreadPoolExecutor() as pool:
        futures = [pool.submit(run_tool, c) for c in calls]
        return {"role": "user", "content": [f.result() for f in as_completed(futures)]}


def text_before_results(run_tool, calls):
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(run_tool, c) for c in calls]
        results = [f.result() for f in futures]
    return {"role": "user", "content": [{"type": "text", "text": "Results:"}, *results]}


def returns_before_the_results(run_tool, calls):
    results = [None] * len(calls)

    def work(index, call):
        results[index] = run_tool(call)

    for index, call in enumerate(calls):  # started, never joined: the list fills in later
        threading.Thread(target=work, args=(index, call)).start()
    return {"role": "user", "content": results}


def runs_each_call_twice(run_tool, calls):
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        for future in [pool.submit(run_tool, c) for c in calls]:
            future.result()  # run at once, but the results are thrown away...
    return {"role": "user", "content": [run_tool(c) for c in calls]}  # ...and run again


def test_answer_turn_mistakes_each_get_their_own_message():
    assert_each_fails_its_own_way(
        check_answer_turn,
        {
            "sequential": (one_after_another, "at most 1 ran at once"),
            "separate messages": (separate_messages, "ONE user message"),
            "text first": (text_before_results, "before the results"),
            "not joined": (returns_before_the_results, "still running"),
            "twice": (runs_each_call_twice, "a call ran twice"),
        },
    )


def test_answer_turn_right_in_other_ways_passes(capsys):
    def with_threads(run_tool, calls):
        results: dict = {}
        threads = [
            threading.Thread(target=lambda c=c: results.update({c.id: run_tool(c)})) for c in calls
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {"role": "user", "content": [results[c.id] for c in calls]}

    def with_a_queue(run_tool, calls):
        done: queue.Queue = queue.Queue()

        def work(i, c):
            try:
                done.put((i, run_tool(c)))
            except Exception as error:  # a failed call is answered, never lost
                done.put((i, tool_result(c.id, f"{type(error).__name__}: {error}", is_error=True)))

        threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        found = sorted(done.get() for _ in calls)
        return {"role": "user", "content": [r for _, r in found]}

    def with_map(run_tool, calls):
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            return {"role": "user", "content": list(pool.map(run_tool, calls))}

    def sorted_by_id(run_tool, calls):
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            results = list(pool.map(run_tool, calls))
        return {"role": "user", "content": sorted(results, key=lambda r: r["tool_use_id"])}

    def reversed_calls(run_tool, calls):
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            futures = [pool.submit(run_tool, c) for c in calls]
        return {"role": "user", "content": [f.result() for f in reversed(futures)]}

    # Results in another order than the calls' are right: the API pairs them by tool_use_id.
    rights = (with_threads, with_a_queue, with_map, as_they_finish, sorted_by_id, reversed_calls)
    for right in rights:
        check_answer_turn(right)
        assert "passed" in capsys.readouterr().out


# -- answer_turn: a learner's solutions that passed before ------------------------------------


def drops_the_late_ones(run_tool, calls):
    """Waits half a second for each result and drops the late ones."""
    pool = ThreadPoolExecutor(max_workers=len(calls) or 1)
    futures = [pool.submit(run_tool, c) for c in calls]
    results = []
    for future in futures:
        try:
            results.append(future.result(timeout=0.5))
        except Exception:  # noqa: BLE001, S112
            continue
    pool.shutdown(wait=False)
    return {"role": "user", "content": results}


def keeps_only_the_done_ones(run_tool, calls):
    """Waits for the first call only, then keeps the futures that are done()."""
    pool = ThreadPoolExecutor(max_workers=len(calls) or 1)
    futures = [pool.submit(run_tool, c) for c in calls]
    first = futures[0].result()
    pool.shutdown(wait=False)
    return {"role": "user", "content": [first] + [f.result() for f in futures[1:] if f.done()]}


def drops_a_failed_call(run_tool, calls):
    """A run_tool that raised leaves its call unanswered."""
    with ThreadPoolExecutor(max_workers=len(calls) or 1) as pool:
        futures = [pool.submit(run_tool, c) for c in calls]
        results = []
        for future in futures:
            try:
                results.append(future.result())
            except Exception:  # noqa: BLE001, S112
                continue
    return {"role": "user", "content": results}


def empties_the_calls(run_tool, calls):
    with ThreadPoolExecutor(max_workers=len(calls) or 1) as pool:
        futures = [pool.submit(run_tool, calls.pop(0)) for _ in range(len(calls))]
        return {"role": "user", "content": [f.result() for f in futures]}


def two_workers(run_tool, calls):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {"role": "user", "content": list(pool.map(run_tool, calls))}


def test_answer_turn_mistakes_that_passed_before_fail():
    assert_each_fails_its_own_way(
        check_answer_turn,
        {
            "a timeout drops the slow result": (
                drops_the_late_ones,
                "1 of the 3 subagents was still running",
            ),
            "only the done() futures": (keeps_only_the_done_ones, "keeping only the futures"),
            "a failed call dropped": (drops_a_failed_call, "without that call's result"),
            "calls emptied": (empties_the_calls, "changed the `calls` list it was given"),
            "two workers": (two_workers, "at most 2 ran at once"),
        },
    )


def test_a_failed_call_answered_as_an_error_passes(capsys):
    def answers_failures(run_tool, calls):
        def safe(call):
            try:
                return run_tool(call)
            except Exception as error:  # noqa: BLE001
                return tool_result(call.id, f"{type(error).__name__}: {error}", is_error=True)

        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            return {"role": "user", "content": list(pool.map(safe, calls))}

    check_answer_turn(answers_failures)
    assert "passed" in capsys.readouterr().out


# -- 3 · run_subagent_on_budget --------------------------------------------------------------


def resets_per_subagent(client, prompt, tools, *, system, budget):
    own = Budget(limit=budget.limit)  # a fresh budget: the limit starts again from zero
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        wrap_sample=own,
    )
    return _ending(run)


def pays_nothing(client, prompt, tools, *, system, budget):
    run = run_agent(
        client, messages=[{"role": "user", "content": prompt}], tools=tools, system=system
    )
    return _ending(run)


def out_of_budget_reads_as_done(client, prompt, tools, *, system, budget):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        wrap_sample=budget,
    )
    return run.final_text or "done"


def out_of_budget_as_a_runtime_error(client, prompt, tools, *, system, budget):
    run = run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        wrap_sample=budget,
    )
    if run.ending != "end_turn":
        raise RuntimeError(f"the subagent ended with {run.ending}: {run.detail}")
    return run.final_text


def _on_budget(client, prompt, tools, system, wrap):
    return run_agent(
        client,
        messages=[{"role": "user", "content": prompt}],
        tools=tools,
        system=system,
        wrap_sample=wrap,
    )


def raises_the_raw_over_budget(client, prompt, tools, *, system, budget):
    run = _on_budget(client, prompt, tools, system, budget)
    if run.ending == "budget_limit":
        raise OverBudget(str(budget))  # the loop's signal, not the subagent's error
    return _ending(run)


def stops_without_saying_why(client, prompt, tools, *, system, budget):
    run = _on_budget(client, prompt, tools, system, budget)
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped("the subagent stopped early")


def pays_twice(client, prompt, tools, *, system, budget):
    def wrap(sample):
        inner = budget(sample)  # pays once...

        def sample_and_pay(messages, **changes):
            response = inner(messages, **changes)
            budget.pay(response.usage)  # ...and once more
            return response

        return sample_and_pay

    return _ending(_on_budget(client, prompt, tools, system, wrap))


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (raises_the_raw_over_budget, "raised the Budget's own OverBudget"),
        (stops_without_saying_why, "does not say that the budget stopped it"),
        (pays_twice, "every call was paid more than once"),
    ],
    ids=["raw-OverBudget", "no-reason", "paid-twice"],
)
def test_a_budget_stop_is_judged_by_what_was_raised(variant, expected):
    text = failure_of(check_shared_budget, variant)
    assert expected in text, text


def says_the_limit_in_its_own_words(client, prompt, tools, *, system, budget):
    run = _on_budget(client, prompt, tools, system, budget)
    if run.ending == "end_turn":
        return run.final_text
    if run.ending == "budget_limit":
        raise SubagentStopped("the subagent stopped: the tree's spending limit was reached")
    raise SubagentStopped(f"the subagent stopped: {run.ending}")


def quotes_the_budget(client, prompt, tools, *, system, budget):
    run = _on_budget(client, prompt, tools, system, budget)
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped(f"stopped: {run.detail}")  # "N of M billed-equivalent tokens spent"


def raises_from_the_over_budget(client, prompt, tools, *, system, budget):
    run = _on_budget(client, prompt, tools, system, budget)
    if run.ending == "end_turn":
        return run.final_text
    raise SubagentStopped("the subagent could not go on") from run.error


def test_a_budget_stop_said_another_way_passes(capsys):
    for right in (says_the_limit_in_its_own_words, quotes_the_budget, raises_from_the_over_budget):
        check_shared_budget(right)
        assert "passed" in capsys.readouterr().out


def test_shared_budget_mistakes_each_get_their_own_message():
    assert_each_fails_its_own_way(
        check_shared_budget,
        {
            "another error": (
                out_of_budget_as_a_runtime_error,
                "another error than SubagentStopped",
            ),
            "reset": (resets_per_subagent, "a Budget of its own"),
            "not paid": (pays_nothing, "not paid by any budget"),
            "budget hidden": (out_of_budget_reads_as_done, "as if it had answered"),
        },
    )


def test_shared_budget_right_in_other_ways_passes(capsys):
    def wraps_by_hand(client, prompt, tools, *, system, budget):
        run = run_agent(
            client,
            messages=[{"role": "user", "content": prompt}],
            tools=tools,
            system=system,
            wrap_sample=lambda sample: budget(sample),
        )
        if run.ending == "budget_limit":
            raise OwnStop(f"out of budget: {budget}")
        if run.ending != "end_turn":
            raise SubagentStopped(run.ending)
        return run.final_text

    check_shared_budget(wraps_by_hand)
    assert "passed" in capsys.readouterr().out
