"""One job built four ways (notebook 09): a prompt chain, a router, orchestrator–workers and an
agent, all on the same `Desk` and under its refund rule, measured on the same tickets.

One module a job: `desk` (the shop's systems and rule), `steps` (the pieces workflows share),
`chain`, `router`, `orchestrator`, `agent` (the four approaches), `measure` (judge, runs,
tables), `plots` (the chart). The data (orders, customers, articles, tickets) lives in
`course_helpers.fixtures.support_desk`.
"""

from course_helpers.fixtures.support_desk import CASES, CATEGORIES, Case
from course_helpers.workflows.agent import AGENT_SYSTEM, run_support_agent
from course_helpers.workflows.chain import run_chain
from course_helpers.workflows.desk import Desk, RefundRefused, refund_rule
from course_helpers.workflows.measure import (
    APPROACHES,
    WORKFLOWS,
    CaseResult,
    compare,
    judge,
    modelled_seconds,
    results_table,
    run_case,
    spread,
    summary_table,
)
from course_helpers.workflows.orchestrator import run_orchestrator
from course_helpers.workflows.plots import plot_results
from course_helpers.workflows.router import ESCALATION, HANDLERS, run_router
from course_helpers.workflows.steps import TRIAGE_TOOL, Attempt, triage

__all__ = [
    "AGENT_SYSTEM",
    "APPROACHES",
    "CASES",
    "CATEGORIES",
    "ESCALATION",
    "HANDLERS",
    "TRIAGE_TOOL",
    "WORKFLOWS",
    "Attempt",
    "Case",
    "CaseResult",
    "Desk",
    "RefundRefused",
    "compare",
    "judge",
    "modelled_seconds",
    "plot_results",
    "refund_rule",
    "results_table",
    "run_case",
    "run_chain",
    "run_orchestrator",
    "run_router",
    "run_support_agent",
    "spread",
    "summary_table",
    "triage",
]
