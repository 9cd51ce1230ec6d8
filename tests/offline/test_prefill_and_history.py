"""Prefill, tool blocks without tools, system messages as instructions, one call per turn.

Each rule both ways, through the SDK (strict): the request the API refuses gets its status,
error type and exact message; its valid neighbour is accepted and answered usefully. The
rules: a prefill may not end in whitespace; a prefill is continued, never repeated; a history
with `tool_use` or `tool_result` blocks needs `tools`; a `{"role": "system"}` message in
`messages` is an instruction; manual thinking wants a prefilled turn to open with thinking;
answers after one call per turn use every result. Some run over `serve` on loopback too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import pytest
from tool_shapes import GET_WEATHER

from course_helpers.offline import CourseModelApp
from course_helpers.offline.prefill import continuation
from course_helpers.offline.serve import start_server

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

PREFILL_MODELS = ["claude-haiku-4-5", "claude-opus-4-5", "claude-mythos-preview"]
WEATHER = GET_WEATHER
RESULTS = {"Paris": "18°C, light rain", "Tokyo": "24°C, sunny"}
TRAILING_WHITESPACE = "messages: final assistant content cannot end with trailing whitespace"
PREFILL_UNSUPPORTED = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)
TOOLS_UNDEFINED = "Requests which include `tool_use` or `tool_result` blocks must define tools."
THINKING_FIRST = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. "
    "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
    "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
    "include thinking blocks from previous turns. To avoid this requirement, disable "
    "`thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
COUNTED = ", ".join(str(n) for n in range(1, 21)) + "."
GREETING = "Hello! I am the offline course model. What would you like to try?"


def user(content: Any) -> dict:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict:
    return {"role": "assistant", "content": content}


def prefilled(question: str, prefill: Any, model: str = "claude-haiku-4-5", **extra: Any) -> dict:
    return {
        "model": model,
        "max_tokens": 2048,
        "messages": [user(question), assistant(prefill)],
        **extra,
    }


def refused(call: Callable[[], Any], message: str) -> None:
    """`call` fails as the API refuses a request: 400, `invalid_request_error`, `message`."""
    with pytest.raises(anthropic.BadRequestError) as caught:
        call()
    error = caught.value
    assert error.status_code == 400
    assert (error.body["error"]["type"], error.body["error"]["message"]) == (
        "invalid_request_error",
        message,
    )


def text_of(message: Any) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


@pytest.fixture
def client():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


@pytest.fixture
def served_client():
    running = start_server()
    client = anthropic.Anthropic(
        api_key="any-key", base_url=running.url, _strict_response_validation=True, max_retries=0
    )
    yield client
    client.close()
    running.stop()


# --------------------------------------------------------------------------- trailing whitespace


@pytest.mark.parametrize("model", PREFILL_MODELS)
@pytest.mark.parametrize(
    "prefill",
    ["Hello ", "Here:\n", "1, 2, 3\t", [{"type": "text", "text": "Here:\n"}]],
    ids=["space", "newline", "tab", "block"],
)
def test_a_prefill_ending_in_whitespace_is_refused(client, model, prefill):
    refused(
        lambda: client.messages.create(**prefilled("Count from 1 to 20.", prefill, model)),
        TRAILING_WHITESPACE,
    )


@pytest.mark.parametrize("model", PREFILL_MODELS)
@pytest.mark.parametrize(
    "prefill",
    ["Hello", "Here:", [{"type": "text", "text": "Here:\n"}, {"type": "text", "text": "1"}]],
    ids=["word", "colon", "whitespace-inside"],
)
def test_a_prefill_ending_in_a_character_is_accepted(client, model, prefill):
    message = client.messages.create(**prefilled("Count from 1 to 20.", prefill, model))
    assert message.stop_reason == "end_turn"


def test_a_model_without_prefill_names_the_prefill_first(client):
    refused(
        lambda: client.messages.create(**prefilled("Hello!", "Hello ", "claude-sonnet-4-6")),
        PREFILL_UNSUPPORTED,
    )


def test_count_tokens_generates_nothing_and_takes_the_trailing_space(client):
    request = prefilled("Hello!", "Hello ")
    del request["max_tokens"]
    assert client.messages.count_tokens(**request).input_tokens > 0


def test_trailing_whitespace_over_loopback(served_client):
    refused(
        lambda: served_client.messages.create(**prefilled("Hello!", "Bonjour ")),
        TRAILING_WHITESPACE,
    )
    assert served_client.messages.create(**prefilled("Hello!", "Bonjour")).stop_reason == "end_turn"


# --------------------------------------------------------------------------- continuation


@pytest.mark.parametrize("model", PREFILL_MODELS)
def test_a_prefill_is_continued_never_repeated(client, model):
    message = client.messages.create(**prefilled("Count from 1 to 20.", "1, 2, 3", model))
    said = text_of(message)
    assert said == ", 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20."
    assert "1, 2, 3" + said == COUNTED


def test_without_a_prefill_the_whole_answer_comes_back(client):
    request = prefilled("Count from 1 to 20.", "1, 2, 3")
    request["messages"] = request["messages"][:1]
    assert text_of(client.messages.create(**request)) == COUNTED


def test_a_prefill_the_answer_does_not_start_with_is_continued(client):
    said = text_of(client.messages.create(**prefilled("Hello!", "Bonjour")))
    assert "Bonjour" + said == "Bonjour! I am the offline course model. What would you like to try?"
    assert GREETING not in said


@pytest.mark.parametrize(
    ("prefill", "kind"), [("{", dict), ("[", list), ("Here is the JSON:\n{", dict)]
)
def test_a_json_opener_is_continued_as_json(client, prefill, kind):
    said = text_of(client.messages.create(**prefilled("Describe Paris as JSON.", prefill)))
    opener = prefill[-1]
    assert isinstance(json.loads(opener + said), kind)
    assert not said.startswith(opener)


def test_a_prefill_before_a_tool_call_keeps_the_call(client):
    message = client.messages.create(
        **prefilled("What's the weather in Paris?", "I'll check", tools=[WEATHER])
    )
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.content[0].text == " the weather in Paris."
    assert message.content[1].input == {"city": "Paris"}


def test_a_streamed_continuation_is_the_same(client):
    request = prefilled("Count from 1 to 20.", "1, 2, 3")
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_text()
    assert streamed == text_of(client.messages.create(**request))


@pytest.mark.parametrize(
    ("prefill", "answer", "rest"),
    [
        ("1, 2, 3", "1, 2, 3, 4.", ", 4."),  # the answer begins with the prefill
        ("Hel", "Hello!", "lo!"),
        ("{", "Paris.", '"answer": "Paris."}'),  # a JSON opener
        ("[", '{"city": "Paris"}', '{"city": "Paris"}]'),
        ("1, 2, 3", "To sum up: 1, 2, 3, 4.", ", 4."),  # the prefill further on
        ("Bonjour", "Hello! I am here.", "! I am here."),  # a short opening replaced
        ("Sure.", "I am here.", " I am here."),  # a new sentence
        ("The answer is", "I am here.", ": I am here."),
    ],
)
def test_each_continuation_rule(prefill, answer, rest):
    assert continuation(prefill, answer) == rest


def test_a_prefill_is_continued_over_loopback(served_client):
    message = served_client.messages.create(**prefilled("Count from 1 to 20.", "1, 2, 3"))
    assert "1, 2, 3" + text_of(message) == COUNTED


# --------------------------------------------------------------------------- tools defined


def tool_history(client: anthropic.Anthropic, model: str) -> list[dict]:
    """A weather question, the model's call and its result, as a loop sends them."""
    first = client.messages.create(
        model=model,
        max_tokens=2048,
        tools=[WEATHER],
        messages=[user("What's the weather in Paris?")],
    )
    results = [
        {"type": "tool_result", "tool_use_id": block.id, "content": RESULTS["Paris"]}
        for block in first.content
        if block.type == "tool_use"
    ]
    return [user("What's the weather in Paris?"), assistant(first.content), user(results)]


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "claude-sonnet-5-5", "claude-haiku-4-5"])
@pytest.mark.parametrize("tools", [None, []], ids=["omitted", "empty"])
def test_tool_blocks_without_tools_are_refused(client, model, tools):
    messages = tool_history(client, model)
    extra = {} if tools is None else {"tools": tools}
    refused(
        lambda: client.messages.create(model=model, max_tokens=2048, messages=messages, **extra),
        TOOLS_UNDEFINED,
    )
    refused(
        lambda: client.messages.count_tokens(model=model, messages=messages, **extra),
        TOOLS_UNDEFINED,
    )


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "claude-sonnet-5-5", "claude-haiku-4-5"])
@pytest.mark.parametrize("choice", [None, {"type": "none"}], ids=["auto", "none"])
def test_tool_blocks_with_tools_are_accepted(client, model, choice):
    messages = tool_history(client, model)
    extra = {} if choice is None else {"tool_choice": choice}
    message = client.messages.create(
        model=model, max_tokens=2048, tools=[WEATHER], messages=messages, **extra
    )
    assert message.stop_reason == "end_turn"
    assert RESULTS["Paris"] in text_of(message)
    assert client.messages.count_tokens(model=model, tools=[WEATHER], messages=messages)


