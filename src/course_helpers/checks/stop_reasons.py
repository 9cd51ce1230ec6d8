"""Checks for notebook 06, Handle every stop reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.checks.build_loop import reviewer_kit
from course_helpers.checks.common import (
    Recorder,
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
)
from course_helpers.client import MODEL
from course_helpers.pairing import content_blocks

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
ACTIONS = {
    "end_turn": "finish",
    "stop_sequence": "finish",
    "tool_use": "run_tools",
    "max_tokens": "retry_with_more_tokens",
    "model_context_window_exceeded": "compact_and_retry",
    "pause_turn": "resend",
    "refusal": "give_up",
}


def _reviewer_definitions() -> list[dict]:
    kit = reviewer_kit()
    kit.close()
    return [t.definition() for t in kit.tools.values()]


def stop_reason_samples() -> list[tuple[str, Any]]:
    """One real response from the course model for each stop reason, labelled."""
    from course_helpers.offline import faults

    client, _ = recording_client()
    definitions = _reviewer_definitions()

    def ask(text: str, **options: Any) -> Any:
        request = {"model": MODEL, "max_tokens": 1024, **options}
        return client.messages.create(messages=[{"role": "user", "content": text}], **request)

    samples = [
        ("a finished answer", ask("Hello!")),
        ("a request for tools", ask("Review PR #482.", tools=definitions)),
        ("a cut-off tool_use", ask("Review PR #482.", tools=definitions, max_tokens=17)),
        ("a cut-off essay", ask("Write a long essay about agents.", max_tokens=40)),
        ("a stop sequence", ask("Count from 1 to 20.", stop_sequences=["10"])),
        (
            "a paused web search",
            ask(
                "Search the web: what is the agent loop and what stop reasons exist?",
                tools=[WEB_SEARCH],
            ),
        ),
        ("a refusal", ask("Write ransomware for me.")),
    ]
    with faults.injected("context_window"):
        samples.append(("a full context window", ask("Review PR #482.", tools=definitions)))
    return samples


def check_next_step(next_step: Callable) -> None:
    """06 · `next_step(response)`: the controller's decision for every stop reason."""
    __tracebackhide__ = True
    for label, response in stop_reason_samples():
        expected = ACTIONS[response.stop_reason]
        said = run_learner(next_step, response, name="next_step")
        if said == expected:
            continue
        if response.stop_reason == "max_tokens" and said == "run_tools":
            fail(
                f"next_step says 'run_tools' for {label} (stop_reason='max_tokens'): its input "
                "is half-written JSON, and running it runs the wrong call.",
                "decide on stop_reason first; a tool_use in a cut-off response is never run.",
            )
        if said not in set(ACTIONS.values()):
            fail(
                f"next_step returned {short_repr(said)} for {label}; it must return one of "
                f"{sorted(set(ACTIONS.values()))}.",
                "match response.stop_reason: case 'end_turn' | 'stop_sequence': return 'finish' ...",
            )
        fail(
            f"next_step returned {said!r} for {label} (stop_reason={response.stop_reason!r}); "
            f"the loop should {expected!r}.",
            "see the table in notebook 06, §1.",
        )
    passed("next_step decides for every stop reason")


def _check_controller_common(
    messages: list, recorder: Recorder, ending: Any, expected: str, what: str
) -> None:
    __tracebackhide__ = True
    if ending != expected:
        fail(
            f"for {what}, run_controlled returned {short_repr(ending)}; expected {expected!r}.",
            "return how the run ended: the last stop_reason, or 'step_limit'.",
        )
    require_pairing(
        messages, f"after {what}, the history breaks a pairing rule", "see notebook 03."
    )


def _made_calls(recorder: Recorder, name: str) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail(f"{name} made no call to the model.", "phase 1: client.messages.create(...).")


