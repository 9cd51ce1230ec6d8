"""The whole agent: notebook 04's loop with the pieces of notebooks 05 and 06 in its seams.

`run_agent()` is a composition, not a second loop. It builds the two functions the loop calls,
`sample(messages)` and `run_tool(call)`, by wrapping:

    sample   = streaming_sampler(client, ...)       notebook 06: calls the model, may stream
    sample   = recorded(sample, run, max_steps)     notebook 06: every call counted and kept
    sample   = wrap_sample(sample)                  yours, e.g. notebook 10's budget
    sample   = controlled(sample, run, ...)         notebook 06: every stop reason
    run_tool = partial(dispatch, tools, approve=…)  notebook 05: the dispatcher (07: its gate)
    run_tool = kept(run_tool, run)                  notebook 06: each result kept for Ctrl-C

and calls `agent_loop` (notebook 04) with them. `agent_parts()` returns these pieces without
running the loop: the approval panel of notebook 07 drives them one click at a time.

A run ends with one of the kinds in `course_helpers.lessons.controller.EndingKind`:
`end_turn`/`stop_sequence` (the model is done), `refusal`, `max_tokens`,
`model_context_window_exceeded`, `error` (what the controller could not recover), `step_limit`
(`max_steps` calls to the model, retries included), `budget_limit` (a `wrap_sample` that raises
an Ending of that kind) or `aborted` (Ctrl-C). Whatever the ending, `messages` is left a valid
history: every tool_use in it is answered, so you can add a user message and run again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from course_helpers.client import MODEL
from course_helpers.lessons.controller import (
    Ending,
    EndingKind,
    controlled,
    max_output_tokens,
    streaming_sampler,
    text_of,
)
from course_helpers.lessons.dispatch import RESULT_LIMIT, dispatch, tool_result
from course_helpers.lessons.loop import StepLimitReached, agent_loop
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.support.result_wording import call_parts

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.agent`. Edit those cells, then run `make promote`.


# From notebooks/06_handle_every_stop_reason.ipynb
KNOWN_STOPS = ("end_turn", "stop_sequence")
# What a usage says about the input: the part sent as usual, and two parts that prompt
# caching adds (notebook 10); without caching they are 0 or absent.
INPUT_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


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
    answered: dict = field(default_factory=dict)  # each tool call's result, by the call's id

    def tokens(self, kind: str) -> int:
        """One usage field added up over the calls, e.g. `run.tokens("output_tokens")`."""
        return sum(usage.get(kind) or 0 for usage in self.usage)

    @property
    def input_tokens(self) -> int:
        """Every input token the calls sent: the sum of the usage's input fields."""
        return sum(self.tokens(kind) for kind in INPUT_FIELDS)

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


# From notebooks/06_handle_every_stop_reason.ipynb
def kept(run_tool, run: AgentRun):
    """Wrap `run_tool`: keep each call's result in `run.answered`, and log the call."""

    def run_tool_kept(call):
        result = run_tool(call)
        call_id, name, _ = call_parts(call)
        run.answered[call_id] = result
        run.log.append(f"ran {name}")
        return result

    return run_tool_kept


def answer_unfinished(calls: list[Any], answered: Mapping[str, dict]) -> list[dict]:
    """One result per call, in order, after Ctrl-C stopped a turn: the results already kept,
    then an `is_error` result for the call that was running and for each call not run."""
    results: list[dict] = []
    stopped = False
    for call in calls:
        call_id = call_parts(call)[0]
        if call_id in answered:
            results.append(answered[call_id])
            continue
        message = (
            "Not run: the user interrupted the run."
            if stopped
            else "Interrupted by the user while it was running."
        )
        results.append(tool_result(call_id, message, is_error=True))
        stopped = True
    return results


# From notebooks/06_handle_every_stop_reason.ipynb
def split_tools(tools: Any) -> tuple[dict[str, Any], list[dict]]:
    """Your tools by name (to run them) and every definition (to send them).

    `tools` is a dict or a list of tools: objects with a `name` and a `definition()`, such as
    notebook 02's `Tool`. Plain dicts in the list are definitions sent as they are, such as
    server tools (`web_search`), which the API runs itself.
    """
    items = list(tools.values()) if isinstance(tools, Mapping) else list(tools or [])
    registry, definitions = {}, []
    for item in items:
        if isinstance(item, Mapping):
            definitions.append(dict(item))
        elif callable(getattr(item, "definition", None)) and isinstance(
            getattr(item, "name", None), str
        ):
            registry[item.name] = item
            definitions.append(item.definition())
        else:
            raise TypeError(
                f"tools: {item!r} is neither a tool (an object with a `name` and a "
                "`definition()`, like notebook 02's Tool) nor a definition dict"
            )
    return registry, definitions


def tool_calls(message: Any) -> list[Any]:
    """The tool_use blocks of a response or of a message (SDK objects or dicts)."""
    return [b for b in content_blocks(message) if read_field(b, "type") == "tool_use"]


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
) -> tuple[AgentRun, Callable, Callable[[Any], dict]]:
    """The run's record and the loop's two seams, `sample` and `run_tool`, composed.

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
    run_tool = partial(dispatch, registry, approve=approve, result_limit=result_limit)
    return run, sample, kept(run_tool, run)


# From notebooks/06_handle_every_stop_reason.ipynb
def run_agent(client: Any, *, max_steps: int = 20, **options: Any) -> AgentRun:
    """Run notebook 04's loop with every piece in its seams; see `agent_parts` for options."""
    run, sample, run_tool = agent_parts(client, max_steps=max_steps, **options)
    try:
        response = agent_loop(sample, run_tool, run.messages, max_steps)
    except StepLimitReached as limit:
        return run.finish("step_limit", str(limit))
    except Ending as ending:
        return run.finish(ending.kind, str(ending), ending.__cause__ or ending)
    except KeyboardInterrupt as stop:
        return interrupted(run, stop)
    return finished(run, response)


def finished(run: AgentRun, response: Any) -> AgentRun:
    """The loop returned: the model stopped asking for tools. The run ends as it stopped."""
    if response.stop_reason in KNOWN_STOPS:
        return run.finish(response.stop_reason)
    detail = f"stop_reason={response.stop_reason!r}, which this loop does not know"
    return run.finish("unknown_stop_reason", detail)


def interrupted(run: AgentRun, stop: KeyboardInterrupt) -> AgentRun:
    """Ctrl-C. In the middle of a turn's tools, the history ends with calls that have no
    results yet: answer every one of them, so the history stays valid."""
    calls = tool_calls(run.messages[-1]) if run.messages else []
    if not calls:
        return run.finish("aborted", "interrupted while waiting for the model", stop)
    run.messages.append({"role": "user", "content": answer_unfinished(calls, run.answered)})
    return run.finish("aborted", "interrupted by the user during a tool call", stop)
