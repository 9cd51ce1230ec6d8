"""Decide whether a tool call may run: the model proposes, your code disposes.

An approval policy is any object with `decide(tool_name, tool_input) -> Decision`. The loop
does not care who decides: a person at a terminal, a script in CI, buttons in a notebook.
`Gate` puts a policy in front of the dangerous tools only, and keeps an audit log.

Waiting for a person. A widget cannot block the kernel until a button is clicked (the click
is handled by the same kernel), so a widget policy answers "not yet" by raising
`PendingApproval`. The loop catches it, keeps its state (the history already holds the
`tool_use`), shows the buttons and returns. When the person answers, the widget records the
answer and the loop calls `decide()` again for the same call, which now returns a Decision.
An exception was chosen over a third "pending" value of `Decision` on purpose: code written as
`if decision.allowed:` would silently treat "pending" as "denied", while an exception cannot
be ignored by accident. Gate logs nothing for a pending call; it logs the final answer once.

Only an explicit yes approves (`dispatch.is_yes`): a policy or a person answering "no", "n",
"", None or a Decision whose `allowed` is not True gets a refusal, never an approval.

What a person sees before saying yes is `describe_call()`: every argument, `path` first and then
the short ones (so `write_file` shows its `path` before a long `content`, whatever order the model
wrote them in), control and bidirectional characters escaped, long runs of blanks (spaces,
tabs, other Unicode spaces, blank lines) counted. A call too long
to show whole is refused with a reason that says so, never approved unseen.
"""

from __future__ import annotations

import builtins
import copy
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from course_helpers.dispatch import is_yes
from course_helpers.truncate import visible

SHOW_LIMIT = 20_000  # characters of a call a person is shown; a longer call is refused


@dataclass(frozen=True)
class Decision:
    """The answer to one tool call: allowed or not, why, and who decided."""

    allowed: bool
    reason: str
    who: str


class PendingApproval(Exception):
    """No answer yet: the loop should pause and call decide() again once someone answers."""

    def __init__(self, tool_name: str, tool_input: Any, message: str = "waiting for approval"):
        super().__init__(f"{tool_name}: {message}")
        self.tool_name = tool_name
        self.tool_input = tool_input


@runtime_checkable
class ApprovalPolicy(Protocol):
    """Anything that can decide on a tool call. May raise PendingApproval (see module doc)."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision: ...


class AllowAll:
    """Approve everything. For demos of what goes wrong without a gate, and trusted tests."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(True, "every call is allowed by this policy", "AllowAll")


class DenyAll:
    """Refuse everything dangerous: the safe default when no one can be asked."""

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        return Decision(False, "every dangerous call is refused by this policy", "DenyAll")


class Scripted:
    """Answers written in advance, for CI and notebooks that must run without a person.

    A list gives one answer per call, in order; a dict gives one answer per tool name.
    When the script has no answer, the call is denied (and the reason says so), because
    refusing is the safe way to fail. `remaining` lets a test check every answer was used.
    """

    def __init__(self, answers: list[bool] | Mapping[str, bool]) -> None:
        if isinstance(answers, Mapping):
            values, self._by_tool, self._queue = answers.values(), dict(answers), None
        elif isinstance(answers, list | tuple):
            values, self._by_tool, self._queue = answers, None, list(answers)
        else:
            raise TypeError(f"Scripted needs a list or a dict of answers, got {answers!r}")
        if not all(isinstance(value, bool) for value in values):
            raise TypeError("Scripted answers must be True or False, not strings or numbers")
        self.asked = 0

    @property
    def remaining(self) -> int | None:
        """Answers not used yet (None for a dict, whose answers can be used many times)."""
        return None if self._queue is None else len(self._queue)

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        self.asked += 1
        answer = self._next_answer(tool_name)
        if answer is None:
            return Decision(False, f"the script has no answer for call {self.asked}", "Scripted")
        reason = "the script says yes" if answer else "the script says no"
        return Decision(answer, reason, "Scripted")

    def _next_answer(self, tool_name: str) -> bool | None:
        if self._by_tool is not None:
            return self._by_tool.get(tool_name)
        return self._queue.pop(0) if self._queue else None


# A run of 8 or more characters that draw nothing (spaces, tabs, other Unicode spaces, Hangul
# and braille blanks, mixed in any order), or of 8 or more blank lines, could push the
# dangerous part of a call off the screen: it is shown as a count instead.
_BLANKS = re.compile(r"(?:[^\S\n]|[\u115f\u1160\u3164\uffa0\u2800]){8,}")
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n){7,}")


