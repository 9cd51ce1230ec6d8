"""Course machinery (offline course model): what the instructions of a support-desk request say
(notebook 09), read the same for every caller: whether they ask to consult the refund policy
before refunding, which kinds of request the writer's role covers, the sign-off, a check's word
and whether it asks for completeness. The rules that use them are in `support_desk`; this module
registers no scenario."""

from __future__ import annotations

import re

from course_helpers.fixtures.support_desk import SIGN_OFF

# -- the refund policy ---------------------------------------------------------------------------

# An instruction about the refund policy: a clause that speaks of refunds (or money back) and of a
# source that rules on them (a policy, rules, an article, guidelines, terms, the help centre or
# knowledge base); the verb that governs the source says whether to consult it, and so does a
# negation right in front of that verb (see `says_to_read`).
_REFUND_SUBJECT = re.compile(r"\brefund\w*|money back")
_RULING_SOURCE = re.compile(
    r"\b(?:polic(?:y|ies)|rules?|articles?|guidelines?|terms|conditions)\b"
    r"|help[- ]?cent(?:re|er)|knowledge[- ]base|\bfaq\b"
)
# Verbs of consulting, in their forms ("read", "looked at", "have consulted", "make sure you
# know", "be familiar with").
_FOLLOW_VERBS = {
    *("read", "reading", "follow", "follows", "following", "followed", "apply", "applying"),
    *("check", "checking", "checked", "consult", "consulting", "consulted", "review"),
    *("reviewing", "reviewed", "study", "studying", "studied", "obey", "respect", "look"),
    *("looking", "looked", "see", "seeing", "seen", "find", "finding", "found", "learn"),
    *("learning", "learned", "learnt", "search", "searching", "searched", "heed", "abide"),
    *("stick", "sticking", "comply", "complying", "honour", "honor", "mind", "open", "opening"),
    *("opened", "know", "knowing", "known", "understand", "understood", "familiar", "familiarise"),
    *("familiarize", "go", "going", "use", "using", "refer", "referring", "keep"),
}
_AGAINST_VERBS = {"skip", "skipping", "ignore", "ignoring", "disregard", "disregarding"}
_NEGATIONS = {"not", "never", "no", "without", "cannot", "nothing"}
# Words that may stand between a negation and the verb it negates ("do not ever read",
# "there is no need to read", "don't bother following", "never answer by calling").
_FILLERS = {
    *("do", "does", "you", "ever", "need", "to", "bother", "have", "has", "should", "must"),
    *("please", "also", "even", "answer", "reply", "respond", "end", "by", "first", "just"),
}
# Someone's words quoted in the instructions (three words or more) are not an instruction.
_QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”")


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower().replace("’", "'"))


def negated(before: list[str]) -> bool:
    """Whether the words right before a verb negate it: a negation with only fillers between
    ("do not read", "no need to read", "don't bother following"). "Without" after another
    negation asks for the verb ("refund nothing without reading it": read it)."""
    for index in range(len(before) - 1, -1, -1):
        word = before[index]
        if word in _NEGATIONS or word.endswith("n't"):
            earlier = before[:index]
            double = any(
                w in _NEGATIONS | {"nothing", "none"} or w.endswith("n't") for w in earlier
            )
            return not (word == "without" and double)
        if word not in _FILLERS:
            return False
    return False


def says_to_read(clause: str, next_clause: str = "") -> bool:
    """Whether one clause asks to consult the refund policy: it speaks of refunds and of a source
    that rules on them ("the refund policy", "what the help centre says about refunds", "the
    terms for money back"), and the verb that governs that source (the last verb of consulting
    before it, else the first after it) asks to consult it and is not negated, or is a verb
    against it ("skip", "ignore") that is negated. So "Never issue a refund before you have
    looked at what the help centre says", "Before refunding, make sure you know the refund
    policy", "The refund policy must be consulted first" and "Check the refund rules first" all
    count; "Do not read the refund policy", "Refunds are handled by the help centre" do not. A
    next clause that starts with "no" takes it back ("Read the refund policy? No, just
    refund.")."""
    said = clause.lower().replace("’", "'")
    source = _RULING_SOURCE.search(said)
    if _REFUND_SUBJECT.search(said) is None or source is None:
        return False
    before, after = words_of(said[: source.start()]), words_of(said[source.start() :])
    verbs = [i for i, w in enumerate(before) if w in _FOLLOW_VERBS | _AGAINST_VERBS]
    if verbs:
        verb, no = before[verbs[-1]], negated(before[: verbs[-1]])
    else:
        later = [i for i, w in enumerate(after) if w in _FOLLOW_VERBS | _AGAINST_VERBS]
        if not later:
            return False
        verb, no = after[later[0]], negated(after[: later[0]])
    yes = (verb in _FOLLOW_VERBS) != no
    return yes and words_of(next_clause)[:1] != ["no"]


