"""Course machinery (exercise checks): notebook 12, exercise 3's history and how two compare.

One job: the session the check saves (`session_history`: the half-way history, with the person's
words and the model's thoughts in the shapes a real session has), the differences between a
history and the one it was saved from, block by block (`first_difference`), and the thinking
blocks of a saved file set against the ones the model wrote (`thinking_damage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_helpers.exercise_checks.common import as_plain, short_repr
from course_helpers.exercise_checks.context_common import halfway_history
from course_helpers.fixtures.long_task import ANSWER
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.offline.signatures import sign

# A real model's thought may open with a line break and hold any character; the course model's
# are plain ASCII. The check's session gives them both, so that "byte for byte" is tested: a
# .strip(), a text cut short or a file written in another encoding than UTF-8 changes them.
THOUGHT_AFTER = " Prochaine étape : l’arrondi à 0,01 € — « ligne par ligne » ?  \n"
PERSONS_WORDS = f"  {ANSWER} Merci ! Le rapport — en français, s’il te plaît ✓\n"


def session_history() -> list:
    """The half-way history: the person's answer and every thought with non-ASCII text and
    surrounding whitespace; each thought signed as the course model signs its own."""
    messages = halfway_history()
    count = 0
    session = []
    for message in messages:
        if message["role"] == "assistant" and not isinstance(message["content"], str):
            blocks = []
            for block in message["content"]:
                if read_field(block, "type") == "thinking":
                    count += 1
                    thought = f"\n{read_field(block, 'thinking')}{THOUGHT_AFTER}"
                    signature = sign(f"msg_session_check_{count}", thought)
                    block = block.model_copy(update={"thinking": thought, "signature": signature})
                blocks.append(block)
            message = {**message, "content": blocks}
        session.append(message)
    if session[2] != {"role": "user", "content": ANSWER}:
        raise AssertionError("the long task's opening changed: messages[2] is no longer ANSWER")
    session[2] = {"role": "user", "content": PERSONS_WORDS}
    return session


def thinking_places(messages: list) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, message in enumerate(messages)
        for j, block in enumerate(content_blocks(message))
        if read_field(block, "type") == "thinking"
    ]


def thinking_dicts(data: Any) -> list[dict]:
    """Every thinking block in JSON data, in order, wherever it sits."""
    if isinstance(data, dict):
        if data.get("type") == "thinking":
            return [data]
        return [found for value in data.values() for found in thinking_dicts(value)]
    if isinstance(data, list):
        return [found for value in data for found in thinking_dicts(value)]
    return []


@dataclass
class Damage:
    """What a saved file did to the model's thinking blocks: its kind and the blocks it hit."""

    kind: str  # "left out", "signature missing", "text changed", "signature changed"
    indexes: list[int]  # which thinking blocks (in order), for all but "left out"
    saved: list[dict]  # the thinking blocks as the file holds them


def thinking_damage(messages: list, data: Any) -> Damage | None:
    """How the file's thinking blocks differ from the model's (None when they are all kept)."""
    model = [
        as_plain(b)
        for m in messages
        for b in content_blocks(m)
        if read_field(b, "type") == "thinking"
    ]
    saved = thinking_dicts(data)
    if len(saved) != len(model):
        return Damage("left out", [], saved)
    for kind, hit in (
        ("signature missing", lambda s, m: not s.get("signature")),
        ("text changed", lambda s, m: s.get("thinking") != m["thinking"]),
        ("signature changed", lambda s, m: s.get("signature") != m["signature"]),
    ):
        indexes = [k for k, (s, m) in enumerate(zip(saved, model, strict=True)) if hit(s, m)]
        if indexes:
            return Damage(kind, indexes, saved)
    return None


def with_saved_thinking(messages: list, saved: list[dict]) -> list:
    """The history as plain data, with each thinking block replaced by the file's."""
    plain = as_plain(messages)
    for (i, j), block in zip(thinking_places(plain), saved, strict=True):
        plain[i]["content"][j] = block
    return plain


# -- comparing a resumed history with the one saved -----------------------------------------------


def _normal(messages: list) -> list:
    """Plain data in one spelling: text content as text blocks, no None, no is_error False."""
    normal = []
    for message in as_plain(messages):
        content = message.get("content") if isinstance(message, dict) else message
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = []
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                block = dict(block)
                if isinstance(block.get("content"), str):
                    block["content"] = [{"type": "text", "text": block["content"]}]
                if block.get("is_error") is False:
                    del block["is_error"]
            blocks.append(block)
        role = message.get("role") if isinstance(message, dict) else None
        normal.append({"role": role, "content": blocks})
    return normal


HINTS = {
    "messages": "save and resume every message, from the person's first words to the last tool "
    "results, in order.",
    "thinking": "keep each thinking block's text and signature exactly as they came: no strip(), "
    "and the file written and read as UTF-8.",
    "text": "keep every text exactly as it was, whitespace and non-ASCII characters included: no "
    "strip() and no cut, and the file written and read as UTF-8.",
    "tool_use": "save every block whole: block.model_dump(mode='json', exclude_none=True) keeps a "
    "call's id, name and input.",
    "tool_result": "save every tool_result whole: its tool_use_id, its content and its is_error, "
    "as they were.",
}


def _what(message: dict) -> str:
    kinds = [read_field(b, "type") for b in message["content"]]
    if message["role"] == "user" and kinds == ["text"]:
        return "the person's words"
    role = str(message["role"])
    article = "an" if role[:1] in ("a", "e", "i", "o", "u") else "a"
    return f"{article} {role} message of {', '.join(map(str, kinds))}"


def first_difference(saved: list, resumed: list) -> tuple[str, str] | None:
    """Where a resumed history first differs from the saved one, and the hint for it."""
    before, after = _normal(saved), _normal(resumed)
    if len(before) != len(after):
        common = next(
            (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
            min(len(before), len(after)),
        )
        lost = ""
        if common < len(before):
            lost = f"; the first that differs is messages[{common}], {_what(before[common])}"
        return (
            f"it has {len(after)} messages, but {len(before)} were saved{lost}",
            HINTS["messages"],
        )
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        if old == new:
            continue
        where = f"messages[{i}]"
        if old["role"] != new["role"] or len(old["content"]) != len(new["content"]):
            return (
                f"{where} is {_what(new)}, but the saved one was {_what(old)}",
                HINTS["messages"],
            )
        for j, (a, b) in enumerate(zip(old["content"], new["content"], strict=True)):
            if a == b:
                continue
            kind = a.get("type")
            if not isinstance(b, dict) or b.get("type") != kind:
                return (
                    f"{where}.content[{j}] is {short_repr(b)}, not a {kind} block",
                    HINTS["messages"],
                )
            field = next(k for k in [*a, *b] if a.get(k) != b.get(k))
            return (
                f"{where}.content[{j}], a {kind} block: its {field} "
                f"{changed(a.get(field), b.get(field))}",
                HINTS.get(kind, HINTS["messages"]),
            )
    return None


def changed(old: Any, new: Any) -> str:
    """How a value changed, said where it starts to differ (two texts alike in their first
    seventy characters are shown from there)."""
    if isinstance(old, str) and isinstance(new, str):
        at = next((k for k, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
        at = min(len(old), len(new)) if at is None else at
        if at > 20:
            start = at - 12
            return (
                f"differs from character {at} on: ...{short_repr(old[start:], 40)} became "
                f"...{short_repr(new[start:], 40)}"
            )
    return f"is {short_repr(new)}, but the saved one was {short_repr(old)}"
