"""Course machinery (exercise checks): the runs exercise 06.2's checks watch: notebook 04's loop with
the learner's control, counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    Recorder,
    as_plain,
    fail,
    recording_client,
    reviewer_kit,
    run_learner,
    short_repr,
)
from course_helpers.exercise_checks.stop_reasons.essay import CEILING, REVIEW
from course_helpers.lessons.controller import Ending
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.loop import StepLimitReached, agent_loop, sampler
from course_helpers.lessons.pairing import content_blocks

# -- 2. control(sample, *, max_tokens, ceiling): a wrapper of notebook 04's sample seam --------


class _Runaway(BaseException):
    """`sample` was called again after it raised StepLimitReached: the controller caught it.

    A BaseException, so that a controller catching `Exception` cannot swallow this one too.
    """


@dataclass
class Outcome:
    """How a run of notebook 04's loop with the learner's controller ended."""

    how: Literal["returned", "raised", "step_limit"]
    kind: str  # the stop_reason of the response returned, or the kind of the Ending raised
    error: BaseException | None = None

    def __str__(self) -> str:
        if self.how == "returned":
            return f"agent_loop returned a response with stop_reason {self.kind!r}"
        if self.how == "raised":
            return f"your controller raised {type(self.error).__name__} (kind {self.kind!r})"
        return "the step limit ended the run"


@dataclass
class Run:
    """One run: its history, its outcome, every request and response, the tools run."""

    messages: list
    outcome: Outcome
    recorder: Recorder
    ran: list = field(default_factory=list)

    @property
    def sent(self) -> list[int]:
        """The max_tokens of every request, in order."""
        return [r.get("max_tokens", 0) for r in self.recorder.requests]


def counted(sample: Callable, max_calls: int) -> Callable:
    """Wrap `sample`: at most `max_calls` calls, then StepLimitReached (notebook 06's `recorded`).

    It sits innermost, so every call the controller makes counts, retries included.
    """
    calls, stopped = 0, False

    def sample_counted(messages: list, **changes: Any) -> Any:
        __tracebackhide__ = True
        nonlocal calls, stopped
        if stopped:
            raise _Runaway
        if "max_tokens" not in changes:
            fail(
                "your controller called sample without max_tokens: the sample the check gives "
                "you has none of its own, and the limit is the controller's to decide.",
                "pass it on every call: sample(messages, **{**changes, 'max_tokens': limit}).",
            )
        if calls >= max_calls:
            stopped = True
            raise StepLimitReached(f"stopped after {calls} calls to the model")
        calls += 1
        return sample(messages, **changes)

    return sample_counted


def run_loop(
    control: Callable,
    messages: list,
    tools: dict | None = None,
    *,
    max_tokens: int = 1024,
    ceiling: int = CEILING,
    max_steps: int = 10,
    server_tools: tuple = (),
    script: Callable = lambda sample: sample,
) -> Run:
    """Run notebook 04's unchanged `agent_loop` with the learner's controller around `sample`.

    `sample` is notebook 04's `sampler` over a recording client (the tools' definitions plus
    `server_tools`, no max_tokens of its own), wrapped by `counted`; the loop gets the same
    `max_steps`, and the course's dispatcher as `run_tool`. `script` wraps the sampler, for a
    response the course model does not play (what a check scripts, it says so).
    """
    __tracebackhide__ = True
    client, recorder = recording_client()
    tools = tools or {}
    definitions = [t.definition() for t in tools.values()] + list(server_tools)
    settings: dict[str, Any] = {"model": MODEL}
    if definitions:
        settings["tools"] = definitions
    sample = counted(script(sampler(client, **settings)), max_steps)
    controlled = run_learner(
        control, sample, max_tokens=max_tokens, ceiling=ceiling, name="control"
    )
    if not callable(controlled):
        fail(
            f"control returned {short_repr(controlled)}, not a function: the loop needs a new "
            "sample to call.",
            "define sample_controlled(messages, **changes) inside control and return it.",
        )

    def drive() -> Outcome:
        __tracebackhide__ = True
        try:
            response = agent_loop(controlled, partial(dispatch, tools), messages, max_steps)
        except StepLimitReached:
            return Outcome("step_limit", "step_limit")
        except Ending as ending:
            return Outcome("raised", ending.kind, ending)
        except _Runaway:
            fail(
                f"with max_steps={max_steps} your controller called sample again after it raised "
                "StepLimitReached: it caught the step limit, so retries go on for ever.",
                "let what sample raises pass: no try/except around it, or none that catches "
                "StepLimitReached.",
            )
        return Outcome("returned", response.stop_reason)

    outcome = run_learner(drive, name="control")
    return Run(messages, outcome, recorder)


def run_review(control: Callable, **options: Any) -> Run:
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        messages: list = [{"role": "user", "content": REVIEW}]
        run = run_loop(control, messages, kit.tools, **options)
    finally:
        kit.close()
    run.ran = kit.ran
    if not run.recorder.requests:
        fail(
            "the loop ran, but no request went through the sample the check gave control: your "
            "controller calls the model some other way, where nothing counts the calls.",
            "call the model only through sample(messages, ...), never a client of your own.",
        )
    return run


def _cut_calls_kept(run: Run) -> list[dict]:
    """The tool_use blocks of responses cut off by max_tokens that are in the history."""
    cut_ids = {
        block.get("id")
        for r in run.recorder.responses
        if r["body"].get("stop_reason") == "max_tokens"
        for block in r["body"].get("content", [])
        if block.get("type") == "tool_use"
    }
    return [
        block
        for m in run.messages
        for block in as_plain(content_blocks(m))
        if isinstance(block, dict) and block.get("id") in cut_ids
    ]
