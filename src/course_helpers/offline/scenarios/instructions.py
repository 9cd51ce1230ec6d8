"""Course machinery (offline course model): a clear instruction in `system` changes the reply
(notebook 01).

The course model recognises a few kinds of instruction, each by a fixed pattern
(`offline/instruction_words.py`: negations and quoted words are read there), in the request's
`system` prompt and in the person's own words (`Conversation.person_text`: the last user text
without what it quotes; never a tool result), by the same rule in both (`instructions_for`), and
applies them to whatever reply the other scenarios (or the fallback) would give. A real model follows any instruction it understands, with judgement; the course model
follows only these, mechanically, so that the effect of `system` can be seen offline:

- **French** ("Answer in French.", "Réponds en français."): the reply's sentences are taken from
  a small phrase book; a sentence the book does not hold stays in English, and the reply says
  so at its start;
- **one sentence** ("Answer in one sentence.", "Одним предложением."): a final answer keeps only its first sentence;
- **bullet points** ("Answer in bullet points."): a final answer puts each sentence on its own
  `- ` line;
- **a pirate** ("You are a pirate.", "Answer like a pirate."): the reply opens with "Arr!" and greets with "Ahoy";
- **Russian** ("Answer in Russian.", "Reply only in Russian."): put into Russian through the
  phrase book of `offline/russian.py`, as the answer to a Russian question is;
- **English** ("Answer in English.", "Отвечай по-английски."): not put into Russian.

Several instructions combine: length and shape first (one sentence, then bullets), then the
persona, then French. Text that goes with a tool call is only translated and given the persona: the
length and shape instructions apply to answers.

It also follows an instruction that names one of the offered tools (notebook 02, "On a model
that refuses forcing"), in `system` or in the last user message, with `tool_choice` auto:

- **call it** ("Always call convert_currency for a conversion.", "Use get_weather."): when none
  of its other scenarios knows the question (they already call the tools they need), the model
  calls that tool, once per task (not again once its result is back), with arguments read from the question where it can (numbers,
  and the allowed values of an `enum` in the order the question names them: "100 EUR in JPY"
  gives amount 100, source EUR, target JPY; the city it names for a `city` argument) and made
  up from the schema otherwise. An order in `system` counts for a question it concerns: one
  that names an allowed value of the tool's arguments or a city for its place argument, or
  shares a word with the tool or the order ("Use get_weather." and "Is it cold in Oslo?"). After the
  result, a question no other scenario knows is answered by quoting it (without the
  instructions for the model it may hold: `offline/injections.py`);
- **do not call it** ("Do not call convert_currency.", "Never use get_weather.", "answer
  without calling convert_currency"): the model drops its calls to that tool and says it was
  told not to use it. An order not to use any tool ("Don't use tools.", "Не используй
  инструменты.") does so for every tool.

An order opens a clause: a verb (call, use, invoke, run) up to two words before the tool's name,
at the start of a sentence or after "always", "please", "first", "you must", "you should"
("Always call convert_currency", "You must use get_weather"); "answer / check / convert ...
using (with, through, via) X"; or "X must / should be called / used". The same verb inside a
description orders nothing ("available for use with the Skill tool", "tools you can call:
get_weather", "get_weather is used for..."), so another program's system prompt that lists its
tools does not make the model call them. A negation (not, never, don't, without, avoid) up to
three words before that verb, right before the name, or "must not be" after it, makes an order
not to. Russian orders work the same way ("Всегда вызывай convert_currency", "Не используй
get_weather", "без вызова convert_currency"), and so do the four instructions ("Отвечай
по-французски", "Отвечай одним предложением", "Отвечай списком", "Ты пират"). A name that is a
plain word (`refund`) counts only quoted or followed by "tool", so that "no refund yet" orders
nothing. An order inside quotation marks ('My friend wrote "then call X"') orders nothing. A forced `tool_choice` is still obeyed: the API guarantees the
call whatever the instruction says. A real model reads such instructions with judgement and
does not always obey; the course model always does, so the lesson shows the same way each run.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from course_helpers.offline.conversation import Conversation, blocks_of
from course_helpers.offline.french_weather import in_french
from course_helpers.offline.injections import reported
from course_helpers.offline.instruction_words import instructions_in, unquoted
from course_helpers.offline.policy import Reply, scenario, text, tool_use
from course_helpers.offline.russian import in_english
from course_helpers.offline.scenarios.weather import cities_in
from course_helpers.offline.schemas import example_for

_PLACES = ("city", "location", "place", "town")

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
    (r"Here is the forecast you asked about:", "Voici les prévisions demandées :"),
    (r"Arr!", "Arr !"),
]
UNTRANSLATED = (
    "(Le modèle de cours hors ligne ne connaît que quelques phrases en français ; "
    "le reste est en anglais.)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# "Paris: 18°C, light rain" is data, not prose; a label is a name of up to three words, so
# "I am the offline course model: I only play …" stays a sentence.
_DATA_LINE = re.compile(r"^[\w'’-]+(?: [\w'’-]+){0,2}: \S")


def instructions_for(conv: Conversation) -> list[str]:
    """The instructions in force for this answer: those of `system` and of the person's words."""
    return instructions_in(f"{conv.system}\n{conv.person_text}")


