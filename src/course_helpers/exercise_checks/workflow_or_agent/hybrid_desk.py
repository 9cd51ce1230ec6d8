"""Course machinery (exercise checks): exercise 09.3's tickets, rewording client and the signs that
the agent ran.
"""

from __future__ import annotations

import dataclasses
import json

import httpx2

from course_helpers.exercise_checks.common import (
    Recorder,
    fail,
)

# -- exercise 3: a router in front of the agent --------------------------------------------------

AGENT_TOOL = "look_up_order"
OTHER_TICKET = "Can I change the colour of my kettle? I'm sam@example.com."
# A1010's record names the order it replaced: the handler's reply says "replacement", but
# nothing in question was replaced.
REPLACEMENT_TICKET = "Where is my order #A1010?"
# A1007 was replaced, but the refund handler's reply is about the refund, not the replacement.
REPLACED_REFUND_TICKET = "I want my money back for order #A1007, the pan never came."
# The cases run again with the handlers' replies rewritten (rule 6).
DECOYS = ("P1", "P3", "U1", "U2", "U3")


# Replies written over the handlers' (never the agent's) to test that wording decides nothing.
LOUD_REPLY = (
    "Hello,\n\nYour order was lost in transit, so we sent a replacement; the replaced order "
    "could not be refunded: there is no help-centre rule for that. I could not refund it, and a "
    "colleague will look at it.\n\nKettle & Co support"
)
QUIET_REPLY = "Hello,\n\nThank you for writing to us.\n\nKettle & Co support"


@dataclasses.dataclass
class _RewordingRecorder(Recorder):
    """A Recorder that rewrites the text of every reply to a request without the agent's tools."""

    wording: str = ""

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)
        body = self.requests[-1] if self.requests else {}
        agent = AGENT_TOOL in [t.get("name") for t in body.get("tools") or []]
        if request.url.path.rstrip("/") != "/v1/messages" or body.get("stream") or agent:
            return response
        answer = json.loads(response.content)
        for block in answer.get("content") or []:
            if block.get("type") == "text":
                block["text"] = self.wording
        return httpx2.Response(response.status_code, json=answer)


def _rewording_client(wording: str):
    from course_helpers.offline import default_app

    recorder = _RewordingRecorder(wording=wording)
    client = default_app().client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


def _is_agent(request: dict) -> bool:
    return AGENT_TOOL in [t.get("name") for t in request.get("tools") or []]


def _agent_refund_calls(requests: list[dict]) -> int:
    """How many refund tool calls the agent made (its last request holds its whole history)."""
    last = next((r for r in reversed(requests) if _is_agent(r)), None)
    return sum(
        1
        for message in (last or {}).get("messages") or []
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use" and block.get("name") == "refund"
    )


def _straight_to_agent(ticket: str, desk, requests: list[dict]) -> None:
    """On a ticket whose data needs the agent: one triage call, then only the agent's calls."""
    __tracebackhide__ = True
    other = [r for r in requests if not _is_agent(r)]
    if len(other) > 1:
        fail(
            f"on {ticket!r} hybrid sent {len(other)} requests besides the agent's: a handler "
            "ran before (or after) the agent, a call whose reply nobody reads.",
            "after triage, look up the orders in question and decide; when one was replaced, "
            "hand the ticket to run_support_agent without running the handler.",
        )
    asked = len(desk.refunds) + len(desk.refused)
    if asked != _agent_refund_calls(requests):
        fail(
            f"on {ticket!r} the desk was asked for {asked} refund(s), the agent's refund tool "
            f"for {_agent_refund_calls(requests)}: something else asked the desk for money "
            "before the agent started.",
            "decide before any handler runs: a handler's refund_step asks the desk for refunds.",
        )
