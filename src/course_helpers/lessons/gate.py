"""Decide whether a tool call may run: the model proposes, your code disposes (notebook 07).

An approval policy is any object with `decide(tool_name, tool_input) -> Decision`. The loop
does not care who decides: a person at a terminal, a script in CI, buttons in a notebook.
`Gate` puts a policy in front of the dangerous tools only, and keeps an audit log. It is what
the dispatcher's `approve` receives (notebook 05).

Only an explicit yes approves (`course_helpers.lessons.dispatch.is_yes`): a policy answering a
Decision whose `allowed` is not an explicit yes ("no", "", None) gets a refusal, never an
approval. Ready-made policies
(allow all, deny all, a script, a person at the keyboard) are in `course_helpers.approvers`, and
buttons in a notebook in `course_helpers.widgets.approval_buttons`.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from course_helpers.lessons.dispatch import is_yes

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.gate`. Edit those cells, then run `make promote`.


# From notebooks/07_guard_dangerous_tools.ipynb
@dataclass(frozen=True)
class Decision:
    """The answer to one tool call: allowed or not, why, and who decided."""

    allowed: bool
    reason: str
    who: str


@runtime_checkable
class ApprovalPolicy(Protocol):
    """Anything that can decide on a tool call."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision: ...


# From notebooks/07_guard_dangerous_tools.ipynb
class Gate:
    """Let harmless tools through, send dangerous ones to a policy, and record every decision.

    Tool names are matched exactly. That is safe for the model's spelling: the dispatcher
    checks that a tool exists before it asks the gate. Yours is checked here: a call to a tool
    whose name a dangerous name spells with other case or separators ("merge-pr" for merge_pr)
    raises, so such a typo in `dangerous` cannot let that tool through unasked. A name wrong in
    its letters ("merge_prs") looks like a tool that was not offered and is not caught. A Gate
    is itself an ApprovalPolicy, so gates can be stacked or swapped for one another.
    """

    def __init__(self, policy: ApprovalPolicy, dangerous: Iterable[str]) -> None:
        if isinstance(dangerous, str):
            raise TypeError(f"dangerous must be a set of tool names, like {{{dangerous!r}}}")
        self.dangerous = frozenset(dangerous)
        if not all(isinstance(name, str) for name in self.dangerous):
            raise TypeError("dangerous must contain tool names (strings)")
        if not callable(getattr(policy, "decide", None)):
            raise TypeError(f"policy needs a decide() method, got {type(policy).__name__}")
        self.policy = policy
        self.audit_log: list[dict[str, Any]] = []
        self.counts: Counter[tuple[str, bool]] = Counter()

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        """Decide on one call, and log the decision."""
        if not isinstance(tool_name, str):
            raise TypeError(f"tool_name must be a string, got {type(tool_name).__name__}")
        self._check_spelling(tool_name)
        if tool_name in self.dangerous:
            decision = self.policy.decide(tool_name, tool_input)
            if not isinstance(decision, Decision):
                raise TypeError(
                    f"{type(self.policy).__name__}.decide() returned "
                    f"{type(decision).__name__}, not a Decision"
                )
            # Only an explicit yes approves: Decision(allowed="no") is a no, not a truthy string.
            decision = Decision(is_yes(decision.allowed), decision.reason, decision.who)
        else:
            decision = Decision(True, "harmless tool: no approval needed", "Gate")
        self._record(tool_name, tool_input, decision)
        return decision

    def _check_spelling(self, tool_name: str) -> None:
        """Raise if a dangerous name is this tool's name with another case or separators."""
        if tool_name in self.dangerous:
            return
        for name in sorted(self.dangerous):
            if _spelling(name) == _spelling(tool_name):
                raise ValueError(
                    f"{name!r} is not the name of any tool: did you mean {tool_name!r}? "
                    f"(Gate(dangerous=...) names tools exactly.)"
                )

    def _record(self, tool_name: str, tool_input: Any, decision: Decision) -> None:
        """Copy the input so later changes to the caller's dict cannot rewrite history."""
        self.audit_log.append(
            {
                "tool": tool_name,
                "input": copy.deepcopy(tool_input),
                "allowed": decision.allowed,
                "reason": decision.reason,
                "who": decision.who,
            }
        )
        self.counts[(tool_name, decision.allowed)] += 1


def _spelling(name: str) -> str:
    """A tool name without case and separators: "Merge-PR" and "merge_pr" read the same."""
    return re.sub(r"[\s._-]+", "", name.casefold())
