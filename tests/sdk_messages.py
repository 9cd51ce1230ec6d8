"""`message(stop_reason, *content)`: an SDK Message, for stand-in clients that replay a script."""

from __future__ import annotations

import anthropic


def thinking(text: str = "Let me think about this.") -> dict:
    """A signed thinking block, as models that think by default open their answers with."""
    return {"type": "thinking", "thinking": text, "signature": "sig_test"}


def message(stop_reason: str, *content: dict) -> anthropic.types.Message:
    """A Message built the way the SDK builds one from the API's JSON (text "ok" if no content)."""
    return anthropic.types.Message.model_validate(
        {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-5-5",
            "content": list(content) or [{"type": "text", "text": "ok"}],
            "stop_reason": stop_reason,
            "stop_sequence": "###" if stop_reason == "stop_sequence" else None,
            "stop_details": {"type": "refusal", "category": None, "explanation": None}
            if stop_reason == "refusal"
            else None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
