"""Course machinery: stop a cell with one clear message when the model did not do what it needs.

The offline course model always plays the lesson as written. A real model may not: it may answer
from what it knows instead of calling the tool a cell offered, or call another one. A cell that
needs a tool call checks for it first:

    calls = needs_tool_calls(response)              # every tool_use block, or a clear stop
    call = needs_tool_calls(response, "get_weather")[0]
    turn = needs_turn(run.messages, 3)              # a turn the rest of the cell reads
    needs_ending(run, "budget_limit")               # a run of run_agent that ended this way
    data = needs_json(text)                         # structured output, parsed

When what the cell needs is missing, `ModelWentAnotherWay` stops the cell. Jupyter shows it as
one short message (what the model did instead, and what to do), not a traceback; a later cell
that reads the same answer makes the same check and says the same thing.
"""

from __future__ import annotations

import json
from typing import Any

from course_helpers.lessons.pairing import content_blocks, read_field

SHOWN_CHARS = 120
WHAT_TO_DO = (
    "A real model may do this. Re-run the cell that sent this request to the model (it may be "
    "an earlier cell: the one that made the answer this cell reads), since the model may choose "
    "differently next time; or follow the lesson as written with the offline course model: set "
    "COURSE_BACKEND=offline and restart the kernel (notebook 00, section on backends)."
)


class ModelWentAnotherWay(Exception):
    """The model did something other than what this cell needs; shown as one short message."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of a traceback: the message alone."""
        return [f"{type(self).__name__}: {self}"]


def needs_tool_calls(answer: Any, tool: str | None = None) -> list[Any]:
    """The tool_use blocks of `answer` (a response or a message), or of `tool` only if given.

    When there are none, raise ModelWentAnotherWay saying what the model did instead.
    """
    calls = [b for b in content_blocks(answer) if read_field(b, "type") == "tool_use"]
    wanted = [c for c in calls if tool is None or read_field(c, "name") == tool]
    if wanted:
        return wanted
    expected = f"a call to {tool}" if tool else "a tool call"
    raise ModelWentAnotherWay(
        f"This cell needs {expected}, but {what_it_did(answer)}. {WHAT_TO_DO}"
    )


def needs_turn(messages: list[Any], index: int, *, with_tool_calls: bool = True) -> Any:
    """messages[index], which must be there (with tool_use blocks, unless told otherwise).

    When it is missing, raise ModelWentAnotherWay saying what the model's last turn did.
    """
    if index < len(messages):
        turn = messages[index]
        if not with_tool_calls:
            return turn
        needs_tool_calls(turn)
        return turn
    raise ModelWentAnotherWay(
        f"This cell reads messages[{index}], but the history has {len(messages)} messages: "
        f"{_last_turn(messages)}. {WHAT_TO_DO}"
    )


def needs_ending(run: Any, *endings: str) -> Any:
    """`run` (an AgentRun) when it ended one of these ways (`run.ending`); else a clear stop."""
    if run.ending in endings:
        return run
    raise ModelWentAnotherWay(
        f"This cell needs a run that ended with {' or '.join(endings)}, but it ended with "
        f"{run.ending}: {_last_turn(run.messages)}. {WHAT_TO_DO}"
    )


def needs_json(text: str) -> Any:
    """`text` parsed as JSON; when it is not JSON, a clear stop.

    With `output_config` the API guarantees JSON. A compatible server that ignores the option
    answers in words instead.
    """
    try:
        return json.loads(text)
    except ValueError:
        shown = " ".join(text.split())
        if len(shown) > SHOWN_CHARS:
            shown = shown[: SHOWN_CHARS - 1].rstrip() + "…"
        raise ModelWentAnotherWay(
            "This cell needs a JSON answer (structured output), but the model answered "
            f"“{shown}”. A server that does not support `output_config` answers like this. "
            f"{WHAT_TO_DO}"
        ) from None


def _last_turn(messages: list[Any]) -> str:
    said = next((m for m in reversed(messages) if read_field(m, "role") == "assistant"), None)
    return what_it_did(said) if said is not None else "the model did not answer"


def what_it_did(answer: Any) -> str:
    """What a response or message did, in a few words: the tools it called, or its text."""
    blocks = content_blocks(answer)
    called = [read_field(b, "name") for b in blocks if read_field(b, "type") == "tool_use"]
    if called:
        return f"the model called {', '.join(called)}"
    text = " ".join(
        str(read_field(b, "text")).strip() for b in blocks if read_field(b, "type") == "text"
    )
    text = " ".join(text.split())
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1].rstrip() + "…"
    stop = read_field(answer, "stop_reason")
    if text:
        return f"the model answered in words instead: “{text}”"
    if stop:
        return f"the model stopped ({stop}) without a tool call"
    return "the model answered without a tool call"
