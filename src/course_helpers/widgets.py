"""The loop stepper: run an agent loop one turn per click and watch the history grow.

    stepper = LoopStepper(client, messages, tools)
    stepper          # a "Next turn" button, a status line and the transcript
    stepper.step()   # the same turn from code (what stored notebooks and CI use)

A click and `step()` do the same: both update the status line and the transcript under the
button.

Each turn is one call to `course_helpers.loop.run_agent(..., max_steps=1)`: the same loop,
stopped after one call to the model. Because the loop resumes from any valid history, calling
it again does the next turn. The text form of the stepper (what nbval compares) lists the
turns so far and never contains anything that changes from run to run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from course_helpers.client import MODEL
from course_helpers.display import Transcript
from course_helpers.loop import run_agent, tool_calls

BUTTON_LABEL = "Next turn"


class ShownAsWidget:
    """An object a notebook shows as its `widget`, and everything else as its `text()`.

    Subclasses set `self.widget` and define `text()`. The text/plain part of the display is what
    a terminal prints and what nbval compares in stored notebooks, so `text()` must hold nothing
    that changes from run to run; the widget part is left to the front end.
    """

    widget: widgets.Widget

    def text(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        data = self.widget._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self.text()
        return data


@dataclass(frozen=True)
class TurnReport:
    """One line about one turn: what the model did and how the history grew."""

    turn: int
    stop_reason: str
    calls: tuple[str, ...]
    before: int
    after: int
    ending: str

    def text(self) -> str:
        called = f" · called {', '.join(self.calls)}" if self.calls else ""
        return (
            f"Turn {self.turn}: stop_reason={self.stop_reason}{called} · "
            f"len(messages) {self.before} → {self.after}"
        )

    def __repr__(self) -> str:
        return self.text()


class LoopStepper(ShownAsWidget):
    """A "Next turn" button over an agent loop, with a text form for stored outputs."""

    def __init__(
        self,
        client: Any,
        messages: list,
        tools: Any,
        *,
        system: str | None = None,
        model: str = MODEL,
        max_tokens: int = 2048,
        approve: Any = None,
    ) -> None:
        self.client, self.messages, self.tools = client, messages, tools
        self.options = {"system": system, "model": model, "max_tokens": max_tokens}
        self.approve = approve
        self.reports: list[TurnReport] = []
        self.done = False
        self.button = widgets.Button(description=BUTTON_LABEL, icon="play")
        self.status = widgets.Label(value=self._status())
        self.transcript = widgets.HTML()
        self.button.on_click(lambda _: self.step())
        self.widget = widgets.VBox([widgets.HBox([self.button, self.status]), self.transcript])

    def step(self) -> TurnReport | str:
        """Run exactly one turn (one call to the model and the tools it asks for)."""
        if self.done:
            return "The run is over: " + self._status()
        before = len(self.messages)
        run = run_agent(
            self.client,
            messages=self.messages,
            tools=self.tools,
            max_steps=1,
            approve=self.approve,
            **self.options,
        )
        response = run.response
        calls = tuple(b.name for b in tool_calls(response)) if response is not None else ()
        ending = "" if run.ending == "step_limit" else run.ending
        report = TurnReport(
            turn=len(self.reports) + 1,
            stop_reason=getattr(response, "stop_reason", None) or "none",
            calls=calls,
            before=before,
            after=len(self.messages),
            ending=ending,
        )
        self.reports.append(report)
        self.done = bool(ending)
        self.status.value = self._status()
        self.button.disabled = self.done
        self.transcript.value = Transcript(self.messages, title=self._status()).html()
        return report

    def _status(self) -> str:
        count = f"len(messages) = {len(self.messages)}"
        if not self.reports:
            return f"Ready · {count}"
        last = self.reports[-1]
        if self.done:
            return f"Finished after {last.turn} turns ({last.ending}) · {count}"
        return f"Turn {last.turn} done ({last.stop_reason}) · {count}"

    def text(self) -> str:
        lines = [f"Loop stepper [{BUTTON_LABEL}] · {self._status()}"]
        lines += [f"  {report.text()}" for report in self.reports]
        return "\n".join(lines)