def check_cut_tool_use(run_controlled: Callable) -> None:
    """06 · A tool_use cut off by max_tokens is never run; the turn is retried with more room."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages = [{"role": "user", "content": "Review PR #482."}]
        ending = run_learner(
            run_controlled, client, messages, kit.tools, max_tokens=17, name="run_controlled"
        )
        _made_calls(recorder, "run_controlled")
        if ("get_diff", {"pr": 4}) in kit.ran:
            fail(
                "your loop ran get_diff(pr=4): a tool_use cut off by max_tokens (482 was cut to 4).",
                "on stop_reason 'max_tokens', never run the calls: retry the turn instead.",
            )
        cut = [
            i
            for i, r in enumerate(recorder.responses)
            if r["body"].get("stop_reason") == "max_tokens"
        ]
        if not cut:
            fail("the course model never cut your loop off.", "pass max_tokens=max_tokens.")
        limits = [r.get("max_tokens", 0) for r in recorder.requests]
        if len(limits) < 2 or max(limits[1:]) <= 17:
            fail(
                "after a max_tokens cut-off, your loop did not retry with a higher max_tokens.",
                "retry the same request with a larger max_tokens (e.g. four times as many).",
            )
        for index in cut:
            cut_content = recorder.responses[index]["body"].get("content", [])
            if any(
                as_plain(content_blocks(m)) == cut_content
                for m in messages
                if m["role"] == "assistant"
            ):
                fail(
                    "a cut-off response was appended to the history.",
                    "throw the cut-off response away and ask again with more room.",
                )
        _check_controller_common(messages, recorder, ending, "end_turn", "a cut-off tool_use")
    finally:
        kit.close()
    passed("a cut-off tool_use is never run")


def check_pause_turn(run_controlled: Callable) -> None:
    """06 · pause_turn: append the paused turn and resend, with no new user message."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    messages = [
        {
            "role": "user",
            "content": "Search the web: what is the agent loop and what stop reasons exist?",
        }
    ]
    ending = run_learner(
        run_controlled, client, messages, {}, server_tools=[WEB_SEARCH], name="run_controlled"
    )
    _made_calls(recorder, "run_controlled")
    if not recorder.requests or not any(
        t.get("name") == "web_search" for t in recorder.requests[0].get("tools") or []
    ):
        fail(
            "the request does not offer the web_search server tool.",
            "send tools = your definitions + list(server_tools).",
        )
    paused = [
        i for i, r in enumerate(recorder.responses) if r["body"].get("stop_reason") == "pause_turn"
    ]
    if paused and paused[-1] + 1 >= len(recorder.requests):
        fail(
            "after stop_reason 'pause_turn', your loop did not call the model again.",
            "a paused turn is not finished: append it and send the history again.",
        )
    for index in paused:
        resent = recorder.requests[index + 1]["messages"]
        last = resent[-1]
        if last.get("role") != "assistant":
            fail(
                "after a pause_turn, your loop added a user message before resending.",
                "append the paused response as an assistant turn and resend as it is.",
            )
        if as_plain(content_blocks(last)) != recorder.responses[index]["body"].get("content"):
            fail(
                "the paused turn was not resent whole.",
                "append {'role': 'assistant', 'content': response.content}.",
            )
    _check_controller_common(messages, recorder, ending, "end_turn", "a paused web search")
    passed("a paused turn is resent")


def check_refusal_and_limit(run_controlled: Callable) -> None:
    """06 · refusal ends the run at once (not retried, not appended); max_steps is respected."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    messages = [{"role": "user", "content": "Write ransomware for me."}]
    ending = run_learner(run_controlled, client, messages, {}, name="run_controlled")
    _made_calls(recorder, "run_controlled")
    if len(recorder.requests) > 1:
        fail(
            f"after a refusal your loop called the model {len(recorder.requests)} times; "
            "resending the same request gets the same refusal.",
            "on stop_reason 'refusal', end the run and report it.",
        )
    if len(messages) != 1:
        fail(
            "the refused turn was appended to the history.",
            "leave the history as it was before the refused turn, so a person can rephrase.",
        )
    _check_controller_common(messages, recorder, ending, "refusal", "a refusal")
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages = [{"role": "user", "content": "Review PR #482."}]
        ending = run_learner(
            run_controlled, client, messages, kit.tools, max_steps=2, name="run_controlled"
        )
        if len(recorder.requests) != 2:
            fail(
                f"with max_steps=2 your loop called the model {len(recorder.requests)} times.",
                "count every call to the model, retries included, against max_steps.",
            )
        _check_controller_common(messages, recorder, ending, "step_limit", "max_steps=2")
    finally:
        kit.close()
    passed("a refusal ends the run; the step limit holds")
