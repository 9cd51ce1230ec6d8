"""Course machinery (offline course model): refusals, for notebook 06: a request for something
dangerous ends with stop_reason `refusal`.

The trigger words are deliberately blunt; the point is to see a refusal's shape (no content,
`stop_details` with a category) and to handle it, not to probe a classifier.

The course model reads the person's whole turn, as the API does: two user messages in a row
are one turn, so a rephrase sent *after* a refused request still carries it and is refused
again. With the refused turn removed or replaced, a rephrase that asks for something harmless
about the same subject gets an answer: a defensive question (how to protect against
ransomware, how it gets onto laptops, how to spot or remove it, what to do after an attack).

It reacts to a request for harm in the person's own words only: not to tool results, and not
to text the turn quotes (what frameworks do when they ask for a retry: they send the model's
own earlier answer back inside the new user turn). Quoted means a copy of the model's earlier
text, a fenced block, a `>` quote line or a long span between quotation marks.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, blocks_of, written
from course_helpers.offline.conversation import own_words as own_words_of
from course_helpers.offline.policy import Reply, say, scenario

_MAKE = r"\b(?:write|make|build|create|code|develop|give me|send me)\b"
_TRIGGERS = {
    "cyber": rf"{_MAKE}.{{0,40}}\b(?:ransomware|keylogger|botnet)s?\b"
    r"|\b(?:ransomware|keylogger|botnet)s?\b.{0,20}\bfor me\b",
    "bio": r"\b(bioweapon|nerve agent|weaponi[sz]e a (?:virus|pathogen))\b",
}
_THREAT = r"\b(?:ransomware|keylogger|botnet)s?\b"
_SHIELD = r"\b(?:protect|defend|prevent|recover|guard|harden)\w*\b"
# A question about defending against the threat, read by what it asks, not by one phrasing:
# protecting against it, spotting or removing it, how it gets in (the threat as the subject:
# "how does ransomware spread", never "how do I spread ransomware"), its signs, what to do
# after being hit. A request to make one is refused first (`refusal` comes before `defend`).
_DEFENSIVE = re.compile(
    rf"{_SHIELD}.{{0,80}}{_THREAT}|\bback ?up\w*\b.{{0,80}}{_THREAT}|{_THREAT}.{{0,80}}{_SHIELD}"
    r"|\b(?:detect|spot|recogni[sz]e|notice|remove|clean|get rid of|mitigate|survive)\w*\b"
    rf".{{0,40}}{_THREAT}"
    rf"|\bhow (?:does|do|can|could|might|would|did) (?:an? |the |most |such )?{_THREAT}"
    rf"|\b(?:signs?|symptoms?|indicators?) (?:of|that) (?:an? |the )?{_THREAT}"
    rf"|\bwhat (?:should|do|can|must) (?:i|we) do\b.{{0,60}}{_THREAT}"
    rf"|\b(?:hit|infected|attacked|encrypted) (?:by|with) (?:an? |the )?{_THREAT}",
    re.IGNORECASE,
)


_QUOTED_SPAN = re.compile(r"\"[^\"]{24,}\"|“[^”]{24,}”|'[^'\n]{24,}'")


def own_words(conv: Conversation) -> str:
    """The person's turn without what it quotes (`conversation.own_words`: the model's earlier
    text, also as an escaped string in a validation error, fenced blocks, quote lines, tagged
    blocks) and without long quoted spans."""
    text = own_words_of(person_turn(conv), conv.model_texts)
    return _QUOTED_SPAN.sub(" ", text)


def person_turn(conv: Conversation) -> str:
    """The text of the person's current turn: every user message after the last answer."""
    said: list[str] = []
    for message in reversed(conv.messages):
        if message.get("role") != "user":
            break
        said.insert(0, written(blocks_of(message), " "))
    return " ".join(said)


@scenario(
    "refusal",
    "Refuse a dangerous request, e.g. 'Write ransomware for me.' (stop_reason refusal)",
    priority=10,
)
def refusal(conv: Conversation) -> Reply | None:
    if conv.ends_with_results:
        return None
    text = own_words(conv).lower()
    for category, pattern in _TRIGGERS.items():
        if re.search(pattern, text):
            return Reply(
                [],
                stop_reason="refusal",
                stop_details={
                    "type": "refusal",
                    "category": category,
                    "explanation": "The request asks for help with something that could cause "
                    "serious harm.",
                },
            )
    return None


@scenario(
    "defend",
    "Answer a defensive security question, e.g. 'How do I protect our laptops against "
    "ransomware?' (the rephrase after a refusal)",
    priority=11,
)
def defend(conv: Conversation) -> Reply | None:
    if conv.ends_with_results or not _DEFENSIVE.search(conv.person_text):
        return None
    return say(
        "Three habits stop most ransomware. Keep backups the laptops cannot write to (offline "
        "or versioned, and test a restore). Install updates quickly and remove admin rights "
        "from everyday accounts. Turn on the endpoint protection your operating system ships "
        "with, and teach people to report odd attachments instead of opening them."
    )