def test_a_tool_call_left_as_prefill_needs_tools_too(client):
    call = {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "X"}}
    request = prefilled("What's the weather in Paris?", [call])
    refused(lambda: client.messages.create(**request), TOOLS_UNDEFINED)


def test_tool_blocks_without_tools_over_loopback(served_client):
    messages = tool_history(served_client, "claude-sonnet-4-6")
    request = {"model": "claude-sonnet-4-6", "max_tokens": 2048, "messages": messages}
    refused(lambda: served_client.messages.create(**request), TOOLS_UNDEFINED)
    assert served_client.messages.create(**request, tools=[WEATHER]).stop_reason == "end_turn"


# --------------------------------------------------------------------------- system messages


FRENCH = "Bonjour ! Je suis le modèle de cours hors ligne. Que voulez-vous essayer ?"
IN_FRENCH = {"role": "system", "content": "Answer in French."}
MID_SYSTEM_BETA = ["mid-conversation-system-2026-04-07"]


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-sonnet-5", "claude-opus-4-8"])
@pytest.mark.parametrize(
    "system",
    [IN_FRENCH, {"role": "system", "content": [{"type": "text", "text": "Answer in French."}]}],
    ids=["string", "blocks"],
)
def test_a_system_message_in_messages_is_an_instruction(client, model, system):
    messages = [user("Hello!"), system]
    plain = client.messages.create(model=model, max_tokens=2048, messages=messages)
    beta = client.beta.messages.create(
        model=model, max_tokens=2048, messages=messages, betas=MID_SYSTEM_BETA
    )
    assert text_of(plain) == text_of(beta) == FRENCH