def unquoted(system: str) -> str:
    """The instructions without the words they quote (three words or more: someone's words)."""

    def drop(match: re.Match) -> str:
        quoted = match.group(1) if match.group(1) is not None else match.group(2)
        return match.group(0) if len(words_of(quoted)) < 3 else " "

    return _QUOTED.sub(drop, system)


def told_to_follow_refund_policy(system: str) -> bool:
    """Whether the instructions ask to consult the refund policy (`says_to_read`, clause by
    clause; quoted words left out)."""
    clauses = re.split(r"[.;!?]+\s*", unquoted(system))
    return any(says_to_read(c, n) for c, n in zip(clauses, [*clauses[1:], ""], strict=True))


# -- what the writers' instructions change --------------------------------------------------------

# A sentence that speaks to the model ("You are ...", "Act as ...", "Your job is ...").
ADDRESSED = re.compile(r"^(?:you\b|act as\b|your (?:role|job|task)\b|as (?:the|a|an)\b)")
# The kinds of request a writer's role sentences name.
_ROLE_KINDS = [
    ({"refund"}, re.compile(r"refund|money back")),
    ({"shipping"}, re.compile(r"where (?:their|the|an?|your) orders? (?:is|are)|tracking|deliver")),
    ({"account", "policy"}, re.compile(r"help[- ]?cent(?:re|er)|articles?|knowledge[- ]base")),
]
# A sentence that asks the writer to answer everything the customer asks.
_EVERYTHING = re.compile(
    r"\b(?:every|each|all(?: the)?|any)\b(?: \w+)? (?:requests?|questions?|parts?)\b"
    r"|\b(?:anything|everything|whatever)\b(?: else)?(?: \w+){0,2} (?:asks?|asked|wants?|needs?)\b"
)
_SIGN_AS = re.compile(
    r"\bsign(?: off| it)? (?:as|with) ([^.;!?]+)|\bsigned (?!in\b|up\b|out\b)(?:as |with )?([^.;!?]+)",
    re.IGNORECASE,
)
_APPROVAL = re.compile(r"\bwith (?:exactly |just |only |the word )?[\"'“]?([A-Z]{2,})\b")
_COMPLETE = re.compile(
    r"\b(?:every|each|all(?: the)?) (?:request|question|part)s?\b", re.IGNORECASE
)


def sentences_of(system: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", system.strip()) if s.strip()]


def role_scope(system: str) -> set[str] | None:
    """The kinds of request a writer answers, read from the whole of its instructions: None
    (every kind) when a sentence asks it to answer everything ("Answer every question the
    customer asks", "... and anything else they ask"); else the kinds its role sentences (every
    sentence that speaks to the model: "You ...", "Your job is ...") name: refunds; where an
    order is (tracking, delivery); the help centre's articles (account and policy questions).
    None too when they name none ("You write replies to customer support tickets")."""
    sentences = [s.lower() for s in sentences_of(unquoted(system))]
    if any(_EVERYTHING.search(s) for s in sentences):
        return None
    roles = [s for s in sentences if ADDRESSED.match(s)]
    kinds = [kinds for kinds, words in _ROLE_KINDS if any(words.search(s) for s in roles)]
    return set().union(*kinds) if kinds else None


def sign_off(system: str) -> str:
    """The name the instructions say to sign with ("sign as X", "signed X"), else the desk's."""
    found = _SIGN_AS.search(system)
    named = (found.group(1) or found.group(2)).strip().strip("\"'“”") if found else ""
    return named or SIGN_OFF


def approval_word(system: str) -> str:
    """The word the instructions say a passing check answers with ("answer with exactly OK")."""
    found = _APPROVAL.search(system)
    return found.group(1) if found else "OK"


def checks_completeness(system: str) -> bool:
    """Whether a check's instructions ask it to see that the draft answers every request."""
    return bool(_COMPLETE.search(system))
