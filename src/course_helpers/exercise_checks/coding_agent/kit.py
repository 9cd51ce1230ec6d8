"""Course machinery (exercise checks): exercise 08.2's coding task and sandbox, and the basic rules of
one agent turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course_helpers.exercise_checks.common import (
    CheckFailed,
    Recorder,
    as_plain,
    fail,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
)
from course_helpers.lessons.pairing import content_blocks, read_field

CODING_TASK = "Find where the cart total is computed and add a test for the empty cart."


@dataclass
class CodingKit:
    """The four coding tools over a fresh shop copy, each run logged."""

    tools: list
    ran: list[tuple[str, dict]]
    folder: Any

    def close(self) -> None:
        self.folder.cleanup()


def coding_kit() -> CodingKit:
    import tempfile
    from pathlib import Path

    from course_helpers.fixtures.shop_project import copy_shop_project
    from course_helpers.lessons.coding_agent import coding_tools
    from course_helpers.lessons.tools import Tool
    from course_helpers.plumbing.file_sandbox import FileSandbox

    folder = tempfile.TemporaryDirectory()
    sandbox = FileSandbox(copy_shop_project(Path(folder.name) / "shop"))
    ran: list[tuple[str, dict]] = []

    def logged(original: Tool) -> Tool:
        def function(**arguments: Any) -> Any:
            ran.append((original.name, dict(arguments)))
            return original.function(**arguments)

        return Tool(original.name, original.description, function, original.arguments)

    return CodingKit([logged(t) for t in coding_tools(sandbox)], ran, folder)


def _check_turn_basics(
    messages: list, recorder: Recorder, kit: CodingKit, ending: Any, what: str
) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail("agent_turn made no call to the model.", "call client.messages.create(...).")
    expected = sorted(t.name for t in kit.tools)
    for number, request in enumerate(recorder.requests, start=1):
        offered = sorted(t.get("name") for t in request.get("tools") or [])
        if offered == expected:
            continue
        earlier = recorder.responses[number - 2]["body"] if number > 1 else {}
        retry = earlier.get("stop_reason") == "max_tokens"
        which = f"request {number}" + (
            " (the retry after a response cut off by max_tokens)" if retry else ""
        )
        if not offered:
            fail(
                f"for {what}, {which} was sent without the tools: the model cannot call a tool "
                "it is not offered, and the API refuses a history holding tool_use blocks in a "
                "request that defines no tools.",
                "send tools=[t.definition() for t in tools] on every request, retries included.",
            )
        fail(
            f"for {what}, {which} offers tools {offered}, not the agent's tools {expected}.",
            "send tools=[t.definition() for t in tools] on every request, retries included.",
        )
    if not isinstance(ending, str):
        fail(
            f"for {what}, agent_turn returned {short_repr(ending)}, not how the turn ended.",
            "return the stop_reason that ended the turn, or 'step_limit'.",
        )
    require_pairing(
        messages,
        f"after {what}, the history breaks a pairing rule",
        "append the assistant's turn and one user message with every result, each turn.",
    )


def _check_handed_back(agent_turn: Callable, line: str, expected: str, options: dict) -> None:
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        what = f"{line!r}" + (f" with max_tokens={options['max_tokens']}" if options else "")
        try:
            ending = run_learner(agent_turn, client, messages, kit.tools, line, **options)
        except CheckFailed:
            if expected == "refusal" and len(recorder.requests) > 1:
                fail(
                    f"for {what} the model refused (stop_reason 'refusal', no content), and "
                    "agent_turn called it again (asking it to continue?), which the API "
                    f"answered with {recorder.responses[-1]['status']}: a refusal is the "
                    "model's answer, not a cut-off one, and there is nothing to continue.",
                    "on 'refusal', hand control back at once: return response.stop_reason.",
                )
            raise
        _check_turn_basics(messages, recorder, kit, ending, what)
        if len(recorder.requests) > 1:
            fail(
                f"for {what} (stop_reason {expected!r}) agent_turn called the model "
                f"{len(recorder.requests)} times; it should hand control back after one.",
                "any stop_reason other than 'tool_use' ends the turn: the person decides what next.",
            )
        if ending != expected:
            fail(
                f"for {what}, agent_turn returned {short_repr(ending)}; the model stopped with "
                f"{expected!r}.",
                "return response.stop_reason when it is not 'tool_use'.",
            )
        if expected == "end_turn":
            _check_answer_kept(messages, recorder, what)
    finally:
        kit.close()


def _check_answer_kept(messages: list, recorder: Recorder, what: str) -> None:
    """The final answer is the last message of the history: the next line follows it."""
    __tracebackhide__ = True
    last = messages[-1] if messages else {}
    answer = recorder.responses[-1]["body"].get("content") if recorder.responses else None
    if read_field(last, "role") != "assistant" or as_plain(content_blocks(last)) != answer:
        fail(
            f"for {what}, the model's final answer is not at the end of the history: the next "
            "line the person types follows a conversation the model never sees its answer in.",
            "append {'role': 'assistant', 'content': response.content} before you return.",
        )