def test_an_earlier_system_message_still_applies(client):
    messages = [IN_FRENCH, user("Hello!")]
    message = client.messages.create(model="claude-sonnet-5-5", max_tokens=2048, messages=messages)
    assert text_of(message) == FRENCH


def test_a_system_message_cleared_at_the_next_user_message_no_longer_applies(client):
    cleared = {**IN_FRENCH, "clear_at": "next_user_message"}
    messages = [user("Hi"), cleared, assistant("Salut."), user("Hello!")]
    message = client.messages.create(model="claude-sonnet-5-5", max_tokens=2048, messages=messages)
    assert text_of(message) == GREETING
    kept = [user("Hi"), {**cleared, "clear_at": "never"}, assistant("Salut."), user("Hello!")]
    message = client.messages.create(model="claude-sonnet-5-5", max_tokens=2048, messages=kept)
    assert text_of(message) == FRENCH


def test_a_model_without_system_messages_still_refuses_them(client):
    refused(
        lambda: client.messages.create(
            model="claude-sonnet-4-6", max_tokens=2048, messages=[user("Hello!"), IN_FRENCH]
        ),
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` '
        'parameter, not "system" as an input message role.',
    )


def test_a_system_message_is_an_instruction_over_loopback(served_client):
    message = served_client.beta.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=2048,
        messages=[user("Hello!"), IN_FRENCH],
        betas=MID_SYSTEM_BETA,
    )
    assert text_of(message) == FRENCH


# --------------------------------------------------------------------------- prefill and thinking


BUDGET = {"type": "enabled", "budget_tokens": 1024}
THOUGHT = {"type": "thinking", "thinking": "Counting on from three.", "signature": "sig"}


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-5"])
def test_manual_thinking_wants_a_prefill_that_opens_with_thinking(client, model):
    request = prefilled("Count from 1 to 20.", "1, 2, 3", model, thinking=BUDGET)
    refused(lambda: client.messages.create(**request), THINKING_FIRST)
    with_thought = prefilled(
        "Count from 1 to 20.",
        [THOUGHT, {"type": "text", "text": "1, 2, 3"}],
        model,
        thinking=BUDGET,
    )
    message = client.messages.create(**with_thought)
    assert [block.type for block in message.content] == ["text"]  # no second thinking block
    assert "1, 2, 3" + text_of(message) == COUNTED


def test_turning_thinking_off_lifts_the_rule(client):
    request = prefilled("Count from 1 to 20.", "1, 2, 3", thinking={"type": "disabled"})
    assert "1, 2, 3" + text_of(client.messages.create(**request)) == COUNTED


@pytest.mark.parametrize("thinking", [None, {"type": "adaptive"}], ids=["default", "adaptive"])
def test_adaptive_thinking_may_skip_thinking_before_a_prefill(client, thinking):
    extra = {} if thinking is None else {"thinking": thinking}
    request = prefilled("Count from 1 to 20.", "1, 2, 3", "claude-mythos-preview", **extra)
    message = client.messages.create(**request)
    assert [block.type for block in message.content] == ["text"]
    assert "1, 2, 3" + text_of(message) == COUNTED
    # A thinking block that is there must still open the turn.
    late = [{"type": "text", "text": "Sure."}, THOUGHT, {"type": "text", "text": "1, 2, 3"}]
    misplaced = prefilled("Count from 1 to 20.", late, "claude-mythos-preview", **extra)
    refused(lambda: client.messages.create(**misplaced), THINKING_FIRST)


def test_manual_thinking_prefill_over_loopback(served_client):
    request = prefilled("Count from 1 to 20.", "1, 2, 3", thinking=BUDGET)
    refused(lambda: served_client.messages.create(**request), THINKING_FIRST)


# --------------------------------------------------------------------------- one call per turn


def weather_loop(client: anthropic.Anthropic, model: str, choice: dict) -> tuple[str, int]:
    """The agent loop on the two-city question: the final text and the number of turns."""
    messages = [user("What's the weather in Paris and Tokyo?")]
    for turns in range(1, 6):
        message = client.messages.create(
            model=model, max_tokens=2048, tools=[WEATHER], tool_choice=choice, messages=messages
        )
        if message.stop_reason != "tool_use":
            return text_of(message), turns
        results = [
            {
                "type": "tool_result",
                "tool_use_id": block.id,
                "content": RESULTS[block.input["city"]],
            }
            for block in message.content
            if block.type == "tool_use"
        ]
        messages += [assistant(message.content), user(results)]
    raise AssertionError("the loop did not end")


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "claude-sonnet-5-5", "claude-haiku-5-5"])
@pytest.mark.parametrize(
    ("parallel", "turns"), [(True, 2), (False, 3)], ids=["parallel", "one-per-turn"]
)
def test_the_final_answer_uses_every_result(client, model, parallel, turns):
    choice = {"type": "auto", "disable_parallel_tool_use": not parallel}
    answer, taken = weather_loop(client, model, choice)
    assert taken == turns
    assert answer == (
        "Here is the weather you asked about:\n"
        f"Paris: {RESULTS['Paris']}\nTokyo: {RESULTS['Tokyo']}"
    )


def ask(client, stream: bool, **request: Any) -> Any:
    if not stream:
        return client.messages.create(**request)
    with client.messages.stream(**request) as events:
        return events.get_final_message()


@pytest.mark.parametrize("stream", [False, True])
def test_stop_sequence_is_named_only_when_it_stopped_the_answer(client, stream):
    question = [user("Count from 1 to 20.")]
    # Cut by max_tokens before the sequence would have been written: no sequence is named.
    cut = dict(model="claude-sonnet-5-5", max_tokens=8, messages=question, stop_sequences=["20."])
    answer = ask(client, stream, **cut)
    assert answer.stop_reason == "max_tokens" and answer.stop_sequence is None
    # With room to reach it, the sequence stops the answer and is named.
    answer = ask(client, stream, **{**cut, "max_tokens": 4000})
    assert answer.stop_reason == "stop_sequence" and answer.stop_sequence == "20."
