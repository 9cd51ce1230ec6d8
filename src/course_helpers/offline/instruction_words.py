"""Course machinery (offline course model): how the course model finds the four instructions of
notebook 01 in a text (`scenarios/instructions.py` applies them).

Each kind has a fixed pattern, in English and in Russian, read by the same rule: a verb of
answering (answer, reply, write, explain, tell...; отвечай, ответь, пиши, расскажи, объясни...)
up to 40 characters before what it asks ("in one sentence", "одним предложением"), or a form of
its own ("You are a pirate", "Be a pirate", "Ты — пират", "Будь пиратом", "по пунктам",
"Используй маркированный список"), or what it asks as a sentence of its own ("In one sentence.",
"Одним предложением."). "по французски" is read as "по-французски". An
instruction is not found when a negation comes right before it ("Never answer as a pirate",
"Не отвечай по-французски") or inside it ("You are not a pirate", "Ты не пират"); each place an
instruction may start is tried, so one negation does not swallow the next order ("Don't answer
in French, answer in one sentence."). Words the text quotes in quotation marks order nothing.

    instructions_in("Не отвечай по-французски, отвечай одним предложением.")   # ["one_sentence"]
    instructions_in('My friend said: "Answer in French."')                       # []
"""

from __future__ import annotations

import re

_VERB = r"\b(?:answer|reply|respond|write|speak|talk|explain|describe|tell)\b[^.!?\n]{0,40}"
_RU_VERB = (
    r"(?:отвечай|отвечайте|ответь|ответьте|отвечаешь|отвечаете|пиши|пишите|пишешь|говори"
    r"|говорите|говоришь|расскажи|расскажите"
    r"|объясни|объясните|опиши|опишите)\b[^.!?\n]{0,40}"
)
_RU_USE = r"(?:используй|используйте|сделай|сделайте|дай|дайте|оформи|оформите)\s+"
# An order may be no more than what it asks, as a sentence of its own: "In one sentence.",
# "Одним предложением, пожалуйста."
_OPENING = r"(?:^|(?<=[.!?:;\n]))\s*(?:please,?\s+|пожалуйста,?\s+)?"
_CLOSING = r"(?=\s*(?:[.!,:;\n]|$))"
_ONE_SENTENCE = (
    r"(?:in (?:one|a single)(?: short)? sentence"
    r"|(?:одним|в одно|одно)\s+(?:коротким\s+|короткое\s+)?предложени\w+|одной\s+фразой)"
)
INSTRUCTIONS: dict[str, re.Pattern] = {
    "one_sentence": re.compile(
        _VERB + r"\bin (?:one|a single)(?: short)? sentence\b"
        rf"|{_RU_VERB}\b(?:(?:одним|в одно|в одном)\s+(?:коротком\s+|коротким\s+)?предложен[иь]"
        r"|одной\s+(?:короткой\s+)?фразой)"
        rf"|{_OPENING}{_ONE_SENTENCE}{_CLOSING}",
        re.IGNORECASE,
    ),
    # "Answer in one or two sentences." (01's tutor), "in two sentences", «одним-двумя
    # предложениями», «в двух предложениях»: at most two.
    "two_sentences": re.compile(
        _VERB + r"\bin (?:one or two|two|2|1-2|1 or 2|a couple of)(?: short)? sentences\b"
        rf"|{_RU_VERB}\b(?:одним[- ]двумя|одним или двумя|двумя|в двух|в одном[- ]двух)\s+"
        r"(?:короткими\s+|коротких\s+)?предложени"
        rf"|{_OPENING}(?:in (?:one or two|two) sentences|(?:одним[- ]двумя|двумя)\s+предложениями)"
        rf"{_CLOSING}",
        re.IGNORECASE,
    ),
    "bullets": re.compile(
        _VERB + r"\b(?:(?:in|as|with) bullet(?:ed)? (?:points?|list)|as a list)\b"
        r"|\b(?:use|give|make)\s+(?:a\s+)?(?:bullet(?:ed)?\s+(?:points|list)|list)\b"
        r"|\bpoint by point\b"
        rf"|{_RU_VERB}\b(?:маркированным\s+)?(?:списком|пунктами)|\bпо\s+пунктам\b"
        rf"|{_RU_USE}(?:маркированный\s+)?список\b"
        rf"|{_RU_USE}(?:ответ\s+)?(?:маркированным\s+)?(?:списком|пунктами)",
        re.IGNORECASE,
    ),
    # "Answer in three bullet points.", «Отвечай маркированным списком из трёх пунктов.»: a list
    # of three.
    "three_bullets": re.compile(
        _VERB + r"\b(?:in|as|with) (?:three|3) bullet(?:ed)? points\b"
        r"|\b(?:use|give|make)\s+(?:three|3)\s+bullet(?:ed)?\s+points\b"
        rf"|{_RU_VERB}\b(?:маркированным\s+)?списком\s+из\s+(?:тр[её]х|3)\s+пункт"
        rf"|{_RU_VERB}\b(?:тремя|3)\s+пунктами",
        re.IGNORECASE,
    ),
    "pirate": re.compile(
        r"\b(?:you are|act as|talk like|speak like|play)\b[^.!?\n]{0,20}\bpirate\b"
        r"|\b(?:answer|reply|respond|write)\b[^.!?\n]{0,20}\b(?:as|like) a pirate\b"
        r"|\bbe\s+(?:a\s+|like\s+a\s+)?pirate\b"
        r"|\b(?:ты|вы)\s+(?:[—–-]\s*)?(?:\w+\s+)?пират"
        r"|\b(?:будь|будьте|стань|станьте|притворись|притворитесь)\s+(?:\w+\s+)?пират"
        r"|\b(?:говори|веди себя|разговаривай|отвечай|ответь|пиши)\w*\b[^.!?\n]{0,20}"
        r"\bкак\s+пират",
        re.IGNORECASE,
    ),
    "french": re.compile(
        _VERB + r"\bin french\b|\ben fran[cç]ais\b|\bfran[cç]ais uniquement\b"
        rf"|{_RU_VERB}\bпо[- ]французски|\bна французском",
        re.IGNORECASE,
    ),
    # Asked for Russian, the answer is said in Russian (engine.py), whatever the question's
    # language.
    "russian": re.compile(
        _VERB + rf"\bin russian\b|{_RU_VERB}\bпо-русски|{_RU_VERB}\bна русском",
        re.IGNORECASE,
    ),
    # The course model writes English; asked for it, it does not say a Russian question's
    # answer in Russian.
    "english": re.compile(
        _VERB + rf"\bin english\b|{_RU_VERB}\bпо[- ]английски|{_RU_VERB}\bна английском",
        re.IGNORECASE,
    ),
}
# An instruction found in text the person quotes orders nothing: "My friend said: «Answer in
# French»", 'Tell your friend "you are a pirate"'. A quotation is a span of several words in
# quotation marks; a single quoted word (a tool's name, "yes") stays.
_QUOTED = re.compile(
    r"«[^«»\n]*\s[^«»\n]*»|“[^“”\n]*\s[^“”\n]*”|\"[^\"\n]*\s[^\"\n]*\""
    r"|(?<!\w)'[^'\n]*\s[^'\n]*'(?!\w)"
)


