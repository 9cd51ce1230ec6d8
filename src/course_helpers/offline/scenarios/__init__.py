"""Course machinery (offline course model): the course's scenario policies, one module a lesson.

Every module in this package registers its scenarios with `policy.scenario(...)` when imported;
`registered()` imports them all once and returns them in priority order.

What the model says about itself lives here too. A request no scenario recognises gets a short
answer (`fallback`: two sentences, well inside a small max_tokens); the full list of what the
model can play comes only when the person asks for it ("What can you do?", "Help",
«Что ты умеешь?»: `menu`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from course_helpers.offline.conversation import OWN_LINES, Conversation
from course_helpers.offline.policy import SCENARIOS, Reply, Scenario, say, scenario
from course_helpers.offline.reading import without_orders

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


_CANNOT = "I am the offline course model: I only play the course's scenarios, so I cannot answer"
_ASK_FOR_MENU = 'Ask "What can you do?" to see what I can play.'
_INTRODUCTION = (
    "I am the offline course model, a small stand-in for Claude that runs on your machine "
    "without an API key."
)
_MENU = "Here is what I can do:"
_CLOSING = "Set ANTHROPIC_API_KEY to talk to the real Claude instead."
OWN_LINES.update({_CANNOT, _ASK_FOR_MENU, _INTRODUCTION, _MENU, _CLOSING})


def is_fallback(value: str) -> bool:
    """Whether a text is the fallback's: never an answer to put in a field."""
    return _CANNOT in value


def fallback(conv: Conversation) -> Reply:
    """Said when no scenario recognises the request: honest about what this model is, and short
    (the list of what it can play is `menu`'s, when asked)."""
    # Some clients (coding agent CLIs) wrap context in tags such as <system-reminder>: the
    # question is what is left outside them.
    said = conv.person_text
    asked = said.splitlines()[0][:80] if said else ""
    what = f'"{asked}"' if asked else "this request"
    return say(f"{_CANNOT} {what}. {_ASK_FOR_MENU}")


# The person asks what the model can do, as the whole message: "What can you do?", "What can
# you play?", "Help", "What do you know?", «Что ты умеешь?», «Что вы можете?», «Помощь».
_GREETED = r"(?P<greeting>(?:hi|hello|hey|привет|здравствуй(?:те)?)(?: there)?[\s,!.]+)?"
_ASKS_MENU = re.compile(
    rf"^\W*{_GREETED}(?:(?:so|and|ok(?:ay)?|а|и|так)[\s,]+)?(?:"
    r"what (?:else )?(?:can|could) (?:you|i) (?:do|play|try|offer|show me|ask(?: you)?(?: about)?)"
    r"(?: here| for me| offline| with you)?"
    r"|what (?:else )?do you (?:know|do|play|offer)(?: how to do)?"
    r"|what are you (?:able to do|good at|for)"
    r"|what are your (?:capabilities|skills|scenarios|options)"
    r"|(?:show|list|tell)(?: me)? (?:what you can (?:do|play)|your (?:capabilities|skills|scenarios))"
    r"|(?:please )?help(?: me)?(?: please)?|/?help|menu"
    r"|что (?:ещё )?(?:ты |вы )?(?:умеешь|умеете|можешь|можете|знаешь|знаете)(?: делать)?"
    r"|что (?:ты |вы )?(?:умеешь|умеете|можешь|можете) разыгр\w+"
    r"|что (?:можно|я могу|мне) (?:попробовать|спросить|сделать)"
    r"|какие у (?:тебя|вас) (?:сценарии|возможности|умения)"
    r"|помощь|помоги(?:те)?|справка)"
    r"[\s?!.)]*$",
    re.IGNORECASE,
)


@scenario("menu", "List what it can play: 'What can you do?' (or 'Help')", priority=45)
def menu(conv: Conversation) -> Reply | None:
    # An order about the answer does not hide the question: "What can you do? Answer in French."
    found = _ASKS_MENU.match(without_orders(conv.person_text))
    if conv.ends_with_results or not found:
        return None
    greeted = "Hello! " if found.group("greeting") else ""  # "Hi! What can you do?"
    return say(f"{greeted}{_INTRODUCTION} {_MENU}\n{catalogue()}\n{_CLOSING}")
