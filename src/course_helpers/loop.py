"""The agent loop, with `stop_reason` as its controller (built in notebooks 04 and 06).

One turn has five phases: sample (call the model) → check `stop_reason` → execute the tools it
asked for → append the assistant's whole content and one user message with the results →
go round again. `run_agent()` repeats turns until a terminal condition:

- `end_turn`, `stop_sequence`: the model is done;
- `refusal`: the model will not go on; the refused turn is taken out of the history (as the
  API's guidance says), so the person can rephrase it and call `run_agent()` again;
- `step_limit` or `budget_limit`: your program decides it has gone on long enough;
- `error`: an API error the SDK's retries and the loop's own recoveries could not fix;
- `aborted`: the person pressed Ctrl-C (or the stop button);
- `pending_approval`: a dangerous call waits for a person (see `course_helpers.approvals`).

Other notebooks change the loop through its parameters, not with a second loop: notebook 10
cuts tool results shorter (`result_limit`), adds prompt caching to every request (`prepare`)
and ends a run on a budget of what its calls cost (`budget`).

A cut-off answer is recovered, never run: cut-off text is kept and the model is asked to
continue where it stopped; a cut-off `tool_use` is thrown away and the turn retried with a
higher `max_tokens`, never above the model's maximum. Every call counts toward `max_steps`,
retries included.

Whatever the ending, `messages` is left a valid history: every `tool_use` in it is answered,
so you can add a user message and call `run_agent()` again. A history that ends with
unanswered tool calls (after `pending_approval`) is resumed by running those calls first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.dispatch import RESULT_LIMIT, call_parts, run_tool, tool_result
from course_helpers.tools import Tool

# max_tokens is multiplied by this after a cut-off turn, up to the model's maximum.
MAX_TOKENS_GROWTH = 4
# The model's maximum when the API cannot tell (`max_output_tokens`): what every current model
# can write in one answer.
MAX_TOKENS_CEILING = 64_000
# How many times in a row one turn may be retried by the loop itself.
MAX_RECOVERIES = 3
# Above this max_tokens the SDK refuses a call that does not stream ("may take longer than 10
# minutes": it allows 3,600 s for 128,000 tokens), so the loop streams it.
STREAM_ABOVE = 21_333
# Sent after an answer cut off in its text: the partial answer stays in the history.
CONTINUE = (
    "Your answer was cut off by the length limit. Continue exactly where it stopped, "
    "without repeating anything and without apologising."
)


class StepLimitReached(RuntimeError):
    """The loop made `max_steps` calls to the model and the model still wanted to go on."""


@dataclass
class AgentRun:
    """What a run did: the history, each call's usage, the last response and how it ended."""

    messages: list
    steps: int = 0
    response: Any = None
    ending: str = ""
    detail: str = ""
    usage: list[dict] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    error: BaseException | None = None
    continued: list[str] = field(default_factory=list)  # text of answers cut off and continued
    refused_turn: list = field(default_factory=list)  # messages taken out after a refusal

    def tokens(self, kind: str) -> int:
        """One usage field added up over the calls, e.g. `run.tokens("cache_read_input_tokens")`."""
        return sum(u.get(kind) or 0 for u in self.usage)

    @property
    def input_tokens(self) -> int:
        """Every input token the calls processed: uncached, written to the cache, read from it.

        A usage's own `input_tokens` counts only the uncached part (the tokens after the last
        cache breakpoint): that is `uncached_input_tokens` here.
        """
        return (
            self.uncached_input_tokens
            + self.tokens("cache_creation_input_tokens")
            + self.tokens("cache_read_input_tokens")
        )

    @property
    def uncached_input_tokens(self) -> int:
        return self.tokens("input_tokens")

    @property
    def output_tokens(self) -> int:
        return self.tokens("output_tokens")

    @property
    def final_text(self) -> str:
        """The text of the last answer (empty if there is none).

        An answer cut off by max_tokens and continued is joined back into one text.
        """
        content = getattr(self.response, "content", None) or []
        last = "\n".join(b.text for b in content if getattr(b, "type", "") == "text")
        return "".join(self.continued) + last

    def finish(self, ending: str, detail: str = "", error: BaseException | None = None):
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
    content = message.get("content") if isinstance(message, dict) else message.content
    if isinstance(content, str):
        return []
    return [b for b in content or [] if _kind(b) == "tool_use"]


def _kind(block: Any) -> str:
    return block.get("type", "") if isinstance(block, dict) else getattr(block, "type", "")


