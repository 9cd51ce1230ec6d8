"""Approve or Deny buttons for an agent's dangerous calls, in a notebook (course machinery, 07-08).

    panel = ApprovalPanel(client, messages, tools, dangerous={"merge_pr"})
    panel.run()      # runs the loop until it ends or a dangerous call waits for an answer
    panel            # the buttons, the call waiting, and the transcript so far
    panel.deny()     # Deny from code (what stored notebooks and CI use), not a click

Why the panel drives the loop itself: a cell that is running keeps the kernel busy, and the
kernel handles a button click only when it is idle. A loop that waited inside a cell for a click
would wait forever. So the panel uses the loop one turn at a time (`agent_turns`, built in
notebook 07, with the seams that `course_helpers.lessons.agent.agent_parts` composes): it answers a
turn's calls in order, and when a dangerous call needs a person it simply returns, keeping the turn's results
so far. A click answers that call, and the panel goes on from exactly there: nothing is asked
or run twice, and the gate's audit log holds each decision once. While a call waits, the run's
`ending` is None. Ctrl-C while a tool runs ends the run as `run_agent` does (`aborted`, every
call of the turn answered). Without a front end (a terminal, a stored notebook) the panel
shows as text.

The request is shown with `policies.describe_call`, the same text a terminal prompt shows:
every argument, short ones first, control and bidirectional characters escaped. A call too
long to show whole is refused without a button ever being offered. After an answer, the header
says who gave it (a click, or code such as `panel.deny()`: the panel never claims a click that
nobody made) and what the agent did next.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Generator, Iterable
from typing import Any

import ipywidgets as widgets

from course_helpers.approvers import describe_call, too_long_reason
from course_helpers.display import Transcript
from course_helpers.lessons.agent import (
    AgentRun,
    agent_parts,
    answer_unfinished,
    finished,
    split_tools,
)
from course_helpers.lessons.controller import Ending
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.gate import Decision, Gate
from course_helpers.lessons.loop import StepLimitReached, agent_turns
from course_helpers.plumbing.truncate import visible
from course_helpers.widgets.loop_stepper import ShownAsWidget

APPROVE, DENY = "Approve", "Deny"


def canonical(value: Any) -> str:
    """A stable text form of a tool input, to recognise the same call when it is asked again."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


class ButtonPolicy:
    """An approval policy answered by a person, for the call on screen: by a click, or from code.

    The panel sets `answer` just before the dispatcher asks about that call, and `from_code` to
    the code that answered (like "panel.deny()") when it was not a click; each answer is used
    once. Only a click is a person's answer (`who="person"`); an answer from code is the panel's
    (`who="ApprovalPanel"`), so the model is never told that a person said no. A call too long
    to show whole is refused without asking.
    """

    def __init__(self) -> None:
        self.answer: bool | None = None
        self.from_code: str | None = None

    def forget(self) -> None:
        """Drop the answer: it was for one call only."""
        self.answer = self.from_code = None

    def decide(self, tool_name: str, tool_input: Any) -> Decision:
        if describe_call(tool_name, tool_input) is None:
            return Decision(False, too_long_reason(tool_name, tool_input), "ApprovalPanel")
        allowed, from_code = self.answer, self.from_code
        self.forget()
        if allowed is None:
            return Decision(False, "no one clicked a button for this call", "ApprovalPanel")
        if from_code:  # no person answered: the panel says so, as a policy would
            return Decision(allowed, f"answered from code: {from_code}", "ApprovalPanel")
        clicked = APPROVE if allowed else DENY
        return Decision(allowed, f"the person clicked {clicked}", "person")


Turns = Generator[list, list, Any]


def advance(run: AgentRun, turns: Turns, results: list | None = None) -> list | None:
    """Send a turn its results (or start the run); return the next calls, or None once the
    run has ended (then `run.ending` says how, as `run_agent` would have ended it)."""
    try:
        return next(turns) if results is None else turns.send(results)
    except StopIteration as done:
        finished(run, done.value)
    except StepLimitReached as limit:
        run.finish("step_limit", str(limit))
    except Ending as ending:
        run.finish(ending.kind, str(ending), ending.__cause__ or ending)
    except KeyboardInterrupt as stop:
        run.finish("aborted", "interrupted while waiting for the model", stop)
    return None


