"""Course machinery (offline course model): the language a reply is said in. A person who wrote
in Russian, or told the model to answer in Russian ("Answer in Russian."), is answered in
Russian (`russian.py`), unless an instruction asks for French or English."""

from __future__ import annotations

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply
from course_helpers.offline.russian import answer_in_russian, writes_russian
from course_helpers.offline.scenarios.instructions import instructions_for


def said_in_the_persons_language(conv: Conversation, reply: Reply) -> Reply:
    """A reply to a person who wrote in Russian, or told to answer in Russian ("Answer in
    Russian."), said in Russian (`russian.py`), unless an instruction asks for French or
    English."""
    asked = conv.person_text
    kinds = set(instructions_for(conv))
    if not (writes_russian(asked) or "russian" in kinds) or {"french", "english"} & kinds:
        return reply
    content = [
        {**b, "text": answer_in_russian(b["text"], asked)}
        if b["type"] == "text" and b["text"]
        else b
        for b in reply.content
    ]
    return Reply(content, reply.stop_reason, reply.stop_details, reply.thinking)
