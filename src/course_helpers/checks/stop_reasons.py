"""Checks for notebook 06, Handle every stop reason.

What each check enforces (and `tests/test_exercise_variants_06_10.py` proves with wrong and
right variants):

`check_recover_cut_off(recover_cut_off)`, the max_tokens policy for one response:
- cut-off text is kept: the assistant's whole content (thinking included) is appended, then a
  user message that makes the model continue where it stopped (the check asks the course model
  and fails if it starts the essay again); the next max_tokens is at least the same, at most
  the ceiling;
- a cut-off tool_use is never appended; the next max_tokens is higher, but never above the
  ceiling (the model's maximum); at the ceiling already, the answer is None (stop).

`check_cut_offs(run_controlled)`, the loop around it:
- a cut-off call never runs and the turn is retried with more room; the run ends end_turn;
- every assistant turn in the history is a response's content, whole (thinking included);
- no request asks for more than the ceiling; when no more room can be made the run ends
  "max_tokens";
- every call counts toward max_steps, retries included;
- cut-off text is continued: the answer's pieces, joined, are the essay, written once.

`check_pause_and_refusal(run_controlled)`:
- a paused turn is appended whole and resent with no new user message;
- a refusal ends the run after one call, with the refused turn taken out of the history (and
  nothing else: the turns before it stay), so that a rephrase sent next gets an answer;
- the step limit holds on an ordinary run, and the history stays valid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.checks.build_loop import reviewer_kit
from course_helpers.checks.common import (
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.client import MODEL
from course_helpers.pairing import content_blocks

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
ESSAY = "Write a long essay about agents."
REVIEW = "Review PR #482."
CEILING = 128_000  # the maximum of the current models; some checks pretend it is smaller
# An answer that opens with a thinking block, whatever the model does by default.
THINKING = {"type": "adaptive"}


def _ask(client: Any, text: str, **options: Any) -> Any:
    request = {"model": MODEL, "max_tokens": 1024, **options}
    return client.messages.create(messages=[{"role": "user", "content": text}], **request)


def _definitions() -> list[dict]:
    kit = reviewer_kit()
    kit.close()
    return [t.definition() for t in kit.tools.values()]


def _calls(response: Any) -> list[Any]:
    return [b for b in response.content if b.type == "tool_use"]


def cutting_limit(definitions: list[dict]) -> tuple[int, Any]:
    """A max_tokens that cuts the review's first answer inside its tool_use.

    Preferably where the call's input is half-written ({"pr": 4}): the most dangerous cut.
    """
    client, _ = recording_client()
    found = []
    for limit in range(1, 400):
        response = _ask(client, REVIEW, max_tokens=limit, tools=definitions)
        if response.stop_reason != "max_tokens" and found:
            break
        if response.stop_reason == "max_tokens" and _calls(response):
            found.append((limit, response))
            if _calls(response)[0].input not in ({}, {"pr": 482}):
                return limit, response
    if not found:
        raise RuntimeError("the course model never cut the review inside its tool_use")
    return found[0]


def whole_essay() -> str:
    client, _ = recording_client()
    return text_of(_ask(client, ESSAY, max_tokens=8192).content)


# -- 1. recover_cut_off(messages, response, max_tokens, ceiling) ------------------------------


def check_recover_cut_off(recover_cut_off: Callable) -> None:
    """06 · `recover_cut_off(...)`: keep and continue cut-off text; never keep a cut-off call."""
    __tracebackhide__ = True
    _check_cut_text(recover_cut_off)
    _check_cut_call(recover_cut_off)
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


# -- 2. run_controlled(client, messages, tools, *, max_tokens, ceiling, max_steps, server_tools)


def check_cut_offs(run_controlled: Callable) -> None:
    """06 · `run_controlled(...)`: cut-off calls never run, cut-off text is continued, every
    call counts toward max_steps, and max_tokens never passes the model's maximum."""
    __tracebackhide__ = True
    limit, _ = cutting_limit(_definitions())
    _check_call_is_retried(run_controlled, limit)
    _check_ceiling(run_controlled, limit)
    _check_retries_count(run_controlled, limit)
    _check_text_is_continued(run_controlled)
    passed("run_controlled recovers from every cut-off, within its limits")