def run_tools(
    calls: list[Any],
    registry: dict[str, Tool],
    approve: Any = None,
    result_limit: int = RESULT_LIMIT,
) -> list[dict]:
    """One tool_result per call, in order. On Ctrl-C, the calls not finished are answered too.

    KeyboardInterrupt is re-raised after every call has its answer, so the history the
    caller appends stays valid; the caller decides what stopping means.
    """
    results: list[dict] = []
    try:
        for block in calls:
            results.append(run_tool(registry, block, approve=approve, result_limit=result_limit))
    except KeyboardInterrupt:
        for position, block in enumerate(calls[len(results) :]):
            message = (
                "Interrupted by the user while it was running."
                if position == 0
                else "Not run: the user interrupted the run."
            )
            results.append(tool_result(call_parts(block)[0], message, is_error=True))
        raise _Interrupted(results) from None
    return results


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C during tool execution, carrying the results that answer every call."""

    def __init__(self, results: list[dict]) -> None:
        super().__init__("interrupted by the user")
        self.results = results


def compact_history(messages: list, keep_turns: int = 2) -> int:
    """Shorten a history in place; return how many messages were removed (0 if none could be).

    The first user message (the task) and the last `keep_turns` assistant turns with their
    results stay. The turns in between are replaced by a short note in the first message
    saying which tools were called, so pairs stay valid: a kept tool_use keeps its result.
    """
    starts = [i for i, m in enumerate(messages) if _role(m) == "assistant"]
    if len(starts) <= keep_turns:
        return 0
    cut = starts[-keep_turns]
    if cut < 3:
        return 0
    dropped = messages[1:cut]
    calls = [
        f"{name}({_short(arguments)})"
        for message in dropped
        for _, name, arguments in map(call_parts, tool_calls(message))
    ]
    note = (
        f"[{len(dropped)} earlier messages were removed to fit the context window. "
        f"Tools called in them: {', '.join(calls) or 'none'}.]"
    )
    first = messages[0]
    content = first["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    messages[:] = [{**first, "content": [*blocks, {"type": "text", "text": note}]}, *messages[cut:]]
    return len(dropped)


def drop_refused_turn(messages: list) -> list:
    """Take the refused turn out of a history, in place; return the messages taken out.

    The refused turn is the person's last message with text of their own (with the user
    messages right before it: two user messages in a row are one turn), and everything after
    it. Left in place, a rephrase sent after it would be merged into it and refused again.
    Tool results in that turn answer the turn before it, so they stay.
    """
    for index in range(len(messages) - 1, -1, -1):
        if _role(messages[index]) == "user" and _own_text(messages[index]):
            break
    else:
        return []
    while index > 0 and _role(messages[index - 1]) == "user":
        index -= 1
    removed = messages[index:]
    del messages[index:]
    content = removed[0]["content"]
    results = [b for b in content if _kind(b) == "tool_result"] if isinstance(content, list) else []
    if results:
        messages.append({"role": "user", "content": results})
    return removed


def _own_text(message: dict) -> bool:
    """True when a message says something itself (not only tool results)."""
    content = message["content"]
    return (
        bool(content.strip())
        if isinstance(content, str)
        else any(_kind(b) == "text" for b in content)
    )


def _role(message: Any) -> str:
    return message.get("role", "") if isinstance(message, dict) else getattr(message, "role", "")


def _short(value: Any, limit: int = 60) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in value.items()) if isinstance(value, dict) else ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_prompt_too_long(error: anthropic.APIStatusError) -> bool:
    return error.status_code in (400, 413) and "prompt is too long" in str(error.message)


def describe_api_error(error: anthropic.APIStatusError) -> str:
    """One line: whose problem it is, the status and the API's own message."""
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    message = inner.get("message") or error.message
    if error.status_code in (408, 409, 429) or error.status_code >= 500:
        kind = "an API error the retries did not fix"
    elif error.status_code == 200:
        kind = "an error event in the stream"
    else:
        kind = "a bug in the request (not retried)"
    return f"{kind}: {error.status_code} {message}"


def max_output_tokens(client: anthropic.Anthropic, model: str) -> int:
    """The most `model` may write in one answer, as the API's model list says.

    A server that does not list its models gets MAX_TOKENS_CEILING.
    """
    try:
        return client.models.retrieve(model).max_tokens or MAX_TOKENS_CEILING
    except anthropic.APIError:
        return MAX_TOKENS_CEILING


