"""Course machinery: the harness that measures notebook 09's four approaches on the same
tickets, and the tables that show the numbers.

`run_case` runs one ticket through one approach on a fresh `Desk`, under the same budget for every
approach (`MAX_CALLS` model calls, `MAX_TOKENS` a call, the same rules for each call), and
records what is counted: calls and tokens from each response's `usage` (offline: the course
model's estimates), latency as wall time with a real model and `modelled_seconds` offline, the
refund requests the desk's rule refused, whether the run stopped at a cap, and success by
`judge`. Offline, *which* calls the model
makes is the course model's one support-desk policy
(`course_helpers.offline.scenarios.support_desk`), so an offline success shows what that policy
does with each approach, not what Claude would do.

The approaches, `judge` and the latency model are what the learner builds (`chain`, `router`,
`orchestrator`, `agent`, `measure`); the chart is in `course_helpers.measurement.workflow_plots`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anthropic

from course_helpers.client import MODEL, detect_backend
from course_helpers.fixtures.support_desk import CASES, Case, Desk
from course_helpers.lessons.cost.pricing import OUTPUT_WEIGHT
from course_helpers.lessons.cost.usage import prompt_tokens, token_count
from course_helpers.lessons.workflows.agent import run_support_agent
from course_helpers.lessons.workflows.chain import run_chain
from course_helpers.lessons.workflows.orchestrator import run_orchestrator
from course_helpers.lessons.workflows.router import run_router
from course_helpers.lessons.workflows.scoring import judge, modelled_seconds
from course_helpers.lessons.workflows.steps import MAX_CALLS, MAX_TOKENS, Attempt

APPROACHES: dict[str, Callable[..., Attempt]] = {
    "chain": run_chain,
    "router": run_router,
    "orchestrator": run_orchestrator,
    "agent": run_support_agent,
}


@dataclass
class CaseResult:
    """One case run through one approach, with its numbers and the verdict."""

    approach: str
    case: Case
    calls: int
    input_tokens: int
    output_tokens: int
    seconds: float
    measured: bool  # True: wall time; False: modelled from tokens
    success: bool
    why: str
    reply: str
    refunds: list[dict]
    trace: list[str]
    usage: list[dict] = field(default_factory=list)  # each call's usage, in order
    refused: list[dict] = field(default_factory=list)  # refund requests the rule turned down
    capped: bool = False  # the run stopped at its call cap or a cut-off and went to a person
    max_calls: int = MAX_CALLS  # the call cap it ran under
    cap_per: str = "a ticket"  # what the cap counts: a tree of agents caps each agent

    @property
    def cost(self) -> float:
        """Billed-equivalent tokens: input tokens plus `OUTPUT_WEIGHT` (5) times the output."""
        return self.input_tokens + OUTPUT_WEIGHT * self.output_tokens


def run_case(
    client: anthropic.Anthropic,
    approach: str,
    case: Case,
    model: str = MODEL,
    measure: bool | None = None,
    max_calls: int = MAX_CALLS,
) -> CaseResult:
    """Run one case through one approach on a fresh desk, within the shared budget; judge it."""
    measure = detect_backend().name != "offline" if measure is None else measure
    desk = Desk()
    start = time.perf_counter()
    attempt = APPROACHES[approach](client, desk, case.ticket, model=model, max_calls=max_calls)
    wall = time.perf_counter() - start
    success, why = judge(case, attempt.reply, desk.refunds)
    return CaseResult(
        approach=approach,
        case=case,
        calls=len(attempt.usage),
        input_tokens=sum(prompt_tokens(u) for u in attempt.usage),
        output_tokens=sum(token_count(u, "output_tokens") for u in attempt.usage),
        seconds=wall if measure else modelled_seconds(attempt.usage),
        measured=measure,
        success=success,
        why=why,
        reply=attempt.reply,
        refunds=list(desk.refunds),
        trace=attempt.trace,
        usage=attempt.usage,
        refused=list(desk.refused),
        capped=attempt.capped,
        max_calls=max_calls,
    )


def compare(
    client: anthropic.Anthropic,
    cases: list[Case] = CASES,
    approaches: tuple[str, ...] = tuple(APPROACHES),
    model: str = MODEL,
    max_calls: int = MAX_CALLS,
) -> list[CaseResult]:
    """Every case through every approach, case by case, each within the same call cap."""
    return [
        run_case(client, a, c, model=model, max_calls=max_calls) for c in cases for a in approaches
    ]


def _mark(r: CaseResult) -> str:
    return ("✓" if r.success else "✗") + (" cap" if r.capped else "")


def results_table(results: list[CaseResult]) -> str:
    """One row per case, one column group per approach: calls, tokens in/out, seconds, refund
    requests refused, ok (and `cap` when the run stopped at its call cap)."""
    approaches = list(dict.fromkeys(r.approach for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    by_key = {(r.case.name, r.approach): r for r in results}
    kind = "measured" if any(r.measured for r in results) else "modelled"
    head1 = f"{'':21}" + "".join(f" │ {a:<30}" for a in approaches)
    head2 = f"{'case':21}" + " │ calls    in  out    s rr ok   " * len(approaches)
    lines = [head1.rstrip(), head2, "─" * len(head2)]
    for case in cases:
        row = f"{case.name:21}"
        for approach in approaches:
            r = by_key.get((case.name, approach))
            if r is None:
                row += " │" + " " * 31
                continue
            row += (
                f" │ {r.calls:5} {r.input_tokens:5,} {r.output_tokens:4} {r.seconds:4.1f} "
                f"{len(r.refused) or '-':>2} {_mark(r):<5}"
            )
        lines.append(row.rstrip())
    lines.append(f"in/out: input/output tokens of all calls; s: latency in seconds ({kind})")
    lines.append(
        "rr: refund requests the desk's rule refused; cap: stopped at the call cap or cut off "
        "at max_tokens"
    )
    caps = " or ".join(
        f"{n} model calls {per}" for n, per in sorted({(r.max_calls, r.cap_per) for r in results})
    )
    lines.append(
        f"budget of every approach: at most {caps}, "
        f"max_tokens {MAX_TOKENS} a call (never raised; a cut-off answer is not used)"
    )
    return "\n".join(lines)


def summary_table(results: list[CaseResult]) -> str:
    """Per approach and kind of case: successes, mean calls, tokens and seconds, then the
    refund requests the rule refused and the runs stopped at a cap (totals)."""
    lines = [
        f"{'approach':12} {'cases':13} {'solved':>6} {'calls':>6} {'in':>6} {'out':>5} {'s':>5}"
        f" {'refused':>7} {'capped':>6}"
    ]
    for approach in dict.fromkeys(r.approach for r in results):
        for kind in ("predictable", "unpredictable"):
            rows = [r for r in results if r.approach == approach and r.case.kind == kind]
            if not rows:
                continue
            n = len(rows)
            lines.append(
                f"{approach:12} {kind:13} {sum(r.success for r in rows):>3}/{n:<2} "
                f"{sum(r.calls for r in rows) / n:6.1f} "
                f"{sum(r.input_tokens for r in rows) / n:6,.0f} "
                f"{sum(r.output_tokens for r in rows) / n:5.0f} "
                f"{sum(r.seconds for r in rows) / n:5.1f} "
                f"{sum(len(r.refused) for r in rows):7} {sum(r.capped for r in rows):6}"
            )
    return "\n".join(lines)


def spread(
    client: anthropic.Anthropic,
    cases: list[Case],
    approaches: tuple[str, ...] = tuple(APPROACHES),
    times: int = 3,
    model: str = MODEL,
) -> str:
    """Run the same cases `times` times through each approach; one line a case and approach:
    how often it succeeded and the range of its calls, input tokens and seconds."""
    lines = [
        f"{'case':21} {'approach':12} {'solved':>6}  {'calls':>7}  {'input tokens':>13}  "
        f"{'seconds':>11}"
    ]

    def span(values: list[float], form: str) -> str:
        low, high = min(values), max(values)
        return format(low, form) if low == high else f"{low:{form}}-{high:{form}}"

    for case in cases:
        for approach in approaches:
            runs = [run_case(client, approach, case, model=model) for _ in range(times)]
            lines.append(
                f"{case.name:21} {approach:12} {sum(r.success for r in runs):>3}/{times:<2}  "
                f"{span([r.calls for r in runs], 'd'):>7}  "
                f"{span([r.input_tokens for r in runs], ',d'):>13}  "
                f"{span([r.seconds for r in runs], '.1f'):>11}"
            )
            if len({r.seconds for r in runs}) > 1:
                lines[-1] += f"  (sd {statistics.stdev(r.seconds for r in runs):.1f} s)"
    return "\n".join(lines)
