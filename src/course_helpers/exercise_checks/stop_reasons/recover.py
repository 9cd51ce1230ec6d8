"""Course machinery (exercise checks): exercise 06.1, `recover_cut_off`: cut-off text, a cut before
any text, a cut-off tool call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    NEGATION,
    NO_REPEAT,
    as_plain,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.exercise_checks.stop_reasons.essay import (
    CEILING,
    ESSAY,
    REVIEW,
    THINKING,
    _ask,
    _calls,
    _definitions,
    cutting_limit,
    whole_essay,
)
from course_helpers.lessons.pairing import content_blocks

# -- 1. recover_cut_off(messages, response, max_tokens, ceiling) ------------------------------


def check_recover_cut_off(recover_cut_off: Callable) -> None:
    """06 · `recover_cut_off(...)`: keep and continue cut-off text; never keep a cut-off call."""
    __tracebackhide__ = True
    _check_cut_text(recover_cut_off)
    _check_cut_call(recover_cut_off)
    _check_cut_before_text(recover_cut_off)
    passed("recover_cut_off keeps cut-off text and never keeps a cut-off call")


def _check_cut_text(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    client, _ = recording_client()
    response = _ask(client, ESSAY, max_tokens=64, thinking=THINKING)
    messages: list = [{"role": "user", "content": ESSAY}]
    limit = run_learner(recover_cut_off, messages, response, 64, CEILING, name="recover_cut_off")
    if len(messages) == 1:
        fail(
            "for an essay cut off in its text, recover_cut_off appended nothing: the 64 tokens "
            "already written are thrown away, and the model will start again from the top.",
            "keep the cut-off answer: append it as an assistant message, then ask to continue.",
        )
    odd = [m for m in messages[1:] if not isinstance(m, dict)]
    if odd:
        fail(
            f"recover_cut_off appended {short_repr(odd[0], 60)} to messages, not a message: the "
            "API takes dicts with a role and a content.",
            "append {'role': 'assistant', 'content': response.content}, then "
            "{'role': 'user', 'content': '...'}.",
        )
    kept = messages[1]
    if kept.get("role") != "assistant":
        fail(
            f"the message after the task is a {kept.get('role')!r} message; the cut-off answer "
            "must come first, as the assistant's turn.",
            "append {'role': 'assistant', 'content': response.content}, then your request.",
        )
    whole = as_plain(response.content)
    if as_plain(content_blocks(kept)) != whole:
        dropped = [b["type"] for b in whole if b not in as_plain(content_blocks(kept))]
        added = [b for b in as_plain(content_blocks(kept)) if b not in whole]
        if not dropped and added:
            fail(
                f"the cut-off answer was appended whole, plus a block of your own in the same "
                f"assistant turn ({short_repr(added[0], 50)}): the turn must be the response's "
                "content exactly; the model did not write that block.",
                "append response.content as it is, and put your request to go on in a user "
                "message after it.",
            )
        fail(
            f"the cut-off answer was not appended whole (missing: {dropped or 'some blocks'}).",
            "append response.content as it is: every block, the thinking block included.",
        )
    if len(messages) == 2:
        fail(
            "after the cut-off answer the history ends with the assistant's turn: the model "
            "does not know it should go on, and newer models refuse a final assistant message.",
            "append a user message asking the model to continue where it stopped, "
            "without repeating anything or apologising.",
        )
    if (
        len(messages) > 3
        or messages[2].get("role") != "user"
        or not text_of(content_blocks(messages[2]))
    ):
        fail(
            f"after the cut-off answer the history holds {short_repr(messages[2:])}; expected "
            "one user message with text.",
            "append one user message asking the model to continue where it stopped.",
        )
    if not isinstance(limit, int) or isinstance(limit, bool):
        fail(
            f"for cut-off text recover_cut_off returned {short_repr(limit)}; the run can go on, "
            "so return the max_tokens for the next call (a whole number).",
            "return max_tokens as it was, or raised (never above the ceiling).",
        )
    if not 64 <= limit <= CEILING:
        fail(
            f"for cut-off text at max_tokens=64 recover_cut_off returned {limit}; keep it "
            f"between 64 and the ceiling ({CEILING:,}).",
            "return max_tokens, or min(max_tokens * 4, ceiling).",
        )
    rest = client.messages.create(
        model=MODEL, max_tokens=4096, thinking=THINKING, messages=messages
    )
    written, more = text_of(response.content), text_of(rest.content)
    if not more or not whole_essay().startswith(written + more):
        started_again = more.lstrip().startswith("1. An agent")
        fail(
            "asked with your message, the model "
            + ("started the essay again from the beginning" if started_again else "did not go on")
            + f": {text_of(content_blocks(messages[2]))!r} does not ask it to continue.",
            "ask it to continue exactly where it stopped, without repeating anything.",
        )
    _check_continue_wording(text_of(content_blocks(messages[2])))
    messages = [{"role": "user", "content": ESSAY}]
    at_ceiling = run_learner(recover_cut_off, messages, response, 64, 64, name="recover_cut_off")
    if len(messages) != 3 or at_ceiling != 64:
        fail(
            f"for text cut off at max_tokens=64 with a ceiling of 64, recover_cut_off returned "
            f"{short_repr(at_ceiling)} and added {len(messages) - 1} message(s): text is kept and "
            "continued even at the ceiling (each piece fits in the same room).",
            "decide on the kind of cut first: for cut-off text, keep it, ask to continue and "
            "return min(..., ceiling); only a cut-off call stops at the ceiling.",
        )


_NO_APOLOGY = re.compile(
    NEGATION + r"[^.!?]{0,40}\b(?:apologi[sz]|apology|apologies|sorry)", re.IGNORECASE
)


def _check_continue_wording(said: str) -> None:
    """The request to continue says: from where it stopped, no repeat, no apology."""
    __tracebackhide__ = True
    missing = [
        what
        for what, pattern in (
            ("not to repeat itself", NO_REPEAT),
            ("not to apologise", _NO_APOLOGY),
        )
        if not pattern.search(said)
    ]
    if missing:
        fail(
            f"your request to continue, {said!r}, does not tell the model "
            f"{' or '.join(missing)}: a real model asked only to go on often starts the "
            "sentence again, or says sorry first, and the pieces no longer join.",
            "ask it to continue exactly where it stopped, without repeating anything and "
            "without apologising.",
        )


def _cut_before_text(blocks: list[dict]) -> Any:
    """A response cut off before it wrote any text: nothing at all, or only its thinking."""
    import anthropic

    return anthropic.types.Message.model_validate(
        {
            "id": "msg_check_cut",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": blocks,
            "stop_reason": "max_tokens",
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 64},
        }
    )


def _check_cut_before_text(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    thinking = {"type": "thinking", "thinking": "The diff first, then", "signature": "sig_check"}
    for label, blocks in (("no content at all", []), ("only a thinking block", [thinking])):
        messages: list = [{"role": "user", "content": REVIEW}]
        try:
            got = recover_cut_off(messages, _cut_before_text(blocks), 64, CEILING)
        except Exception as error:
            fail(
                f"for a response cut off before any text ({label}), recover_cut_off raised "
                f"{type(error).__name__}: {error}.",
                "decide on what the content holds (any tool_use? any text?), not on its last "
                "block: there may be no block at all.",
            )
        if len(messages) != 1 or not isinstance(got, int) or got <= 64:
            fail(
                f"for a response cut off before any text ({label}), recover_cut_off added "
                f"{len(messages) - 1} message(s) and returned {short_repr(got)}: there is "
                "nothing to keep, so the same request needs more room.",
                "treat it like a cut-off call: append nothing, return a higher max_tokens.",
            )


def _check_cut_call(recover_cut_off: Callable) -> None:
    __tracebackhide__ = True
    limit, response = cutting_limit(_definitions())
    cut_input = _calls(response)[0].input
    for max_tokens, ceiling in ((limit, CEILING), (1_000, 1_500), (1_500, 1_500)):
        messages: list = [{"role": "user", "content": REVIEW}]
        got = run_learner(
            recover_cut_off, messages, response, max_tokens, ceiling, name="recover_cut_off"
        )
        if len(messages) != 1:
            fail(
                "a response cut off inside its tool_use was added to the history: its input is "
                f"half-written ({cut_input}), and whatever answers it answers the wrong call.",
                "for a cut-off tool_use append nothing: the turn is dropped and asked again.",
            )
        at = f"with max_tokens={max_tokens:,} and a ceiling of {ceiling:,}"
        if max_tokens >= ceiling:
            if got is not None:
                fail(
                    f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: "
                    "the model cannot write more than its maximum, so no retry can make room.",
                    "return None when max_tokens has reached the ceiling: the run must stop.",
                )
            continue
        if isinstance(got, float | str):
            fail(
                f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: "
                "max_tokens is a whole number of tokens, and the API refuses anything else.",
                "return an int, e.g. min(max_tokens * 4, ceiling) (or int(...) around a product).",
            )
        if got is None or not isinstance(got, int) or got <= max_tokens:
            fail(
                f"{at}, recover_cut_off returned {short_repr(got)} for a cut-off tool_use: the "
                "same request would be cut off again.",
                "return a higher max_tokens for the retry, e.g. four times as many.",
            )
        if got > ceiling:
            fail(
                f"{at}, recover_cut_off returned {got:,}: the API refuses a max_tokens above "
                "the model's maximum (400), so that retry would fail.",
                "cap the new limit: min(max_tokens * 4, ceiling).",
            )
