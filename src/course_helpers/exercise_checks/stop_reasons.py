"""Checks for notebook 06, Handle every stop reason.

Longer than most modules because each requirement below has a scenario of its own (a review
cut inside its call, a ceiling with no room, an essay cut every 64 tokens, a paused search, a
refusal and its rephrase) and a message for each way of getting it wrong.

What each check enforces (and `tests/exercise_variants/test_06_handle_every_stop_reason.py`
proves with wrong and right variants):

`check_recover_cut_off(recover_cut_off)`, the max_tokens policy for one response:
- cut-off text is kept: the assistant's whole content (thinking included) is appended, then a
  user message that asks the model to continue where it stopped, without repeating anything
  and without apologising (the wording is checked: a real model asked only to "continue" often
  does both; then the check asks the course model and fails if it starts the essay again); the
  next max_tokens is at least the same, at most the ceiling;
- text cut off at the ceiling is still kept and continued (each piece fits in the same room);
- a response cut off before any text (no content, or only thinking) is treated like a cut-off
  call: nothing appended, more room (it is never read by its last block);
- a cut-off tool_use is never appended; the next max_tokens is higher, but never above the
  ceiling (the model's maximum); at the ceiling already, the answer is None (stop).

`check_cut_offs(control)`, the controller as a wrapper of the loop's `sample` seam. Every run is
notebook 04's unchanged `agent_loop(control(sample, max_tokens=..., ceiling=...), run_tool,
messages, max_steps)`, where `sample` is notebook 04's `sampler` (no max_tokens of its own)
wrapped innermost by a counter that raises StepLimitReached once `max_steps` calls are made:
- every call goes through that `sample`, with a max_tokens; a controller that calls the model
  some other way fails;
- a cut-off call never runs, never reaches the history, and the turn is retried with more
  room; the loop then returns the review's final answer (end_turn);
- every assistant turn in the history is a response's content, whole (thinking included);
- no request asks for more than the ceiling (16,000 in the checks: a non-streaming request
  above about 21,000 is refused by the SDK itself, so the model's maximum, 128,000, is out of
  reach; a controller that jumps straight to the ceiling is fine); when no more room can be made the controller
  raises an `Ending` of kind "max_tokens" (notebook 06's CutOff) after two calls, and hands
  nothing to the loop;
- every call counts toward max_steps, retries included: with max_steps=1 and a cut-off first
  answer, one call, nothing run, and StepLimitReached reaches the loop's caller (a controller
  that catches it, to retry or to hand back the last answer, fails);
- cut-off text is continued: the answer's pieces, joined, are the essay, written once;
- what the caller passes to the controlled sample (`**changes`, e.g. `system=...`) reaches the
  request, with the controller's max_tokens.

`check_pause_and_refusal(control)`, the same runs: see `pause_and_refusal`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    NEGATION,
    NO_REPEAT,
    Recorder,
    as_plain,
    fail,
    max_output_tokens,
    passed,
    recording_client,
    require_pairing,
    reviewer_kit,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.lessons.controller import Ending
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.loop import StepLimitReached, agent_loop, sampler
from course_helpers.lessons.pairing import content_blocks

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
ESSAY = "Write a long essay about agents."
REVIEW = "Review PR #482."
# The largest max_tokens a run asks for: the model's maximum (128,000) is out of reach of a
# non-streaming request, which the SDK refuses above about 21,000 (ValueError: streaming is
# required), so the checks, like the exercise, stop at 16,000. Some checks pretend it is smaller.
NON_STREAMING_LIMIT = 16_000
CEILING = min(max_output_tokens(), NON_STREAMING_LIMIT)
# An answer that opens with a thinking block, whatever the model does by default.
THINKING = {"type": "adaptive"}


def _ask(client: Any, text: str, **options: Any) -> Any:
    request = {"model": MODEL, "max_tokens": 1024, **options}
    return client.messages.create(messages=[{"role": "user", "content": text}], **request)


def _definitions() -> list[dict]:
    kit = reviewer_kit()
    kit.close()
    return [t.definition() for t in kit.tools.values()]


def _calls(response: Any) -> list[Any]:
    return [b for b in response.content if b.type == "tool_use"]


def cutting_limit(definitions: list[dict]) -> tuple[int, Any]:
    """A max_tokens that cuts the review's first answer inside its tool_use.

    Preferably where the call's input is half-written ({"pr": 4}): the most dangerous cut.
    """
    client, _ = recording_client()
    found = []
    for limit in range(1, 400):
        response = _ask(client, REVIEW, max_tokens=limit, tools=definitions)
        if response.stop_reason != "max_tokens" and found:
            break
        if response.stop_reason == "max_tokens" and _calls(response):
            found.append((limit, response))
            if _calls(response)[0].input not in ({}, {"pr": 482}):
                return limit, response
    if not found:
        raise RuntimeError("the course model never cut the review inside its tool_use")
    return found[0]


def whole_essay() -> str:
    client, _ = recording_client()
    return text_of(_ask(client, ESSAY, max_tokens=8192).content)


# -- 1. recover_cut_off(messages, response, max_tokens, ceiling) ------------------------------


def check_recover_cut_off(recover_cut_off: Callable) -> None:
    """06 · `recover_cut_off(...)`: keep and continue cut-off text; never keep a cut-off call."""
    __tracebackhide__ = True
    _check_cut_text(recover_cut_off)
    _check_cut_call(recover_cut_off)
    _check_cut_before_text(recover_cut_off)
    passed("recover_cut_off keeps cut-off text and never keeps a cut-off call")


def _check_cut_text(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    client, _ = recording_client()
    response = _ask(client, ESSAY, max_tokens=64, thinking=THINKING)
    messages: list = [{"role": "user", "content": ESSAY}]
    limit = run_learner(recover_cut_off, messages, response, 64, CEILING, name="recover_cut_off")
    if len(messages) == 1:
        fail(
            "for an essay cut off in its text, recover_cut_off appended nothing: the 64 tokens "
            "already written are thrown away, and the model will start again from the top.",
            "keep the cut-off answer: append it as an assistant message, then ask to continue.",
        )
    odd = [m for m in messages[1:] if not isinstance(m, dict)]
    if odd:
        fail(
            f"recover_cut_off appended {short_repr(odd[0], 60)} to messages, not a message: the "
            "API takes dicts with a role and a content.",
            "append {'role': 'assistant', 'content': response.content}, then "
            "{'role': 'user', 'content': '...'}.",
        )
    kept = messages[1]
    if kept.get("role") != "assistant":
        fail(
            f"the message after the task is a {kept.get('role')!r} message; the cut-off answer "
            "must come first, as the assistant's turn.",
            "append {'role': 'assistant', 'content': response.content}, then your request.",
        )
    whole = as_plain(response.content)
    if as_plain(content_blocks(kept)) != whole:
        dropped = [b["type"] for b in whole if b not in as_plain(content_blocks(kept))]
        added = [b for b in as_plain(content_blocks(kept)) if b not in whole]
        if not dropped and added:
            fail(
                f"the cut-off answer was appended whole, plus a block of your own in the same "
                f"assistant turn ({short_repr(added[0], 50)}): the turn must be the response's "
                "content exactly; the model did not write that block.",
                "append response.content as it is, and put your request to go on in a user "
                "message after it.",
            )
        fail(
            f"the cut-off answer was not appended whole (missing: {dropped or 'some blocks'}).",
            "append response.content as it is: every block, the thinking block included.",
        )
    if len(messages) == 2:
        fail(
            "after the cut-off answer the history ends with the assistant's turn: the model "
            "does not know it should go on, and newer models refuse a final assistant message.",
            "append a user message asking the model to continue where it stopped, "
            "without repeating anything or apologising.",
        )
    if (
        len(messages) > 3
        or messages[2].get("role") != "user"
        or not text_of(content_blocks(messages[2]))
    ):
        fail(
            f"after the cut-off answer the history holds {short_repr(messages[2:])}; expected "
            "one user message with text.",
            "append one user message asking the model to continue where it stopped.",
        )
    if not isinstance(limit, int) or isinstance(limit, bool):
        fail(
            f"for cut-off text recover_cut_off returned {short_repr(limit)}; the run can go on, "
            "so return the max_tokens for the next call (a whole number).",
            "return max_tokens as it was, or raised (never above the ceiling).",
        )
    if not 64 <= limit <= CEILING:
        fail(
            f"for cut-off text at max_tokens=64 recover_cut_off returned {limit}; keep it "
            f"between 64 and the ceiling ({CEILING:,}).",
            "return max_tokens, or min(max_tokens * 4, ceiling).",
        )
    rest = client.messages.create(
        model=MODEL, max_tokens=4096, thinking=THINKING, messages=messages
    )
    written, more = text_of(response.content), text_of(rest.content)
    if not more or not whole_essay().startswith(written + more):
        started_again = more.lstrip().startswith("1. An agent")
        fail(
            "asked with your message, the model "
            + ("started the essay again from the beginning" if started_again else "did not go on")
            + f": {text_of(content_blocks(messages[2]))!r} does not ask it to continue.",
            "ask it to continue exactly where it stopped, without repeating anything.",
        )
    _check_continue_wording(text_of(content_blocks(messages[2])))
    messages = [{"role": "user", "content": ESSAY}]
    at_ceiling = run_learner(recover_cut_off, messages, response, 64, 64, name="recover_cut_off")
    if len(messages) != 3 or at_ceiling != 64:
        fail(
            f"for text cut off at max_tokens=64 with a ceiling of 64, recover_cut_off returned "
            f"{short_repr(at_ceiling)} and added {len(messages) - 1} message(s): text is kept and "
            "continued even at the ceiling (each piece fits in the same room).",
            "decide on the kind of cut first: for cut-off text, keep it, ask to continue and "
            "return min(..., ceiling); only a cut-off call stops at the ceiling.",
        )


_NO_APOLOGY = re.compile(
    NEGATION + r"[^.!?]{0,40}\b(?:apologi[sz]|apology|apologies|sorry)", re.IGNORECASE
)


def _check_continue_wording(said: str) -> None:
    """The request to continue says: from where it stopped, no repeat, no apology."""
    __tracebackhide__ = True
    missing = [
        what
        for what, pattern in (
            ("not to repeat itself", NO_REPEAT),
            ("not to apologise", _NO_APOLOGY),
        )
        if not pattern.search(said)
    ]
    if missing:
        fail(
            f"your request to continue, {said!r}, does not tell the model "
            f"{' or '.join(missing)}: a real model asked only to go on often starts the "
            "sentence again, or says sorry first, and the pieces no longer join.",
            "ask it to continue exactly where it stopped, without repeating anything and "
            "without apologising.",
        )


def _cut_before_text(blocks: list[dict]) -> Any:
    """A response cut off before it wrote any text: nothing at all, or only its thinking."""
    import anthropic

    return anthropic.types.Message.model_validate(
        {
            "id": "msg_check_cut",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": blocks,
            "stop_reason": "max_tokens",
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 64},
        }
    )


def _check_cut_before_text(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    thinking = {"type": "thinking", "thinking": "The diff first, then", "signature": "sig_check"}
    for label, blocks in (("no content at all", []), ("only a thinking block", [thinking])):
        messages: list = [{"role": "user", "content": REVIEW}]
        try:
            got = recover_cut_off(messages, _cut_before_text(blocks), 64, CEILING)
        except Exception as error:
            fail(
                f"for a response cut off before any text ({label}), recover_cut_off raised "
                f"{type(error).__name__}: {error}.",
                "decide on what the content holds (any tool_use? any text?), not on its last "
                "block: there may be no block at all.",
            )
        if len(messages) != 1 or not isinstance(got, int) or got <= 64:
            fail(
                f"for a response cut off before any text ({label}), recover_cut_off added "
                f"{len(messages) - 1} message(s) and returned {short_repr(got)}: there is "
                "nothing to keep, so the same request needs more room.",
                "treat it like a cut-off call: append nothing, return a higher max_tokens.",
            )


def _check_cut_call(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    limit, response = cutting_limit(_definitions())
    cut_input = _calls(response)[0].input
    for max_tokens, ceiling in ((limit, CEILING), (1_000, 1_500), (1_500, 1_500)):
        messages: list = [{"role": "user", "content": REVIEW}]
        got = run_learner(
            recover_cut_off, messages, response, max_tokens, ceiling, name="recover_cut_off"
        )
        if len(messages) != 1:
            fail(
                "a response cut off inside its tool_use was added to the history: its input is "
                f"half-written ({cut_input}), and whatever answers it answers the wrong call.",
                "for a cut-off tool_use append nothing: the turn is dropped and asked again.",
            )
        at = f"with max_tokens={max_tokens:,} and a ceiling of {ceiling:,}"
        if max_tokens >= ceiling:
            if got is not None:
                fail(
                    f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: "
                    "the model cannot write more than its maximum, so no retry can make room.",
                    "return None when max_tokens has reached the ceiling: the run must stop.",
                )
            continue
        if isinstance(got, float | str):
            fail(
                f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: "
                "max_tokens is a whole number of tokens, and the API refuses anything else.",
                "return an int, e.g. min(max_tokens * 4, ceiling) (or int(...) around a product).",
            )
        if got is None or not isinstance(got, int) or got <= max_tokens:
            fail(
                f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: the "
                "same request would be cut off again.",
                "return a higher max_tokens for the retry, e.g. four times as many.",
            )
        if got > ceiling:
            fail(
                f"{at}, recover_cut_off returned {got:,}: the API refuses a max_tokens above "
                "the model's maximum (400), so that retry would fail.",
                "cap the new limit: min(max_tokens * 4, ceiling).",
            )


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


def check_cut_offs(control: Callable) -> None:
    """06 · `control(sample, ...)`: in notebook 04's loop, cut-off calls never run, cut-off text
    is continued, every call counts toward max_steps, max_tokens never passes the ceiling."""
    __tracebackhide__ = True
    limit, _ = cutting_limit(_definitions())
    _check_call_is_retried(control, limit)
    _check_ceiling(control, limit)
    _check_retries_count(control, limit)
    _check_text_is_continued(control)
    _check_changes_passed(control)
    passed("control recovers from every cut-off, within its limits")


def _check_changes_passed(control: Callable) -> None:
    """What the caller passes to the controlled sample (`**changes`) reaches the request."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    controlled = run_learner(
        control,
        counted(sampler(client, model=MODEL), 3),
        max_tokens=1024,
        ceiling=CEILING,
        name="control",
    )
    if not callable(controlled):
        return  # said by the runs below, with the loop
    system = "Answer in one short sentence."
    run_learner(controlled, [{"role": "user", "content": "Hello!"}], system=system, name="control")
    if not recorder.requests:
        return  # a controller calling the model some other way: said by the runs above
    if recorder.requests[-1].get("system") != system:
        fail(
            f"called as sample(messages, system={system!r}), your controller's sample "
            "dropped what the caller passed: the request went without it (a wrapper around "
            "yours, or the loop's caller, may change any field for one call).",
            "pass the caller's changes on with your limit: "
            "sample(messages, **{**changes, 'max_tokens': limit}).",
        )


