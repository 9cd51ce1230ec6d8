"""Course machinery (offline course model): continuing an answer cut off by `max_tokens`, for
notebook 06.

When a program keeps a cut-off answer in the history and asks the model to continue ("Continue
where you stopped", "Please go on"), the course model works out the answer it was writing (the
reply its scenarios give to the conversation as it stood before the cut) and writes only what
is still missing: no repetition, no apology, whatever tool calls followed the text. A second
cut, a third... are continued the same way, so the pieces joined are the whole answer, once.

Once continued, the answer goes on as if it had never been cut: on every later request the
(cut-off part, "continue", rest) turns are read as one assistant turn, so the other scenarios
still see the person's task, not "continue", as their last words (a review continued before
its first tool call still reviews the pull request the person named).
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, blocks_of, written
from course_helpers.offline.policy import Reply, scenario

# "Continue where you stopped.", «Продолжай», «Продолжи с того места, где остановился», «Допиши»
_ASKS_TO_CONTINUE = re.compile(
    r"\b(?:continue|go on|keep (?:going|writing)|carry on|resume|pick up|finish)\b"
    r"|\b(?:stopped|left off|cut off|was cut)\b"
    r"|\b(?:продолж|допиш|дописыва|остановил|оборвал|прервал)\w*|\b(?:дальше|с того места)\b",
    re.IGNORECASE,
)


def asks_to_continue(message: dict) -> bool:
    """A short user message of plain text that asks for the rest of the answer."""
    if message.get("role") != "user":
        return False
    blocks = blocks_of(message)
    if not blocks or any(b.get("type") != "text" for b in blocks):
        return False
    said = written(blocks, " ")
    return len(said) < 400 and bool(_ASKS_TO_CONTINUE.search(said))


def _written(message: dict) -> str:
    return written(blocks_of(message), "")


@scenario(
    "continue",
    "Continue an answer cut off by max_tokens: keep the partial answer, then ask 'Continue "
    "where you stopped.' (only the rest is written)",
    priority=5,
)
def continue_after_cut(conv: Conversation) -> Reply | None:
    messages = conv.messages
    end = len(messages) - 1
    pieces: list[str] = []
    # Walk back over (cut-off answer, "continue") pairs to the request that started the answer.
    while (
        end >= 2
        and asks_to_continue(messages[end])
        and messages[end - 1].get("role") == ("assistant")
    ):
        pieces.insert(0, _written(messages[end - 1]))
        end -= 2
    if not pieces:
        joined = joined_continuations(conv.body, messages)
        if len(joined) == len(messages):
            return None
        # An answer continued earlier: read it as one turn, so the task is still the task.
        return _others(Conversation({**conv.body, "messages": joined}))
    joined = joined_continuations(conv.body, messages[: end + 1])
    before = Conversation({**conv.body, "messages": joined})
    whole = _others(before)
    if whole is None or whole.stop_reason == "refusal":
        return None
    return _rest(whole, "".join(pieces))


def continued_task(conv: Conversation) -> Conversation | None:
    """The conversation as it stood before an answer was cut off, when the last message asks
    to continue it; None otherwise."""
    messages = conv.messages
    end = len(messages) - 1
    while (
        end >= 2
        and asks_to_continue(messages[end])
        and messages[end - 1].get("role") == "assistant"
    ):
        end -= 2
    if end == len(messages) - 1:
        return None
    return Conversation(
        {**conv.body, "messages": joined_continuations(conv.body, messages[: end + 1])}
    )


def joined_continuations(body: dict, messages: list[dict]) -> list[dict]:
    """The history with each continued answer read as one turn.

    A "continue" request between two assistant messages (a cut-off part and its rest) is
    taken out, and the two parts become one assistant message. Only where the second part is
    what this model wrote when asked to continue the first: "Yes, go on" after a finished
    answer is the person's own turn and stays.
    """
    joined: list[dict] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        continued = (
            joined
            and joined[-1].get("role") == "assistant"
            and asks_to_continue(message)
            and index + 1 < len(messages)
            and messages[index + 1].get("role") == "assistant"
            and _continues(body, joined, messages[index + 1])
        )
        if continued:
            rest = messages[index + 1]
            joined[-1] = {**joined[-1], "content": blocks_of(joined[-1]) + blocks_of(rest)}
            index += 2
            continue
        joined.append(message)
        index += 1
    return joined


def _continues(body: dict, joined: list[dict], rest: dict) -> bool:
    """True when `rest` is how this model continued the last turn of `joined`, cut off."""
    cut = joined[-1]
    if any(b.get("type") == "tool_use" for b in blocks_of(cut)):
        return False  # a turn that reached its tool call was not cut off in its text
    whole = _others(Conversation({**body, "messages": joined[:-1]}))
    missing = _rest(whole, _written(cut)) if whole is not None else None
    if missing is None:
        return False
    return _written({"content": missing.content}).startswith(_written(rest))


def _others(conv: Conversation) -> Reply | None:
    """The first answer of the other scenarios to `conv`, in the language it is said in (the
    parts already sent were: «Напиши эссе…» is continued in Russian)."""
    from course_helpers.offline import scenarios  # the registry imports this module
    from course_helpers.offline.persons_language import said_in_the_persons_language

    reply = next(
        (r for s in scenarios.registered() if s.name != "continue" for r in [s.respond(conv)] if r),
        None,
    )
    return said_in_the_persons_language(conv, reply) if reply is not None else None


def _rest(whole: Reply, written: str) -> Reply | None:
    """What is left of `whole` once `written` (the text already sent) is taken off its start."""
    rest: list[dict] = []
    for block in whole.content:
        if block["type"] != "text" or not written:
            rest.append(block)
            continue
        text = block["text"]
        if written.startswith(text):
            written = written[len(text) :]
        elif text.startswith(written):
            rest.append({**block, "text": text[len(written) :]})
            written = ""
        else:
            return None  # not the answer that was cut off: let the other scenarios answer
    if written or not rest:
        return None
    return Reply(rest, whole.stop_reason, whole.stop_details, whole.thinking)