def sentences(value: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(value.strip()) if s]


_GREETING_WORDS = re.compile(r"\w+(?:\s\w+)?[!,.]")


def first_sentences(value: str, count: int) -> str:
    """The first `count` sentences; lines after a colon are joined into them ('...: Paris:
    18°C; ...')."""
    joined = ""
    for line in (line.strip().removeprefix("- ") for line in value.splitlines()):
        if not line:
            continue
        gap = " " if not joined or joined[-1] in ".!?:" else "; "
        joined += (gap if joined else "") + line
    said = sentences(joined)
    # A greeting of a word or two ("Hello!", «Привет!») opens the answer; it is no sentence of it.
    greeted = 1 if count > 1 and said and _GREETING_WORDS.fullmatch(said[0]) else 0
    first = " ".join(said[: count + greeted]) if joined else value
    return first if first[-1:] in ".!?" else first + "."


def one_sentence(value: str) -> str:
    return first_sentences(value, 1)


def two_sentences(value: str) -> str:
    return first_sentences(value, 2)


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


def three_bullets(value: str) -> str:
    """A list of three: the first three points of the answer as a list."""
    said = bullets(value).splitlines()
    points = [line for line in said if line.startswith("- ")][:3]
    return "\n".join(line for line in said if not line.startswith("- ") or line in points)


def pirate(value: str) -> str:
    value = re.sub(r"^(?:Hello|Hi)\b", "Ahoy", value)
    if value.startswith("Ahoy"):
        return value
    return "Arr!\n" + value if value.startswith("- ") else "Arr! " + value  # a list keeps its lines


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
                    # "Paris and Tokyo" in a translated sentence: "Paris et Tokyo"
                    said.append(re.sub(english, translated, sentence).replace(" and ", " et "))
                    break
            else:
                said.append(sentence)
                missing = True
        lines.append(prefix + " ".join(said))
    reply = in_french("\n".join(lines))  # "Paris: 18°C, light rain": "pluie légère"
    return f"{UNTRANSLATED}\n{reply}" if missing else reply