def _check_call_is_retried(control: Callable, limit: int) -> None:
    __tracebackhide__ = True
    run = run_review(control, max_tokens=limit, ceiling=CEILING)
    wrong = [args for name, args in run.ran if name == "get_diff" and args != {"pr": 482}]
    if wrong:
        fail(
            f"the loop ran get_diff({wrong[0]}): a tool_use cut off by max_tokens, whose "
            "input was half-written (482 cut short). Your controller let it through as a call.",
            "a response that stopped on 'max_tokens' never reaches the loop as a tool_use.",
        )
    kept = _cut_calls_kept(run)
    if kept:
        fail(
            "your controller handed a response cut off inside its tool_use to the loop, which "
            f"appended its half-written call ({kept[0].get('name')} with input "
            f"{kept[0].get('input')}) and stopped, as if the review were done.",
            "on 'max_tokens', call recover_cut_off and sample again with the max_tokens it "
            "returns; only a complete answer goes back to the loop.",
        )
    if len(run.sent) < 2 or max(run.sent[1:]) <= limit:
        fail(
            f"after a tool_use cut off at max_tokens={limit}, your controller sent max_tokens "
            f"{run.sent}: it never asked again with more room.",
            "use what recover_cut_off returns as max_tokens for the next call.",
        )
    if run.outcome.how != "returned" or run.outcome.kind != "end_turn":
        fail(
            f"after a cut-off tool_use and its retry, {run.outcome}; the review can finish: "
            "expected the loop to return the final answer (end_turn).",
            "after the retry, hand each complete answer to the loop as it is.",
        )
    require_pairing(run.messages, "after a cut-off tool_use, the history breaks a pairing rule")
    _require_whole_turns(run.messages, run.recorder)