def unquoted(value: str) -> str:
    """The text without what it quotes in quotation marks (see `_QUOTED`)."""
    return _QUOTED.sub(" ", value)


_NEGATED = re.compile(r"\b(?:not|never|don't|avoid|не|никогда)\b[^.!?\n]{0,12}$", re.IGNORECASE)
_NEGATION_IN = re.compile(r"\b(?:not|never|no longer|не|никогда)\b", re.IGNORECASE)
# Every place an instruction may start, overlapping: in "Don't answer in French, answer in one
# sentence." the second order is found on its own, after the first one's negation.
_ANYWHERE = {
    kind: re.compile(f"(?=({pattern.pattern}))", pattern.flags)
    for kind, pattern in INSTRUCTIONS.items()
}


def instructions_in(system: str) -> list[str]:
    """The kinds of instruction found in a text, in the order they are applied. One with a
    negation right before it ("Never answer as a pirate.") or inside it ("You are not a
    pirate.", "Ты не пират.") is an order not to, so not found; nor is one the text quotes."""
    text = unquoted(system or "")
    return [
        kind
        for kind, pattern in _ANYWHERE.items()
        if any(
            not _NEGATED.search(text[: found.start()]) and not _NEGATION_IN.search(found.group(1))
            for found in pattern.finditer(text)
        )
    ]