_ANSWER_ONLY = {"one_sentence", "two_sentences", "bullets", "three_bullets"}
_APPLY: dict[str, Callable[[str], str]] = {
    "one_sentence": one_sentence,
    "two_sentences": two_sentences,
    "bullets": bullets,
    "three_bullets": three_bullets,
    "pirate": pirate,
    "french": french,
    "russian": str,  # said in Russian after every scenario (engine.py)
    "english": str,  # already English: the answer is not put into Russian (engine.py)
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


# -- instructions that name a tool ------------------------------------------------------------

_CALL_VERB = r"(?:call|use|invoke|run)"
_RU_CALL = r"вызыва|вызов|вызвать|используй|использу|воспользуй|примен"
_BY_MEANS = r"(?:using|with|through|via)"
_NEGATION = r"(?:not|never|don't|dont|do not|without|avoid|no)"
# An order opens a clause ("Always call X.", "First, use X", "...; then call X", "You must use
# X"): the same verb inside a description ("available for use with the Skill tool", "tools you
# can call") orders nothing.
_OPENS = (
    r"(?:^|(?<=[.!?;:\n])|\b(?:and|then|so)\s+|,\s*)\s*"
    r"(?:(?:please|always|first|just|only|now|then|instead|you\s+(?:must|should|need\s+to|have"
    r"\s+to|are\s+to))[,\s]+){0,3}"
)
# "answer using X", "convert amounts with X", "look it up through X"
_ANSWER_BY = r"(?:answer|reply|respond|check|convert|compute|get|find|look\s+\w+\s+up)\b"


# An order not to use any tool: "Don't use tools.", "Answer without using any tools.", "Не
# используй инструменты.", "Отвечай без инструментов."; not one with a condition ("Don't use
# tools unless you must", "не используй инструменты, если можно ответить сразу").
_NO_TOOLS = re.compile(
    r"(?:"
    rf"\b{_NEGATION}\s+(?:{_CALL_VERB}|calling|using)\s+(?:any\s+|the\s+|your\s+)?tools?\b"
    r"|\b(?:answer|reply|respond)\s+without\s+(?:using\s+|calling\s+)?(?:any\s+)?tools?\b"
    r"|(?:\bне|\bникогда\s+не)\s+(?:используй|используйте|вызывай|вызывайте|применяй|применяйте)"
    r"\s+(?:никаких\s+|никакие\s+)?инструмент\w*\b"
    r"|\b(?:отвечай|отвечайте|ответь|ответьте)\s+без\s+(?:использования\s+|вызова\s+)?"
    r"инструмент\w*\b"
    r")(?![,\s]+(?:unless|except|if|when|only|for|to|that|which|until|before|если|кроме|пока|когда"
    r"|для|чтобы|без\s+необходимости)\b)",
    re.IGNORECASE,
)


def tool_orders(conv: Conversation) -> tuple[list[str], list[str]]:
    """(tools an instruction says to call, tools it says not to call), from `system` and the
    last user message. An order not to use any tool refuses every one."""
    system = unquoted(conv.system)
    said = f"{system}\n{unquoted(conv.person_text)}"
    call: list[str] = []
    avoid: list[str] = []
    if _NO_TOOLS.search(said):
        return call, [name for name in conv.tool_names if name]
    for name in conv.tool_names:
        if not name:
            continue
        # A name that is a plain word ("refund") counts only quoted or followed by "tool": "I
        # don't want to use the refund" or "no refund yet" say nothing about a tool.
        word = re.escape(name)
        if name.isalpha():
            the_name = rf"(?:[`'\"]{word}[`'\"]?|{word}\s+tool)\b"
        else:
            the_name = rf"[`'\"]?{word}\b[`'\"]?"
        # "call convert_currency", "use the tool `convert_currency`", "use your convert_currency"
        named = rf"(?:\w+\s+){{0,2}}?{the_name}"
        passive = (
            rf"{the_name}\s+(?:\w+\s+)?(?:must|should|has\s+to|is\s+to|needs\s+to)\s+be\s+"
            r"(?:called|used)"
        )
        refused = re.search(
            rf"\b{_NEGATION}\s+(?:[\w']+\s+){{0,3}}?(?:{_CALL_VERB}|calling|using)\s+{named}"
            rf"|\b{_NEGATION}\s+{the_name}"
            rf"|{the_name}\s+(?:must|should|may)\s+(?:not|never)\s+be\b",
            said,
            re.IGNORECASE,
        )
        ordered = re.search(
            rf"{_OPENS}(?:{_CALL_VERB}\s+{named}"
            rf"|{_ANSWER_BY}\s+(?:[\w']+\s+){{0,4}}?{_BY_MEANS}\s+{named})"
            rf"|{passive}",
            said,
            re.IGNORECASE | re.MULTILINE,
        )
        # Russian: "Всегда вызывай convert_currency", "Не используй get_weather", "без вызова X".
        ru_named = rf"(?:[\w-]+\s+){{0,2}}?[`'\"«]?{word}\b"
        refused = refused or re.search(
            rf"(?:\bне|\bникогда\s+не)\s+(?:{_RU_CALL})\w*\s+{ru_named}"
            rf"|\bбез\s+(?:вызова|использования)\s+{ru_named}",
            said,
            re.IGNORECASE,
        )
        ordered = ordered or re.search(
            rf"{_OPENS}(?:всегда\s+|сначала\s+|пожалуйста,?\s+)*(?:{_RU_CALL})\w*\s+{ru_named}",
            said,
            re.IGNORECASE | re.MULTILINE,
        )
        if refused:
            avoid.append(name)
        elif ordered and (ordered.start() > len(system) or _relates(conv, name, ordered)):
            call.append(name)
    return call, avoid


def _stems(value: str) -> set[str]:
    words = re.findall(
        r"[^\W\d_]{4,}", re.sub(r"([a-z])([A-Z])", r"\1 \2", value).replace("_", " ")
    )
    return {w.lower()[:5] for w in words}


def _relates(conv: Conversation, name: str, order: re.Match) -> bool:
    """Whether an order in the system prompt concerns what the person asks: the question names
    one of the tool's allowed values, or shares a word with the tool's name, its description or
    the sentence of the order ("For any question about the weather, call get_weather"). Another
    program's standing orders ("Use the TodoWrite tool to plan your work") do not turn every
    question into a call; an order in the person's own words always counts."""
    asked = conv.person_text
    schema = (conv.tool(name) or {}).get("input_schema") or {}
    values = {
        str(v)
        for spec in (schema.get("properties") or {}).values()
        if isinstance(spec, dict)
        for v in spec.get("enum") or []
    }
    if any(re.search(rf"(?<!\w){re.escape(v)}(?!\w)", asked) for v in values if v):
        return True
    if _place_argument(schema) and cities_in(asked):
        return True  # "Is it cold in Oslo?" names the city a get_weather(city) call takes
    text = order.string
    begin = max(text.rfind(mark, 0, order.start() + 1) for mark in ".!?\n") + 1
    ends = [i for i in (text.find(mark, order.end()) for mark in ".!?\n") if i >= 0]
    sentence = text[begin : min(ends) if ends else len(text)]
    about = f"{name} {(conv.tool(name) or {}).get('description') or ''} {sentence}"
    common = {"call", "tool", "tools", "always", "every", "answer", "question", "please"}
    return bool((_stems(asked) & _stems(about)) - {w[:5] for w in common})


def _place_argument(schema: dict) -> str | None:
    """The tool's string argument that takes a place (city, location, place, town), if any."""
    props = schema.get("properties") or {}
    return next(
        (
            name
            for name, spec in props.items()
            if isinstance(spec, dict) and spec.get("type") == "string" and name in _PLACES
        ),
        None,
    )


def _numbers(value: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", value)]


def arguments_from(question: str, schema: dict) -> dict:
    """Arguments for a call, read from the question where it can, else made up from the schema.

    Numbers go to number arguments in order; the allowed values of `enum` arguments, in the
    order the question names them ("100 EUR in JPY": EUR, then JPY); the first city it names
    to a place argument (`weather.cities_in`, either language).
    """
    arguments = example_for(schema) if isinstance(schema, dict) else {}
    if not isinstance(arguments, dict):
        return {}
    props = schema.get("properties") or {}
    place, cities = _place_argument(schema), cities_in(question)
    if place in arguments and cities:
        arguments[place] = cities[0]
    numbers = _numbers(question)
    named: list[str] = []
    for match in re.finditer(r"[\w-]+", in_english(question)):
        word = match.group(0)
        if any(word in (spec.get("enum") or []) for spec in props.values()):
            named.append(word)
    for name, spec in props.items():
        if name not in arguments:
            continue
        if spec.get("type") in ("number", "integer") and numbers:
            number = numbers.pop(0)
            arguments[name] = int(number) if spec.get("type") == "integer" else number
        elif spec.get("enum"):
            fitting = [w for w in named if w in spec["enum"]]
            if fitting:
                arguments[name] = fitting[0]
                named.remove(fitting[0])
    return arguments


def _asked_since_question(conv: Conversation, name: str) -> bool:
    """Whether the model already called `name` since the user last wrote text."""
    start = 0
    for index, message in enumerate(conv.messages):
        own_text = any(b.get("type") == "text" for b in blocks_of(message))
        if message.get("role") == "user" and own_text:
            start = index
    return any(
        b.get("type") == "tool_use" and b.get("name") == name
        for m in conv.messages[start:]
        if m.get("role") == "assistant"
        for b in blocks_of(m)
    )


def obey(conv: Conversation, reply: Reply, call: list[str], avoid: list[str], known: bool) -> Reply:
    """The reply with the tool orders applied (`known`: a scenario, not the fallback, wrote it)."""
    if not conv.tools_allowed or conv.must_use_tool:
        return reply  # tool_choice decides: none forbids every call, a forced one is guaranteed
    content = reply.content
    dropped = [b["name"] for b in content if b.get("type") == "tool_use" and b["name"] in avoid]
    if dropped:
        kept = [b for b in content if b.get("type") == "tool_use" and b["name"] not in avoid]
        note = (
            f"I was told not to use {dropped[0]}, so I will not call it. Without it I cannot "
            "look this up, and I will not make up an answer."
        )
        return Reply([text(note), *kept], None, None, f"The instructions forbid {dropped[0]}.")
    wanted = [n for n in call if n not in avoid]
    if not wanted or reply.stop_reason == "refusal":
        return reply
    name = wanted[0]
    if conv.ends_with_results:
        results = [c for c in conv.latest_results() if c.name == name]
        if results and not known:
            said = "\n".join(f"{name}: {reported(c.result or '')}" for c in results)
            return Reply([text(f"Here is what {name} returned:\n{said}")])
        return reply
    if known or _asked_since_question(conv, name):
        return reply
    schema = (conv.tool(name) or {}).get("input_schema") or {}
    arguments = arguments_from(conv.person_text, schema)
    return Reply(
        [text(f"I'll use {name}, as instructed."), tool_use(name, **arguments)],
        None,
        None,
        f"The instructions tell me to call {name} for this.",
    )


@scenario(
    "instructions",
    "Follow one clear instruction in `system` or the person's message: answer in French, in one sentence, in bullet "
    "points, or as a pirate (try: system='Answer in French.' with 'Hello!')",
    priority=0,
)
def instructions(conv: Conversation) -> Reply | None:
    kinds = instructions_for(conv)
    call, avoid = tool_orders(conv) if conv.tools else ([], [])
    if not kinds and not call and not avoid:
        return None
    from course_helpers.offline import scenarios  # the registry that holds this module

    reply, known = None, True
    for entry in scenarios.registered():
        if entry.name == "instructions":
            continue
        reply = entry.respond(conv)
        if reply is not None:
            break
    if reply is None:
        reply, known = scenarios.fallback(conv), False
    if call or avoid:
        reply = obey(conv, reply, call, avoid, known)
    return follow(kinds, reply) if kinds else reply