class ApprovalPanel(ShownAsWidget):
    """An agent loop that pauses on a dangerous call and goes on when a button is clicked."""

    def __init__(
        self,
        client: Any,
        messages: list,
        tools: Any,
        *,
        dangerous: Iterable[str],
        **options: Any,
    ) -> None:
        self.client, self.messages, self.tools = client, messages, tools
        self.policy = ButtonPolicy()
        self.gate = Gate(self.policy, dangerous)
        self.options = options  # run_agent's options: system, model, max_tokens, max_steps...
        self.record: AgentRun | None = None  # the run, once started
        self.turns: Turns | None = None  # its turns, one at a time (agent_turns, notebook 07)
        self.run_one: Callable[[Any], dict] | None = None  # answers one call (dispatcher + gate)
        self.registry, _ = split_tools(tools)
        self.calls: list = []  # the calls of the turn being answered
        self.results: list[dict] = []  # their results so far
        self.answers: list[str] = []
        self.last_answer: str | None = None  # who answered the last call, and how
        self.question = 0  # how many calls have waited for a person; the buttons carry it
        self.working = False  # True while the agent runs after an answer
        self.ignored: list[str] = []  # clicks that came for a call already answered
        self.status = widgets.Label()
        self.request = widgets.HTML()
        self.transcript = widgets.HTML()
        self.buttons = widgets.HBox()
        self._new_buttons()
        self.widget = widgets.VBox([self.status, self.request, self.buttons, self.transcript])
        self._refresh()

    def _new_buttons(self) -> None:
        """A fresh pair of buttons for the question now on screen, each bound to its number.

        A click carries no word of what was on screen when it was made, so each question gets
        buttons of its own: a click on an older pair (the second click of a double click, a
        click sent while the kernel was busy) names an older question and is ignored.
        """
        question = self.question
        self.approve_button = widgets.Button(description=APPROVE, button_style="success")
        self.deny_button = widgets.Button(description=DENY, button_style="danger")
        self.approve_button.on_click(lambda _: self.clicked(question, True))
        self.deny_button.on_click(lambda _: self.clicked(question, False))
        self.approve_button.disabled = self.deny_button.disabled = True
        self.buttons.children = (self.approve_button, self.deny_button)
        self._buttons_for = question

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> AgentRun:
        """Start the loop and run it until it ends or a dangerous call waits for a click."""
        if self.record is None:
            self.record, sample, self.run_one = agent_parts(
                self.client,
                messages=self.messages,
                tools=self.tools,
                approve=self.gate,
                **self.options,
            )
            self.turns = agent_turns(sample, self.messages, self.options.get("max_steps", 20))
            self.calls = advance(self.record, self.turns) or []
        self._go_on()
        return self.record

    def _go_on(self) -> None:
        """Answer calls in order until one needs a person or the run ends."""
        while self.calls:
            while len(self.results) < len(self.calls):
                call = self.calls[len(self.results)]
                if self.policy.answer is None and self._needs_person(call):
                    self.question += 1  # a new question: its own buttons (see _new_buttons)
                    self._refresh()
                    return
                try:
                    self.results.append(self.run_one(call))
                except KeyboardInterrupt as stop:  # Ctrl-C while the tool ran
                    self._abort(stop)
                    return
                finally:
                    self.policy.forget()  # an answer is for the call it was given for
            results, self.calls, self.results = self.results, [], []
            self.calls = advance(self.record, self.turns, results) or []
        self._refresh()

    def _abort(self, stop: KeyboardInterrupt) -> None:
        """Ctrl-C while a tool ran: end the run as run_agent does, with every call of the turn
        answered (the one running "interrupted", the rest "not run", as `run_agent` says)."""
        results = answer_unfinished(self.calls, self.record.answered)
        self.messages.append({"role": "user", "content": results})
        self.record.finish("aborted", "interrupted by the user during a tool call", stop)
        self.turns.close()
        self.calls, self.results = [], []
        self._refresh()

    def _needs_person(self, call: Any) -> bool:
        """A dangerous call, short enough to show, that the dispatcher would ask about.

        The dispatcher itself says whether it would ask: it is run with an `approve` that only
        notes the question and answers no, so the tool never runs (an unknown tool or invalid
        arguments are refused before anyone is asked).
        """
        if call.name not in self.gate.dangerous or describe_call(call.name, call.input) is None:
            return False
        asked: list[str] = []
        dispatch(self.registry, call, approve=lambda name, tool_input: asked.append(name))
        return bool(asked)

    @property
    def waiting(self) -> tuple[str, Any] | None:
        """The call waiting for an answer (name, input), or None."""
        if len(self.results) < len(self.calls):
            call = self.calls[len(self.results)]
            return call.name, call.input
        return None

    def answer(self, allowed: bool, *, from_code: str | None = "panel.answer()") -> AgentRun | str:
        """Answer the waiting call and go on.

        The buttons pass `from_code=None` (a click); code names itself, so that the header, the
        audit log and the model's tool result never say a person clicked when no one did.
        """
        waiting = self.waiting
        if waiting is None or self.working:
            return "Nothing is waiting for an answer: " + self._status()
        self.policy.answer, self.policy.from_code = bool(allowed), from_code
        label = APPROVE if allowed else DENY
        how = f"{label} (from code: {from_code})" if from_code else label
        self.answers.append(visible(f"{waiting[0]} {canonical(waiting[1])}: {how}"))
        if from_code:
            done = "Approved" if allowed else "Denied"
            self.last_answer = f"{done} from code for {waiting[0]}: {from_code}, not a click"
        else:
            self.last_answer = f"You clicked {label} for {waiting[0]}"
        self.working = True  # the buttons go grey before the tool runs, and stay so until
        self._refresh()  # the next question gets buttons of its own
        try:
            return self.run()
        finally:
            self.working = False
            self._refresh()

    def clicked(self, question: int, allowed: bool) -> AgentRun | str:
        """A click on the buttons shown for question number `question`.

        Only the question on screen and still waiting can be answered by a click: any other
        click (a double click's second, one sent while the agent worked) is noted and ignored.
        """
        label = APPROVE if allowed else DENY
        if question != self.question or self.working or self.waiting is None:
            said = f"a click on {label} came after its call was answered: ignored"
            self.ignored.append(said)
            self._refresh()
            return said[:1].upper() + said[1:]
        return self.answer(allowed, from_code=None)

    def approve(self) -> AgentRun | str:
        """Approve from code: the same effect as clicking Approve, and said to be from code."""
        return self.answer(True, from_code="panel.approve()")

    def deny(self) -> AgentRun | str:
        """Deny from code: the same effect as clicking Deny, and said to be from code."""
        return self.answer(False, from_code="panel.deny()")

    # -- what is shown -------------------------------------------------------------------
    def _status(self) -> str:
        """The header: who answered last and how (if anyone), then where the agent is now."""
        count = f"len(messages) = {len(self.messages)}"
        if self.ignored:  # said where the person looks: their extra click did nothing
            late = len(self.ignored)
            count += f" · {late} late click{'s' if late > 1 else ''} ignored"
        answered = f"{self.last_answer}; " if self.last_answer else ""
        if self.record is None:
            return f"Ready · {count}"
        if self.working:
            return _sentence(f"{answered}the agent is working · {count}")
        if self.waiting is not None:
            return _sentence(f"{answered}waiting for your answer: {self.waiting[0]} · {count}")
        went_on = "the agent went on and " if answered else ""
        return _sentence(f"{answered}{went_on}finished ({self.record.ending}) · {count}")

    def _refresh(self) -> None:
        waiting = self.waiting
        self.status.value = self._status()
        if waiting is not None and not self.working and self._buttons_for != self.question:
            self.approve_button.disabled = self.deny_button.disabled = True  # the old pair
            self._new_buttons()
        off = waiting is None or self.working
        self.approve_button.disabled = self.deny_button.disabled = off
        if waiting is None:
            self.request.value = ""
        else:
            shown = describe_call(*waiting) or ""
            self.request.value = f"<pre style='margin:2px 0 6px 0'>{html.escape(shown)}</pre>"
        if self.record is not None:
            self.transcript.value = Transcript(self.messages).html()

    def text(self) -> str:
        """The panel as text: status, the waiting call, the answers given so far."""
        lines = [f"Approval panel [{APPROVE}] [{DENY}] · {self._status()}"]
        if self.waiting is not None:
            shown = describe_call(*self.waiting) or ""
            lines += [f"  {line}" for line in shown.splitlines()]
        lines += [f"  answered: {answer}" for answer in self.answers]
        lines += [f"  ignored: {said}" for said in self.ignored]
        return "\n".join(lines)
