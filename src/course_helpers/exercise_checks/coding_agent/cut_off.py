"""Course machinery (exercise checks): exercise 08.2 against the course model: a call cut off by
max_tokens, and its retries.
"""

from __future__ import annotations

from collections.abc import Callable

from course_helpers.exercise_checks.coding_agent.kit import (
    CODING_TASK,
    CodingKit,
    _check_turn_basics,
    coding_kit,
)
from course_helpers.exercise_checks.common import (
    Recorder,
    fail,
    max_output_tokens,
    recording_client,
    run_learner,
    short_repr,
)
from course_helpers.lessons.pairing import content_blocks, read_field

MODEL_MAX_OUTPUT = max_output_tokens()  # the course model's largest max_tokens
RETRY_CAP = 16_000  # the exercise's cap: above about 21,000 a request must be streamed


def _calls_in(body: dict) -> list[dict]:
    return [b for b in content_blocks(body) if read_field(b, "type") == "tool_use"]


def _check_cut_off(agent_turn: Callable) -> None:
    """max_tokens: hand back at once, or follow the course's policy; never run a cut-off call.

    The course's policy: a cut-off text is kept and the model is asked to continue; a cut-off
    tool_use is never run, the turn is discarded and the same request is retried with a higher
    max_tokens (never above the model's maximum); every retry counts toward the step limit.
    Handing control back to the person at once (returning "max_tokens") is also accepted.
    """
    __tracebackhide__ = True
    kit = coding_kit()
    max_steps = 3
    try:
        cut_at = _tokens_that_cut_the_first_call(kit)
        client, recorder = recording_client()
        messages: list = []
        what = f"the coding task with max_tokens={cut_at} and max_steps={max_steps}"
        ending = run_learner(
            agent_turn,
            client,
            messages,
            kit.tools,
            CODING_TASK,
            max_tokens=cut_at,
            max_steps=max_steps,
            name="agent_turn",
        )
        if not recorder.requests:
            fail("agent_turn made no call to the model.", "call client.messages.create(...).")
        bodies = [r["body"] for r in recorder.responses]
        cut_ids = {
            c["id"] for b in bodies if b.get("stop_reason") == "max_tokens" for c in _calls_in(b)
        }
        answered = {
            str(read_field(block, "tool_use_id"))
            for sent in [*recorder.messages_sent, messages]
            for message in sent
            for block in content_blocks(message)
            if read_field(block, "type") == "tool_result"
        }
        kept = {
            str(read_field(block, "id"))
            for message in messages
            for block in content_blocks(message)
            if read_field(block, "type") == "tool_use"
        }
        if cut_ids & answered:
            name = next(c["name"] for b in bodies for c in _calls_in(b) if c["id"] in cut_ids)
            fail(
                f"for {what}, your turn ran {name} from a tool_use cut off by max_tokens: its "
                "input is half-written, and it must never run.",
                "decide on stop_reason first: only 'tool_use' runs tools; a cut-off call is "
                "discarded (retry the request with a higher max_tokens, or hand back).",
            )
        if cut_ids & kept:
            fail(
                f"for {what}, the history keeps a tool_use cut off by max_tokens, with no result: "
                "the next request would be refused.",
                "do not append a response whose tool_use was cut off: discard that turn.",
            )
        complete_calls = sum(
            len(_calls_in(b)) for b in bodies if b.get("stop_reason") == "tool_use"
        )
        if len(kit.ran) > complete_calls:
            fail(
                f"for {what}, {len(kit.ran)} tools ran for {complete_calls} complete tool_use "
                "block(s): a call cut off by max_tokens ran.",
                "only a response with stop_reason 'tool_use' runs tools.",
            )
        if len(recorder.requests) > max_steps:
            fail(
                f"for {what}, agent_turn called the model {len(recorder.requests)} times: the "
                "retries after max_tokens did not count toward the step limit.",
                "every call counts, retries included: a runaway retry must stop at max_steps.",
            )
        _check_retries(recorder, bodies, what)
        _check_turn_basics(messages, recorder, kit, ending, what)
        if len(recorder.requests) == 1 and ending != "max_tokens":
            fail(
                f"for {what}, agent_turn stopped after one call cut off by max_tokens and "
                f"returned {short_repr(ending)}.",
                "return 'max_tokens' (the person decides), or retry with a higher max_tokens.",
            )
    finally:
        kit.close()


