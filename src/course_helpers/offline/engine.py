"""Course machinery (offline course model): the course model's brain: request in, Messages API
response out.

It asks the scenario policies for the next turn, then applies what the real API guarantees
whatever the model wants: `tool_choice`, `disable_parallel_tool_use`, thinking blocks, stop
sequences, `max_tokens`, the context window, ids and usage. A request that ends with an
assistant message (prefill) is answered with only what continues it (`prefill.py`). The edits of
a beta `context_management` field are applied to a copy of the request first
(`context_management.py`): the scenarios, usage and the context window see the edited prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import jiter

from course_helpers.offline import context_management, policy, scenarios
from course_helpers.offline.answer_values import answer_value
from course_helpers.offline.cache_diagnostics import Fingerprints
from course_helpers.offline.conversation import Conversation, written
from course_helpers.offline.errors import ApiError
from course_helpers.offline.faults import Fault, FaultQueue
from course_helpers.offline.field_sections import answer_in_sections
from course_helpers.offline.ids import make_id
from course_helpers.offline.models import CATALOGUE
from course_helpers.offline.output_tools import (
    answer_in_prompted_json,
    answer_through_output_tool,
    output_tool,
)
from course_helpers.offline.persons_language import said_in_the_persons_language
from course_helpers.offline.policy import Reply
from course_helpers.offline.prefill import continue_prefill
from course_helpers.offline.reluctant import answer_in_words
from course_helpers.offline.scenarios.continuation import continued_task
from course_helpers.offline.schemas import conform
from course_helpers.offline.signatures import sign
from course_helpers.offline.text_calls import read_text_calls
from course_helpers.offline.tokens import (
    PromptCache,
    Segment,
    block_tokens,
    input_tokens,
    segments,
)

CHARS_PER_TOKEN = 4


@dataclass
class Outcome:
    """A finished response, plus the raw tool-input JSON of any tool_use cut by max_tokens."""

    message: dict
    partial_json: dict[int, str] = field(default_factory=dict)
    output_tokens: int = 0  # estimated tokens of the content, as generated
    thinking_tokens: int | None = None  # of those, the thinking's (None: the model did not think)


class CourseModel:
    """A stand-in for the Messages API that plays the course's scenarios."""

    def __init__(
        self, *, variant: bool = False, context_window: int | None = None, reluctant: bool = False
    ) -> None:
        self.variant = variant
        self.reluctant = reluctant  # never calls a tool unless forced (offline/reluctant.py)
        # None: each model's own window (models.CATALOGUE); a number overrides it for every model.
        self.context_window = context_window
        self.cache = PromptCache()
        self.fingerprints = Fingerprints()
        self.faults = FaultQueue()

    # -- endpoints ---------------------------------------------------------------------
    def count_tokens(self, body: dict) -> dict:
        edited, applied = context_management.apply(body)
        answer: dict = {"input_tokens": input_tokens(edited)}
        if applied is not None:
            answer["context_management"] = {"original_input_tokens": input_tokens(body)}
        return answer

    def respond(self, body: dict, fault: Fault | None = None) -> Outcome:
        # The edits of `context_management` apply before the model reads the prompt: from here
        # on, `body` is the edited copy (the caller's history is left as it was).
        body, applied = context_management.apply(body)
        parts = segments(body)  # the prompt in cache order, sized once for both uses below
        prompt = input_tokens(body, parts)
        window = self.context_window or CATALOGUE[body["model"]].context_window
        if prompt > window or (fault and fault.kind == "prompt_too_long"):
            shown = max(prompt, window + 1)
            raise ApiError(400, f"prompt is too long: {shown} tokens > {window} maximum")
        conv = Conversation(read_text_calls(body))
        prefill = conv.prefill
        # A prefilled turn: the answer to the request without it, then only what continues it.
        reply = self._shape(conv, self._choose(conv if prefill is None else conv.before_prefill()))
        # A cut-off answer is continued in the language of the task, whatever "continue" is said in.
        reply = said_in_the_persons_language(continued_task(conv) or conv, reply)
        if self.reluctant:
            reply = answer_in_words(conv, reply)
        if self.variant:
            reply = _vary(conv, reply)
        reply = answer_through_output_tool(conv, reply)
        reply = answer_in_sections(conv, reply, self._choose)
        reply = answer_in_prompted_json(conv, reply)
        reply = _structured(conv, reply)
        if prefill is not None:
            reply = continue_prefill(prefill, reply)
        limit = min(int(body.get("max_tokens", 4096)), window - prompt)
        window_hit = fault is not None and fault.kind == "context_window"
        if window_hit:
            limit = min(limit, 40)
        outcome = self._finish(conv, reply, limit, body.get("stop_sequences") or [])
        message = outcome.message
        cut = message["stop_reason"] == "max_tokens"
        if window_hit or (cut and limit < int(body.get("max_tokens", 0))):
            message["stop_reason"] = "model_context_window_exceeded"
        message["usage"] = usage = self._usage(body, parts, prompt, message, outcome.output_tokens)
        if "diagnostics" in body:  # opted in to cache diagnostics (offline/cache_diagnostics.py)
            message["diagnostics"] = self.fingerprints.diagnose(body, parts, message["id"])
        if cut:
            # Generation ran until the budget was spent (a cut tool_use's partial input can
            # estimate above it): output_tokens never exceeds max_tokens.
            usage["output_tokens"] = limit
        if outcome.thinking_tokens is not None:
            # What the thinking cost, inside output_tokens (the SDK's OutputTokensDetails).
            thought = min(outcome.thinking_tokens, usage["output_tokens"])
            usage["output_tokens_details"] = {"thinking_tokens": thought}
        if applied is not None:
            message["context_management"] = {"applied_edits": applied}
        return outcome

    # -- choosing the turn -------------------------------------------------------------
    def _choose(self, conv: Conversation) -> Reply:
        for entry in scenarios.registered():
            reply = entry.respond(conv)
            if reply is not None:
                return reply
        return scenarios.fallback(conv)

    def _shape(self, conv: Conversation, reply: Reply) -> Reply:
        """Apply tool_choice and the offered tools, as the real API does whatever the model wants."""
        content = [dict(b) for b in reply.content]
        offered = set(conv.tool_names)
        if not conv.tools_allowed:
            had_calls = any(b["type"] == "tool_use" for b in content)
            content = [b for b in content if b["type"] != "tool_use"]
            if had_calls and not any(b["type"] == "text" for b in content):
                content.append(policy.text(_NO_TOOLS))
        content = [b for b in content if b["type"] != "tool_use" or b["name"] in offered]
        if conv.tools_allowed and conv.must_use_tool:
            wanted = conv.forced_tool
            calls = [b for b in content if b["type"] == "tool_use"]
            if wanted:
                calls = [b for b in calls if b["name"] == wanted]
            if not calls:
                # The answer, through the output tool when one is offered (output_tools.py).
                answer_tool = output_tool(conv)
                first = answer_tool or next(t for t in conv.tools if "input_schema" in t)
                name = wanted or first["name"]
                schema = (conv.tool(name) or {}).get("input_schema") or {}
                said = written(content) if answer_tool and name == answer_tool["name"] else ""
                said = "" if scenarios.is_fallback(said) else said
                value = answer_value(conv, schema, hint=said, tool=name)
                calls = [policy.tool_use(name, **(value if isinstance(value, dict) else {}))]
            # A forced tool call starts the turn at once: no text before it.
            content = calls
        if not conv.parallel_allowed:
            first = next((i for i, b in enumerate(content) if b["type"] == "tool_use"), None)
            if first is not None:
                content = [
                    b for i, b in enumerate(content) if b["type"] != "tool_use" or i == first
                ]
        if not content and reply.stop_reason != "refusal":
            content = [policy.text(_EMPTY)]
        stop_reason = reply.stop_reason
        if stop_reason in (None, "tool_use", "end_turn"):
            stop_reason = (
                "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
            )
        return Reply(content, stop_reason, reply.stop_details, reply.thinking)

    # -- finishing the message ---------------------------------------------------------
    def _finish(self, conv: Conversation, reply: Reply, limit: int, stops: list[str]) -> Outcome:
        content = list(reply.content)
        message_id = make_id("msg", conv.fingerprint())
        hidden = 0  # tokens of a thought generated but not shown (display "omitted")
        if conv.thinking_enabled and reply.stop_reason != "refusal":
            thought = reply.thinking or _default_thought(conv, content)
            if (conv.body.get("thinking") or {}).get("display") == "omitted":
                hidden = block_tokens({"type": "thinking", "thinking": thought})
                thought = ""  # the signature alone goes back; the text is left out
            content.insert(0, {"type": "thinking", "thinking": thought, "signature": ""})
        stop_reason, stop_sequence = reply.stop_reason, None
        if stop_reason is None:
            has_call = any(b["type"] == "tool_use" for b in content)
            stop_reason = "tool_use" if has_call else "end_turn"
        content, hit = _apply_stop_sequences(content, stops)
        if hit is not None:
            stop_reason, stop_sequence = "stop_sequence", hit
        content, partial, cut, used = _apply_token_limit(content, limit, hidden)
        if cut:  # the limit came first: the stop sequence was never generated
            stop_reason, stop_sequence = "max_tokens", None
        for index, block in enumerate(content):
            if block["type"] == "tool_use":
                block["id"] = make_id("toolu", message_id, index)
            elif block["type"] == "server_tool_use":
                block["id"] = make_id("srvtoolu", message_id, index)
            elif block["type"] == "web_search_tool_result" and not block.get("tool_use_id"):
                block["tool_use_id"] = make_id("srvtoolu", message_id, index - 1)
            elif block["type"] == "thinking":
                block["signature"] = sign(message_id, block["thinking"])
        for block in content:
            if block["type"] in ("tool_use", "server_tool_use"):
                # ids first, as in the API's own JSON
                block_id = block.pop("id")
                rest = {k: block.pop(k) for k in list(block) if k != "type"}
                block.update({"id": block_id, **rest})
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": conv.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": stop_sequence,
            "stop_details": reply.stop_details if stop_reason == "refusal" else None,
        }
        thinking = [b for b in content if b["type"] == "thinking"]
        thought_tokens = sum(block_tokens(b) for b in thinking) + hidden if thinking else None
        return Outcome(message, partial, used, thought_tokens)

    def _usage(
        self, body: dict, parts: list[Segment], prompt: int, message: dict, generated: int
    ) -> dict:
        cache = self.cache.account(body, parts)
        usage = {
            "input_tokens": prompt - cache.read - cache.written,
            "output_tokens": max(1, generated),
            "cache_creation_input_tokens": cache.written,
            "cache_read_input_tokens": cache.read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": cache.written - cache.written_1h,
                "ephemeral_1h_input_tokens": cache.written_1h,
            },
            "service_tier": "standard",
        }
        searches = sum(1 for b in message["content"] if b["type"] == "server_tool_use")
        if searches:
            usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
        return usage