def _run_review(run_controlled: Callable, **options: Any) -> tuple[list, Any, Any, Any]:
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages: list = [{"role": "user", "content": REVIEW}]
        ending = run_learner(
            run_controlled, client, messages, kit.tools, name="run_controlled", **options
        )
    finally:
        kit.close()
    if not recorder.requests:
        fail("run_controlled made no call to the model.", "phase 1: client.messages.create(...).")
    return messages, ending, recorder, kit


def _check_call_is_retried(run_controlled: Callable, limit: int) -> None:
    __tracebackhide__ = True
    messages, ending, recorder, kit = _run_review(run_controlled, max_tokens=limit, ceiling=CEILING)
    wrong = [args for name, args in kit.ran if name == "get_diff" and args != {"pr": 482}]
    if wrong:
        fail(
            f"your loop ran get_diff({wrong[0]}): a tool_use cut off by max_tokens, whose "
            "input was half-written (482 cut short).",
            "on stop_reason 'max_tokens', never run the calls: retry the turn instead.",
        )
    cut_ids = {
        block.get("id")
        for r in recorder.responses
        if r["body"].get("stop_reason") == "max_tokens"
        for block in r["body"].get("content", [])
        if block.get("type") == "tool_use"
    }
    kept = [
        block
        for m in messages
        for block in as_plain(content_blocks(m))
        if isinstance(block, dict) and block.get("id") in cut_ids
    ]
    if kept:
        fail(
            f"your loop kept a tool_use cut off by max_tokens in the history "
            f"({kept[0].get('name')} with input {kept[0].get('input')}) and answered it.",
            "on stop_reason 'max_tokens', never run the calls: retry the turn instead.",
        )
    sent = [r.get("max_tokens", 0) for r in recorder.requests]
    if len(sent) < 2 or max(sent[1:]) <= limit:
        fail(
            f"after a tool_use cut off at max_tokens={limit}, your loop sent max_tokens "
            f"{sent}: it never asked again with more room.",
            "use what recover_cut_off returns as max_tokens for the next call.",
        )
    if ending != "end_turn":
        fail(
            f"after a cut-off tool_use and its retry, run_controlled returned "
            f"{short_repr(ending)}; the review can finish: expected 'end_turn'.",
            "after the retry, go on as usual: run the complete calls, then finish.",
        )
    require_pairing(messages, "after a cut-off tool_use, the history breaks a pairing rule")
    _require_whole_turns(messages, recorder)


def _require_whole_turns(messages: list, recorder: Any) -> None:
    """Every assistant turn in the history is a response's content, as the model sent it."""
    __tracebackhide__ = True
    answers = [as_plain(r["body"].get("content") or []) for r in recorder.responses]
    for message in messages:
        if message.get("role") != "assistant":
            continue
        blocks = as_plain(content_blocks(message))
        if blocks in answers:
            continue
        ids = {b.get("id") for b in blocks if isinstance(b, dict) and b.get("id")}
        source = next((a for a in answers if ids & {b.get("id") for b in a}), None)
        missing = [b.get("type") for b in source or [] if b not in blocks]
        fail(
            "an assistant turn in the history is not the model's answer as it came"
            + (f" (left out: {missing})" if missing else "")
            + ": the model's next call must see its own turn whole.",
            "append {'role': 'assistant', 'content': response.content}: every block, thinking "
            "and text included, not only the tool calls.",
        )