def sample(client: anthropic.Anthropic, request: dict, on_text: Callable | None = None):
    """Phase 1: one call to the model. Streams when `on_text` wants the text as it comes,
    and for long answers, which the SDK only takes streamed (STREAM_ABOVE)."""
    if on_text is None and request["max_tokens"] <= STREAM_ABOVE:
        return client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        for text in stream.text_stream:
            if on_text is not None:
                on_text(text)
        return stream.get_final_message()


def run_agent(
    client: anthropic.Anthropic,
    *,
    messages: list,
    tools: Any,
    system: str | None = None,
    model: str = MODEL,
    max_tokens: int = 2048,
    max_tokens_ceiling: int | None = None,
    max_steps: int = 20,
    max_total_tokens: int | None = None,
    budget: Callable[[AgentRun], str | None] | None = None,
    stop_sequences: list[str] | None = None,
    approve: Any = None,
    result_limit: int = RESULT_LIMIT,
    prepare: Callable[[dict], dict] | None = None,
    on_turn: Callable[[AgentRun], None] | None = None,
    on_text: Callable[[str], None] | None = None,
) -> AgentRun:
    """Run turns until a terminal condition; return the AgentRun (see the module docstring).

    Checked before every call to the model, in this order:
    - `max_steps`: the number of calls to the model, retries included;
    - `max_total_tokens`: every token processed so far, input (cached or not) plus output;
    - `budget(run)`: your own limit. It returns None to go on, or a reason to stop, which ends
      the run with `budget_limit` (notebook 10's `Budget` counts what the calls cost).

    After a cut-off answer `max_tokens` grows fourfold, up to `max_tokens_ceiling` (by default
    the model's own maximum, asked from the API the first time it is needed).

    Two settings change what the model is sent:
    - `result_limit`: tool results are cut to this many characters (head and tail kept)
      before they enter the history, where every later call resends them;
    - `prepare(request)`: applied to each request dict just before it is sent; it returns
      the request to send. `request["messages"]` is the history itself: change a copy (as
      notebook 10's `with_cache` does), unless the change should stay for later turns.
    """
    registry, definitions = split_tools(tools)
    run = AgentRun(messages)
    limit, ceiling, recoveries = max_tokens, max_tokens_ceiling, 0
    if messages and _role(messages[-1]) == "assistant" and tool_calls(messages[-1]):
        # Resume: the last turn's calls still wait for their results (after pending_approval).
        ending = _answer_calls(run, tool_calls(messages[-1]), registry, approve, result_limit)
        if ending:
            return ending
    while True:
        if run.steps >= max_steps:
            return run.finish("step_limit", f"stopped after {run.steps} calls to the model")
        spent = run.input_tokens + run.output_tokens
        if max_total_tokens is not None and spent >= max_total_tokens:
            return run.finish("budget_limit", f"{spent} tokens used of {max_total_tokens}")
        reason = budget(run) if budget is not None else None
        if reason is not None:
            return run.finish("budget_limit", reason)
        request = {"model": model, "max_tokens": limit, "messages": messages}
        if definitions:
            request["tools"] = definitions
        if system:
            request["system"] = system
        if stop_sequences:
            request["stop_sequences"] = stop_sequences
        if prepare is not None:
            request = prepare(request)
        # Phase 1: sample. Every call counts toward max_steps, a retried one too.
        run.steps += 1
        try:
            response = sample(client, request, on_text)
        except KeyboardInterrupt as stop:
            return run.finish("aborted", "interrupted while waiting for the model", stop)
        except anthropic.APIStatusError as error:
            if is_prompt_too_long(error) and recoveries < MAX_RECOVERIES:
                removed = compact_history(messages)
                if removed:  # nothing removed: the same request would fail the same way
                    recoveries += 1
                    run.log.append(
                        f"step {run.steps}: prompt too long: removed {removed} old messages, "
                        "retrying"
                    )
                    continue
            if error.status_code == 200 and recoveries < MAX_RECOVERIES:
                recoveries += 1  # an error event inside a stream: nothing was appended yet
                run.log.append(
                    f"step {run.steps}: stream error ({describe_api_error(error)}), "
                    "retrying the turn"
                )
                continue
            return run.finish("error", describe_api_error(error), error)
        except anthropic.APIConnectionError as error:
            return run.finish("error", f"connection failed after retries: {error}", error)
        run.response = response
        run.usage.append(response.usage.model_dump(exclude_none=True))
        run.log.append(f"step {run.steps}: stop_reason={response.stop_reason}")
        if response.stop_reason == "max_tokens" and ceiling is None:
            ceiling = max_output_tokens(client, model)  # asked once, when first needed
        # Phase 2: stop_reason decides what happens next.
        ended = None
        match response.stop_reason:
            case "tool_use":
                # Phases 3 and 4: run the calls, append the whole turn and the results.
                messages.append({"role": "assistant", "content": response.content})
                recoveries, run.continued = 0, []  # a raised max_tokens stays raised
                ended = _answer_calls(run, tool_calls(response), registry, approve, result_limit)
            case "pause_turn":
                # A server tool paused a long turn: send it back as it is, no new user message.
                messages.append({"role": "assistant", "content": response.content})
            case "max_tokens" if _cut_call(response) or not _text(response):
                # Cut inside a tool call (yours, or a server tool's that never ran), or before
                # any text: nothing in it can be used, and a half-written call must never run.
                # Drop the turn, ask again with more room.
                if limit >= ceiling or recoveries >= MAX_RECOVERIES:
                    ended = run.finish("max_tokens", f"still cut off at max_tokens={limit}")
                else:
                    recoveries += 1
                    limit = min(limit * MAX_TOKENS_GROWTH, ceiling)
                    call = _cut_call(response)
                    where = f"inside {call} (not run)" if call else "before any text"
                    run.log.append(f"cut off {where}: retrying with {limit=}")
            case "max_tokens":
                # Cut off in its text: keep what was written, ask for the rest.
                limit = min(limit * MAX_TOKENS_GROWTH, ceiling)
                messages.append({"role": "assistant", "content": response.content})
                messages.append({"role": "user", "content": CONTINUE})
                run.continued.append(_text(response))
                run.log.append(f"cut off in its text: kept, asked to continue with {limit=}")
            case "model_context_window_exceeded":
                # The window is full: only a shorter history helps, so compact, then retry.
                removed = compact_history(messages) if recoveries < MAX_RECOVERIES else 0
                if removed:
                    recoveries += 1
                    run.log.append(f"context window full: removed {removed} old messages")
                else:
                    if _text(response) and not tool_calls(response):
                        messages.append({"role": "assistant", "content": response.content})
                    why = "nothing left to compact" if recoveries < MAX_RECOVERIES else "still full"
                    ended = run.finish(response.stop_reason, why)
            case "refusal":
                # Not resent as it is: the refused turn leaves the history, ready for a rephrase.
                run.refused_turn = drop_refused_turn(messages)
                details = response.stop_details
                category = getattr(details, "category", None) or "unspecified"
                ended = run.finish("refusal", f"category {category}")
            case "end_turn" | "stop_sequence":
                messages.append({"role": "assistant", "content": response.content})
                ended = run.finish(response.stop_reason)
            case other:
                if response.content:
                    messages.append({"role": "assistant", "content": response.content})
                ended = run.finish(str(other), "a stop reason this loop does not know")
        if on_turn is not None:
            on_turn(run)
        if ended is not None:
            return ended