_NO_TOOLS = "I would use a tool for this, but none may be used in this request."
_EMPTY = "(The offline course model has nothing to add.)"


def _structured(conv: Conversation, reply: Reply) -> Reply:
    """What constrained decoding guarantees: `strict` tool inputs and `output_config.format`.

    A strict tool's input always matches its schema; with a json_schema format, any text the
    model writes is one JSON document valid against the schema: no free text beside tool calls,
    and a final answer whose fields hold what the request names (`answer_values.answer_value`).
    """
    content = []
    for block in reply.content:
        if block["type"] == "tool_use":
            tool = conv.tool(block["name"]) or {}
            if tool.get("strict") and isinstance(tool.get("input_schema"), dict):
                block = {**block, "input": conform(block["input"], tool["input_schema"])}
        content.append(block)
    schema = conv.output_schema
    has_call = any(b["type"] == "tool_use" for b in content)
    if schema is not None and has_call:
        content = [b for b in content if b["type"] != "text"]
    elif schema is not None and reply.stop_reason != "refusal":
        said = written(content)
        parsed = _json_or_none(said)
        if parsed is None:
            said = "" if scenarios.is_fallback(said) else said
            document = answer_value(conv, schema, hint=said)
        else:
            document = conform(parsed, schema, hint=said)
        others = [b for b in content if b["type"] not in ("text",)]
        content = [*others, policy.text(json.dumps(document, ensure_ascii=False))]
    return Reply(content, reply.stop_reason, reply.stop_details, reply.thinking)


