"""Course machinery (offline course model): what a scenario policy returns, and the registry that
holds the course's scenarios.

A scenario is a function of the conversation (see `conversation.Conversation`) that returns the
model's next turn as a `Reply`, or `None` when the situation is not its own. The engine asks the
registered scenarios in priority order and falls back to a policy that says plainly what the
offline course model can play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from course_helpers.offline.conversation import OWN_LINES, Conversation


@dataclass
class Reply:
    """The model's next turn: content blocks (without ids) and, optionally, a stop reason.

    When `stop_reason` is None the engine picks `tool_use` if there is a tool_use block and
    `end_turn` otherwise.
    """

    content: list[dict]
    stop_reason: str | None = None
    stop_details: dict | None = None
    thinking: str | None = None


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(name: str, /, **arguments) -> dict:
    """A tool_use block. `name` is positional-only, so the input may hold any key a JSON schema
    allows (`name`, `self`, `type`, `input`...): `tool_use("save", name="notes.txt")`."""
    return {"type": "tool_use", "name": name, "input": arguments}


def say(value: str) -> Reply:
    """A plain answer that ends the turn."""
    return Reply([text(value)])


def call(name: str, /, preamble: str | None = None, **arguments) -> Reply:
    """One tool call, optionally after a sentence saying why (`name` positional-only, as in
    `tool_use`)."""
    blocks = [text(preamble)] if preamble else []
    return Reply([*blocks, tool_use(name, **arguments)])


@dataclass(order=True)
class Scenario:
    priority: int
    name: str = field(compare=False)
    description: str = field(compare=False)
    respond: Callable[[Conversation], Reply | None] = field(compare=False)


SCENARIOS: list[Scenario] = []


def scenario(name: str, description: str, *, priority: int = 100):
    """Register a scenario policy. Lower priority numbers are asked first."""

    def register(function: Callable[[Conversation], Reply | None]):
        SCENARIOS[:] = [s for s in SCENARIOS if s.name != name]
        if description:
            OWN_LINES.add(description)  # quoted back (the fallback lists it), not a request
        SCENARIOS.append(Scenario(priority, name, description, function))
        SCENARIOS.sort()
        return function

    return register


# -- one fixed reply, for a demo ---------------------------------------------------------------

SCRIPTED: dict[str, str] = {}  # each scripted question (normalised) -> the notebook that shows it


def _normalised(question: str) -> str:
    return " ".join(question.lower().split()).strip(" .!?")


def scripted(question: str, answer: str, *, notebook: str, priority: int = 5) -> None:
    """Answer one exact question with one fixed text: for a demo whose point is not the model's
    judgement (what a cell does with a reply, not which reply comes).

    The person's words must be `question` (case, spaces and final punctuation aside); tool
    results, a forced tool or other questions are not answered this way. `notebook` names the
    lesson (`"11"`, or a file name's start) that shows it: that lesson must say the reply is
    scripted (`tests/offline/test_scripted_replies.py` checks that one of its markdown cells
    says "scripted"). The reply is not listed in the fallback's menu.

        scripted("Name one planet.", "Mars.", notebook="11")
    """
    key = _normalised(question)
    SCRIPTED[key] = notebook

    def respond(conv: Conversation) -> Reply | None:
        if conv.ends_with_results or conv.must_use_tool or _normalised(conv.person_text) != key:
            return None
        return say(answer)

    scenario(f"scripted: {key}", "", priority=priority)(respond)