def _require_whole_turns(messages: list, recorder: Recorder) -> None:
    """Every assistant turn in the history is a response's content, as the model sent it."""
    __tracebackhide__ = True
    answers = [as_plain(r["body"].get("content") or []) for r in recorder.responses]
    for message in messages:
        if message.get("role") != "assistant":
            continue
        blocks = as_plain(content_blocks(message))
        if blocks in answers:
            continue
        ids = {b.get("id") for b in blocks if isinstance(b, dict) and b.get("id")}
        texts = {b.get("text") for b in blocks if isinstance(b, dict) and b.get("text")}
        source = next(
            (
                a
                for a in answers
                if ids & {b.get("id") for b in a} or texts & {b.get("text") for b in a}
            ),
            None,
        )
        missing = [b.get("type") for b in source or [] if b not in blocks]
        fail(
            "an assistant turn in the history is not the model's answer as it came"
            + (f" (left out: {missing})" if missing else "")
            + ": the model's next call must see its own turn whole.",
            "append {'role': 'assistant', 'content': response.content}: every block, thinking "
            "included.",
        )


def _check_ceiling(control: Callable, limit: int) -> None:
    __tracebackhide__ = True
    ceiling = limit + 1
    run = run_review(control, max_tokens=limit, ceiling=ceiling, max_steps=10)
    if max(run.sent) > ceiling:
        fail(
            f"with a model that can write at most {ceiling} tokens, your controller sent "
            f"max_tokens={max(run.sent)}: the API refuses that request (400).",
            "never raise max_tokens above the ceiling: min(max_tokens * 4, ceiling).",
        )
    if run.ran:
        fail(
            f"the loop ran {run.ran[0][0]}({run.ran[0][1]}), though every answer was cut off "
            "inside its tool_use.",
            "a cut-off tool_use is never run, even when no retry can make room.",
        )
    if _cut_calls_kept(run):
        fail(
            f"at the ceiling ({ceiling}) the answer is still cut off inside its tool_use, and "
            "your controller handed it to the loop: its half-written call is in the history, "
            "unanswered, and the run looks finished.",
            "when recover_cut_off returns None, raise CutOff: the loop must never see that answer.",
        )
    if run.outcome.how != "raised" or run.outcome.kind != "max_tokens" or len(run.sent) > 2:
        fail(
            f"at the model's maximum ({ceiling}) the answer is still cut off; your controller "
            f"made {len(run.sent)} calls and {run.outcome}: retrying with the same room only "
            "repeats the cut.",
            "when recover_cut_off returns None, raise CutOff (from course_helpers.lessons.controller).",
        )


