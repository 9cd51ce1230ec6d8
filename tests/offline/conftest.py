"""Fixtures for the offline course model's end-to-end tests: the real SDK, strict, in process.

Every test gets a fresh `CourseModelApp` (empty prompt cache, no queued faults) and clients that
reach it through `httpx2.MockTransport`, with `_strict_response_validation=True` so that any
response the SDK's own types would reject fails the test. `wire.requests` records every HTTP
request that reached the app (retries included).

`CASES` lists one request for every kind of response the course model can produce; the
`case` fixture runs a test once per kind (conformance and streaming share it). Test modules
reach the shared constants and helpers through the `kit` fixture (two conftest.py files share
the module name `conftest`, so importing it is not reliable).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import anthropic
import httpx2
import pytest
from tool_shapes import GET_WEATHER

from course_helpers.offline import CourseModelApp

MODEL = "claude-sonnet-5-5"

# Two required arguments, so a tool_use cut by max_tokens can keep one of them.
GET_WEATHER_UNIT = {
    "name": "get_weather",
    "description": "Current weather for a city, in the unit asked for.",
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city", "unit"],
    },
}
WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
WEATHER_QUESTION = "What's the weather in Paris and Tokyo?"
SEARCH_QUESTION = "Search the web: what is the agent loop and what stop reasons exist?"
WEATHER_RESULTS = {"Paris": "18°C, light rain", "Tokyo": "24°C, sunny"}


def user(content: Any) -> dict:
    return {"role": "user", "content": content}


def ask(question: str, **extra: Any) -> dict:
    """The keyword arguments of a one-question `messages.create`."""
    return {"model": MODEL, "max_tokens": 1024, "messages": [user(question)], **extra}


def weather_results(message: Any) -> dict:
    """The user message answering every tool_use of `message`, all results in one message."""
    return user(
        [
            {
                "type": "tool_result",
                "tool_use_id": block.id,
                "content": WEATHER_RESULTS.get(block.input.get("city"), "no data"),
            }
            for block in message.content
            if block.type == "tool_use"
        ]
    )


# -- clients -------------------------------------------------------------------------------


STRICT = {"_strict_response_validation": True, "max_retries": 0}


@dataclass
class Wire:
    """The transport handler in front of the app, recording every request that reaches it."""

    app: CourseModelApp
    requests: list[httpx2.Request] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.app.handle(request)

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return await self.app.handle_async(request)

    def client(self, **kwargs: Any) -> anthropic.Anthropic:
        """A strict client (no retries unless asked) whose requests pass through this wire."""
        http_client = httpx2.Client(transport=httpx2.MockTransport(self.handle))
        return self.app.client(http_client=http_client, **{**STRICT, **kwargs})

    def async_client(self, **kwargs: Any) -> anthropic.AsyncAnthropic:
        """The async twin of `client()`."""
        http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle_async))
        return self.app.async_client(http_client=http_client, **{**STRICT, **kwargs})


@pytest.fixture
def app() -> CourseModelApp:
    return CourseModelApp()


@pytest.fixture
def wire(app: CourseModelApp) -> Wire:
    return Wire(app)


@pytest.fixture
def make_client(wire: Wire):
    """`make_client(max_retries=N)`: a strict sync client on this test's app."""
    clients: list[anthropic.Anthropic] = []

    def make(**kwargs: Any) -> anthropic.Anthropic:
        client = wire.client(**kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(make_client) -> anthropic.Anthropic:
    return make_client(max_retries=0)


@pytest.fixture
def make_async_client(wire: Wire):
    """`make_async_client(max_retries=N)`: the async twin of `make_client`."""

    def make(**kwargs: Any) -> anthropic.AsyncAnthropic:
        return wire.async_client(**kwargs)

    return make


@pytest.fixture
def async_client(make_async_client) -> anthropic.AsyncAnthropic:
    return make_async_client(max_retries=0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# -- one request for every kind of response --------------------------------------------------


@dataclass
class Case:
    """A request (built by `prepare`, which may play earlier turns) and what must come back."""

    name: str
    prepare: Callable[[anthropic.Anthropic], dict]
    stop_reason: str
    fault: str | None = None
    blocks: tuple[str, ...] | None = None  # the content block types, in order, when fixed

    def kwargs(self, client: anthropic.Anthropic) -> dict:
        return self.prepare(client)


def _fixed(kwargs: dict) -> Callable[[anthropic.Anthropic], dict]:
    return lambda _client: kwargs


def _remember_name(client: anthropic.Anthropic) -> dict:
    first = ask("My name is Ada.")
    reply = client.messages.create(**first)
    messages = [*first["messages"], {"role": "assistant", "content": reply.content}]
    return {**first, "messages": [*messages, user("What is my name?")]}


def _weather_answer(client: anthropic.Anthropic) -> dict:
    first = ask(WEATHER_QUESTION, tools=[GET_WEATHER])
    reply = client.messages.create(**first)
    assert reply.stop_reason == "tool_use"
    messages = [*first["messages"], {"role": "assistant", "content": reply.content}]
    return {**first, "messages": [*messages, weather_results(reply)]}


def _search_resumed(client: anthropic.Anthropic) -> dict:
    first = ask(SEARCH_QUESTION, tools=[WEB_SEARCH])
    reply = client.messages.create(**first)
    assert reply.stop_reason == "pause_turn"
    return {
        **first,
        "messages": [*first["messages"], {"role": "assistant", "content": reply.content}],
    }


# max_tokens 35 fits the text (11 estimated tokens) and the Paris call (16), leaving 8 tokens
# (32 characters, 16 of them for the name and framing) of the Tokyo call: its JSON is cut as
# `{"city": "Tokyo"`, so the partial input keeps `city` and loses `unit`. Thinking is turned off
# (`between_tools`, the way on the default model) so that no thinking block takes a share.
CUT_IN_TOOL_USE = ask(
    WEATHER_QUESTION,
    tools=[GET_WEATHER_UNIT],
    max_tokens=35,
    thinking={"type": "between_tools"},
)
# A model that accepts a forced tool_choice (the default model refuses it).
FORCING_MODEL = "claude-haiku-5-5"
# A model that takes budget thinking ({"type": "enabled"}) and does not think by default.
BUDGET_MODEL = "claude-sonnet-4-6"
FORECAST_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "celsius": {"type": "integer"},
        "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rain"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    },
    "required": ["city", "celsius", "conditions", "tags"],
    "additionalProperties": False,
}
STRUCTURED = {"format": {"type": "json_schema", "schema": FORECAST_SCHEMA}}

