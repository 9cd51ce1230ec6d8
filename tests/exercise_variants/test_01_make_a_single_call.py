"""Exercise 01's checks, proven both ways.

The exercise: `notebooks/exercises/01_make_a_single_call_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake; equivalent correct solutions (another style, another valid choice) pass.
The requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.single_call`.
"""

import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_ask,
    check_ask_in_full,
    check_is_complete,
)
from exercise_variants.kit import (
    text_of,
    variant_tests,
)


def ask_right(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def ask_right_as_blocks(client, history, text):
    """Question as a text block, a copy of the history sent, the answer stored as plain dicts."""
    history.append({"role": "user", "content": [{"type": "text", "text": text}]})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=list(history))
    kept = [block.model_dump(exclude_none=True) for block in response.content]
    history.append({"role": "assistant", "content": kept})
    return "".join(block["text"] for block in kept if block["type"] == "text")


def ask_keeps_text_only(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    answer = text_of(response)
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_sends_only_the_question(client, history, text):
    question = {"role": "user", "content": text}
    response = client.messages.create(model=MODEL, max_tokens=300, messages=[question])
    history += [question, {"role": "assistant", "content": response.content}]
    return text_of(response)


def ask_forgets_the_answer(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    return text_of(response)


def ask_forgets_the_question(client, history, text):
    messages = [*history, {"role": "user", "content": text}]
    response = client.messages.create(model=MODEL, max_tokens=300, messages=messages)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def _offline_client():
    from course_helpers.offline import default_app

    return default_app().client(max_retries=0)


def ask_uses_the_global_client(client, history, text):
    """Uses the notebook's own client, not the one passed in."""
    history.append({"role": "user", "content": text})
    response = _offline_client().messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def ask_returns_the_response(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return response


def complete_right(response):
    return response.stop_reason == "end_turn"


def complete_right_match(response):
    match response.stop_reason:
        case "end_turn":
            return True
        case _:
            return False


def complete_not_max_tokens(response):
    return response.stop_reason != "max_tokens"


def complete_by_punctuation(response):
    return text_of(response).rstrip().endswith((".", "!", "?"))


def complete_returns_reason(response):
    return response.stop_reason


GO_ON = "Continue exactly where you stopped, without repeating yourself."


def make_in_full(
    *, go_on="continue", joiner="", limit=True, keep=True, only_last=False, ask_last=False
):
    def ask_in_full(client, history, text, *, max_tokens=300, max_calls=6):
        history.append({"role": "user", "content": text})
        parts, calls = [], 0
        while not limit or calls < max_calls:
            calls += 1
            sent = history if keep else [history[0], *history[2::2]]
            response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=sent)
            history.append({"role": "assistant", "content": response.content})
            if only_last:
                parts = [text_of(response)]  # made anew each call: only the latest part is kept
            else:
                parts.append(text_of(response))
            if go_on == "never" or response.stop_reason != "max_tokens":
                break
            if limit and calls == max_calls and not ask_last:
                break  # ask_last: asks to continue after the last part, then stops
            if ask_last and calls == max_calls:
                history.append({"role": "user", "content": GO_ON})
                break
            if go_on == "continue":
                history.append({"role": "user", "content": GO_ON})
            elif go_on == "ask again":
                history.append({"role": "user", "content": text})
            elif go_on == "continue, quoting the question":
                history.append({"role": "user", "content": f"{GO_ON} The question was: {text}"})
            elif go_on == "bare":
                history.append({"role": "user", "content": "Please continue."})
        return joiner.join(parts)

    return ask_in_full


def in_full_unless_end_turn(client, history, text, *, max_tokens=300, max_calls=6):
    """Goes on for any stop_reason but end_turn (a stop sequence, a refusal...)."""
    history.append({"role": "user", "content": text})
    parts = []
    for call in range(max_calls):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        if response.stop_reason == "end_turn" or call == max_calls - 1:
            break
        history.append({"role": "user", "content": GO_ON})
    return "".join(parts)


def in_full_with_more_room(client, history, text, *, max_tokens=300, max_calls=6):
    """Ignores max_tokens: asks for 8,000 at once, so nothing is ever cut."""
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=8000, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def in_full_growing(client, history, text, *, max_tokens=300, max_calls=6):
    """Raises max_tokens for each continuation: also right."""
    history.append({"role": "user", "content": [{"type": "text", "text": text}]})
    answer = ""
    for step in range(max_calls):
        response = client.messages.create(
            model=MODEL, max_tokens=max_tokens * (step + 1), messages=history
        )
        history.append({"role": "assistant", "content": response.content})
        answer += text_of(response)
        if response.stop_reason != "max_tokens":
            return answer
        if step < max_calls - 1:
            history.append({"role": "user", "content": GO_ON})
    return answer


def ask_rebinds_history(client, history, text):
    """`history = history + [...]` makes a new list: the caller's stays empty."""
    history = history + [{"role": "user", "content": text}]
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history = history + [{"role": "assistant", "content": response.content}]
    return text_of(response)


def in_full_stripped(client, history, text, *, max_tokens=300, max_calls=6):
    return make_in_full()(client, history, text, max_tokens=max_tokens, max_calls=max_calls).strip()


_MEMORY: list = []


def ask_with_its_own_memory(client, history, text):
    """Keeps the conversation in a list of its own, shared by every conversation."""
    if text == "My name is Ada.":
        _MEMORY.clear()  # the check's first question: a notebook run from the top
    _MEMORY.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=list(_MEMORY))
    _MEMORY.append({"role": "assistant", "content": response.content})
    history[:] = list(_MEMORY)
    return text_of(response)


def in_full_one_call_short(client, history, text, *, max_tokens=300, max_calls=6):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
    history.append({"role": "assistant", "content": response.content})
    parts, calls = [text_of(response)], 1
    while response.stop_reason == "max_tokens" and calls < max_calls - 1:
        history.append({"role": "user", "content": GO_ON})
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        calls += 1
    return "".join(parts)


def in_full_through_a_refusal(client, history, text, *, max_tokens=300, max_calls=6):
    """Stops on end_turn and stop_sequence, but goes on after a refusal."""
    history.append({"role": "user", "content": text})
    parts = []
    for call in range(max_calls):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        if response.stop_reason in ("end_turn", "stop_sequence") or call == max_calls - 1:
            break
        history.append({"role": "user", "content": GO_ON})
    return "".join(parts)


# -- a third set of learner solutions -------------------------------------------------------------


def ask_streamed(client, history, text):
    """Right: the answer streamed, then read whole with get_final_message()."""
    history.append({"role": "user", "content": text})
    with client.messages.stream(model=MODEL, max_tokens=300, messages=history) as stream:
        response = stream.get_final_message()
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def ask_flattens_the_history(client, history, text):
    """Sends the whole conversation as the text of one user message."""

    def said(message):
        content = message["content"]
        return (
            content
            if isinstance(content, str)
            else "".join(getattr(b, "text", "") for b in content)
        )

    transcript = "\n".join(f"{m['role']}: {said(m)}" for m in history)
    prompt = f"{transcript}\nuser: {text}" if history else text
    response = client.messages.create(
        model=MODEL, max_tokens=300, messages=[{"role": "user", "content": prompt}]
    )
    history += [
        {"role": "user", "content": text},
        {"role": "assistant", "content": response.content},
    ]
    return text_of(response)


def in_full_streamed(client, history, text, *, max_tokens=300, max_calls=6):
    """Right: each part streamed, its text printed as it arrives, the final message kept."""
    history.append({"role": "user", "content": text})
    parts = []
    for _ in range(max_calls):
        with client.messages.stream(model=MODEL, max_tokens=max_tokens, messages=history) as stream:
            for _piece in stream.text_stream:
                pass  # a notebook would print(_piece, end="")
            response = stream.get_final_message()
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        if response.stop_reason != "max_tokens":
            break
        if len(parts) < max_calls:
            history.append({"role": "user", "content": GO_ON})
    return "".join(parts)


WRONG = {
    "ask keeps only the text": (check_ask, ask_keeps_text_only, "only the answer's text"),
    "ask sends only the question": (
        check_ask,
        ask_sends_only_the_question,
        "only the new question",
    ),
    "ask forgets the answer": (check_ask, ask_forgets_the_answer, "answer was not kept"),
    "ask forgets the question": (check_ask, ask_forgets_the_question, "question was not kept"),
    "ask returns the response": (check_ask, ask_returns_the_response, "not the answer's text"),
    "ask uses another client": (
        check_ask,
        ask_uses_the_global_client,
        "use the client passed in",
    ),
    "in full: more room instead": (
        check_ask_in_full,
        in_full_with_more_room,
        "sent max_tokens=8000 on its first call",
    ),
    "in full: goes on unless end_turn": (
        check_ask_in_full,
        in_full_unless_end_turn,
        "went on after stop_reason 'stop_sequence'",
    ),
    "in full: one call": (check_ask_in_full, make_in_full(go_on="never"), "stopped after one call"),
    "in full: asks again": (
        check_ask_in_full,
        make_in_full(go_on="ask again"),
        "started the answer again",
    ),
    "in full: prefill": (check_ask_in_full, make_in_full(go_on="prefill"), "(a prefill)"),
    "in full: a bare 'Please continue.'": (
        check_ask_in_full,
        make_in_full(go_on="bare"),
        "does not tell the model not to repeat itself",
    ),
    "in full: joined by lines": (
        check_ask_in_full,
        make_in_full(joiner="\n"),
        "joined as they are",
    ),
    "in full: no limit": (check_ask_in_full, make_in_full(limit=False), "with max_calls=2"),
    "is_complete: not max_tokens": (check_is_complete, complete_not_max_tokens, "'stop_sequence'"),
    "is_complete by punctuation": (
        check_is_complete,
        complete_by_punctuation,
        "the text cannot tell",
    ),
    "is_complete returns a string": (
        check_is_complete,
        complete_returns_reason,
        "not True or False",
    ),
    "ask keeps its own memory": (
        check_ask,
        ask_with_its_own_memory,
        "carries messages over from an earlier conversation",
    ),
    "in full: one call short": (
        check_ask_in_full,
        in_full_one_call_short,
        "stopped before using all the calls",
    ),
    "in full: goes on after a refusal": (
        check_ask_in_full,
        in_full_through_a_refusal,
        "went on after stop_reason 'refusal'",
    ),
    "ask flattens the history into one message": (
        check_ask,
        ask_flattens_the_history,
        "the whole conversation as the text of one user message",
    ),
}


WRONG["in full keeps only the last part"] = (
    check_ask_in_full,
    make_in_full(only_last=True),
    "the other parts were dropped",
)
WRONG["in full asks to continue after its last call"] = (
    check_ask_in_full,
    make_in_full(ask_last=True),
    "ends with a user message after the last part",
)


WRONG_AGAIN = {
    "ask: a new list, not the caller's": (check_ask, ask_rebinds_history, "history is still empty"),
    "in full: the answer stripped": (check_ask_in_full, in_full_stripped, "joined as they are"),
}


RIGHT = {
    "ask": (check_ask, ask_right),
    "ask with blocks and a copy": (check_ask, ask_right_as_blocks),
    "in full": (check_ask_in_full, make_in_full()),
    "in full, growing max_tokens": (check_ask_in_full, in_full_growing),
    "is_complete": (check_is_complete, complete_right),
    "is_complete with match": (check_is_complete, complete_right_match),
    "ask streamed": (check_ask, ask_streamed),
    "in full, streamed": (check_ask_in_full, in_full_streamed),
    # Accepted: the exercise asks for a message asking to continue exactly where it stopped,
    # without repeating; quoting the question as well still asks that (the history holds it).
    "in full, the continue request quoting the question": (
        check_ask_in_full,
        make_in_full(go_on="continue, quoting the question"),
    ),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(
        WRONG, RIGHT, wrong_again=WRONG_AGAIN, unwritten_checks=[check_ask, check_ask_in_full]
    )
)


def test_a_failed_check_shows_only_its_two_lines_in_jupyter() -> None:
    with pytest.raises(CheckFailed) as failure:
        check_ask(ask_keeps_text_only)
    shown = failure.value._render_traceback_()
    assert len(shown) == 2
    assert "only the answer's text" in shown[0] and shown[1].startswith("Hint: ")
    assert not any("common.py" in line or "Traceback" in line for line in shown)


def ask_reading_the_first_block(client, history: list, text: str) -> str:
    """The answer read as response.content[0].text: here the first block is a thinking block."""
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=1024, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return response.content[0].text


def test_reading_content_0_text_is_named_as_the_mistake() -> None:
    with pytest.raises(CheckFailed) as failure:
        check_ask(ask_reading_the_first_block)
    text = str(failure.value)
    assert "ThinkingBlock" in text and "response.content[0]" in text, text
    assert "block.type == 'text'" in text, text


def ask_returning_the_first_block(client, history: list, text: str) -> str:
    """The first block turned into a string: here it is a thinking block, not the answer."""
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=1024, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return str(response.content[0])


def test_returning_a_block_is_not_called_an_older_answer() -> None:
    with pytest.raises(CheckFailed) as failure:
        check_ask(ask_returning_the_first_block)
    text = str(failure.value)
    assert "not an older one" not in text and "text blocks only" in text, text
