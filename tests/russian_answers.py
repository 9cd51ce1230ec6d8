"""What the Russian tests of the course model share: the model and client settings, the weather
tool, a question asked the same way, and the text and the calls of an answer."""

from __future__ import annotations

MODEL = "claude-sonnet-5-5"
STRICT = {"_strict_response_validation": True, "max_retries": 0}
# The weather tool of lessons 02–03, as a learner offers it.
WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for one city. It only knows current conditions (no "
    "forecasts). Call it once per city.",
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name in English."},
            "unit": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "description": "Use celsius unless the user asks otherwise.",
            },
        },
        "required": ["city"],
    },
}


def ask(client, messages, **extra):
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    return client.messages.create(model=MODEL, max_tokens=2048, messages=messages, **extra)


def said(message) -> str:
    return "\n".join(b.text for b in message.content if b.type == "text")


def calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def then(client, messages: list[dict], follow_up: str, **extra):
    """The answer to a follow-up after the conversation so far."""
    return ask(client, [*messages, {"role": "user", "content": follow_up}], **extra)
