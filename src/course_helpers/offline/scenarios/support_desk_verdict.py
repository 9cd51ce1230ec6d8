"""Course machinery (offline course model): the words a support-desk check answers with
(notebook 09), read from its instructions the same for every caller, in English and Russian.

A check's instructions may name the word that approves a draft and the one that rejects it:
"answer with exactly OK", "respond with the single word PASS", "Answer APPROVED or REJECTED",
"Reply YES if the draft is fine", «Ответь ОК, если он верен». A named word is one in capitals
(or quoted) right after a verb of answering and a few filler words ("with", "the single word",
"exactly", «словом»). Which of the two it is: its meaning when it is a word of approval or
of rejection (PASS, FAIL); else the clause it sits in ("otherwise ...", "if it is wrong ..."
rejects); else its place in "X or Y" (the first approves). When none approves, `OK` does; when
none rejects, the check answers with the corrected reply. This module registers no scenario."""

from __future__ import annotations

import re

# A verb of answering, then up to five filler words, then the word: in capitals, or quoted.
_VERB = (
    r"(?i:\b(?:reply|replies|answer|answers|respond|responds|say|says|return|returns|output"
    r"|write|print|give)\b|(?<![а-яё])(?:ответь|ответьте|отвечай|отвечайте|напиши|напишите"
    r"|скажи|скажите|верни|верните|выведи|выведите)(?![а-яё]))"
)
_FILLER = (
    r"(?i:with|exactly|just|only|the|a|single|one|word|words|of|either|simply|precisely"
    r"|словом|слово|одним|одно|только|ровно|просто|лишь)"
)
_WORD = r"(?:[\"'“«`]([^\"'”»`\s]{2,20})[\"'”»`]|\b([A-ZА-ЯЁ]{2,})(?![\wа-яё]))"
_NAMED = re.compile(rf"{_VERB}(?:\s+{_FILLER}){{0,5}}\s+{_WORD}")
_OR_WORD = re.compile(rf"^\s*(?:,\s*)?(?i:or|или)\s+{_WORD}")
# Names of formats and currencies in capitals are not a verdict ("answer with JSON").
_NOT_VERDICTS = {"JSON", "XML", "HTML", "YAML", "CSV", "API", "EUR", "USD", "URL", "PDF"}
_APPROVING = {
    *("OK", "OKAY", "PASS", "PASSED", "APPROVED", "APPROVE", "YES", "GOOD", "VALID"),
    *("CORRECT", "ACCEPT", "ACCEPTED", "LGTM", "FINE", "TRUE", "SHIP", "ОК", "ДА", "ВЕРНО"),
    *("ПРИНЯТО", "ОДОБРЕНО", "ХОРОШО"),
}
_REJECTING = {
    *("FAIL", "FAILED", "REJECT", "REJECTED", "NO", "BAD", "INVALID", "INCORRECT", "WRONG"),
    *("FALSE", "DENIED", "DENY", "НЕТ", "НЕВЕРНО", "ОТКЛОНЕНО", "ОШИБКА"),
}
# A clause that says what to answer when the draft is not right.
_REJECTING_CLAUSE = re.compile(
    r"\b(?:otherwise|else|if not|not (?:fine|correct|supported|right|ok)|wrong|incorrect"
    r"|unsupported|fails?|problems?|errors?|mistakes?|missing)\b"
    r"|(?<![а-яё])(?:иначе|если нет|неверн\w*|ошиб\w*|не верен|не верна|не так)",
    re.IGNORECASE,
)
# A check asked to add the corrected reply after its word of rejection.
_CORRECTED = re.compile(
    r"\bcorrect(?:ed|ion)|\brewrit|\bfixed (?:reply|draft|version)|исправлен|перепиш",
    re.IGNORECASE,
)


def _named_words(system: str) -> list[tuple[str, str, int]]:
    """Each word the instructions name as an answer, with its clause and its place in an
    "X or Y" pair (0 alone or first, 1 second)."""
    found = []
    for clause in re.split(r"[.;!?\n]+", system):
        for match in _NAMED.finditer(clause):
            word = match.group(1) or match.group(2)
            if word.upper() in _NOT_VERDICTS:
                continue
            found.append((word, clause, 0))
            other = _OR_WORD.match(clause[match.end() :])
            if other:
                found.append((other.group(1) or other.group(2), clause, 1))
    return found


def verdict_words(system: str) -> tuple[str, str | None]:
    """The word a check answers with when the draft is right, and the one it answers with when
    it is not (None: it answers with the corrected reply)."""
    approve: str | None = None
    reject: str | None = None
    for word, clause, place in _named_words(system):
        if word.upper() in _APPROVING:
            rejects = False
        elif word.upper() in _REJECTING:
            rejects = True
        else:
            rejects = place == 1 or bool(_REJECTING_CLAUSE.search(clause))
        if rejects:
            reject = reject or word
        else:
            approve = approve or word
    return approve or "OK", reject


def approval_word(system: str) -> str:
    """The word the instructions say a passing check answers with ("answer with exactly OK")."""
    return verdict_words(system)[0]


def rejection(system: str, corrected: str) -> str:
    """What a check answers when the draft is not right: the corrected reply, or the word of
    rejection the instructions name (followed by the corrected reply when they ask for it)."""
    word = verdict_words(system)[1]
    if word is None:
        return corrected
    return f"{word}\n\n{corrected}" if _CORRECTED.search(system) else word
