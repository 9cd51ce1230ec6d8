"""Course machinery: notebook 13's measurements of a tree of agents, and its row in notebook 09's
comparison table.

`tree_seconds` says how long a tree took: measured wall time with a real model; offline, the
course model answers at once, so it is notebook 09's latency model (`modelled_seconds`: a fixed
cost a call, then reading and writing speeds), applied to each agent's calls. Subagents started
in the same turn of their parent run at the same time, so side by side a turn costs its slowest
subagent; one after another it costs all of them.

`run_subagents_case` runs one of notebook 09's cases through the subagents approach on a fresh
`Desk` and returns the same `CaseResult` as the other approaches, so `results_table` shows all of
them together. Its calls and tokens are those of every agent of the tree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.client import MODEL, detect_backend
from course_helpers.fixtures.support_desk import Case, Desk
from course_helpers.lessons.agent import AgentRun, tool_calls
from course_helpers.lessons.cost.usage import prompt_tokens, token_count
from course_helpers.lessons.pairing import read_field
from course_helpers.lessons.subagents import PARENT, Tree, label, run_in_tree
from course_helpers.lessons.workflows.scoring import judge, modelled_seconds
from course_helpers.measurement.workflows import CaseResult


def turn_groups(tree: Tree, parent: str = PARENT) -> list[list[str]]:
    """The names of the subagents each turn of `parent` started, turn by turn."""
    run = tree.runs[parent]
    groups, taken = [], set()
    for message in run.messages:
        if read_field(message, "role") != "assistant":
            continue
        names = []
        for call in tool_calls(message):
            if read_field(call, "name") != "task":
                continue
            label_of = label((read_field(call, "input") or {}).get("description", ""))
            name = next(
                (n for n in tree.runs if n not in taken and n.startswith(f"subagent '{label_of}'")),
                None,
            )
            if name is not None:
                taken.add(name)
                names.append(name)
        if names:
            groups.append(names)
    return groups


def agent_seconds(tree: Tree, name: str, measured: bool) -> float:
    """One agent's own time: its calls to the model (modelled) or its wall time (measured)."""
    run = tree.runs[name]
    if measured:
        return tree.seconds.get(name, 0.0)
    return modelled_seconds(run.usage) if run is not None else 0.0


def tree_seconds(tree: Tree, measured: bool | None = None) -> tuple[float, float, bool]:
    """(side by side, one after another, measured) for the parent and its subagents."""
    measured = detect_backend().name != "offline" if measured is None else measured
    groups = turn_groups(tree)
    children = [n for g in groups for n in g]
    each = {n: agent_seconds(tree, n, measured) for n in children}
    if measured:  # the parent's wall time includes its waits for the subagents
        wall = tree.seconds.get(PARENT, 0.0)
        return wall, wall - sum(max(each[n] for n in g) for g in groups) + sum(each.values()), True
    own = modelled_seconds(tree.runs[PARENT].usage)
    side = own + sum(max(each[n] for n in g) for g in groups)
    return side, own + sum(each.values()), False


def tree_usage(tree: Tree) -> list[dict]:
    """Every call's usage, of every agent of the tree."""
    return [u for run in tree.runs.values() if isinstance(run, AgentRun) for u in run.usage]


def run_subagents_case(
    client: Any,
    case: Case,
    tools_for: Callable[[Tree, Desk], list],
    system: str,
    model: str = MODEL,
    **options: Any,
) -> tuple[CaseResult, Tree]:
    """One case through a parent with the tools `tools_for(tree, desk)` gives it, on a fresh desk."""
    desk = Desk()
    tree = Tree(client, model=model, **options)
    messages = [{"role": "user", "content": case.ticket}]
    run = run_in_tree(tree, PARENT, messages, tools_for(tree, desk), system)
    reply = run.final_text if run.ending == "end_turn" else ""
    success, why = judge(case, reply, desk.refunds)
    usage = tree_usage(tree)
    side, _, measured = tree_seconds(tree)
    result = CaseResult(
        approach="subagents",
        case=case,
        calls=len(usage),
        input_tokens=sum(prompt_tokens(u) for u in usage),
        output_tokens=sum(token_count(u, "output_tokens") for u in usage),
        seconds=side,
        measured=measured,
        success=success,
        why=why,
        reply=reply,
        refunds=list(desk.refunds),
        trace=[f"{name}: {r.ending}" for name, r in tree.runs.items() if r is not None],
        usage=usage,
        refused=list(desk.refused),
        capped=run.ending in ("step_limit", "budget_limit"),
        max_calls=tree.max_steps,
        cap_per="an agent",
    )
    return result, tree