def _tokens_that_cut_the_first_call(kit: CodingKit) -> int:
    """A max_tokens that cuts the model's first answer inside its tool_use, on this model.

    The answer may open with a thinking block, whose length depends on the model: ask once
    with room to spare, then cut a few tokens before the end (the tool_use is the last block).
    """
    from course_helpers.client import MODEL

    client, _ = recording_client()
    full = client.messages.create(
        model=MODEL,
        max_tokens=2048,
        tools=[t.definition() for t in kit.tools],
        messages=[{"role": "user", "content": CODING_TASK}],
    )
    return max(1, full.usage.output_tokens - 3)


def _check_retries(recorder: Recorder, bodies: list[dict], what: str) -> None:
    """After each cut-off response that was followed by another call: the right next request."""
    __tracebackhide__ = True
    for index, body in enumerate(bodies[:-1]):
        if body.get("stop_reason") != "max_tokens":
            continue
        before, after = recorder.requests[index], recorder.requests[index + 1]
        if _calls_in(body):
            if after.get("messages") != before.get("messages"):
                fail(
                    f"for {what}, after a tool_use cut off by max_tokens the next request did not "
                    "resend the same history: the cut-off turn must be discarded, not kept or "
                    "answered.",
                    "retry the very same request, with a higher max_tokens.",
                )
            if int(after.get("max_tokens", 0)) <= int(before.get("max_tokens", 0)):
                fail(
                    f"for {what}, a tool_use was cut off at max_tokens={before.get('max_tokens')} "
                    f"and the retry asked for max_tokens={after.get('max_tokens')}: it will be "
                    "cut at the same place.",
                    "raise max_tokens for the retry (e.g. times 4), never above the model's "
                    f"maximum ({MODEL_MAX_OUTPUT:,}).",
                )
            changed = sorted(
                key
                for key in set(before) | set(after)
                if key not in ("max_tokens", "messages", "stream")
                and before.get(key) != after.get(key)
            )
            if changed:
                lost = [key for key in changed if key not in after]
                fail(
                    f"for {what}, the retry after a tool_use cut off by max_tokens changed "
                    f"{changed} of the request"
                    + (f" (sent without the {', '.join(lost)})" if lost else "")
                    + ": only max_tokens should change, or the model answers another request.",
                    "retry the very same request (tools, system and all), with a higher "
                    "max_tokens.",
                )
            if int(after.get("max_tokens", 0)) > MODEL_MAX_OUTPUT:
                fail(
                    f"for {what}, the retry asked for max_tokens={after.get('max_tokens')}, above "
                    f"the model's maximum of {MODEL_MAX_OUTPUT:,}: the API answers 400.",
                    f"cap it: min(max_tokens * 4, {MODEL_MAX_OUTPUT:,}).",
                )
        else:
            sent = after.get("messages") or []
            texts = [
                read_field(b, "text")
                for m in sent
                if read_field(m, "role") == "assistant"
                for b in content_blocks(m)
                if read_field(b, "type") == "text"
            ]
            cut_text = [
                read_field(b, "text")
                for b in content_blocks(body)
                if read_field(b, "type") == "text"
            ]
            if cut_text and not all(t in texts for t in cut_text):
                fail(
                    f"for {what}, a text answer cut off by max_tokens was dropped before the next "
                    "call.",
                    "keep a cut-off text in the history and ask the model to continue where it "
                    "stopped.",
                )
            if sent and read_field(sent[-1], "role") != "user":
                fail(
                    f"for {what}, after a cut-off text the next request ends with the assistant's "
                    "turn: newer models refuse a prefilled assistant message.",
                    "append a user message asking to continue where it stopped, without "
                    "repeating itself.",
                )
