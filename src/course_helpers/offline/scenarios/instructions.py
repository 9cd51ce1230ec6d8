"""Course machinery (offline course model): a clear instruction in `system` changes the reply
(notebook 01).

The course model recognises four kinds of instruction in the request's `system` prompt, each by
a fixed pattern, and applies it to whatever reply the other scenarios (or the fallback) would
give. A real model follows any instruction it understands, with judgement; the course model
follows only these, mechanically, so that the effect of `system` can be seen offline:

- **French** ("Answer in French.", "Réponds en français."): the reply's sentences are taken from
  a small phrase book; a sentence the book does not hold stays in English, and the reply says
  so at its start;
- **one sentence** ("Answer in one sentence."): a final answer keeps only its first sentence;
- **bullet points** ("Answer in bullet points."): a final answer puts each sentence on its own
  `- ` line;
- **a pirate** ("You are a pirate."): the reply opens with "Arr!" and greets with "Ahoy".

Several instructions combine: length and shape first (one sentence, then bullets), then the
persona, then French. Text that goes with a tool call is only translated and given the persona: the
length and shape instructions apply to answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, scenario

_VERB = r"\b(?:answer|reply|respond|write|speak|talk)\b[^.!?\n]{0,40}"
INSTRUCTIONS: dict[str, re.Pattern] = {
    "one_sentence": re.compile(_VERB + r"\bin (?:one|a single) sentence\b", re.IGNORECASE),
    "bullets": re.compile(
        _VERB + r"\b(?:(?:in|as|with) bullet(?:ed)? (?:points?|list)|as a list)\b", re.IGNORECASE
    ),
    "pirate": re.compile(
        r"\b(?:you are|act as|talk like|speak like|play)\b[^.!?\n]{0,20}\bpirate\b", re.IGNORECASE
    ),
    "french": re.compile(
        _VERB + r"\bin french\b|\ben fran[cç]ais\b|\bfran[cç]ais uniquement\b", re.IGNORECASE
    ),
}

# The phrase book: English sentences the course model's chat scenarios say, and their French.
PHRASES: list[tuple[str, str]] = [
    (r"Hello!", "Bonjour !"),
    (r"Ahoy!", "Ohé !"),
    (r"I am the offline course model\.", "Je suis le modèle de cours hors ligne."),
    (r"What would you like to try\?", "Que voulez-vous essayer ?"),
    (r"Nice to meet you, (\w+)!", r"Enchanté, \1 !"),
    (r"Your name is (\w+)\.", r"Vous vous appelez \1."),
    (
        r"You told me earlier in this conversation\.",
        "Vous me l'avez dit plus tôt dans cette conversation.",
    ),
    (r"I don't know your name\.", "Je ne connais pas votre nom."),
    (
        r"I only see the messages sent in this request, and none of them tells me\.",
        "Je ne vois que les messages envoyés dans cette requête, et aucun ne me le dit.",
    ),
    (
        r"An agent is a program that calls a language model in a loop\.",
        "Un agent est un programme qui appelle un modèle de langage dans une boucle.",
    ),
    (
        r"Each time round, the model reads the whole conversation and either answers or asks "
        r"for a tool\.",
        "À chaque tour, le modèle lit toute la conversation, puis il répond ou demande un outil.",
    ),
    (
        r"Your program runs the tool and sends the result back\.",
        "Votre programme exécute l'outil et renvoie le résultat.",
    ),
    (
        r"The loop ends when the model answers without asking for a tool\.",
        "La boucle s'arrête quand le modèle répond sans demander d'outil.",
    ),
    (r"I'll check the weather in (.+)\.", r"Je regarde la météo à \1."),
    (r"I'll check the forecast for (.+)\.", r"Je regarde les prévisions pour \1."),
    (r"Here is the weather you asked about:", "Voici la météo demandée :"),
    (r"Arr!", "Arr !"),
]
UNTRANSLATED = (
    "(Le modèle de cours hors ligne ne connaît que quelques phrases en français ; "
    "le reste est en anglais.)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DATA_LINE = re.compile(r"^[\w'’ -]+: \S")  # "Paris: 18°C, light rain" is data, not prose


def instructions_in(system: str) -> list[str]:
    """The kinds of instruction found in a system prompt, in the order they are applied."""
    return [kind for kind, pattern in INSTRUCTIONS.items() if pattern.search(system or "")]


def sentences(value: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(value.strip()) if s]


def one_sentence(value: str) -> str:
    """The first sentence; lines after a colon are joined into it ('...: Paris: 18°C; ...')."""
    joined = ""
    for line in (line.strip().removeprefix("- ") for line in value.splitlines()):
        if not line:
            continue
        gap = " " if not joined or joined[-1] in ".!?:" else "; "
        joined += (gap if joined else "") + line
    first = sentences(joined)[0] if joined else value
    return first if first[-1:] in ".!?" else first + "."


def bullets(value: str) -> str:
    lines = []
    for line in value.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("- "):
            lines.append(line)
            continue
        said = sentences(line)
        heading = [said.pop()] if line.endswith(":") else []  # "...:" introduces a list
        lines += [f"- {sentence}" for sentence in said] + heading
    return "\n".join(lines)


def pirate(value: str) -> str:
    value = re.sub(r"^(?:Hello|Hi)\b", "Ahoy", value)
    return value if value.startswith("Ahoy") else "Arr! " + value


def french(value: str) -> str:
    missing = False
    lines = []
    for line in value.splitlines():
        prefix = "- " if line.startswith("- ") else ""
        body = line.removeprefix("- ")
        if not body.strip() or _DATA_LINE.match(body):
            lines.append(line)
            continue
        said = []
        for sentence in sentences(body):
            for english, translated in PHRASES:
                if re.fullmatch(english, sentence):
                    said.append(re.sub(english, translated, sentence))
                    break
            else:
                said.append(sentence)
                missing = True
        lines.append(prefix + " ".join(said))
    reply = "\n".join(lines)
    return f"{UNTRANSLATED}\n{reply}" if missing else reply


_ANSWER_ONLY = {"one_sentence", "bullets"}
_APPLY: dict[str, Callable[[str], str]] = {
    "one_sentence": one_sentence,
    "bullets": bullets,
    "pirate": pirate,
    "french": french,
}


def follow(kinds: list[str], reply: Reply) -> Reply:
    """The reply with each instruction applied to its text blocks."""
    answering = not any(b.get("type") == "tool_use" for b in reply.content)
    content = []
    for block in reply.content:
        if block.get("type") == "text" and block.get("text"):
            value = block["text"]
            for kind in kinds:
                if answering or kind not in _ANSWER_ONLY:
                    value = _APPLY[kind](value)
            block = {**block, "text": value}
        content.append(block)
    thought = reply.thinking
    if thought is None:
        named = ", ".join(kind.replace("_", " ") for kind in kinds)
        thought = f"The system prompt gives me an instruction to follow: {named}."
    return Reply(content, reply.stop_reason, reply.stop_details, thought)


@scenario(
    "instructions",
    "Follow one clear instruction in `system`: answer in French, in one sentence, in bullet "
    "points, or as a pirate (try: system='Answer in French.' with 'Hello!')",
    priority=0,
)
def instructions(conv: Conversation) -> Reply | None:
    kinds = instructions_in(conv.system)
    if not kinds:
        return None
    from course_helpers.offline import scenarios  # the registry that holds this module

    for entry in scenarios.registered():
        if entry.name == "instructions":
            continue
        reply = entry.respond(conv)
        if reply is not None:
            return follow(kinds, reply)
    return follow(kinds, scenarios.fallback(conv))
