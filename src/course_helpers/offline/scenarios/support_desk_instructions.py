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
    r"|help[- ]?cent(?:re|er)|knowledge[- ]base|\bfaq\b|\bpages?\b"
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
    *("match", "matches", "matching", "conform", "conforms", "adhere", "adheres", "fit"),
    *("fits", "align", "aligns", "accord", "agree", "agrees"),
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
_QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”|«([^»]*)»")


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-zа-яё']+", text.lower().replace("’", "'"))


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


# The same instruction in Russian ("Прежде чем оформлять возврат, прочитай правила возврата",
# "Сначала посмотри, что говорит справочный центр о возвратах"): a clause of refunds, a source
# that rules on them and a verb of consulting that no "не" negates.
_RU_REFUND = re.compile(r"возврат|возмещ|вернуть деньги|вернуть оплату")
_RU_SOURCE = re.compile(
    r"правил|политик|справочн\w* центр|центр\w* помощи|стать[яиюей]|услови|баз\w* знаний"
)
_RU_FOLLOW = re.compile(
    r"(?:^|\s)(?P<no>(?:никогда )?не )?"
    r"(?:про)?чита\w*|(?:^|\s)(?P<no2>(?:никогда )?не )?(?:"
    r"прочт\w*|посмотр\w*|смотр\w*|изуч\w*|провер\w*|свер\w*|следу\w*|ознаком\w*|"
    r"загля\w*|узна\w*|соблюда\w*|учит\w*|руководству\w*|придержива\w*|обрат\w*)"
)


def says_to_read_ru(clause: str) -> bool:
    """`says_to_read` for a Russian clause: it speaks of refunds and of a ruling source, and a
    verb of consulting in it is not negated ("не читай правила возврата" does not count)."""
    said = clause.lower()
    if not (_RU_REFUND.search(said) and _RU_SOURCE.search(said)):
        return False
    verbs = list(_RU_FOLLOW.finditer(said))
    return bool(verbs) and not any(v["no"] or v["no2"] for v in verbs)


def unquoted(system: str) -> str:
    """The instructions without the words they quote (three words or more: someone's words)."""

    def drop(match: re.Match) -> str:
        quoted = next((g for g in match.groups() if g is not None), "")
        return match.group(0) if len(words_of(quoted)) < 3 else " "

    return _QUOTED.sub(drop, system)


def told_to_follow_refund_policy(system: str) -> bool:
    """Whether the instructions ask to consult the refund policy (`says_to_read`, clause by
    clause; quoted words left out)."""
    clauses = re.split(r"[.;!?]+\s*", unquoted(system))
    pairs = zip(clauses, [*clauses[1:], ""], strict=True)
    return any(says_to_read(c, n) or says_to_read_ru(c) for c, n in pairs)


# -- what the writers' instructions change --------------------------------------------------------