def _text(response: Any) -> str:
    """The text a response wrote (thinking and tool calls left out)."""
    return "".join(b.text for b in response.content if getattr(b, "type", "") == "text")


def _cut_call(response: Any) -> str:
    """The call a cut-off response stopped in: "a tool_use", "a server tool call" (the server
    never ran it: the response ends in its request), or "" when it stopped elsewhere."""
    if tool_calls(response):
        return "a tool_use"
    last = response.content[-1].type if response.content else ""
    return "a server tool call" if last == "server_tool_use" else ""


def _answer_calls(
    run: AgentRun, calls: list[Any], registry: dict[str, Tool], approve: Any, result_limit: int
) -> AgentRun | None:
    """Phases 3 and 4 for one turn's calls; an AgentRun if the run must end here, else None."""
    try:
        results = run_tools(calls, registry, approve, result_limit)
    except _Interrupted as stop:
        run.messages.append({"role": "user", "content": stop.results})
        return run.finish("aborted", "interrupted by the user during a tool call", stop)
    except Exception as error:
        if type(error).__name__ != "PendingApproval":
            raise
        return run.finish("pending_approval", str(error), error)
    run.messages.append({"role": "user", "content": results})
    run.log.append("ran " + ", ".join(f"{c.name}" for c in calls))
    return None