def _count_blanks(run: re.Match) -> str:
    text = run.group(0)
    what = {" ": "spaces", "\t": "tabs"}.get(text[0]) if len(set(text)) == 1 else None
    return f"⟨{len(text):,} {what or 'blank characters'}⟩"


def _count_blank_lines(run: re.Match) -> str:
    return f"\n⟨{run.group(0).count(chr(10)) - 1:,} blank lines⟩\n"


def _shown_value(value: Any) -> str:
    """One argument as a person reads it: strings as they are, other values as JSON."""
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError, RecursionError):
            value = repr(value)
    counted = _BLANKS.sub(_count_blanks, _BLANK_LINES.sub(_count_blank_lines, value))
    return visible(counted, keep_newlines=True)


def describe_call(tool_name: str, tool_input: Any, limit: int = SHOW_LIMIT) -> str | None:
    """The call as a person must see it before saying yes, or None if it is too long to show.

    One block per argument: `path` first if there is one, then the shortest first, so a long
    value cannot push the short dangerous part off the screen. Every line of a value is
    indented, so a value cannot pass itself off as the prompt or as another argument, and a
    value of several lines says how many (a path ending in a newline shows as "path (2 lines)").
    """
    if isinstance(tool_input, dict):
        items = [(visible(str(key)), _shown_value(value)) for key, value in tool_input.items()]
    else:
        items = [("input", _shown_value(tool_input))]
    items.sort(key=lambda item: (item[0] != "path", len(item[1]), item[0]))
    lines = [f"The agent wants to call {visible(str(tool_name))} with:"]
    for key, value in items:
        rows = value.split("\n")
        lines.append(f"  {key} ({len(rows)} lines):" if len(rows) > 1 else f"  {key}:")
        lines += [f"    {row}" for row in rows]
    shown = "\n".join(lines) + "\n"
    return shown if len(shown) <= limit else None


def too_long_reason(tool_name: str, tool_input: Any) -> str:
    """The reason given when a call cannot be shown whole: said plainly, and refused."""
    size = len(json.dumps(tool_input, ensure_ascii=False, default=repr))
    return (
        f"the call is too long to show a person in full ({size:,} characters of arguments; "
        f"the limit is {SHOW_LIMIT:,}), so it was refused rather than approved unseen"
    )


class AskInTerminal:
    """Ask the person at the keyboard, with input(). Only an explicit yes (y, yes) approves.

    If no one can answer (standard input is not a terminal, a notebook run without input,
    end of file), the call is denied with that reason instead of waiting forever: an agent
    run in CI must fail closed, not hang. `ask` replaces input(), for tests.
    """

    def __init__(self, ask: Callable[[str], str] | None = None) -> None:
        self._ask = ask

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        ask = self._ask or builtins.input  # looked up now: Jupyter replaces input() per cell
        shown = describe_call(tool_name, tool_input)
        if shown is None:
            return Decision(False, too_long_reason(tool_name, tool_input), "AskInTerminal")
        if _is_plain_input(ask) and not _stdin_is_terminal():
            reason = "no one can answer: standard input is not a terminal"
            return Decision(False, reason, "AskInTerminal")
        try:
            answer = ask(shown + "Allow? [y/N] ")
        except (EOFError, NotImplementedError, RuntimeError, OSError) as error:
            # StdinNotImplementedError (a kernel without input) is a NotImplementedError.
            return Decision(False, f"no one can answer ({type(error).__name__})", "AskInTerminal")
        if is_yes(answer):
            return Decision(True, "the person approved", "person")
        said = visible(answer.strip()[:40]) if isinstance(answer, str) else type(answer).__name__
        return Decision(False, f"the person declined (answered {said!r})", "person")


def _is_plain_input(ask: Callable[[str], str]) -> bool:
    """True for Python's own input(), which reads sys.stdin (not Jupyter's replacement)."""
    return getattr(ask, "__self__", None) is builtins and getattr(ask, "__name__", "") == "input"


def _stdin_is_terminal() -> bool:
    """Whether a person can type answers; a pipe or /dev/null means no one will."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or replaced stdin
        return False


class Gate:
    """Let harmless tools through, send dangerous ones to a policy, and record every decision.

    Tool names are matched exactly. That is safe because the dispatcher checks that a tool
    exists before it asks the gate, so an unknown spelling never reaches a tool. A Gate is
    itself an ApprovalPolicy, so gates can be stacked or swapped for one another.
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
        """Decide on one call. PendingApproval from the policy passes through, unlogged."""
        if not isinstance(tool_name, str):
            raise TypeError(f"tool_name must be a string, got {type(tool_name).__name__}")
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
