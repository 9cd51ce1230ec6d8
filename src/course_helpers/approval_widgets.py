"""Approve or Deny buttons for an agent's dangerous calls, in a notebook (used in notebooks 07-08).

    panel = ApprovalPanel(client, messages, tools, dangerous={"merge_pr"})
    panel.run()      # runs the loop until it ends or a dangerous call waits for an answer
    panel            # the buttons, the call waiting, and the transcript so far
    panel.deny()     # the same as clicking Deny (what stored notebooks and CI use)

Why the loop has to stop and start again: a cell that is running keeps the kernel busy, and the
kernel handles a button click only when it is idle. A loop that waited inside a cell for a click
would wait forever. So `ButtonPolicy.decide()` answers "not yet" by raising `PendingApproval`;
`run_agent` returns with the ending `pending_approval`, the history ending with the unanswered
`tool_use`. The click records the answer and calls `run_agent` again with the same history, which
resumes by answering those calls first.

Resuming replays the waiting turn from its start, so the panel remembers, for that turn only,
every decision already made and every tool already run: a call approved before the one that
waited is neither asked about nor run a second time, and the gate's audit log holds each
decision once. Without a front end (a terminal, a stored notebook) the panel shows as text.

The request is shown with `approvals.describe_call`, the same text a terminal prompt shows:
every argument, short ones first, control and bidirectional characters escaped. A call too
long to show whole is refused without a button ever being offered. After a click, the header
says what was clicked and what the agent did next.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from course_helpers.approvals import Decision, Gate, PendingApproval, describe_call, too_long_reason
from course_helpers.client import MODEL
from course_helpers.display import Transcript
from course_helpers.loop import AgentRun, run_agent, split_tools, tool_calls
from course_helpers.tools import Tool
from course_helpers.truncate import visible
from course_helpers.widgets import ShownAsWidget

APPROVE, DENY = "Approve", "Deny"


def canonical(value: Any) -> str:
    """A stable text form of a tool input, to recognise the same call when it is asked again."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


class ButtonPolicy:
    """An approval policy answered by a person clicking: "not yet" until someone answers.

    `decide()` returns the recorded answer for a call, or raises PendingApproval and remembers
    the call in `waiting`. `answer(allowed)` records the answer for the waiting call.
    """

    def __init__(self) -> None:
        self.waiting: tuple[str, Any] | None = None
        self._answers: dict[tuple[str, str], bool] = {}

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        if describe_call(tool_name, tool_input) is None:
            return Decision(False, too_long_reason(tool_name, tool_input), "ApprovalPanel")
        key = (tool_name, canonical(tool_input))
        if key in self._answers:
            self.waiting = None
            allowed = self._answers.pop(key)
            clicked = APPROVE if allowed else DENY
            return Decision(allowed, f"the person clicked {clicked}", "person")
        self.waiting = (tool_name, tool_input)
        raise PendingApproval(tool_name, tool_input)

    def answer(self, allowed: bool) -> None:
        if self.waiting is None:
            raise LookupError("no call is waiting for an answer")
        name, tool_input = self.waiting
        self._answers[(name, canonical(tool_input))] = bool(allowed)


class _TurnReplay:
    """Decisions and tool results of the turn that waits, replayed when the loop resumes it.

    The loop answers a turn's calls in order, so a resumed turn asks the same questions and runs
    the same tools in the same order up to the call that waited. Entries are keyed by the turn
    (its tool_use ids) and the position in it, and checked against the call's name and input.
    """

    def __init__(self, messages: list) -> None:
        self.messages = messages
        self.saved: dict[tuple, tuple[str, Any]] = {}
        self.positions: Counter[tuple] = Counter()

    def turn(self) -> tuple[str, ...]:
        last = self.messages[-1] if self.messages else None
        return (
            tuple(getattr(b, "id", None) or b.get("id") for b in tool_calls(last)) if last else ()
        )

    def start_pass(self) -> None:
        self.positions.clear()

    def keep_only_waiting_turn(self, waiting: bool) -> None:
        turn = self.turn() if waiting else None
        self.saved = {key: value for key, value in self.saved.items() if key[0] == turn}

    def once(self, kind: str, signature: str, work):
        """Do `work()` once per position in the turn; on a replay give back what it gave."""
        turn = self.turn()
        key = (turn, kind, self.positions[(turn, kind)])
        self.positions[(turn, kind)] += 1
        saved = self.saved.get(key)
        if saved is not None and saved[0] == signature:
            outcome, value = saved[1]
            if outcome == "raised":
                raise value
            return value
        try:
            value = work()
        except PendingApproval:
            raise
        except Exception as error:
            self.saved[key] = (signature, ("raised", error))
            raise
        self.saved[key] = (signature, ("returned", value))
        return value


