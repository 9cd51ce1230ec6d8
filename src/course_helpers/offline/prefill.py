"""Course machinery (offline course model): the answer to a prefilled assistant turn.

A request that ends with an assistant message (prefill, on the models that take it) asks the
model to go on from the last character of that message, and the API returns only what follows:
a client joins the prefill and the answer itself. The course model works out the answer it
would give to the request without the prefill, then writes the part that continues the
prefill, by the first of these rules that applies:

1. The answer begins with the prefill ("1, 2, 3" before "1, 2, 3, 4, ..., 20."): the rest of
   it, never the prefill again.
2. The prefill ends by opening a JSON object or array (`{`, `[`): the rest of one JSON
   document. An answer that is JSON already is that document; prose becomes `{"answer": ...}`.
3. The answer holds the prefill further on, from the start of a word ("To sum up: 1, 2, 3,
   4..."): what follows it there.
4. The prefill is a short opening of one or two words ("Bonjour") and the answer opens with
   one of its own, followed by `!` or `,` ("Hello! I am..."): the prefill takes its place and
   the answer goes on after it ("! I am...").
5. Otherwise the answer follows the prefill as a new sentence (after one ending in `.`, `!`,
   `?` or `:`) or after a colon.

Only the first text block of the answer is rewritten; tool calls that follow it stay. The
continuation opens with no thinking block: thinking opens a turn, and this turn has begun.
"""

from __future__ import annotations

import json
import re

from course_helpers.offline.policy import Reply

_SHORT_OPENING = re.compile(r"^\s*((?:[\w'’-]+ ?){1,2})(?=[!,])")
_SENTENCE_END = (".", "!", "?", ":", ";")


def continue_prefill(prefill: str, reply: Reply) -> Reply:
    """`reply` rewritten as the continuation of `prefill`."""
    content = list(reply.content)
    first = next((i for i, b in enumerate(content) if b["type"] == "text"), None)
    if first is None:
        return reply
    rest = continuation(prefill, content[first]["text"])
    if rest:
        content[first] = {**content[first], "text": rest}
    else:
        del content[first]
    return Reply(content, reply.stop_reason, reply.stop_details, reply.thinking)


def continuation(prefill: str, answer: str) -> str:
    """What follows `prefill` when the whole answer would have been `answer`."""
    if answer.startswith(prefill):
        return answer[len(prefill) :]
    opener = prefill.rstrip()[-1:]
    if opener in ("{", "["):
        document = _json_or_none(answer)
        if opener == "{" and not isinstance(document, dict):
            document = {"answer": answer}
        elif opener == "[" and not isinstance(document, list):
            document = [document if document is not None else answer]
        return json.dumps(document, ensure_ascii=False)[1:]
    found = re.search(r"(?<!\w)" + re.escape(prefill), answer)
    if found and len(prefill) >= 3:
        return answer[found.end() :]
    short_prefill = len(prefill.split()) <= 2 and not prefill.endswith(_SENTENCE_END)
    opening = _SHORT_OPENING.match(answer)
    if short_prefill and opening:
        return answer[opening.end() :]
    if prefill.endswith(_SENTENCE_END):
        return " " + answer
    return ": " + answer


def _json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None
