"""Course machinery (offline course model): a model that would rather answer in words.

Real models may answer from what they know instead of calling the tool a lesson offered. The
reluctant model does it every time: it never calls a tool unless `tool_choice` forces one, and
answers in text instead. `tests/test_reluctant_model.py` runs every notebook against it.
"""

from __future__ import annotations

from course_helpers.offline import policy
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply

_CALLS = ("tool_use", "server_tool_use", "web_search_tool_result")


def answer_in_words(conv: Conversation, reply: Reply) -> Reply:
    """The same turn without its tool calls (unless `tool_choice` forces one), said in words."""
    if conv.must_use_tool and conv.tools_allowed:
        return reply
    calls = [b for b in reply.content if b.get("type") in _CALLS]
    if not calls:
        return reply
    named = [b["name"] for b in calls if "name" in b]
    # Any words it had before the call ("let me look that up") would promise a call that never
    # comes: the whole turn becomes the answer in words.
    content = [policy.text(_instead(named))]
    # Without its calls the turn is finished: no tool_use to answer, no search to resume.
    finished = reply.stop_reason in (None, "tool_use", "pause_turn")
    stop_reason = "end_turn" if finished else reply.stop_reason
    return Reply(content, stop_reason, reply.stop_details, reply.thinking)


def _instead(names: list[str]) -> str:
    tool = names[0] if names else "a tool"
    return (
        f"I can answer this from what I already know, without calling {tool}. "
        "I have no live data here, so take this as my best general answer."
    )