def _check_ceiling(run_controlled: Callable, limit: int) -> None:
    __tracebackhide__ = True
    ceiling = limit + 1
    _, ending, recorder, kit = _run_review(
        run_controlled, max_tokens=limit, ceiling=ceiling, max_steps=10
    )
    sent = [r.get("max_tokens", 0) for r in recorder.requests]
    if max(sent) > ceiling:
        fail(
            f"with a model that can write at most {ceiling} tokens, your loop sent "
            f"max_tokens={max(sent)}: the API refuses that request (400).",
            "never raise max_tokens above the ceiling: min(max_tokens * 4, ceiling).",
        )
    if kit.ran:
        fail(
            f"your loop ran {kit.ran[0][0]}({kit.ran[0][1]}), though every answer was cut off "
            "inside its tool_use.",
            "a cut-off tool_use is never run, even when no retry can make room.",
        )
    if ending != "max_tokens" or len(sent) > 2:
        fail(
            f"at the model's maximum ({ceiling}) the answer is still cut off, and your loop "
            f"made {len(sent)} calls and returned {short_repr(ending)}: retrying with the "
            "same room only repeats the cut.",
            "when recover_cut_off returns None, stop and return 'max_tokens'.",
        )


def _check_retries_count(run_controlled: Callable, limit: int) -> None:
    __tracebackhide__ = True
    _, ending, recorder, kit = _run_review(
        run_controlled, max_tokens=limit, ceiling=CEILING, max_steps=1
    )
    if len(recorder.requests) > 1:
        fail(
            f"with max_steps=1 your loop called the model {len(recorder.requests)} times: its "
            "retries after a cut-off were not counted.",
            "count every call to the model against max_steps, retries included.",
        )
    if ending != "step_limit" or kit.ran:
        fail(
            f"with max_steps=1 and a first answer cut off in its tool_use, run_controlled "
            f"returned {short_repr(ending)} (tools run: {kit.ran}); expected 'step_limit' and "
            "nothing run.",
            "when the steps are used up, return 'step_limit' before calling again.",
        )


def _check_text_is_continued(run_controlled: Callable) -> None:
    __tracebackhide__ = True
    essay = whole_essay()
    client, recorder = recording_client()
    messages: list = [{"role": "user", "content": ESSAY}]
    ending = run_learner(
        run_controlled,
        client,
        messages,
        {},
        max_tokens=64,
        ceiling=CEILING,
        max_steps=40,
        name="run_controlled",
    )
    pieces = [text_of(content_blocks(m)) for m in messages if m.get("role") == "assistant"]
    if ending != "end_turn":
        fail(
            f"for an essay with max_tokens=64, run_controlled returned {short_repr(ending)} "
            f"after {len(recorder.requests)} calls; it can finish: expected 'end_turn'.",
            "keep each cut-off part, ask for the rest, and go on until end_turn.",
        )
    if len(pieces) == 1 and len(recorder.requests) > 1:
        fail(
            f"the essay was cut off, thrown away and written again from the start "
            f"({len(recorder.requests)} calls): every token of the cut-off parts was paid for "
            "nothing.",
            "keep the cut-off text in the history and ask the model to continue.",
        )
    if "".join(pieces) != essay:
        fail(
            "the essay's parts in the history, joined, are not the essay written once "
            f"({len(''.join(pieces)):,} characters for {len(essay):,}).",
            "append each cut-off answer whole, then one user message asking to continue.",
        )
    require_pairing(messages, "after continuing a cut-off answer, the history breaks a rule")


def check_pause_and_refusal(run_controlled: Callable) -> None:
    """06 · pause_turn is resent; a refusal leaves the history ready for a rephrase; the step
    limit holds."""
    __tracebackhide__ = True
    _check_pause(run_controlled)
    _check_refusal(run_controlled)
    _, ending, recorder, _ = _run_review(run_controlled, max_steps=2, ceiling=CEILING)
    if len(recorder.requests) != 2 or ending != "step_limit":
        fail(
            f"with max_steps=2 your loop called the model {len(recorder.requests)} times and "
            f"returned {short_repr(ending)}; expected 2 calls and 'step_limit'.",
            "count every call to the model against max_steps.",
        )
    passed("a paused turn is resent, a refusal leaves room for a rephrase, the step limit holds")