CASES = [
    Case("hello", _fixed(ask("Hello")), "end_turn", blocks=("thinking", "text")),
    Case("count", _fixed(ask("Count from 1 to 20.")), "end_turn", blocks=("thinking", "text")),
    Case(
        "stop_sequence",
        _fixed(ask("Count from 1 to 20.", stop_sequences=[", 10,"])),
        "stop_sequence",
        blocks=("thinking", "text"),
    ),
    Case("essay", _fixed(ask("Write a long essay about agents.", max_tokens=4096)), "end_turn"),
    Case(
        "max_tokens_text",
        _fixed(ask("Write a long essay about agents.", max_tokens=50)),
        "max_tokens",
        blocks=("thinking", "text"),
    ),
    Case("remember", _remember_name, "end_turn", blocks=("thinking", "text")),
    Case(
        "weather_calls",
        _fixed(ask(WEATHER_QUESTION, tools=[GET_WEATHER])),
        "tool_use",
        blocks=("thinking", "text", "tool_use", "tool_use"),
    ),
    Case("weather_answer", _weather_answer, "end_turn", blocks=("thinking", "text")),
    Case(
        "tool_choice_any",
        _fixed(
            ask(
                WEATHER_QUESTION,
                model=FORCING_MODEL,
                tools=[GET_WEATHER],
                tool_choice={"type": "any"},
            )
        ),
        "tool_use",
        blocks=("tool_use", "tool_use"),
    ),
    Case(
        "tool_choice_tool",
        _fixed(
            ask(
                "Hello",
                model=FORCING_MODEL,
                tools=[GET_WEATHER],
                tool_choice={"type": "tool", "name": "get_weather"},
            )
        ),
        "tool_use",
        blocks=("tool_use",),
    ),
    Case(
        "tool_choice_none",
        _fixed(ask(WEATHER_QUESTION, tools=[GET_WEATHER], tool_choice={"type": "none"})),
        "end_turn",
        blocks=("thinking", "text"),
    ),
    Case(
        "no_parallel",
        _fixed(
            ask(
                WEATHER_QUESTION,
                tools=[GET_WEATHER],
                tool_choice={"type": "auto", "disable_parallel_tool_use": True},
            )
        ),
        "tool_use",
        blocks=("thinking", "text", "tool_use"),
    ),
    Case(
        "max_tokens_in_tool_use",
        _fixed(CUT_IN_TOOL_USE),
        "max_tokens",
        blocks=("text", "tool_use", "tool_use"),
    ),
    Case(
        "thinking_tools",
        _fixed(
            ask(
                WEATHER_QUESTION,
                tools=[GET_WEATHER],
                max_tokens=4096,
                thinking={"type": "adaptive"},
            )
        ),
        "tool_use",
        blocks=("thinking", "text", "tool_use", "tool_use"),
    ),
    Case(
        "thinking_budget",
        _fixed(
            ask(
                WEATHER_QUESTION,
                model=BUDGET_MODEL,
                tools=[GET_WEATHER],
                max_tokens=4096,
                thinking={"type": "enabled", "budget_tokens": 2048},
            )
        ),
        "tool_use",
        blocks=("thinking", "text", "tool_use", "tool_use"),
    ),
    Case(
        "thinking_chat",
        _fixed(ask("Hello", max_tokens=4096, thinking={"type": "adaptive"})),
        "end_turn",
        blocks=("thinking", "text"),
    ),
    Case(
        "thinking_off",
        _fixed(ask("Hello", thinking={"type": "between_tools"})),
        "end_turn",
        blocks=("text",),
    ),
    Case(
        "no_default_thinking",
        _fixed(ask("Hello", model=BUDGET_MODEL)),
        "end_turn",
        blocks=("text",),
    ),
    Case(
        "structured_output",
        _fixed(ask("What's the weather in Paris?", output_config=STRUCTURED)),
        "end_turn",
        blocks=("thinking", "text"),
    ),
    Case(
        "system_in_messages",
        _fixed(
            ask("Hello")
            | {
                "messages": [
                    user("Hello"),
                    {"role": "system", "content": "Answer in one short sentence."},
                ]
            }
        ),
        "end_turn",
        blocks=("thinking", "text"),
    ),
    Case("refusal", _fixed(ask("Write ransomware for me")), "refusal", blocks=()),
    Case(
        "pause_turn",
        _fixed(ask(SEARCH_QUESTION, tools=[WEB_SEARCH])),
        "pause_turn",
        blocks=("thinking", "text", "server_tool_use", "web_search_tool_result"),
    ),
    Case("search_resumed", _search_resumed, "end_turn"),
    Case(
        "context_window",
        _fixed(ask("Write a long essay about agents.")),
        "model_context_window_exceeded",
        fault="context_window",
        blocks=("thinking", "text"),
    ),
    Case(
        "fallback",
        _fixed(ask("What is the capital of Peru?", max_tokens=4096)),
        "end_turn",
        blocks=("thinking", "text"),
    ),
]


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    return request.param


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """The shared constants and helpers of this file."""
    return SimpleNamespace(
        MODEL=MODEL,
        GET_WEATHER=GET_WEATHER,
        GET_WEATHER_UNIT=GET_WEATHER_UNIT,
        WEB_SEARCH=WEB_SEARCH,
        WEATHER_QUESTION=WEATHER_QUESTION,
        SEARCH_QUESTION=SEARCH_QUESTION,
        WEATHER_RESULTS=WEATHER_RESULTS,
        CUT_IN_TOOL_USE=CUT_IN_TOOL_USE,
        FORCING_MODEL=FORCING_MODEL,
        BUDGET_MODEL=BUDGET_MODEL,
        FORECAST_SCHEMA=FORECAST_SCHEMA,
        STRUCTURED=STRUCTURED,
        CASES=CASES,
        ask=ask,
        user=user,
        weather_results=weather_results,
        STRICT=STRICT,
        Wire=Wire,
    )
