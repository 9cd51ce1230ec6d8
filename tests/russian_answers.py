"""What the Russian tests of the course model share: the model and client settings, a question
asked the same way, and the text and the calls of an answer."""

from __future__ import annotations

MODEL = "claude-sonnet-5-5"
STRICT = {"_strict_response_validation": True, "max_retries": 0}


def ask(client, messages, **extra):
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    return client.messages.create(model=MODEL, max_tokens=2048, messages=messages, **extra)


def said(message) -> str:
    return "\n".join(b.text for b in message.content if b.type == "text")


def calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]