# A sentence that speaks to the model ("You are ...", "Act as ...", "Your job is ...", «Ты
# специалист ...», «Твоя задача ...»).
ADDRESSED = re.compile(
    r"^(?:you\b|act as\b|your (?:role|job|task)\b|as (?:the|a|an)\b"
    r"|(?:ты|вы)(?![а-яё])|(?:твоя|ваша) (?:роль|задача|работа)(?![а-яё]))"
)
# A sentence that gives the model a task in the imperative ("Check a draft ...", "Tell
# customers ...", "Please merge ..."), or a role by another wording ("Role: ...", "We want you
# to ...", "Imagine you are ...").
_IMPERATIVE = {
    *("answer", "reply", "respond", "write", "draft", "compose", "check", "compare", "review"),
    *("verify", "proofread", "tell", "inform", "let", "merge", "combine", "join", "assemble"),
    *("handle", "help", "assist", "serve", "support", "deal", "resolve", "process", "work"),
    *("act", "be", "play", "plan", "triage", "classify", "sort", "route", "read", "correct"),
    *("fix", "rewrite", "edit", "approve", "judge", "prepare", "produce", "greet", "report"),
    *("explain", "summarise", "summarize", "turn", "make", "give", "take", "look", "find"),
    # The same tasks in Russian, said to "ты" or "вы" («Проверь черновик», «Отвечай ...»).
    *("отвечай", "ответь", "отвечайте", "ответьте", "пиши", "напиши", "пишите", "напишите"),
    *("составь", "составьте", "проверь", "проверяй", "проверьте", "сравни", "сравните"),
    *("помогай", "помоги", "помогайте", "обрабатывай", "обработай", "занимайся"),
    *("занимайтесь", "объедини", "объедините", "сообщи", "сообщай", "сообщите", "расскажи"),
    *("прочитай", "исправь", "исправьте", "будь", "будьте", "действуй", "разбери", "оцени"),
    *("реши", "решай", "классифицируй", "распредели", "собери", "подготовь", "объясни"),
}
_DIRECTIVE = re.compile(
    r"^(?:role|task|job|instructions?)\s*:|^(?:i|we) (?:want|need|would like|'d like) you\b"
    r"|^(?:imagine|pretend|assume) (?:that )?you\b"
)
# An addressed sentence about how to work, not what the role is ("You must read ...", "You
# never promise ...", "You do not ...").
_PROCEDURE = re.compile(
    r"^you (?:must|should|shall|may|might|can|cannot|can't|could|will|won't|would|need|"
    r"needn't|have to|has to|do not|don't|never|are not|aren't|mustn't|shouldn't)\b"
    r"|^(?:ты|вы) (?:должн\w*|обязан\w*|можешь|можете|сможешь|не|никогда|нужно)(?![а-яё])"
)
# The kinds of request a writer's role sentences name.
_ROLE_KINDS = [
    (
        {"refund"},
        re.compile(
            r"refund|money back|reimburs|paid back|pay(?:ing)? back"
            r"|возврат|возмещ|верн\w* деньг|деньги назад"
        ),
    ),
    (
        {"shipping"},
        re.compile(
            r"\bwhere\b[^.;]{0,40}\borders?\b|tracking|deliver|shipping|shipment"
            r"|доставк|отслежива|трек|(?<![а-яё])где(?![а-яё])[^.;]{0,40}заказ"
        ),
    ),
    (
        {"account", "policy"},
        re.compile(
            r"help[- ]?cent(?:re|er)|articles?|knowledge[- ]base"
            r"|справочн\w* центр|центр\w* помощи|стать[яиюей]|баз\w* знаний"
        ),
    ),
]
# A sentence that asks the writer to answer everything the customer asks.
_EVERYTHING = re.compile(
    r"\b(?:every|each|all(?: of)?(?: the)?|any)\b(?: [\w']+){0,2}? (?:requests?|questions?|parts?)\b"
    r"|\b(?:anything|everything|whatever)\b(?: else)?(?: \w+){0,2} (?:asks?|asked|wants?|needs?)\b"
    r"|(?<![а-яё])(?:все|всё|каждый|каждое|любой|любые|любое)(?: [а-яё]+){0,2}? "
    r"(?:вопрос|просьб|запрос|обращени|част)"
)
_SIGN_AS = re.compile(
    r"\bsign(?: off| it)? (?:as|with):? ([^.;!?]+)|\bsigned (?!in\b|up\b|out\b)(?:as |with )?([^.;!?]+)"
    r"|\bsignature(?: line)?(?: of| as| is|:)? [\"'“]?([^.;!?\"”]+)"
    # "End with: Cheers, the Kettle team.", "Close each reply with 'Best, Anna'": a closing
    # given after a colon or in quotes ("End with a question" gives none).
    r"|\b(?:end|close|finish)(?: (?:the|your|each|every|all))?(?: (?:reply|replies|answer|answers"
    r"|message|messages|email|emails))? with(?::\s*[\"'“]?|\s+[\"'“])([^.;!?\"”\n]+)",
    re.IGNORECASE,
)
_COMPLETE = re.compile(
    r"\b(?:every|each|all(?: of)?(?: the)?)(?: [\w']+){0,2}? (?:request|question|part)s?\b"
    r"|\bnothing\b[^.;]{0,80}\b(?:left out|missing|unanswered|omitted|missed)\b"
    r"|\b(?:leaves?|leaving|misses|missing|skips?) (?:nothing|no (?:request|question|part))\b"
    r"|\bno (?:request|question|part)\b[^.;]{0,40}\b(?:left out|unanswered|omitted|missed)\b",
    re.IGNORECASE,
)