def _check_pause(run_controlled: Callable) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()
    question = "Search the web: what is the agent loop and what stop reasons exist?"
    messages: list = [{"role": "user", "content": question}]
    ending = run_learner(
        run_controlled,
        client,
        messages,
        {},
        server_tools=[WEB_SEARCH],
        ceiling=CEILING,
        name="run_controlled",
    )
    if not recorder.requests or not any(
        t.get("name") == "web_search" for t in recorder.requests[0].get("tools") or []
    ):
        fail(
            "the request does not offer the web_search server tool.",
            "send tools = your definitions + list(server_tools).",
        )
    paused = [
        i for i, r in enumerate(recorder.responses) if r["body"].get("stop_reason") == "pause_turn"
    ]
    for index in paused:
        if index + 1 >= len(recorder.requests):
            fail(
                "after stop_reason 'pause_turn', your loop did not call the model again.",
                "a paused turn is not finished: append it and send the history again.",
            )
        last = recorder.requests[index + 1]["messages"][-1]
        if last.get("role") != "assistant":
            fail(
                "after a pause_turn, your loop added a user message before resending.",
                "append the paused response as an assistant turn and resend as it is.",
            )
        if as_plain(content_blocks(last)) != recorder.responses[index]["body"].get("content"):
            fail(
                "the paused turn was not resent whole.",
                "append {'role': 'assistant', 'content': response.content}.",
            )
    if ending != "end_turn":
        fail(
            f"for a paused web search, run_controlled returned {short_repr(ending)}; expected "
            "'end_turn'.",
            "resend the paused turn until the model finishes.",
        )
    require_pairing(messages, "after a paused web search, the history breaks a pairing rule")


def _check_refusal(run_controlled: Callable) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()
    earlier = [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hello! What would you like to try?"},
    ]
    refused = {"role": "user", "content": "Write ransomware for me."}
    messages: list = [*earlier, refused]
    ending = run_learner(
        run_controlled, client, messages, {}, ceiling=CEILING, name="run_controlled"
    )
    if len(recorder.requests) > 1:
        fail(
            f"after a refusal your loop called the model {len(recorder.requests)} times; "
            "resending the same request gets the same refusal.",
            "on stop_reason 'refusal', end the run and return 'refusal'.",
        )
    if ending != "refusal":
        fail(
            f"for a refused request, run_controlled returned {short_repr(ending)}; expected "
            "'refusal'.",
            "on stop_reason 'refusal', return 'refusal'.",
        )
    if messages[: len(earlier)] != earlier:
        fail(
            f"after a refusal the history holds {len(messages)} message(s); the "
            f"{len(earlier)} messages before the refused turn are gone: the conversation "
            "before it was fine and should go on.",
            "take out only the refused turn (the last user message), nothing before it.",
        )
    if refused in messages:
        fail(
            "after a refusal the refused request is still in the history"
            + (" (with an answer after it)" if len(messages) > len(earlier) + 1 else "")
            + ": the model reads it again on every later call.",
            "before returning 'refusal', take the refused user message out of messages "
            "(nothing is appended for a refusal).",
        )
    messages.append({"role": "user", "content": "How do I protect our laptops against ransomware?"})
    client, recorder = recording_client()
    again = run_learner(
        run_controlled, client, messages, {}, ceiling=CEILING, name="run_controlled"
    )
    if again == "refusal":
        fail(
            "a harmless rephrase sent after the refusal was refused too: the refused turn is "
            "still in the history, and two user messages in a row are one turn to the API.",
            "before returning 'refusal', take the refused user message out of messages.",
        )
    if again != "end_turn":
        fail(
            f"for the rephrase after a refusal, run_controlled returned {short_repr(again)}; "
            "expected 'end_turn'.",
            "after a refusal, leave the history as it was before the refused turn.",
        )
    require_pairing(messages, "after a refusal and a rephrase, the history breaks a rule")