class ApprovalPanel(ShownAsWidget):
    """An agent loop that pauses on a dangerous call and resumes when a button is clicked."""

    def __init__(
        self,
        client: Any,
        messages: list,
        tools: Any,
        *,
        dangerous: Iterable[str],
        system: str | None = None,
        model: str = MODEL,
        max_tokens: int = 2048,
        max_steps: int = 20,
    ) -> None:
        self.client, self.messages = client, messages
        self.policy = ButtonPolicy()
        self.gate = Gate(self.policy, dangerous)
        self.options = {"system": system, "model": model, "max_tokens": max_tokens}
        self.max_steps = max_steps
        self.replay = _TurnReplay(messages)
        self.tools = self._replayed(tools)
        self.runs: list[AgentRun] = []
        self.answers: list[str] = []
        self.last_click: str | None = None
        self.approve_button = widgets.Button(description=APPROVE, button_style="success")
        self.deny_button = widgets.Button(description=DENY, button_style="danger")
        self.approve_button.on_click(lambda _: self.answer(True))
        self.deny_button.on_click(lambda _: self.answer(False))
        self.status = widgets.Label()
        self.request = widgets.HTML()
        self.transcript = widgets.HTML()
        buttons = widgets.HBox([self.approve_button, self.deny_button])
        self.widget = widgets.VBox([self.status, self.request, buttons, self.transcript])
        self._refresh()

    # -- the loop ------------------------------------------------------------------------
    def _replayed(self, tools: Any) -> list:
        registry, _ = split_tools(tools)
        items = list(tools.values()) if isinstance(tools, dict) else list(tools or [])
        wrapped = []
        for item in items:
            if isinstance(item, Tool) and item.name in registry:
                wrapped.append(replace(item, function=self._run_once(item)))
            else:
                wrapped.append(item)
        return wrapped

    def _run_once(self, tool: Tool):
        def function(**arguments):
            signature = tool.name + canonical(arguments)
            return self.replay.once("run", signature, lambda: tool.function(**arguments))

        return function

    def _decide(self, tool_name: str, tool_input: Any) -> Decision:
        signature = tool_name + canonical(tool_input)
        return self.replay.once(
            "decide", signature, lambda: self.gate.decide(tool_name, tool_input)
        )

    def run(self) -> AgentRun:
        """Run the loop until it ends or a dangerous call waits for a click."""
        self.replay.start_pass()
        run = run_agent(
            self.client,
            messages=self.messages,
            tools=self.tools,
            max_steps=self.max_steps,
            approve=self._decide,
            **self.options,
        )
        self.replay.keep_only_waiting_turn(run.ending == "pending_approval")
        self.runs.append(run)
        self._refresh()
        return run

    @property
    def waiting(self) -> tuple[str, Any] | None:
        """The call waiting for an answer (name, input), or None."""
        if self.runs and self.runs[-1].ending == "pending_approval":
            return self.policy.waiting
        return None

    def answer(self, allowed: bool) -> AgentRun | str:
        """Record the answer to the waiting call and resume the loop (what the buttons do)."""
        waiting = self.waiting
        if waiting is None:
            return "Nothing is waiting for an answer: " + self._status()
        self.policy.answer(allowed)
        clicked = APPROVE if allowed else DENY
        self.answers.append(visible(f"{waiting[0]} {canonical(waiting[1])}: {clicked}"))
        self.last_click = f"You clicked {clicked} for {waiting[0]}"
        return self.run()

    def approve(self) -> AgentRun | str:
        """The same as clicking Approve."""
        return self.answer(True)

    def deny(self) -> AgentRun | str:
        """The same as clicking Deny."""
        return self.answer(False)

    # -- what is shown -------------------------------------------------------------------
    def _status(self) -> str:
        """The header: what was clicked last (if anything), then where the agent is now."""
        count = f"len(messages) = {len(self.messages)}"
        clicked = f"{self.last_click}; " if self.last_click else ""
        if not self.runs:
            return f"Ready · {count}"
        if self.waiting is not None:
            return _sentence(f"{clicked}waiting for your answer: {self.waiting[0]} · {count}")
        ending = self.runs[-1].ending
        went_on = "the agent went on and " if clicked else ""
        return _sentence(f"{clicked}{went_on}finished ({ending}) · {count}")

    def _refresh(self) -> None:
        waiting = self.waiting
        self.status.value = self._status()
        self.approve_button.disabled = self.deny_button.disabled = waiting is None
        if waiting is None:
            self.request.value = ""
        else:
            shown = describe_call(*waiting) or ""
            self.request.value = f"<pre style='margin:2px 0 6px 0'>{html.escape(shown)}</pre>"
        if self.runs:
            self.transcript.value = Transcript(self.messages).html()

    def text(self) -> str:
        """The panel as text: status, the waiting call, the answers given so far."""
        lines = [f"Approval panel [{APPROVE}] [{DENY}] · {self._status()}"]
        if self.waiting is not None:
            shown = describe_call(*self.waiting) or ""
            lines += [f"  {line}" for line in shown.splitlines()]
        lines += [f"  answered: {answer}" for answer in self.answers]
        return "\n".join(lines)
