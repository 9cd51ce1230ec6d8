"""Checks for notebook 01, Make a single call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.checks.common import (
    Recorder,
    as_plain,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.client import MODEL
from course_helpers.pairing import content_blocks, read_field


def check_ask(ask: Callable) -> None:
    """01 · `ask(client, history, text)`: a second turn works because the history is resent."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    history: list = []
    answer = run_learner(ask, client, history, "My name is Ada.", name="ask")
    if not recorder.requests:
        fail(
            "ask made no call to the model.",
            "call client.messages.create(model=MODEL, max_tokens=..., messages=history).",
        )
    if len(recorder.requests) > 1:
        fail(
            f"ask made {len(recorder.requests)} calls for one question; one is enough.",
            "call client.messages.create once per question.",
        )
    if not history:
        fail(
            "history is still empty after ask(...): neither your question nor the answer was kept.",
            "append {'role': 'user', 'content': text} before the call, the answer after it.",
        )
    if len(history) == 1:
        fail(
            "history holds one message after the first question: the model's answer was not kept.",
            "after the call, append {'role': 'assistant', 'content': response.content}.",
        )
    if len(history) != 2:
        fail(
            f"history holds {len(history)} messages after one question; expected 2 "
            "(your question, the answer).",
            "append exactly one user message and one assistant message per call.",
        )
    _check_chat_turn(history, recorder, "My name is Ada.")
    _check_answer(answer, recorder)

    answer = run_learner(ask, client, history, "What is my name?", name="ask")
    sent = recorder.messages_sent[-1]
    if len(sent) == 1:
        fail(
            "the second call sent only the new question, so the model could not see the first "
            "turn.",
            "send the whole history every time: messages=history.",
        )
    if [m.get("role") for m in sent] != ["user", "assistant", "user"]:
        roles = [m.get("role") for m in sent]
        fail(
            f"the second call sent roles {roles}; expected ['user', 'assistant', 'user'].",
            "append the question to the history, then send the whole list.",
        )
    if len(history) != 4:
        fail(
            f"history holds {len(history)} messages after two questions; expected 4.",
            "each call adds two messages: your question and the assistant's answer.",
        )
    _check_answer(answer, recorder)
    passed("ask keeps and resends the history")


def _check_chat_turn(history: list, recorder: Recorder, question: str) -> None:
    __tracebackhide__ = True
    first, second = history[0], history[1]
    if read_field(first, "role") != "user" or question not in text_of(content_blocks(first)):
        fail(
            f"history[0] should be your question as a user message, got {short_repr(first)}.",
            "append {'role': 'user', 'content': text} first.",
        )
    if read_field(second, "role") != "assistant":
        fail(
            f"history[1] has role {read_field(second, 'role')!r}; the model's answer is 'assistant'.",
            "append {'role': 'assistant', 'content': response.content}.",
        )
    if isinstance(read_field(second, "content"), str):
        fail(
            "the assistant message holds only the answer's text, not its content blocks.",
            "append response.content as it is: later it holds tool calls as well as text.",
        )
    expected = recorder.responses[-1]["body"].get("content", [])
    if as_plain(content_blocks(second)) != expected:
        fail(
            "the assistant message is not the response's whole content.",
            "append {'role': 'assistant', 'content': response.content}, unchanged.",
        )


def _check_answer(answer: Any, recorder: Recorder) -> None:
    __tracebackhide__ = True
    expected = text_of(recorder.responses[-1]["body"].get("content", []))
    if not isinstance(answer, str):
        fail(
            f"ask returned {short_repr(answer)}, not the answer's text.",
            "return the text of the response's text blocks, joined.",
        )
    if answer.strip() != expected.strip():
        fail(
            f"ask returned {short_repr(answer)}, but the answer's text is {short_repr(expected)}.",
            "return the text of the latest response, not an older one.",
        )


def check_is_complete(is_complete: Callable) -> None:
    """01 · `is_complete(response)`: only `end_turn` means the model finished its answer."""
    __tracebackhide__ = True
    client, _ = recording_client()
    cases = [
        ("Hello!", {}, True),
        ("Write a long essay about agents.", {"max_tokens": 40}, False),
        ("Count from 1 to 20.", {"stop_sequences": ["10"]}, False),
    ]
    for question, options, expected in cases:
        options = {"max_tokens": 300, **options}
        response = client.messages.create(
            model=MODEL, messages=[{"role": "user", "content": question}], **options
        )
        said = run_learner(is_complete, response, name="is_complete")
        if not isinstance(said, bool):
            fail(
                f"is_complete returned {short_repr(said)}, not True or False.",
                "compare response.stop_reason with the one value that means 'finished'.",
            )
        if said != expected:
            verdict = "finished" if said else "unfinished"
            fail(
                f"is_complete called an answer with stop_reason={response.stop_reason!r} "
                f"{verdict}.",
                "read response.stop_reason, not the text: only 'end_turn' means finished.",
            )
    passed("is_complete reads stop_reason")
