"""The whole agent: notebook 04's loop with the pieces of notebooks 05 and 06 in its seams.

`run_agent()` is a composition, not a second loop. It builds the two functions the loop calls,
`sample(messages)` and `run_tool(call)`, by wrapping:

    sample   = streaming_sampler(client, ...)       notebook 06: calls the model, may stream
    sample   = recorded(sample, run, max_steps)     notebook 06: every call counted and kept
    sample   = wrap_sample(sample)                  yours, e.g. notebook 10's budget
    sample   = controlled(sample, run, ...)         notebook 06: every stop reason
    run_tool = partial(run_tool, tools, approve=…)  notebook 05: the dispatcher (07: its gate)

and drives `agent_turns` (notebook 04's loop one turn at a time, written out in notebook 07)
with them. `agent_parts()` returns these pieces without driving them: the approval panel of
notebook 07 drives them one click at a time.

A run ends with one of the kinds in `course_helpers.controller.EndingKind`:
`end_turn`/`stop_sequence` (the model is done), `refusal`, `max_tokens`,
`model_context_window_exceeded`, `error` (what the controller could not recover), `step_limit`
(`max_steps` calls to the model, retries included), `budget_limit` (a `wrap_sample` that raises
an Ending of that kind) or `aborted` (Ctrl-C). Whatever the ending, `messages` is left a valid
history: every tool_use in it is answered, so you can add a user message and run again.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from course_helpers.client import MODEL
from course_helpers.controller import (
    Ending,
    EndingKind,
    controlled,
    max_output_tokens,
    streaming_sampler,
    text_of,
)
from course_helpers.cost.usage import prompt_tokens, token_count  # notebook 10 explains them
from course_helpers.dispatch import RESULT_LIMIT, call_parts, run_tool, tool_result
from course_helpers.loop import StepLimitReached, agent_turns
from course_helpers.pairing import content_blocks, read_field
from course_helpers.tools import Tool

KNOWN_STOPS = ("end_turn", "stop_sequence")


@dataclass
class AgentRun:
    """What a run did: the history, each call's usage, the last response and how it ended."""

    messages: list
    steps: int = 0  # calls to the model, retries included
    response: Any = None
    ending: EndingKind | None = None
    detail: str = ""
    usage: list[dict] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    error: BaseException | None = None
    continued: list[str] = field(default_factory=list)  # text of answers cut off and continued
    refused_turn: list = field(default_factory=list)  # messages taken out after a refusal

    def tokens(self, kind: str) -> int:
        """One usage field added up over the calls, e.g. `run.tokens("cache_read_input_tokens")`."""
        return sum(token_count(usage, kind) for usage in self.usage)

    @property
    def input_tokens(self) -> int:
        """Every input token the calls processed: uncached, written to the cache, read from it.

        A usage's own `input_tokens` counts only the uncached part (the tokens after the last
        cache breakpoint): that is `uncached_input_tokens` here.
        """
        return sum(prompt_tokens(usage) for usage in self.usage)

    @property
    def uncached_input_tokens(self) -> int:
        return self.tokens("input_tokens")

    @property
    def output_tokens(self) -> int:
        return self.tokens("output_tokens")

    @property
    def final_text(self) -> str:
        """The text of the last answer; an answer cut off and continued is joined back."""
        last = text_of(self.response) if self.response is not None else ""
        return "".join(self.continued) + last

    def finish(self, ending: EndingKind, detail: str = "", error: BaseException | None = None):
        self.ending, self.detail, self.error = ending, detail, error
        self.log.append(f"ended: {ending}" + (f" ({detail})" if detail else ""))
        return self

    def summary(self) -> str:
        read = self.tokens("cache_read_input_tokens")
        written = self.tokens("cache_creation_input_tokens")
        cache = f" (cache: {read} read, {written} written)" if read or written else ""
        return (
            f"ending={self.ending} · steps={self.steps} · len(messages)={len(self.messages)} · "
            f"tokens in={self.input_tokens}{cache} out={self.output_tokens}"
        )


def recorded(sample, run: AgentRun, max_calls: int):
    """Wrap `sample`: count every call toward `max_calls`, and keep its usage and response."""

    def sample_recorded(messages, **changes):
        if run.steps >= max_calls:
            raise StepLimitReached(f"stopped after {run.steps} calls to the model")
        run.steps += 1
        response = sample(messages, **changes)
        run.response = response
        run.usage.append(response.usage.model_dump(exclude_none=True))
        run.log.append(f"step {run.steps}: stop_reason={response.stop_reason}")
        return response

    return sample_recorded


class ToolsInterrupted(KeyboardInterrupt):
    """Ctrl-C while tools ran, carrying the results that answer every call of the turn."""

    def __init__(self, results: list[dict]) -> None:
        super().__init__("interrupted by the user")
        self.results = results