def _json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _default_thought(conv: Conversation, content: list[dict]) -> str:
    calls = [b["name"] for b in content if b["type"] == "tool_use"]
    if calls:
        return f"The request needs information I do not have; I will call {', '.join(calls)}."
    return "I have what I need to answer directly."


def _apply_stop_sequences(content: list[dict], stops: list[str]) -> tuple[list[dict], str | None]:
    """Cut the content at the first stop sequence found in its text, as generation would stop."""
    if not stops:
        return content, None
    for index, block in enumerate(content):
        if block["type"] != "text":
            continue
        found = [(block["text"].find(s), s) for s in stops if s and s in block["text"]]
        if found:
            position, sequence = min(found)
            kept = content[:index]
            if position > 0:
                kept.append({**block, "text": block["text"][:position]})
            return kept, sequence
    return content, None


def _apply_token_limit(
    content: list[dict], limit: int, hidden: int = 0
) -> tuple[list[dict], dict[int, str], bool, int]:
    """Cut the content when it does not fit in `limit` output tokens.

    `hidden` tokens were generated first and not shown (an omitted thought): they count.
    A tool_use cut this way keeps the part of its JSON input that was generated; the SDK
    parses it the same way from a stream, so both paths agree.
    """
    used, kept, partial = min(hidden, limit), [], {}
    for block in content:
        cost = block_tokens(block)
        if used + cost <= limit:
            kept.append(block)
            used += cost
            continue
        room = max(0, limit - used) * CHARS_PER_TOKEN
        if block["type"] == "text" and room:
            kept.append({**block, "text": block["text"][:room]})
        elif block["type"] == "thinking" and room:
            kept.append({**block, "thinking": block["thinking"][:room]})
        elif block["type"] == "tool_use":
            raw = json.dumps(block["input"], ensure_ascii=False)[: max(0, room - 16)]
            parsed = jiter.from_json(raw.encode(), partial_mode=True) if raw else {}
            partial[len(kept)] = raw
            kept.append({**block, "input": parsed if isinstance(parsed, dict) else {}})
        return kept, partial, True, limit
    return kept, partial, False, used


def _vary(conv: Conversation, reply: Reply) -> Reply:
    """A model that behaves differently from the course model, for the live-path test.

    It talks before calling tools, checks twice before its final answer, and words its answers
    differently: what real models do and notebooks must survive.
    """
    content = list(reply.content)
    calls = [b for b in content if b["type"] == "tool_use"]
    if calls and not conv.must_use_tool and not any(b["type"] == "text" for b in content):
        content.insert(0, policy.text("Let me look that up first."))
    already_checked = any(
        "double-check" in b.get("text", "")
        for m in conv.messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict)
    )
    previous = conv.calls()
    if (
        not calls
        and reply.stop_reason in (None, "end_turn")
        and previous
        and conv.ends_with_results
        and not already_checked
        and conv.tools_allowed
        and previous[-1].name in conv.tool_names
    ):
        again = previous[-1]
        return Reply(
            [policy.text("Let me double-check that."), policy.tool_use(again.name, **again.input)]
        )
    if not calls and reply.stop_reason in (None, "end_turn"):
        content = [
            {**b, "text": "To sum up: " + b["text"]} if b["type"] == "text" else b for b in content
        ]
    return Reply(content, reply.stop_reason, reply.stop_details, reply.thinking)
