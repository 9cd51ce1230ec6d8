"""Course machinery (offline course model): the course's scenario policies, one module a lesson.

Every module in this package registers its scenarios with `policy.scenario(...)` when imported;
`registered()` imports them all once and returns them in priority order.
"""

from __future__ import annotations

import importlib
import pkgutil

from course_helpers.offline.conversation import OWN_LINES, Conversation
from course_helpers.offline.policy import SCENARIOS, Reply, Scenario, say

_loaded = False


def registered() -> list[Scenario]:
    global _loaded
    if not _loaded:
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")
        _loaded = True
    return list(SCENARIOS)


def catalogue() -> str:
    """What the offline course model can play, one line a scenario."""
    return "\n".join(f"- {s.description}" for s in registered() if s.description)


_OPENING = (
    "I am the offline course model, a small stand-in for Claude that runs on your machine "
    "without an API key. I only play the course's scenarios, so I cannot really answer "
    "that."
)
_CLOSING = "Set ANTHROPIC_API_KEY to talk to the real Claude instead."
OWN_LINES.update({_OPENING, _CLOSING, "Here is what I can do:"})


def is_fallback(value: str) -> bool:
    """Whether a text is the fallback's (the menu): never an answer to put in a field."""
    return _OPENING in value


def fallback(conv: Conversation) -> Reply:
    """Said when no scenario recognises the request: honest about what this model is."""
    # Some clients (coding agent CLIs) wrap context in tags such as <system-reminder>: the
    # question is what is left outside them.
    said = conv.person_text
    asked = said.splitlines()[0][:80] if said else ""
    heard = f'You asked: "{asked}". ' if asked else ""
    return say(f"{_OPENING} {heard}Here is what I can do:\n{catalogue()}\n{_CLOSING}")
