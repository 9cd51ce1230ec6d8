"""Course machinery (exercise checks): exercise 09.2, `choose`: the cheapest approach that solved each
case, from made-up measurements.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
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
