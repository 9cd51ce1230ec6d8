"""The stop-reason controller: a wrapper of the loop's `sample` seam (built in notebook 06).

Notebook 04's loop returns on any stop reason but `tool_use`, so a cut-off or refused answer
would look finished. `controlled(sample, run)` wraps the function that samples the model and
decides, before the loop sees a response, what each stop reason needs:

- `tool_use`, `end_turn`, `stop_sequence` (and a stop reason this code does not know): passed
  to the loop as they are;
- `pause_turn`: a server tool paused a long turn; the paused turn is sent back as it is;
- `max_tokens`: cut-off text is kept and the model is asked to continue where it stopped; a
  cut-off `tool_use` is never run: the turn is asked again with a higher `max_tokens`, never above
  the model's maximum;
- `model_context_window_exceeded`, and a 400/413 "prompt is too long": old turns are compacted
  (`course_helpers.lessons.history`), then the turn is asked again;
- `refusal`: the refused turn leaves the history, so the person can rephrase it;
- an error event inside a stream: the turn is asked again.

What cannot be recovered raises an `Ending`, a typed reason to end the run; `run_agent`
(`course_helpers.lessons.agent`) turns it into the run's ending. Each turn gets at most
`MAX_RECOVERIES` retries. `streaming_sampler` is notebook 04's `sampler` that can stream:
for `on_text`, and for answers longer than the SDK takes without streaming.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import anthropic

from course_helpers.lessons.history import compact_history, drop_refused_turn

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.controller`. Edit those cells, then run `make promote`.


# From notebooks/06_handle_every_stop_reason.ipynb
def text_of(response: Any) -> str:
    """The text a response wrote (thinking and tool calls left out)."""
    return "".join(b.text for b in response.content if b.type == "text")


# From notebooks/06_handle_every_stop_reason.ipynb
# max_tokens is multiplied by this after a cut-off turn, up to the model's maximum.
MAX_TOKENS_GROWTH = 4
# The model's maximum when the API cannot tell (`max_output_tokens`): what every current model
# can write in one answer.
MAX_TOKENS_CEILING = 64_000
# How many times one turn may be retried by the controller.
MAX_RECOVERIES = 3
# Above this max_tokens the SDK refuses a call that does not stream ("may take longer than 10
# minutes": it allows 3,600 s for 128,000 tokens), so the sampler streams it.
STREAM_ABOVE = 21_333
# Sent after an answer cut off in its text: the partial answer stays in the history.
CONTINUE = (
    "Your answer was cut off by the length limit. Continue exactly where it stopped, "
    "without repeating anything and without apologising."
)
# How a run can end: the model's own stop reasons, and the endings your program decides.
EndingKind = Literal[
    "end_turn",
    "stop_sequence",
    "unknown_stop_reason",
    "max_tokens",
    "model_context_window_exceeded",
    "refusal",
    "error",
    "step_limit",
    "budget_limit",
    "aborted",
]


class Ending(Exception):
    """A reason to end a run before the model's answer; `kind` becomes the run's ending."""

    kind: EndingKind = "error"


class CutOff(Ending):
    kind = "max_tokens"


class WindowFull(Ending):
    kind = "model_context_window_exceeded"


class Refused(Ending):
    kind = "refusal"


class APIFailed(Ending):
    kind = "error"


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


def streaming_sampler(client, on_text=None, prepare=None, **settings):
    """Notebook 04's `sampler`, streaming when `on_text` wants the text as it comes, and for
    long answers, which the SDK only takes streamed (STREAM_ABOVE). The text of a later turn
    starts on a new line: `on_text` gets a "\n" first unless the text before ended one.
    `prepare(request)`, if given, returns the request to send instead (notebook 10 adds cache
    breakpoints with it)."""

    last = ""  # the last text on_text received

    def sample(messages, **changes):
        nonlocal last
        request = {**settings, **changes, "messages": messages}
        if prepare is not None:
            request = prepare(request)
        if on_text is None and request["max_tokens"] <= STREAM_ABOVE:
            return client.messages.create(**request)
        with client.messages.stream(**request) as stream:
            first = True
            for text in stream.text_stream:
                if on_text is not None and text:
                    new_turn = messages[-1]["role"] != "assistant"  # not a paused turn resumed
                    if first and new_turn and last and not last.endswith("\n"):
                        on_text("\n")  # two turns' texts never run together
                    first, last = False, text
                    on_text(text)
            return stream.get_final_message()

    return sample


# From notebooks/06_handle_every_stop_reason.ipynb
def controlled(sample, run, *, max_tokens: int, ceiling: Callable[[], int]):
    """Wrap `sample`: recover what can be recovered, raise an Ending for the rest.

    `run` keeps the record (`log`, `continued`, `refused_turn`: see `course_helpers.lessons.agent`).
    `ceiling()` is the most max_tokens may grow to; it is asked once, when first needed.
    """
    limit, most = max_tokens, None

    def sample_controlled(messages, **changes):
        nonlocal limit, most
        retries = 0  # per turn; a raised max_tokens stays raised for the turns after
        while True:
            try:
                response = sample(messages, **{**changes, "max_tokens": limit})
            except anthropic.APIStatusError as error:
                can_retry = retries < MAX_RECOVERIES
                removed = (
                    compact_history(messages) if can_retry and is_prompt_too_long(error) else 0
                )
                if removed:
                    retries += 1
                    run.log.append(
                        f"step {run.steps}: prompt too long: removed {removed} old messages, "
                        "retrying"
                    )
                    continue
                if can_retry and error.status_code == 200:  # an error event inside a stream
                    retries += 1
                    run.log.append(
                        f"step {run.steps}: stream error ({describe_api_error(error)}), "
                        "retrying the turn"
                    )
                    continue
                raise APIFailed(describe_api_error(error)) from error
            except anthropic.APIConnectionError as error:
                raise APIFailed(f"connection failed after retries: {error}") from error
            if response.stop_reason == "max_tokens" and most is None:
                most = ceiling()  # asked once, when first needed
            match response.stop_reason:
                case "pause_turn":
                    # A server tool paused a long turn: send it back as it is, no user message.
                    messages.append({"role": "assistant", "content": response.content})
                case "max_tokens" if cut_call(response) or not text_of(response):
                    # Cut inside a call, or before any text: nothing in it can be used, and a
                    # half-written call must never run. Ask again with more room.
                    if limit >= most or retries >= MAX_RECOVERIES:
                        raise CutOff(f"still cut off at max_tokens={limit}")
                    retries += 1
                    limit = min(limit * MAX_TOKENS_GROWTH, most)
                    call = cut_call(response)
                    where = f"inside {call} (not run)" if call else "before any text"
                    run.log.append(f"cut off {where}: retrying with {limit=}")
                case "max_tokens":
                    # Cut off in its text: keep what was written, ask for the rest.
                    limit = min(limit * MAX_TOKENS_GROWTH, most)
                    messages.append({"role": "assistant", "content": response.content})
                    messages.append({"role": "user", "content": CONTINUE})
                    run.continued.append(text_of(response))
                    run.log.append(f"cut off in its text: kept, asked to continue with {limit=}")
                case "model_context_window_exceeded":
                    # The window is full: only a shorter history helps.
                    removed = compact_history(messages) if retries < MAX_RECOVERIES else 0
                    if removed:
                        retries += 1
                        run.log.append(f"context window full: removed {removed} old messages")
                        continue
                    if text_of(response) and not cut_call(response):
                        messages.append({"role": "assistant", "content": response.content})
                    raise WindowFull(
                        "nothing left to compact" if retries < MAX_RECOVERIES else "still full"
                    )
                case "refusal":
                    # Not resent as it is: the refused turn leaves the history, ready for a rephrase.
                    run.refused_turn = drop_refused_turn(messages)
                    category = getattr(response.stop_details, "category", None)
                    raise Refused(f"category {category or 'unspecified'}")
                case _:
                    if response.stop_reason == "tool_use":
                        run.continued.clear()  # continued text belongs to the final answer only
                    return response

    return sample_controlled


def cut_call(response: Any) -> str:
    """The call a cut-off response stopped in: "a tool_use", "a server tool call" (the server
    never ran it: the response ends in its request), or "" when it stopped elsewhere."""
    kinds = [block.type for block in response.content]
    if "tool_use" in kinds:
        return "a tool_use"
    return "a server tool call" if kinds[-1:] == ["server_tool_use"] else ""
