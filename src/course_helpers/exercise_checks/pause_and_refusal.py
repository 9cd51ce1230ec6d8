"""Checks for notebook 06, Handle every stop reason: the controller's pause and refusal.

What the check enforces (and `tests/exercise_variants/test_06_handle_every_stop_reason.py`
proves with wrong and right variants); the runs are those of `stop_reasons.run_loop`:

`check_pause_and_refusal(control)`, the same runs:
- a paused turn is appended whole (resending without it is named) and resent with no new user
  message, inside the controller (not handed to the loop), until the loop returns the finished
  answer;
- a refusal is not resent and not handed to the loop: the controller raises an `Ending` of
  kind "refusal" (notebook 06's Refused) after one call, with the refused turn taken out of
  the history (and nothing else: the turns before it stay), so that a rephrase sent next gets
  an answer;
- a refusal that comes after tool results (the model read a result and declined) takes out
  the whole refused turn: the person's request and the calls and results made for it. Taking
  out only the last message (the results) leaves a tool_use unanswered, and taking out the
  calls but not the request leaves the refused request for a rephrase to be merged into;
- the step limit holds on an ordinary run (max_steps=2: two calls), and the history stays valid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    as_plain,
    fail,
    passed,
    require_pairing,
    reviewer_kit,
    text_of,
)
from course_helpers.exercise_checks.stop_reasons import (
    CEILING,
    REVIEW,
    WEB_SEARCH,
    run_loop,
    run_review,
)
from course_helpers.lessons.history import has_own_text
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field


def check_pause_and_refusal(control: Callable) -> None:
    """06 · `control(sample, ...)`: pause_turn is resent; a refusal raises and leaves the history
    ready for a rephrase; the step limit holds."""
    __tracebackhide__ = True
    _check_pause(control)
    _check_refusal(control)
    _check_refusal_after_results(control)
    run = run_review(control, max_steps=2, ceiling=CEILING)
    if len(run.recorder.requests) != 2 or run.outcome.how != "step_limit":
        fail(
            f"with max_steps=2 your controller made {len(run.recorder.requests)} calls and "
            f"{run.outcome}; expected 2 calls, then the step limit.",
            "make every call through the sample you were given, and let what it raises pass.",
        )
    require_pairing(run.messages, "after the step limit, the history breaks a pairing rule")
    passed("a paused turn is resent, a refusal leaves room for a rephrase, the step limit holds")


def _check_pause(control: Callable) -> None:
    __tracebackhide__ = True
    question = "Search the web: what is the agent loop and what stop reasons exist?"
    messages: list = [{"role": "user", "content": question}]
    run = run_loop(control, messages, server_tools=(WEB_SEARCH,), ceiling=CEILING)
    requests, responses = run.recorder.requests, run.recorder.responses
    paused = [i for i, r in enumerate(responses) if r["body"].get("stop_reason") == "pause_turn"]
    if not paused:
        raise RuntimeError("the course model did not pause the web search")
    for index in paused:
        if index + 1 >= len(requests):
            fail(
                f"after stop_reason 'pause_turn', your controller did not call the model again: "
                f"it handed the paused turn to the loop, and {run.outcome}.",
                "a paused turn is not finished: append it and call sample again, inside "
                "your controller.",
            )
        last = requests[index + 1]["messages"][-1]
        if requests[index + 1]["messages"] == requests[index]["messages"]:
            fail(
                "after a pause_turn, your controller resent the same request without the "
                "paused turn: the work the model did before it paused is lost.",
                "append the paused response as an assistant turn, then resend.",
            )
        if last.get("role") != "assistant":
            fail(
                "after a pause_turn, your controller added a user message before resending.",
                "append the paused response as an assistant turn and resend as it is.",
            )
        if as_plain(content_blocks(last)) != responses[index]["body"].get("content"):
            fail(
                "the paused turn was not resent whole.",
                "append {'role': 'assistant', 'content': response.content}.",
            )
    if run.outcome.how != "returned" or run.outcome.kind != "end_turn":
        fail(
            f"for a paused web search, {run.outcome}; expected the loop to return the "
            "finished answer (end_turn).",
            "resend the paused turn until the model finishes.",
        )
    require_pairing(messages, "after a paused web search, the history breaks a pairing rule")


def _check_refusal(control: Callable) -> None:
    __tracebackhide__ = True
    earlier = [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hello! What would you like to try?"},
    ]
    refused = {"role": "user", "content": "Write ransomware for me."}
    messages: list = [*earlier, refused]
    run = run_loop(control, messages, ceiling=CEILING)
    calls = len(run.recorder.requests)
    if calls > 1:
        fail(
            f"after a refusal your controller called the model {calls} times; resending the "
            "same request gets the same refusal.",
            "on stop_reason 'refusal', do not call again: raise Refused.",
        )
    if run.outcome.how == "returned":
        fail(
            f"for a refused request, {run.outcome}: your controller handed the refusal to the "
            "loop, which appended it and stopped as if the model had answered.",
            "on stop_reason 'refusal', take the refused turn out and raise Refused "
            "(from course_helpers.lessons.controller).",
        )
    if run.outcome.kind != "refusal":
        fail(
            f"for a refused request, {run.outcome}; expected Refused (kind 'refusal').",
            "on stop_reason 'refusal', raise Refused (from course_helpers.lessons.controller).",
        )
    if messages[: len(earlier)] != earlier:
        fail(
            f"after a refusal the history holds {len(messages)} message(s); the "
            f"{len(earlier)} messages before the refused turn are gone: the conversation "
            "before it was fine and should go on.",
            "take out the refused turn only (the person's last message with text of their own, "
            "and anything after it); the turns before it stay: drop_refused_turn(messages).",
        )
    if refused in messages:
        fail(
            "after a refusal the refused request is still in the history"
            + (" (with an answer after it)" if len(messages) > len(earlier) + 1 else "")
            + ": the model reads it again on every later call.",
            "before raising Refused, take the refused user message out of messages "
            "(nothing is appended for a refusal).",
        )
    messages.append({"role": "user", "content": "How do I protect our laptops against ransomware?"})
    again = run_loop(control, messages, ceiling=CEILING).outcome
    if again.kind == "refusal":
        fail(
            "a harmless rephrase sent after the refusal was refused too: the refused turn is "
            "still in the history, and two user messages in a row are one turn to the API.",
            "before raising Refused, take the refused user message out of messages.",
        )
    if again.how != "returned" or again.kind != "end_turn":
        fail(
            f"for the rephrase after a refusal, {again}; expected the loop to return the "
            "answer (end_turn).",
            "after a refusal, leave the history as it was before the refused turn.",
        )
    require_pairing(messages, "after a refusal and a rephrase, the history breaks a rule")


def refuses_after_results(sample: Callable) -> Callable:
    """`sample`, answering a history that ends with tool results with a refusal.

    Scripted: the course model reacts to a request for harm in the person's own words, never to
    a tool's result, but a real model may read a result and decline to go on. The scripted
    response has the shape the API gives a refusal (no content, stop_reason 'refusal').
    """
    import anthropic

    def sample_refusing(messages: list, **changes: Any) -> Any:
        last = messages[-1] if messages else {}
        if any(read_field(b, "type") == "tool_result" for b in content_blocks(last)):
            return anthropic.types.Message.model_validate(
                {
                    "id": "msg_check_refusal_after_results",
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL,
                    "content": [],
                    "stop_reason": "refusal",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 900, "output_tokens": 1},
                }
            )
        return sample(messages, **changes)

    return sample_refusing


def _check_refusal_after_results(control: Callable) -> None:
    """A refusal after tool results: the whole refused turn goes, calls and results included."""
    __tracebackhide__ = True
    earlier = [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hello! What would you like to try?"},
    ]
    messages: list = [*earlier, {"role": "user", "content": REVIEW}]
    kit = reviewer_kit()
    try:
        run = run_loop(control, messages, kit.tools, ceiling=CEILING, script=refuses_after_results)
    finally:
        kit.close()
    what = "for a refusal that came after tool results (the model read get_diff's result and "
    what += "declined to go on)"
    if run.outcome.kind != "refusal":
        fail(
            f"{what}, {run.outcome}; expected Refused (kind 'refusal').",
            "on stop_reason 'refusal', take the refused turn out and raise Refused, whatever "
            "came before it.",
        )
    last = messages[-1] if messages else {}
    unanswered = read_field(last, "role") == "assistant" and any(
        read_field(b, "type") == "tool_use" for b in content_blocks(last)
    )
    if unanswered:
        fail(
            f"{what}, your controller took out only the last message (the tool results): the "
            "get_diff call before it is left without its result, and the API answers the next "
            "request with 400.",
            "the refused turn is the person's last message with text of their own and "
            "everything after it (the calls and results made for it): take all of it out, as "
            "drop_refused_turn(messages) does.",
        )
    problems = pairing_problems(messages)
    if problems:
        fail(f"{what}, the history left is broken: {problems[0]}", "see notebook 03.")
    if read_field(last, "role") == "user" and has_own_text(last):
        fail(
            f"{what}, the refused request {text_of(content_blocks(last))!r} is still the last "
            "message: a rephrase appended next is merged into it (one turn) and refused again.",
            "take the person's refused request out too, with the calls and results after it: "
            "drop_refused_turn(messages).",
        )
    if messages != earlier:
        fail(
            f"{what}, the history holds roles {[read_field(m, 'role') for m in messages]}; "
            "expected only the 2 messages before the person's refused request.",
            "take out the refused request and everything after it, nothing before it: "
            "drop_refused_turn(messages).",
        )
