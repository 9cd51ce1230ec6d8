"""Course machinery: the loop stepper, one turn of your loop per click (notebook 04).

    stepper = LoopStepper(sample, partial(run_tool, tools), messages)
    stepper          # a "Next turn" button, a status line and the transcript
    stepper.step()   # the same turn from code (what stored notebooks and CI use)

A click and `step()` do the same: both update the status line and the transcript under the
button.

Each turn is notebook 04's `agent_loop(sample, run_tool, messages, max_steps=1)`: the same
loop, stopped after one turn. A history that ends with a turn's results is a valid place to
start from, so calling it again does the next turn. The text form of the stepper (what nbval
compares) lists the turns so far and never contains anything that changes from run to run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from course_helpers.display import Transcript
from course_helpers.lessons.loop import StepLimitReached, agent_loop

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
    """A "Next turn" button over notebook 04's loop, with a text form for stored outputs.

    `sample` and `run_tool` are the loop's two seams: `LoopStepper(sample, run_tool, messages)`.
    """

    def __init__(self, sample: Callable, run_tool: Callable, messages: list) -> None:
        self.sample, self.run_tool, self.messages = sample, run_tool, messages
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
        try:
            response = agent_loop(self.sample, self.run_tool, self.messages, max_steps=1)
            stop_reason, ending = response.stop_reason, response.stop_reason
        except StepLimitReached:  # one turn done, and the model wants another
            stop_reason, ending = "tool_use", ""
        turn = self.messages[before]["content"] if len(self.messages) > before else []
        report = TurnReport(
            turn=len(self.reports) + 1,
            stop_reason=stop_reason,
            calls=tuple(block.name for block in turn if block.type == "tool_use"),
            before=before,
            after=len(self.messages),
            ending=ending,
        )
        self.reports.append(report)
        self.done = bool(ending)
        self.status.value = self._status()
        self.button.disabled = self.done
        # No title: the status line beside the button already says where the run is.
        self.transcript.value = Transcript(self.messages).html()
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