def _check_retries_count(control: Callable, limit: int) -> None:
    __tracebackhide__ = True
    run = run_review(control, max_tokens=limit, ceiling=CEILING, max_steps=1)
    calls = len(run.recorder.requests)
    if calls > 1 or run.outcome.how != "step_limit" or run.ran:
        fail(
            f"with max_steps=1 and a first answer cut off in its tool_use, {calls} call(s) "
            f"were made, the loop ran {run.ran or 'nothing'}, and {run.outcome}; expected "
            "one call, nothing run, and StepLimitReached ending the run.",
            "make every call through the sample you were given, and let the StepLimitReached "
            "it raises pass: the run is over.",
        )


def _check_text_is_continued(control: Callable) -> None:
    __tracebackhide__ = True
    essay = whole_essay()
    messages: list = [{"role": "user", "content": ESSAY}]
    run = run_loop(control, messages, max_tokens=64, ceiling=CEILING, max_steps=40)
    calls = len(run.recorder.requests)
    pieces = [text_of(content_blocks(m)) for m in messages if m.get("role") == "assistant"]
    if run.outcome.how != "returned" or run.outcome.kind != "end_turn":
        fail(
            f"for an essay with max_tokens=64, {run.outcome} after {calls} calls; it can "
            "finish: expected the loop to return the last part (end_turn).",
            "keep each cut-off part, ask for the rest, and call again until end_turn.",
        )
    if len(pieces) == 1 and calls > 1:
        fail(
            f"the essay was cut off, thrown away and written again from the start ({calls} "
            "calls): every token of the cut-off parts was paid for nothing.",
            "keep the cut-off text in the history and ask the model to continue.",
        )
    _require_whole_turns(messages, run.recorder)
    if "".join(pieces) != essay:
        fail(
            "the essay's parts in the history, joined, are not the essay written once "
            f"({len(''.join(pieces)):,} characters for {len(essay):,}).",
            "append each cut-off answer whole, then one user message asking to continue.",
        )
    require_pairing(messages, "after continuing a cut-off answer, the history breaks a rule")
