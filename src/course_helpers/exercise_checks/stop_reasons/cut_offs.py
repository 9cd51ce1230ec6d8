"""Course machinery (exercise checks): exercise 06.2, `check_cut_offs`: retries, their ceiling and
count, text continued.
"""

from __future__ import annotations

from collections.abc import Callable

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    Recorder,
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    text_of,
)
from course_helpers.exercise_checks.stop_reasons.essay import (
    CEILING,
    ESSAY,
    _definitions,
    cutting_limit,
    whole_essay,
)
from course_helpers.exercise_checks.stop_reasons.runs import (
    _cut_calls_kept,
    counted,
    run_loop,
    run_review,
)
from course_helpers.lessons.loop import sampler
from course_helpers.lessons.pairing import content_blocks


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
    raised = run.sent.index(max(run.sent))
    if run.outcome.kind == "step_limit" and limit in run.sent[raised + 1 :]:
        fail(
            f"after a tool_use cut off at max_tokens={limit}, your controller sent max_tokens "
            f"{run.sent}: once raised, it went back to {limit} for the next call, so every turn "
            "was cut off and retried again, until the step limit ended the run.",
            "keep the raised max_tokens for the calls that follow: store it where it outlives "
            "one call (limit = [max_tokens] before `def`, or an attribute), not inside it.",
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