def run_tools(calls: list[Any], run_one: Callable[[Any], dict]) -> list[dict]:
    """One result per call, in order. On Ctrl-C the calls not finished are answered too, and
    ToolsInterrupted carries those results, so the history the caller appends stays valid."""
    results: list[dict] = []
    try:
        for call in calls:
            results.append(run_one(call))
    except KeyboardInterrupt:
        for position, call in enumerate(calls[len(results) :]):
            message = (
                "Interrupted by the user while it was running."
                if position == 0
                else "Not run: the user interrupted the run."
            )
            results.append(tool_result(call_parts(call)[0], message, is_error=True))
        raise ToolsInterrupted(results) from None
    return results


def split_tools(tools: Any) -> tuple[dict[str, Tool], list[dict]]:
    """Your tools by name (to run them) and every definition (to send them).

    `tools` is a dict or list of Tool objects; plain dicts in the list are definitions sent
    as they are, such as server tools (`web_search`), which the API runs itself.
    """
    items = list(tools.values()) if isinstance(tools, Mapping) else list(tools or [])
    registry = {t.name: t for t in items if isinstance(t, Tool)}
    definitions = [t.definition() if isinstance(t, Tool) else dict(t) for t in items]
    return registry, definitions


def tool_calls(message: Any) -> list[Any]:
    """The tool_use blocks of a response or of a message (SDK objects or dicts)."""
    return [b for b in content_blocks(message) if read_field(b, "type") == "tool_use"]


Turns = Generator[list, list, Any]


def agent_parts(
    client: Any,
    *,
    messages: list,
    tools: Any,
    system: str | None = None,
    model: str = MODEL,
    max_tokens: int = 2048,
    max_tokens_ceiling: int | None = None,
    max_steps: int = 20,
    stop_sequences: list[str] | None = None,
    approve: Any = None,
    result_limit: int = RESULT_LIMIT,
    prepare: Callable[[dict], dict] | None = None,
    wrap_sample: Callable | None = None,
    on_text: Callable[[str], None] | None = None,
) -> tuple[AgentRun, Turns, Callable[[Any], dict]]:
    """The run's record, its turns and the function that answers one call, composed.

    `max_steps` counts calls to the model, retries included. `max_tokens` grows after a
    cut-off answer, up to `max_tokens_ceiling` (by default the model's own maximum). `approve`
    asks about each call (notebook 05; a gate from notebook 07). `result_limit` cuts each
    result. `prepare(request)` changes each request before it is sent (notebook 10's cache
    breakpoints). `wrap_sample(sample)` wraps the sampler inside the controller, so it sees
    every call, retries too (notebook 10's budget). `on_text` receives the text as it streams.
    """
    run = AgentRun(messages)
    registry, definitions = split_tools(tools)
    settings: dict[str, Any] = {"model": model}
    if system:
        settings["system"] = system
    if definitions:
        settings["tools"] = definitions
    if stop_sequences:
        settings["stop_sequences"] = stop_sequences
    sample = streaming_sampler(client, on_text=on_text, prepare=prepare, **settings)
    sample = recorded(sample, run, max_calls=max_steps)
    if wrap_sample is not None:
        sample = wrap_sample(sample)

    def ceiling() -> int:
        return max_tokens_ceiling or max_output_tokens(client, model)

    sample = controlled(sample, run, max_tokens=max_tokens, ceiling=ceiling)
    run_one = partial(run_tool, registry, approve=approve, result_limit=result_limit)
    return run, agent_turns(sample, messages, max_steps), run_one


def advance(run: AgentRun, turns: Turns, results: list | None = None) -> list | None:
    """Send a turn its results (or start the run); return the next calls, or None once the
    run has ended (then `run.ending` says how)."""
    try:
        return next(turns) if results is None else turns.send(results)
    except StopIteration as done:
        stop = done.value.stop_reason
        if stop in KNOWN_STOPS:
            run.finish(stop)
        else:
            run.finish(
                "unknown_stop_reason", f"stop_reason={stop!r}, which this loop does not know"
            )
    except StepLimitReached as limit:
        run.finish("step_limit", str(limit))
    except Ending as ending:
        run.finish(ending.kind, str(ending), ending.__cause__ or ending)
    except KeyboardInterrupt as stop:
        run.finish("aborted", "interrupted while waiting for the model", stop)
    return None


def run_agent(client: Any, **options: Any) -> AgentRun:
    """Run notebook 04's loop with every piece in its seams; see `agent_parts` for options."""
    run, turns, run_one = agent_parts(client, **options)
    calls = advance(run, turns)
    while calls is not None:
        try:
            results = run_tools(calls, run_one)
        except ToolsInterrupted as stop:
            run.messages.append({"role": "user", "content": stop.results})
            return run.finish("aborted", "interrupted by the user during a tool call", stop)
        run.log.append("ran " + ", ".join(call.name for call in calls))
        calls = advance(run, turns, results)
    return run
