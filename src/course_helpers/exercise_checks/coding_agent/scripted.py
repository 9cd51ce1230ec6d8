"""Course machinery (exercise checks): exercise 08.2 against a scripted model: the retry cap, and cut-
off text continued.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.coding_agent.cut_off import RETRY_CAP
from course_helpers.exercise_checks.coding_agent.kit import CODING_TASK, coding_kit
from course_helpers.exercise_checks.common import (
    as_plain,
    fail,
    run_learner,
    short_repr,
)
from course_helpers.lessons.pairing import content_blocks


class _Scripted:
    """A client whose every call gets the next of a list of scripted responses (the last one
    repeats), recording each request: for endings the course model does not stage on demand."""

    def __init__(self, replies: list[dict]) -> None:
        self.replies, self.requests = replies, []
        self.messages = self

    def create(self, **request: Any) -> Any:
        __tracebackhide__ = True
        import anthropic

        self.requests.append(as_plain(request))
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        calls = any(b.get("type") == "tool_use" for b in reply["content"])
        if calls and not request.get("tools"):
            # A request that offers no tools never gets a tool call: say what the code sent.
            after = (
                " (the retry after a response cut off by max_tokens)"
                if len(self.requests) > 1
                else ""
            )
            fail(
                f"agent_turn sent request {len(self.requests)}{after} without the tools: the "
                "model cannot call a tool it is not offered.",
                "send tools=[t.definition() for t in tools] on every request, retries included.",
            )
        return anthropic.types.Message.model_validate(
            {
                "id": f"msg_scripted_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": str(request.get("model", "")),
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 50},
                **reply,
            }
        )

    def stream(self, **request: Any) -> Any:
        """A streamed request gets the same scripted reply, read as a finished stream."""
        from course_helpers.exercise_checks.common import FinishedStream

        return FinishedStream(self.create(**request))


CUT_CALL = {
    "stop_reason": "max_tokens",
    "content": [
        {"type": "text", "text": "Let me look at the cart."},
        {"type": "tool_use", "id": "toolu_cut", "name": "read_file", "input": {}},
    ],
}
CUT_TEXT = {"stop_reason": "max_tokens", "content": [{"type": "text", "text": "The total is "}]}
REST = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "in shop/cart.py."}]}


def _check_retry_cap(agent_turn: Callable) -> None:
    """A call cut off again and again: the retries stop growing at the exercise's 16,000."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client = _Scripted([CUT_CALL])
        run_learner(
            agent_turn,
            client,
            [],
            kit.tools,
            CODING_TASK,
            max_steps=6,
            max_tokens=2048,
            name="agent_turn",
        )
        asked = [int(r.get("max_tokens", 0)) for r in client.requests]
        if max(asked, default=0) > RETRY_CAP:
            fail(
                f"a tool_use cut off on every try got retries with max_tokens {asked}: above "
                f"{RETRY_CAP:,} a request must be streamed (the SDK refuses it), and no model "
                "writes more than its maximum.",
                f"cap the retry: min(max_tokens * 4, {RETRY_CAP:,}); at the cap, hand back "
                "'max_tokens'.",
            )
        if kit.ran:
            fail(
                f"a tool_use cut off by max_tokens ran ({kit.ran[0][0]}): its input is "
                "half-written.",
                "never run the calls of a response whose stop_reason is 'max_tokens'.",
            )
    finally:
        kit.close()


def _check_text_continued(agent_turn: Callable) -> None:
    """A text answer cut off by max_tokens is kept and continued, not asked again."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client = _Scripted([CUT_TEXT, REST])
        messages: list = []
        ending = run_learner(
            agent_turn,
            client,
            messages,
            kit.tools,
            "Where is the total computed?",
            max_steps=4,
            max_tokens=2048,
            name="agent_turn",
        )
        if len(client.requests) == 1:
            if ending != "max_tokens":
                fail(
                    f"after a text answer cut off by max_tokens, agent_turn returned "
                    f"{short_repr(ending)}.",
                    "return 'max_tokens' (the person decides), or keep the text and continue.",
                )
            return
        sent = client.requests[1].get("messages") or []
        kept = [
            m
            for m in sent
            if m.get("role") == "assistant" and as_plain(content_blocks(m)) == CUT_TEXT["content"]
        ]
        if not kept:
            fail(
                "a text answer cut off by max_tokens was thrown away and the request sent again "
                "(with more room?): the words already written are paid for, and the model can go "
                "on from them.",
                "keep the cut-off text as the assistant's turn, then a user message asking the "
                "model to continue where it stopped.",
            )
        if sent[-1].get("role") != "user":
            fail(
                "after a cut-off text the next request ends with the assistant's turn: newer "
                "models refuse a prefilled assistant message.",
                "append a user message asking to continue where it stopped, without repeating "
                "itself.",
            )
    finally:
        kit.close()