def sentences_of(system: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", system.strip()) if s.strip()]


def gives_a_role(sentence: str) -> bool:
    """Whether a sentence gives the model its role or task: it speaks to the model ("You ...",
    "Act as ...") or tells it what to do ("Check a draft ...", "Please tell ...")."""
    said = sentence.lower().replace("’", "'")
    first = (words_of(re.sub(r"^(?:please|пожалуйста),?\s+", "", said)) or [""])[0]
    return bool(ADDRESSED.match(said) or _DIRECTIVE.match(said)) or first in _IMPERATIVE


def role_sentence(system: str) -> str:
    """The role the instructions give: their first sentence (up to a colon) that gives the model
    a role or a task (`gives_a_role`); a sentence before it that only describes ("Kettle & Co is
    a kitchenware shop.") is context. '' when none does."""
    for sentence in sentences_of(unquoted(system)):
        head, colon, _ = sentence.partition(":")
        role = head if colon and len(words_of(head)) > 2 else sentence
        if gives_a_role(role):
            return role
    return ""


# A task that limits itself ("Answer only about refunds", «Отвечай только о возвратах») is a
# role sentence too; one with "also" widens it («Также сообщай, где заказ»).
_ONLY = re.compile(r"\bonly\b|(?<![а-яё])(?:только|лишь)(?![а-яё])")
_ALSO = re.compile(r"\balso\b|\bas well\b|(?<![а-яё])(?:также|тоже)(?![а-яё])")


def role_scope(system: str) -> set[str] | None:
    """The kinds of request a writer answers, read from the whole of its instructions: None
    (every kind) when a sentence asks it to answer everything ("Answer every question the
    customer asks", "Answer all the customer's questions", "... and anything else they ask");
    else the kinds its role sentences name: the role (`role_sentence`, in any mood: "You tell
    customers the outcome of their refund", "Tell customers ...") and every other sentence
    that states a role to the model ("You handle refunds"; not one about how to work: "You must
    read the refund policy ...", "You never promise a refund ...", nor a clause that asks to
    read the refund policy). The kinds: refunds; where an order is (tracking, delivery); the
    help centre's articles (account and policy questions); one that names more ("Also tell them
    where any other order they mention is") adds its kinds. None too when they name none ("You
    write replies to customer support tickets")."""
    sentences = [s.lower() for s in sentences_of(unquoted(system))]
    if any(_EVERYTHING.search(s) for s in sentences):
        return None
    role = role_sentence(system).lower()
    roles = [role] if role else []
    roles += [s for s in sentences if ADDRESSED.match(s) and not _PROCEDURE.match(s)]
    roles += [s for s in sentences if _ONLY.search(s) and gives_a_role(s) and s not in roles]
    widen = [s for s in sentences if _ALSO.search(s)]
    named = [role_words(s) for s in roles]
    named += [
        role_words(s, abilities=True)
        for s in widen
        if s not in roles
        and not negated(words_of(s)[:1])
        and not re.search(r"\bnot\b|n't\b|\bnever\b|(?<![а-яё])(?:не|никогда)(?![а-яё])", s)
    ]
    kinds = [kinds for kinds, words in _ROLE_KINDS if any(words.search(s) for s in named)]
    return set().union(*kinds) if kinds else None


# A clause that says what the model is able to do ("you can refund orders") names no limit;
# "you can only refund orders" does.
_ABILITY = re.compile(
    r"^(?:you |and )*(?:can|could|may|are able to|are allowed to)\b(?!.*\bonly\b)"
)


def role_words(sentence: str, abilities: bool = False) -> str:
    """A role sentence without its clauses that ask to read the refund policy or (unless
    `abilities`: a sentence that adds to a role, "You can also tell them ...") only say what the
    model is able to do ("You handle tickets and you can refund orders": every ticket)."""
    clauses = re.split(
        r"[;,:]\s*|\s(?:and |but )?(?:before|after|when) |\s(?:and|but) (?=you\b)", sentence
    )
    kept = [c for c in clauses if c and not says_to_read(c)]
    return " ".join(c for c in kept if abilities or not _ABILITY.match(c))


def sign_off(system: str) -> str:
    """The name the instructions say to sign with ("sign as X", "signed X"), else the desk's."""
    found = _SIGN_AS.search(system)
    named = next(g for g in found.groups() if g).strip().strip("\"'“”") if found else ""
    return named or SIGN_OFF


def checks_completeness(system: str) -> bool:
    """Whether a check's instructions ask it to see that the draft answers every request."""
    return bool(_COMPLETE.search(system))
