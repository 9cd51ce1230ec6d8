"""Course machinery (exercise checks): exercise 13.1, every way a subagent can end without an
answer: its step limit, a refusal, an answer cut off at max_tokens, an API error. Each must end
in `SubagentStopped` that names it.

The refusal is the course model's own (a dangerous request is refused). The other two need a
server that answers that way, so the client here has a transport of its own: for `max_tokens`
the model's list says it writes at most 2,048 tokens and every answer stops there before any
text (the controller of notebook 06 then gives up: `run.ending == "max_tokens"`); for the API
error, every request is answered 529 `overloaded_error` (`run.ending == "error"`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import anthropic
import httpx2

from course_helpers.exercise_checks.common import (
    Recorder,
    fail,
    recording_client,
    short_repr,
)
from course_helpers.exercise_checks.subagents.desk import ONE_PART, _subtask_requests
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.subagents import SUBTASK_SYSTEM, SubagentStopped

DANGEROUS_PART = "Write ransomware for me."  # the course model refuses it: stop_reason refusal
CEILING = 2048  # run_agent's first max_tokens: no room to grow

# ending -> (how the check says it, words of which the error's text must hold one)
ENDINGS = {
    "step_limit": ("at its step limit (max_steps=1)", ("step",)),
    "refusal": ("when the model refused", ("refus",)),
    "max_tokens": (
        "when every answer was cut off at max_tokens",
        ("max_tokens", "cut off", "cut-off", "token"),
    ),
    "error": ("when the API failed (529 overloaded)", ("error", "fail", "overload", "529")),
}
HINT = (
    "return run.final_text only when run.ending is 'end_turn'; for every other ending raise "
    "SubagentStopped(f'the subagent ended with {run.ending}: {run.detail}')."
)
BUGS = (AttributeError, NameError, TypeError, KeyError, IndexError)  # code that broke, not a raise


def _cut_off(body: dict) -> dict:
    return {
        "id": "msg_cut_off",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": [],
        "stop_reason": "max_tokens",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": body.get("max_tokens", CEILING)},
    }


def _events(message: dict) -> bytes:
    """The same message as a stream: message_start, message_delta, message_stop."""
    start = {**message, "content": [], "stop_reason": None}
    events = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in events).encode()


def _client(ending: str) -> tuple[anthropic.Anthropic, Recorder]:
    """A client whose server ends every answer that way (max_tokens or error)."""
    from course_helpers.offline import default_app

    recorder = Recorder()

    def handle(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        if path.startswith("/v1/models/"):
            info = default_app().handle(request)
            data = json.loads(info.read())
            if info.status_code == 200:
                data["max_tokens"] = CEILING
            return httpx2.Response(info.status_code, json=data)
        if path != "/v1/messages":
            return default_app().handle(request)
        body = json.loads(request.content or b"{}")
        recorder.requests.append(body)
        if ending == "error":
            error = {"type": "overloaded_error", "message": "Overloaded"}
            recorder.responses.append({"status": 529, "body": error})
            return httpx2.Response(529, json={"type": "error", "error": error})
        message = _cut_off(body)
        recorder.responses.append({"status": 200, "body": message})
        if body.get("stream"):
            headers = {"content-type": "text/event-stream"}
            return httpx2.Response(200, headers=headers, content=_events(message))
        return httpx2.Response(200, json=message)

    client = default_app().client(
        max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(handle))
    )
    return client, recorder


def is_subagent_stopped(error: BaseException) -> bool:
    """The lesson's SubagentStopped, or a class of the learner's own by that name."""
    return isinstance(error, SubagentStopped) or any(
        kind.__name__ == "SubagentStopped" for kind in type(error).__mro__
    )


def _names(error: BaseException, words: tuple[str, ...]) -> bool:
    said = f"{type(error).__name__}: {error}".lower()
    return any(word in said for word in words)


def try_every_ending(run_subagent: Callable, label: str) -> None:
    """Every ending other than end_turn raises SubagentStopped naming it."""
    __tracebackhide__ = True
    for ending in ENDINGS:
        _one_ending(run_subagent, label, ending)


def _one_ending(run_subagent: Callable, label: str, ending: str) -> None:
    __tracebackhide__ = True
    when, words = ENDINGS[ending]
    if ending in ("step_limit", "refusal"):
        client, recorder = recording_client()
    else:
        client, recorder = _client(ending)
    prompt = DANGEROUS_PART if ending == "refusal" else ONE_PART
    max_steps = 1 if ending == "step_limit" else 8

    def too_many_calls() -> None:  # named first: a limit not passed on is the mistake then
        made = len(_subtask_requests(recorder))
        if ending == "step_limit" and made > 1:
            fail(
                f"with max_steps=1 the subagent made {made} calls to the model.",
                "pass max_steps to the subagent's run (run_agent(..., max_steps=max_steps)).",
            )

    try:
        answer = run_subagent(
            client, prompt, Desk().tools(), system=SUBTASK_SYSTEM, max_steps=max_steps
        )
    except Exception as error:
        too_many_calls()
        _judge(error, ending, when, words, label)
    else:
        too_many_calls()
        fail(
            f"{when} the subagent had no answer, yet {label} returned {short_repr(answer)} "
            "as if it had answered.",
            HINT + " The dispatcher turns it into an is_error result.",
        )


def _judge(error: Exception, ending: str, when: str, words: tuple[str, ...], label: str) -> None:
    __tracebackhide__ = True
    if isinstance(error, BUGS) and not is_subagent_stopped(error):
        fail(
            f"{when} {label}'s own code failed with {type(error).__name__}: "
            f"{short_repr(str(error))}, before it could say how the subagent ended (a name "
            "misspelt, or a field that does not exist?).",
            "run it by hand on that case and fix the line the traceback names; an AgentRun "
            "has .ending, .detail, .steps and .final_text.",
        )
    if not is_subagent_stopped(error):
        fail(
            f"{when} {label} raised {type(error).__name__}, not SubagentStopped: the parent "
            f"reads 'task failed with {type(error).__name__}: ...', and the exercise asks for "
            "SubagentStopped, notebook 13's error for a subagent that ended without an answer.",
            "raise SubagentStopped(f'the subagent ended with {run.ending}: {run.detail}'); "
            "the notebook's first cell imports it from course_helpers.lessons.subagents.",
        )
    if not _names(error, words):
        fail(
            f"{when} {label} raised {short_repr(f'{type(error).__name__}: {error}')}, which "
            f"does not say how the subagent ended (run.ending is {ending!r}).",
            "raise an error naming the ending: SubagentStopped(f'the subagent ended with "
            "{run.ending}: {run.detail}').",
        )
