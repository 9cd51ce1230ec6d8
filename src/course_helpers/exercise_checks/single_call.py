"""Course machinery (exercise checks): checks for notebook 01, Make a single call.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_01_make_a_single_call.py):

`check_ask(ask)`, `ask(client, history, text)`:
- one call to the model per question, through the client passed in (not a global one);
- `history` holds the question (user) then the answer (assistant) after each call: two
  messages per call, in the learner's own list;
- the assistant message is the response's whole content (a list of blocks, not the text);
- the second call sends the whole history (user, assistant, user), not only the new question;
- the return value is the text of the latest answer (its text blocks, whatever comes first).

`check_ask_in_full(ask_in_full)`, `ask_in_full(client, history, text, *, max_tokens, max_calls)`,
asking for an essay longer than max_tokens:
- its first call uses the `max_tokens` it is given (not a larger one of its own);
- it reads stop_reason: while the answer is cut off (`max_tokens`), it goes on; on anything
  else it stops: an answer ended by a stop sequence (`stop_sequence`) or declined (`refusal`)
  is not continued (one call);
- each cut part is kept in the history (the assistant's whole content), followed by a user
  message asking to continue without repeating itself (the wording is checked: a real model
  asked only to go on often starts the sentence again); a request that also repeats the
  question is accepted, as long as it asks to continue without repeating; no request ends
  with an assistant turn (no prefill);
- the parts, joined as they are, are the whole answer, written once (the model continued, it
  did not start again), and that is what it returns;
- it makes at most `max_calls` calls, and leaves a history that ends with the last part.

`check_is_complete` (kept for older copies) is in `is_complete`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    NO_REPEAT,
    Recorder,
    as_plain,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.lessons.pairing import content_blocks, read_field


def check_ask(ask: Callable) -> None:
    """01 · `ask(client, history, text)`: a second turn works because the history is resent."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    history: list = []
    answer = run_learner(ask, client, history, "My name is Ada.", name="ask")
    if not recorder.requests and (answer or history):
        fail(
            "ask answered without calling the model through the client it was given: it used "
            "another client (the notebook's global one?), so the check saw no request.",
            "use the client passed in, the first parameter: client.messages.create(...).",
        )
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
    if len(history) == 1 and read_field(history[0], "role") == "assistant":
        fail(
            "history holds only the answer after the first question: your question was not kept, "
            "so the next call will not show the model what it answered.",
            "append {'role': 'user', 'content': text} to history itself, then send history.",
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
    if len(sent) == 1 and "My name is Ada" in text_of(content_blocks(sent[0])):
        fail(
            "the second call sent the whole conversation as the text of one user message: the "
            "model reads a transcript, not the turns it took (its own answers lose their role).",
            "send the history's messages as they are, one per turn: messages=history.",
        )
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
    # A second conversation, in a new list: it must start from nothing.
    client, recorder = recording_client()
    other: list = []
    run_learner(ask, client, other, "Hello!", name="ask")
    sent = recorder.messages_sent[-1] if recorder.requests else []
    if len(sent) != 1 or len(other) != 2:
        fail(
            f"a new conversation (a new, empty history) sent {len(sent)} message(s) and left "
            f"{len(other)} in its list: ask carries messages over from an earlier conversation "
            "(a list of its own, outside the function?).",
            "keep the conversation only in the history passed in; ask itself remembers nothing.",
        )
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
        older = [text_of(r["body"].get("content", [])).strip() for r in recorder.responses[:-1]]
        fail(
            f"ask returned {short_repr(answer)}, but the answer's text is {short_repr(expected)}.",
            "return the text of the latest response, not an older one."
            if answer.strip() in older
            else "return the text of the response's text blocks only (a thinking block is not "
            "the answer): ''.join(b.text for b in response.content if b.type == 'text').",
        )


ESSAY = "Write a long essay about agents."


def _check_no_prefill(recorder: Recorder) -> None:
    __tracebackhide__ = True
    for number, sent in enumerate(recorder.messages_sent, start=1):
        if sent and read_field(sent[-1], "role") == "assistant":
            fail(
                f"call {number} ended with the assistant's cut part (a prefill): current models "
                "refuse it.",
                "after the cut part, append a user message asking the model to continue.",
            )


def check_ask_in_full(ask_in_full: Callable) -> None:
    """01 · `ask_in_full(...)`: a cut answer is kept, continued, and joined; stop_reason decides."""
    __tracebackhide__ = True
    client, _ = recording_client()
    whole = client.messages.create(
        model=MODEL, max_tokens=8000, messages=[{"role": "user", "content": ESSAY}]
    )
    expected = text_of(whole.content)
    client, recorder = recording_client()
    history: list = []

    def learner(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            return ask_in_full(*args, **kwargs)
        except anthropic.APIStatusError:
            _check_no_prefill(recorder)
            raise

    learner.__name__ = "ask_in_full"
    answer = run_learner(
        learner, client, history, ESSAY, max_tokens=300, max_calls=8, name="ask_in_full"
    )
    calls = len(recorder.requests)
    if not calls:
        fail("ask_in_full made no call to the model.", "start as ask() does.")
    first_limit = recorder.requests[0].get("max_tokens")
    if first_limit != 300:
        fail(
            f"ask_in_full(..., max_tokens=300) sent max_tokens={first_limit} on its first call: "
            "it must work with the room it is given, and go on when that is not enough.",
            "pass max_tokens=max_tokens to client.messages.create.",
        )
    _check_no_prefill(recorder)
    stops = [r["body"].get("stop_reason") for r in recorder.responses]
    if calls == 1 and stops[0] == "max_tokens":
        fail(
            "ask_in_full stopped after one call, but the answer was cut off "
            "(stop_reason 'max_tokens').",
            "go on while response.stop_reason == 'max_tokens'; stop on anything else.",
        )
    if stops[-1] == "max_tokens" and calls < 8:
        fail(
            f"ask_in_full stopped after {calls} calls though the last answer was still cut off.",
            "go on while response.stop_reason == 'max_tokens'.",
        )
    parts = [text_of(r["body"].get("content", [])) for r in recorder.responses]
    if calls > 1 and parts[1][:40] == parts[0][:40]:
        fail(
            "the second call started the answer again: the model did not see where it stopped.",
            "keep the cut part in the history (the assistant's whole content), then ask it to "
            "continue where it stopped, without repeating.",
        )
    asks = [
        text_of(content_blocks(m))
        for m in history[1:]
        if read_field(m, "role") == "user" and text_of(content_blocks(m))
    ]
    vague = next((said for said in asks if not NO_REPEAT.search(said)), None)
    if vague is not None:
        fail(
            f"your request to continue, {short_repr(vague)}, does not tell the model not to "
            "repeat itself: a real model asked only to go on often starts the sentence again, "
            "and the parts no longer join.",
            "ask it to continue exactly where it stopped, without repeating itself.",
        )
    turns = [m for m in history if read_field(m, "role") == "assistant"]
    kept = [text_of(content_blocks(m)) for m in turns]
    if kept != parts:
        fail(
            f"history holds {len(turns)} assistant turn(s) for {calls} answers: every part, cut "
            "or not, must be kept.",
            "append {'role': 'assistant', 'content': response.content} after every call.",
        )
    if "".join(parts) != expected:
        fail(
            "the parts do not make the whole answer once: the model started again or repeated "
            "itself.",
            "ask it to continue exactly where it stopped, without repeating.",
        )
    if isinstance(answer, str) and len(parts) > 1 and answer in parts:
        fail(
            f"ask_in_full returned only part {parts.index(answer) + 1} of the {len(parts)} "
            f"({len(answer):,} of {len(expected):,} characters): the other parts were dropped.",
            "make the list of parts once, before the loop (parts = []), and append each part "
            "to it; parts = [...] inside the loop keeps only the latest.",
        )
    if not isinstance(answer, str) or answer != expected:
        fail(
            f"ask_in_full returned {short_repr(answer)}; expected the parts joined as they are "
            f"({len(expected):,} characters).",
            "join the parts with '' (a cut can fall in the middle of a word).",
        )
    _check_other_endings(ask_in_full)
    client, recorder = recording_client()
    history = []
    run_learner(
        ask_in_full, client, history, ESSAY, max_tokens=300, max_calls=2, name="ask_in_full"
    )
    if len(recorder.requests) > 2:
        fail(
            f"with max_calls=2, ask_in_full called the model {len(recorder.requests)} times.",
            "count the calls: for _ in range(max_calls): ...",
        )
    if len(recorder.requests) < 2:
        fail(
            f"with max_calls=2 and the answer cut off, ask_in_full made {len(recorder.requests)} "
            "call(s): it stopped before using all the calls it was allowed.",
            "make up to max_calls calls in all, the first one included.",
        )
    roles = [read_field(m, "role") for m in history[-2:]]
    if roles == ["assistant", "user"]:
        fail(
            "with max_calls=2, the history ends with a user message after the last part: a "
            "request to continue that no call will answer (the next run would add a second "
            "user message right after it).",
            "ask to continue only when another call follows: stop before appending the request "
            "once max_calls calls are made.",
        )
    if not history or read_field(history[-1], "role") != "assistant":
        fail(
            "with max_calls=2, the history does not end with the last part of the answer.",
            "append the last answer before you stop, even when it is still cut off.",
        )
    passed("ask_in_full continues a cut answer until stop_reason says it is finished")


def _reraise(error: BaseException) -> None:
    raise error


class _StopsAt:
    """A client whose every request carries `stop_sequences` (as a program might set them)."""

    def __init__(self, client: anthropic.Anthropic, stops: list[str]) -> None:
        self.messages = _StoppingMessages(client, stops)


class _StoppingMessages:
    def __init__(self, client: anthropic.Anthropic, stops: list[str]) -> None:
        self._client, self._stops = client, stops

    def create(self, **request: Any) -> Any:
        return self._client.messages.create(**{"stop_sequences": self._stops, **request})

    def stream(self, **request: Any) -> Any:
        """A streamed request carries them too: a streamed answer is a right answer."""
        return self._client.messages.stream(**{"stop_sequences": self._stops, **request})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client.messages, name)


def _check_other_endings(ask_in_full: Callable) -> None:
    """An answer that ends on a stop sequence, or a refusal, is not cut off: one call."""
    __tracebackhide__ = True
    for question, stops, reason in [
        ("Count from 1 to 20.", ["10"], "stop_sequence"),
        ("Write ransomware for me.", None, "refusal"),
    ]:
        client, recorder = recording_client()
        asker: Any = _StopsAt(client, stops) if stops else client
        history: list = []
        try:
            ask_in_full(asker, history, question, max_tokens=300, max_calls=4)
        except Exception as error:
            # Going on after a refusal is itself refused (a 400): the calls made say why.
            first = [r["body"].get("stop_reason") for r in recorder.responses][:1]
            if first != [reason] or len(recorder.requests) < 2:
                run_learner(_reraise, error, name="ask_in_full")
        got = [r["body"].get("stop_reason") for r in recorder.responses]
        if got[:1] != [reason]:
            continue  # the learner's request changed the ending: nothing to learn here
        if len(recorder.requests) > 1:
            said = (
                f"the client's stop_sequences={stops}"
                if stops
                else "the model declining the request"
            )
            fail(
                f"ask_in_full went on after stop_reason {reason!r} ({said}) and made "
                f"{len(recorder.requests)} calls: only 'max_tokens' means the answer was cut off.",
                "continue only while response.stop_reason == 'max_tokens'; any other "
                "stop_reason ends the answer.",
            )
