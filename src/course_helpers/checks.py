"""Automatic checks for the exercise notebooks (notebooks/exercises/).

Each `check_xxx(learner_code)` runs your code against the offline course model and small
fixtures, and examines the *protocol and behaviour*: the requests your code sent, the history it
built, the results it returned. It never judges the model's wording. On success it prints
`✓ <name>: passed`; on failure it raises `CheckFailed` with one or two lines: what is wrong, and
a hint.

The checks always talk to the offline course model, even when you have an API key: they need
answers that are the same every time, and they must not cost anything. A `Recorder` sits
between the SDK and the course model and keeps every request body and response, so a check can
look at exactly what went over the wire.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2

from course_helpers.client import MODEL
from course_helpers.pairing import check_pairing, content_blocks, read_field


class CheckFailed(AssertionError):
    """Your code does not do what the exercise asks yet. The message says what, and a hint."""


def fail(what: str, hint: str) -> None:
    """Raise CheckFailed with the two lines every failed check shows."""
    raise CheckFailed(f"{what}\nHint: {hint}")


def passed(name: str) -> None:
    print(f"✓ {name}: passed")


# -- plumbing: a client whose every request is recorded -----------------------------------------


@dataclass
class Recorder:
    """Stands between the SDK and the course model; keeps every request body and response."""

    requests: list[dict] = field(default_factory=list)
    responses: list[dict] = field(default_factory=list)  # {"status": int, "body": dict}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        from course_helpers.offline import default_app

        body = json.loads(request.content or b"{}")
        if request.url.path.rstrip("/") == "/v1/messages":
            self.requests.append(body)
        response = default_app().handle(request)
        if request.url.path.rstrip("/") == "/v1/messages" and not body.get("stream"):
            response.read()
            self.responses.append({"status": response.status_code, "body": response.json()})
        return response

    @property
    def messages_sent(self) -> list[list[dict]]:
        """The `messages` of every request, in order."""
        return [r.get("messages", []) for r in self.requests]


def recording_client() -> tuple[anthropic.Anthropic, Recorder]:
    """An SDK client talking to the offline course model, with a Recorder in between."""
    from course_helpers.offline import default_app

    recorder = Recorder()
    # The course model's own client, with the recorder as its transport.
    client = default_app().client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


def run_learner(function: Callable, *args: Any, name: str | None = None, **kwargs: Any) -> Any:
    """Call the learner's function; turn an unexpected exception into a clear CheckFailed."""
    __tracebackhide__ = True
    label = name or getattr(function, "__name__", "your function")
    if not callable(function):
        fail(
            f"{label} is a {type(function).__name__}, not a function.",
            "define it with `def` in the cell above and run that cell.",
        )
    try:
        return function(*args, **kwargs)
    except CheckFailed:
        raise
    except anthropic.APIStatusError as error:
        fail(
            f"the course model refused a request from {label}: {error.status_code} "
            f"{_api_message(error)}",
            "the API names the message and block at fault (messages.N.content.M); look there.",
        )
    except Exception as error:
        fail(
            f"{label} raised {type(error).__name__}: {error}",
            "run it by hand on the example in the cell above and read the traceback.",
        )


def _api_message(error: anthropic.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else {}
    return str(inner.get("message") or error.message)


def _types(message: Any) -> list[str]:
    return [str(read_field(b, "type")) for b in content_blocks(message)]


def _plain(value: Any) -> Any:
    """SDK objects and dicts alike, as plain JSON-able data (for comparisons)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _text(blocks: list[Any]) -> str:
    return "".join(
        str(read_field(b, "text") or "") for b in blocks if read_field(b, "type") == "text"
    )


def _shown(value: Any, width: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _ask_model(client: anthropic.Anthropic, messages: list, **options: Any) -> Any:
    """Send a history to the course model; a refusal (400) becomes CheckFailed."""
    __tracebackhide__ = True
    try:
        return client.messages.create(model=MODEL, max_tokens=1024, messages=messages, **options)
    except anthropic.APIStatusError as error:
        fail(
            f"the API refuses the history your code built: {error.status_code} "
            f"{_api_message(error)}",
            "messages.N.content.M in the message points at the block at fault.",
        )


# -- 01 Make a single call ---------------------------------------------------------------------


def check_ask(ask: Callable) -> None:
    """01 · `ask(client, history, text)`: a second turn works because the history is resent."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    history: list = []
    answer = run_learner(ask, client, history, "My name is Ada.", name="ask")
    if not recorder.requests:
        fail(
            "ask made no call to the model.",
            "call client.messages.create(model=MODEL, max_tokens=..., messages=history).",
        )
    if len(recorder.requests) > 1:
        fail(
            f"ask made {len(recorder.requests)} calls for one question; one is enough.",
            "call client.messages.create once per question.",
        )
    if not history:
        fail(
            "history is still empty after ask(...): neither your question nor the answer was kept.",
            "append {'role': 'user', 'content': text} before the call, the answer after it.",
        )
    if len(history) == 1:
        fail(
            "history holds one message after the first question: the model's answer was not kept.",
            "after the call, append {'role': 'assistant', 'content': response.content}.",
        )
    if len(history) != 2:
        fail(
            f"history holds {len(history)} messages after one question; expected 2 "
            "(your question, the answer).",
            "append exactly one user message and one assistant message per call.",
        )
    _check_chat_turn(history, recorder, "My name is Ada.")
    _check_answer(answer, recorder)

    answer = run_learner(ask, client, history, "What is my name?", name="ask")
    sent = recorder.messages_sent[-1]
    if len(sent) == 1:
        fail(
            "the second call sent only the new question, so the model could not see the first "
            "turn.",
            "send the whole history every time: messages=history.",
        )
    if [m.get("role") for m in sent] != ["user", "assistant", "user"]:
        roles = [m.get("role") for m in sent]
        fail(
            f"the second call sent roles {roles}; expected ['user', 'assistant', 'user'].",
            "append the question to the history, then send the whole list.",
        )
    if len(history) != 4:
        fail(
            f"history holds {len(history)} messages after two questions; expected 4.",
            "each call adds two messages: your question and the assistant's answer.",
        )
    _check_answer(answer, recorder)
    passed("ask keeps and resends the history")


def _check_chat_turn(history: list, recorder: Recorder, question: str) -> None:
    __tracebackhide__ = True
    first, second = history[0], history[1]
    if read_field(first, "role") != "user" or question not in _text(content_blocks(first)):
        fail(
            f"history[0] should be your question as a user message, got {_shown(first)}.",
            "append {'role': 'user', 'content': text} first.",
        )
    if read_field(second, "role") != "assistant":
        fail(
            f"history[1] has role {read_field(second, 'role')!r}; the model's answer is 'assistant'.",
            "append {'role': 'assistant', 'content': response.content}.",
        )
    if isinstance(read_field(second, "content"), str):
        fail(
            "the assistant message holds only the answer's text, not its content blocks.",
            "append response.content as it is: later it holds tool calls as well as text.",
        )
    expected = recorder.responses[-1]["body"].get("content", [])
    if _plain(content_blocks(second)) != expected:
        fail(
            "the assistant message is not the response's whole content.",
            "append {'role': 'assistant', 'content': response.content}, unchanged.",
        )


def _check_answer(answer: Any, recorder: Recorder) -> None:
    __tracebackhide__ = True
    expected = _text(recorder.responses[-1]["body"].get("content", []))
    if not isinstance(answer, str):
        fail(
            f"ask returned {_shown(answer)}, not the answer's text.",
            "return the text of the response's text blocks, joined.",
        )
    if answer.strip() != expected.strip():
        fail(
            f"ask returned {_shown(answer)}, but the answer's text is {_shown(expected)}.",
            "return the text of the latest response, not an older one.",
        )


def check_is_complete(is_complete: Callable) -> None:
    """01 · `is_complete(response)`: only `end_turn` means the model finished its answer."""
    __tracebackhide__ = True
    client, _ = recording_client()
    cases = [
        ("Hello!", {}, True),
        ("Write a long essay about agents.", {"max_tokens": 40}, False),
        ("Count from 1 to 20.", {"stop_sequences": ["10"]}, False),
    ]
    for question, options, expected in cases:
        options = {"max_tokens": 300, **options}
        response = client.messages.create(
            model=MODEL, messages=[{"role": "user", "content": question}], **options
        )
        said = run_learner(is_complete, response, name="is_complete")
        if not isinstance(said, bool):
            fail(
                f"is_complete returned {_shown(said)}, not True or False.",
                "compare response.stop_reason with the one value that means 'finished'.",
            )
        if said != expected:
            verdict = "finished" if said else "unfinished"
            fail(
                f"is_complete called an answer with stop_reason={response.stop_reason!r} "
                f"{verdict}.",
                "read response.stop_reason, not the text: only 'end_turn' means finished.",
            )
    passed("is_complete reads stop_reason")


# -- 02 Describe tools -------------------------------------------------------------------------

CURRENCIES = ("EUR", "USD", "GBP", "JPY")
NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


def check_tool_schema(tool_def: Any) -> None:
    """02 · A tool definition written by hand for `convert_currency(amount, source, target)`."""
    __tracebackhide__ = True
    if not isinstance(tool_def, dict):
        fail(
            f"the tool definition is a {type(tool_def).__name__}, not a dict.",
            "write {'name': ..., 'description': ..., 'input_schema': {...}}.",
        )
    if "input_schema" not in tool_def and ("parameters" in tool_def or "schema" in tool_def):
        wrong = "parameters" if "parameters" in tool_def else "schema"
        fail(
            f"the schema is under {wrong!r}; the Messages API reads it from 'input_schema'.",
            f"rename the key {wrong!r} to 'input_schema'.",
        )
    missing = [k for k in ("name", "description", "input_schema") if not tool_def.get(k)]
    if missing:
        fail(
            f"the definition has no {', '.join(missing)}.",
            "a tool is three keys: name, description, input_schema.",
        )
    name = tool_def["name"]
    if not isinstance(name, str) or not NAME_RULE.match(name):
        fail(
            f"the name {name!r} breaks the API's rule ^[a-zA-Z0-9_-]{{1,128}}$.",
            "letters, digits, '_' and '-' only: no spaces or dots.",
        )
    if name != "convert_currency":
        fail(
            f"the name is {name!r}, but your program runs a function called convert_currency.",
            "use the function's name, so the dispatcher can find it by the name the model sends.",
        )
    words = len(str(tool_def["description"]).split())
    if words < 12:
        fail(
            f"the description has {words} words: too little for the model to use the tool well.",
            "say what it does, what it returns (with an example) and its limits.",
        )
    schema = tool_def["input_schema"]
    if not isinstance(schema, dict) or schema.get("type") != "object":
        fail(
            "input_schema must be a JSON Schema object: {'type': 'object', 'properties': ...}.",
            "the arguments of a tool are always one JSON object.",
        )
    properties = schema.get("properties") or {}
    absent = [p for p in ("amount", "source", "target") if p not in properties]
    if absent:
        fail(
            f"input_schema.properties has no {', '.join(absent)}.",
            "one property per argument of convert_currency(amount, source, target).",
        )
    if properties["amount"].get("type") != "number":
        fail(
            f"amount has type {properties['amount'].get('type')!r}; 12.50 must be accepted.",
            "JSON Schema's type for any number, whole or not, is 'number'.",
        )
    for argument in ("source", "target"):
        spec = properties[argument]
        if sorted(spec.get("enum") or []) != sorted(CURRENCIES):
            fail(
                f"{argument} does not list the currencies the function knows "
                f"({', '.join(CURRENCIES)}).",
                "add 'enum': ['EUR', 'USD', 'GBP', 'JPY'] so the model cannot send 'dollars'.",
            )
    required = schema.get("required") or []
    if sorted(required) != ["amount", "source", "target"]:
        fail(
            f"required is {required!r}; the function needs all three arguments.",
            "add 'required': ['amount', 'source', 'target'].",
        )
    _check_schema_behaviour(schema)
    client, _ = recording_client()
    try:
        client.messages.create(
            model=MODEL,
            max_tokens=200,
            tools=[tool_def],
            messages=[{"role": "user", "content": "Hello!"}],
        )
    except anthropic.APIStatusError as error:
        fail(f"the API refuses this definition: {_api_message(error)}", "read the path it names.")
    passed("the convert_currency schema")


def _check_schema_behaviour(schema: dict) -> None:
    """Valid arguments pass the schema, typical bad ones do not."""
    __tracebackhide__ = True
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        fail(f"input_schema is not valid JSON Schema: {error.message}", "compare with 02, §2.1.")
    validator = jsonschema.Draft202012Validator(schema)
    good = {"amount": 12.5, "source": "EUR", "target": "JPY"}
    if not validator.is_valid(good):
        fail(f"the schema rejects good arguments {good}.", "check each property's type.")
    bad = [
        ({"source": "EUR", "target": "USD"}, "amount is missing"),
        ({"amount": "ten", "source": "EUR", "target": "USD"}, "amount is text"),
        ({"amount": 5, "source": "EUR", "target": "XYZ"}, "XYZ is no currency it knows"),
    ]
    for arguments, why in bad:
        if validator.is_valid(arguments):
            fail(f"the schema accepts {arguments} ({why}).", "tighten types, enum or required.")


def check_currency_tool(convert: Any) -> None:
    """02 · The same tool from a typed function with @tool: schema and validation from one source."""
    __tracebackhide__ = True
    import pydantic

    from course_helpers.tools import Tool

    if not isinstance(convert, Tool):
        fail(
            f"convert_currency is a {type(convert).__name__}, not a Tool.",
            "put @tool (from course_helpers.tools) on the line above `def convert_currency`.",
        )
    definition = convert.definition()
    if len(definition["description"].split()) < 12:
        fail(
            "the docstring (the tool's description) is too short for the model to use it well.",
            "say what it does, what it returns and its limits, as in 02.",
        )
    properties = definition["input_schema"].get("properties", {})
    if sorted(properties) != ["amount", "source", "target"]:
        fail(
            f"the arguments are {sorted(properties)}; expected amount, source and target.",
            "def convert_currency(amount: ..., source: ..., target: ...) -> str",
        )
    for argument in ("source", "target"):
        if sorted(properties[argument].get("enum") or []) != sorted(CURRENCIES):
            fail(
                f"{argument} is not limited to {', '.join(CURRENCIES)} in the schema.",
                "type it as Currency = Literal['EUR', 'USD', 'GBP', 'JPY'].",
            )
    try:
        result = convert.run({"amount": 100, "source": "EUR", "target": "USD"})
    except Exception as error:
        fail(f"convert_currency.run on good arguments raised {error!r}.", "run it by hand.")
    if not re.search(r"\d", str(result)):
        fail(
            f"converting 100 EUR to USD returned {_shown(result)}, with no amount in it.",
            "return the converted amount, e.g. '108.00 USD'.",
        )
    for arguments, why, hint in [
        (
            {"amount": -5, "source": "EUR", "target": "USD"},
            "a negative amount",
            "Annotated[float, pydantic.Field(gt=0)] refuses amounts of 0 or less.",
        ),
        (
            {"amount": 5, "source": "EUR", "target": "XYZ"},
            "an unknown currency",
            "a Literal type refuses anything outside its values.",
        ),
    ]:
        try:
            convert.run(arguments)
        except pydantic.ValidationError:
            continue
        except Exception as error:
            fail(
                f"{why} reached your function, which raised {type(error).__name__}.",
                f"let the signature refuse it before the function runs: {hint}",
            )
        fail(f"convert_currency.run accepted {why}: {arguments}.", hint)
    passed("convert_currency from a typed signature")


def check_forced_call(force_call: Callable) -> None:
    """02 · `force_call(client, question)` makes the model call convert_currency, whatever is asked."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    response = run_learner(force_call, client, "Hello!", name="force_call")
    if not recorder.requests:
        fail("force_call made no request.", "call client.messages.create(...) and return it.")
    request = recorder.requests[-1]
    names = [t.get("name") for t in request.get("tools") or []]
    if "convert_currency" not in names:
        fail(
            f"the request offers tools {names}, not convert_currency.",
            "pass tools=[convert_currency.definition()].",
        )
    choice = request.get("tool_choice")
    if not choice or choice.get("type") == "auto":
        fail(
            "the request does not force a call (tool_choice is 'auto'), so 'Hello!' gets text.",
            "pass tool_choice={'type': 'tool', 'name': 'convert_currency'}.",
        )
    if choice.get("type") != "tool" or choice.get("name") != "convert_currency":
        fail(
            f"tool_choice is {choice}; that does not name convert_currency.",
            "{'type': 'tool', 'name': 'convert_currency'} forces this one tool.",
        )
    if not hasattr(response, "content") or not hasattr(response, "stop_reason"):
        fail(f"force_call returned {_shown(response)}, not the response.", "return the Message.")
    calls = [b for b in response.content if b.type == "tool_use"]
    if response.stop_reason != "tool_use" or not calls:
        fail("the response holds no tool_use block.", "return the response of the forced call.")
    passed("force_call forces convert_currency")


# -- 03 Pair tool results ----------------------------------------------------------------------

WEATHER_TOOL = {
    "name": "get_weather",
    "description": (
        "Get the current weather for one city. Returns the temperature and the sky in one "
        "short line, for example '18°C, light rain'. Only a handful of cities are known; for "
        "any other city it fails with an error."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name in English, e.g. 'Paris'."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
}


def _described(call: Any) -> str:
    arguments = ", ".join(f"{k}={v!r}" for k, v in (read_field(call, "input") or {}).items())
    return f"{read_field(call, 'name')}({arguments})"


def check_tool_turn(add_tool_turn: Callable) -> None:
    """03 · `add_tool_turn(messages, response)`: the assistant turn whole, then one results message.

    The response asks for two calls in parallel, Paris (succeeds) and Atlantis (fails).
    """
    __tracebackhide__ = True
    client, _ = recording_client()
    question = {"role": "user", "content": "What's the weather in Paris and Atlantis?"}
    response = client.messages.create(
        model=MODEL, max_tokens=500, tools=[WEATHER_TOOL], messages=[question]
    )
    calls = [b for b in response.content if b.type == "tool_use"]
    messages = [question]
    returned = run_learner(add_tool_turn, messages, response, name="add_tool_turn")
    if isinstance(returned, list) and len(returned) > len(messages):
        messages = returned  # a version that returns a new list instead of appending is fine
    added = messages[1:]
    _check_added_shape(added, calls)
    assistant, results_message = added
    _check_assistant_turn(assistant, response)
    results = _check_results_message(results_message, calls)
    _check_results_content(results, calls)
    problems = check_pairing(messages)
    if problems:
        fail(f"the history breaks a pairing rule: {problems[0]}", "see 03, §4.")
    _ask_model(client, messages, tools=[WEATHER_TOOL])
    passed("add_tool_turn keeps the pairing rules")


def _check_added_shape(added: list, calls: list) -> None:
    __tracebackhide__ = True
    roles = [read_field(m, "role") for m in added]
    if not added:
        fail(
            "add_tool_turn added nothing to messages.",
            "append the assistant turn, then one user message holding every tool_result.",
        )
    with_results = [m for m in added if "tool_result" in _types(m)]
    if len(with_results) > 1:
        fail(
            f"the results are split over {len(with_results)} user messages; the results of "
            "parallel calls go in ONE message.",
            "collect every tool_result in a list, then append {'role': 'user', 'content': results}"
            " once.",
        )
    if roles == ["assistant"]:
        fail(
            "add_tool_turn appended the assistant turn but no results after it.",
            "run each tool_use block and append one user message with the tool_result blocks.",
        )
    if roles == ["user"]:
        fail(
            "add_tool_turn appended the results without the assistant turn that asked for them.",
            "append {'role': 'assistant', 'content': response.content} first.",
        )
    if roles != ["assistant", "user"]:
        fail(
            f"add_tool_turn appended messages with roles {roles}; expected ['assistant', 'user'].",
            "two messages: the assistant's whole turn, then one user message with the results.",
        )


def _check_assistant_turn(assistant: Any, response: Any) -> None:
    __tracebackhide__ = True
    kept = content_blocks(assistant)
    if not any(read_field(b, "type") == "tool_use" for b in kept):
        fail(
            "the assistant turn has no tool_use blocks: only its text was kept, so the results "
            "answer nothing.",
            "append the whole content as it came: {'role': 'assistant', 'content': "
            "response.content}.",
        )
    if _plain(kept) != _plain(list(response.content)):
        fail(
            f"the assistant turn is not the response's whole content (blocks {_types(assistant)}, "
            f"expected {[b.type for b in response.content]}).",
            "append response.content unchanged: text, tool_use and thinking blocks alike.",
        )


def _check_results_message(message: Any, calls: list) -> list:
    __tracebackhide__ = True
    content = read_field(message, "content")
    if isinstance(content, str) or not content:
        fail(
            "the results message has no tool_result blocks (its content is text).",
            "content must be a list of {'type': 'tool_result', 'tool_use_id': ..., ...} blocks.",
        )
    blocks = list(content)
    if read_field(blocks[0], "type") != "tool_result":
        fail(
            f"the results message starts with a {read_field(blocks[0], 'type')!r} block; "
            "tool_result blocks must come first, any text after them.",
            "put your own text at the end of the content list, or leave it out.",
        )
    results = [b for b in blocks if read_field(b, "type") == "tool_result"]
    ids = {read_field(c, "id"): c for c in calls}
    seen = set()
    for result in results:
        result_id = read_field(result, "tool_use_id")
        if not result_id:
            fail(
                "a tool_result has no tool_use_id, so the API cannot tell which call it answers.",
                "set 'tool_use_id': block.id, the id of the tool_use block you ran.",
            )
        if result_id not in ids:
            fail(
                f"a tool_result has tool_use_id {result_id!r}, which matches no tool_use of the "
                "turn before it.",
                "copy the id from the block you ran ('tool_use_id': block.id); never type it.",
            )
        if result_id in seen:
            fail(
                f"two tool_result blocks answer the same call {_described(ids[result_id])}.",
                "one result per call: run each tool_use block once.",
            )
        seen.add(result_id)
    for call_id, call in ids.items():
        if call_id not in seen:
            fail(
                f"the call {_described(call)} has no tool_result.",
                "every tool_use gets exactly one result, even a failing one (with is_error).",
            )
    return results


def _check_results_content(results: list, calls: list) -> None:
    __tracebackhide__ = True
    by_id = {read_field(r, "tool_use_id"): r for r in results}
    for call in calls:
        result = by_id[read_field(call, "id")]
        city = (read_field(call, "input") or {}).get("city")
        failed_call = city not in ("Paris", "Tokyo", "Oslo")
        is_error = bool(read_field(result, "is_error"))
        if failed_call and not is_error:
            fail(
                f"the result for {_described(call)} reports a failure but is_error is not set, "
                "so it reads like real weather.",
                "when the tool raises, return the error's text with 'is_error': True.",
            )
        if not failed_call and is_error:
            fail(
                f"the result for {_described(call)} is marked is_error, but the tool succeeded.",
                "set is_error only when the tool failed.",
            )
        text = read_field(result, "content")
        text = text if isinstance(text, str) else _text(text or [])
        if not failed_call and "°" not in text:
            fail(
                f"the result for {_described(call)} does not hold what get_weather returned "
                f"({_shown(text)}).",
                "put the tool's return value in the result's 'content'.",
            )


def _history(*messages: dict) -> list[dict]:
    return [copy.deepcopy(m) for m in messages]


def _broken_histories() -> dict[str, list[dict]]:
    """Histories a buggy program produced, each broken in one typical way."""
    question = {"role": "user", "content": "What's the weather in Paris and Tokyo?"}
    turn = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll check the weather in Paris and Tokyo."},
            {
                "type": "tool_use",
                "id": "toolu_01Paris",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "type": "tool_use",
                "id": "toolu_02Tokyo",
                "name": "get_weather",
                "input": {"city": "Tokyo"},
            },
        ],
    }
    paris = {"type": "tool_result", "tool_use_id": "toolu_01Paris", "content": "18°C, light rain"}
    tokyo = {"type": "tool_result", "tool_use_id": "toolu_02Tokyo", "content": "24°C, clear sky"}
    note = {"type": "text", "text": "Answer in one line, please."}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "Paris 18°C, Tokyo 24°C."}]}
    thanks = {"role": "user", "content": "Thanks! And Oslo?"}
    return {
        "results split over two messages": _history(
            question,
            turn,
            {"role": "user", "content": [paris]},
            {"role": "user", "content": [tokyo]},
        ),
        "text before the results": _history(
            question, turn, {"role": "user", "content": [note, paris, tokyo]}
        ),
        "a text message, then the results split": _history(
            question,
            turn,
            {"role": "user", "content": [note]},
            {"role": "user", "content": [paris]},
            {"role": "user", "content": [tokyo]},
            answer,
            thanks,
        ),
        "an already valid history": _history(
            question, turn, {"role": "user", "content": [paris, tokyo, note]}, answer, thanks
        ),
    }


def _block_keys(messages: list) -> list[str]:
    return sorted(
        json.dumps(_plain(b), sort_keys=True) for m in messages for b in content_blocks(m)
    )


def check_fix_history(fix_history: Callable) -> None:
    """03 · `fix_history(history)`: repair split results and text-first results, losing nothing."""
    __tracebackhide__ = True
    client, _ = recording_client()
    for label, broken in _broken_histories().items():
        original = copy.deepcopy(broken)
        fixed = run_learner(fix_history, broken, name="fix_history")
        if not isinstance(fixed, list):
            fail(
                f"fix_history returned {_shown(fixed)} for the history with {label}, not a list.",
                "return the repaired history (a new list of messages).",
            )
        problems = check_pairing(fixed)
        if problems:
            fail(
                f"after fix_history, the history with {label} still breaks a rule: {problems[0]}",
                "merge consecutive user messages into one, tool_result blocks first, text after.",
            )
        roles = [read_field(m, "role") for m in fixed]
        if any(a == b for a, b in zip(roles, roles[1:], strict=False)):
            fail(
                f"after fix_history, the history with {label} has two {roles} messages in a row.",
                "merge consecutive messages of the same role into one.",
            )
        if _block_keys(fixed) != _block_keys(original):
            fail(
                f"fix_history lost or changed blocks of the history with {label}.",
                "move blocks, never drop them: the user's text and every result must survive.",
            )
        _ask_model(client, fixed, tools=[WEATHER_TOOL])
    passed("fix_history repairs broken histories")


# -- 04 Build the loop -------------------------------------------------------------------------


@dataclass
class ReviewerKit:
    """The PR reviewer's tools over a real fixture repository, with a log of every run."""

    tools: dict
    ran: list[tuple[str, dict]]
    folder: Any

    def close(self) -> None:
        self.folder.cleanup()


def reviewer_kit(with_list_files: bool = False) -> ReviewerKit:
    """get_diff and read_file (and list_files) over a fresh copy of the PR fixture repository."""
    import tempfile
    from pathlib import Path

    from course_helpers.fixtures.pr_repo import build_pr_repo
    from course_helpers.tools import tool

    folder = tempfile.TemporaryDirectory()
    repo = build_pr_repo(Path(folder.name) / "invoicing")
    ran: list[tuple[str, dict]] = []

    @tool
    def get_diff(pr: int) -> str:
        """Return the unified diff of pull request number `pr`. Fails if it does not exist."""
        ran.append(("get_diff", {"pr": pr}))
        return repo.get_diff(pr)

    @tool
    def read_file(path: str) -> str:
        """Return the text of one file of the repository, as the pull request leaves it."""
        ran.append(("read_file", {"path": path}))
        return repo.read_file(path)

    @tool
    def list_files() -> list[str]:
        """List every file path in the repository."""
        ran.append(("list_files", {}))
        return repo.list_files()

    chosen = [get_diff, read_file, list_files] if with_list_files else [get_diff, read_file]
    return ReviewerKit({t.name: t for t in chosen}, ran, folder)


def _call(name: str, tool_id: str, **tool_input: Any) -> Any:
    """A tool_use block written by hand, the way the SDK gives it to your code."""
    from types import SimpleNamespace

    return SimpleNamespace(type="tool_use", id=tool_id, name=name, input=tool_input)


def _check_result_block(result: Any, call: Any, label: str, what: str) -> str:
    """A result must be a tool_result block for this call; return its content as text."""
    __tracebackhide__ = True
    if not isinstance(result, dict):
        fail(
            f"{label} returned {_shown(result)} for {what}, not a tool_result block (a dict).",
            "return {'type': 'tool_result', 'tool_use_id': block.id, 'content': ...}.",
        )
    if result.get("type") != "tool_result":
        fail(
            f"the block {label} returned for {what} has type {result.get('type')!r}.",
            "its 'type' must be 'tool_result'.",
        )
    if result.get("tool_use_id") != call.id:
        fail(
            f"the result for {what} has tool_use_id {result.get('tool_use_id')!r}; the call's id "
            f"is {call.id!r}.",
            "copy it from the block: 'tool_use_id': block.id.",
        )
    content = result.get("content")
    if not isinstance(content, str | list) or not content:
        fail(
            f"the result for {what} has content {_shown(content)}; the API takes a non-empty "
            "string or a list of blocks.",
            "turn what the tool returned into text, e.g. str(output).",
        )
    return content if isinstance(content, str) else _text(content)


def check_simple_dispatcher(run_tool: Callable) -> None:
    """04 · `run_tool(tools, block)`: look the tool up, run it, wrap what it returns."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        call = _call("read_file", "toolu_check_1", path="invoicing/checkout.py")
        result = run_learner(run_tool, kit.tools, call, name="run_tool")
        text = _check_result_block(result, call, "run_tool", "read_file")
        if kit.ran != [("read_file", {"path": "invoicing/checkout.py"})]:
            fail(
                f"run_tool ran {kit.ran or 'nothing'} for one read_file call.",
                "look the tool up by block.name and run it once with block.input.",
            )
        if "apply_discount" not in text:
            fail(
                "the result does not hold the file's text that read_file returned.",
                "put the tool's output in 'content'.",
            )
        if result.get("is_error"):
            fail("the result of a call that worked is marked is_error.", "only on a failure.")
        call = _call("get_diff", "toolu_check_2", pr=999)
        try:
            result = run_tool(kit.tools, call)
        except Exception as error:
            fail(
                f"run_tool let the tool's {type(error).__name__} escape for get_diff(pr=999).",
                "catch the exception and return it as a result with 'is_error': True.",
            )
        text = _check_result_block(result, call, "run_tool", "get_diff(pr=999)")
        if result.get("is_error") is not True:
            fail(
                "the result for get_diff(pr=999), which failed, does not have is_error: True.",
                "set 'is_error': True when the tool raises.",
            )
        if "999" not in text:
            fail(
                f"the error result for get_diff(pr=999) does not say what failed: {_shown(text)}.",
                "put the exception's message in the content, e.g. f'Error: {error}'.",
            )
    finally:
        kit.close()
    passed("run_tool looks up, runs and wraps")


def check_loop(agent_loop: Callable) -> None:
    """04 · `agent_loop(client, messages, tools, max_steps)`: five phases, step limit, whole turns."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages = [{"role": "user", "content": "Review PR #482."}]
        final = run_learner(agent_loop, client, messages, kit.tools, 20, name="agent_loop")
        _check_loop_run(messages, recorder, kit)
        last = recorder.responses[-1]["body"]
        if last.get("stop_reason") == "tool_use":
            fail(
                f"agent_loop stopped after {len(recorder.requests)} calls though the model still "
                "asked for tools.",
                "go round until stop_reason is not 'tool_use' (or the step limit).",
            )
        if getattr(final, "stop_reason", None) != last.get("stop_reason"):
            fail(
                f"agent_loop returned {_shown(final)}, not the last response.",
                "return the response that ended the loop.",
            )
        _check_step_limit(agent_loop, kit)
    finally:
        kit.close()
    passed("agent_loop runs the five phases and respects the step limit")


def _check_loop_run(messages: list, recorder: Recorder, kit: ReviewerKit) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail("agent_loop made no call to the model.", "phase 1: client.messages.create(...).")
    first = recorder.requests[0]
    if sorted(t.get("name") for t in first.get("tools") or []) != sorted(kit.tools):
        fail(
            "the request does not offer the tools, so the model cannot ask for them.",
            "send tools=[t.definition() for t in tools.values()].",
        )
    for step, sent in enumerate(recorder.messages_sent, start=1):
        expected = 1 + 2 * (step - 1)
        if len(sent) != expected:
            fail(
                f"call {step} sent {len(sent)} messages; expected {expected} (the history grows "
                "by two per turn: the assistant's turn and the results).",
                "append the assistant's content and one user message of results every turn.",
            )
    if len(recorder.requests) > 1 and not kit.ran:
        fail("the model asked for tools, but none ran.", "phase 3: run every tool_use block.")
    turns = [m for m in messages if read_field(m, "role") == "assistant"]
    answers = [r["body"].get("content", []) for r in recorder.responses]
    if len(turns) != len(answers):
        fail(
            f"messages holds {len(turns)} assistant turns for {len(answers)} responses; the "
            "final answer (or a turn) is missing.",
            "append every response's content, the last one included, before you return.",
        )
    for step, (turn, answer) in enumerate(zip(turns, answers, strict=True), start=1):
        if _plain(content_blocks(turn)) != answer:
            fail(
                f"assistant turn {step} in messages is not the response's whole content.",
                "append {'role': 'assistant', 'content': response.content} unchanged.",
            )
    problems = check_pairing(messages)
    if problems:
        fail(f"the history breaks a pairing rule: {problems[0]}", "see notebook 03.")


def _check_step_limit(agent_loop: Callable, kit: ReviewerKit) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()
    messages = [{"role": "user", "content": "Review PR #482."}]
    try:
        agent_loop(client, messages, kit.tools, 2)
    except Exception as error:
        raised: Exception | None = error
    else:
        raised = None
    calls = len(recorder.requests)
    if calls > 2:
        fail(
            f"with max_steps=2, agent_loop called the model {calls} times.",
            "count the calls: for step in range(max_steps): ...",
        )
    if calls < 2:
        fail(
            f"with max_steps=2, agent_loop stopped after {calls} call(s) though the model still "
            "wanted tools.",
            "go round until the model stops asking for tools or max_steps calls are made.",
        )
    if raised is None:
        fail(
            "agent_loop stopped at the step limit without saying so: the caller cannot tell a "
            "finished review from a cut one.",
            "after the last step, raise StepLimitReached('...') with a clear message.",
        )
    if not isinstance(raised, RuntimeError) or not str(raised):
        fail(
            f"at the step limit agent_loop raised {type(raised).__name__}: {raised}.",
            "raise StepLimitReached (a RuntimeError) with a message that names the limit.",
        )
    problems = check_pairing(messages)
    if problems:
        fail(
            f"at the step limit the history is left broken: {problems[0]}",
            "answer the last calls before you stop, so the run can be resumed.",
        )


# -- 05 Return errors as results ---------------------------------------------------------------


def check_dispatcher(run_tool: Callable) -> None:
    """05 · `run_tool(tools, block)`: unknown tool, invalid arguments, a raising tool → results."""
    __tracebackhide__ = True
    kit = reviewer_kit(with_list_files=True)
    try:
        cases = [
            ("get_diff(pr=482)", _call("get_diff", "toolu_ok", pr=482), False),
            ("an unknown tool get_difff", _call("get_difff", "toolu_unknown", pr=482), True),
            ("get_diff(pr='latest')", _call("get_diff", "toolu_invalid", pr="latest"), True),
            ("get_diff() with no pr", _call("get_diff", "toolu_missing"), True),
            ("get_diff(pr=999), which raises", _call("get_diff", "toolu_raises", pr=999), True),
        ]
        for what, call, should_fail in cases:
            before = len(kit.ran)
            try:
                result = run_tool(kit.tools, call)
            except Exception as error:
                fail(
                    f"run_tool raised {type(error).__name__} for {what}: the exception escapes "
                    "the loop and leaves a tool_use without its result.",
                    "turn every failure into a tool_result with 'is_error': True.",
                )
            text = _check_result_block(result, call, "run_tool", what)
            is_error = result.get("is_error") is True
            if should_fail and not is_error:
                fail(
                    f"the result for {what} does not have is_error: True, so the model takes "
                    "it for a normal answer.",
                    "set 'is_error': True on every failure.",
                )
            if not should_fail and is_error:
                fail(f"the result for {what}, which worked, is marked is_error.", "only failures.")
            if call.id in ("toolu_invalid", "toolu_missing") and kit.ran[before:]:
                fail(
                    f"get_diff ran for {what}: invalid arguments reached the tool.",
                    "validate first: tool.arguments.model_validate(block.input), then run.",
                )
            if what.startswith("an unknown") and not any(n in text for n in kit.tools):
                fail(
                    f"the error for {what} does not tell the model which tools exist: "
                    f"{_shown(text)}.",
                    "list the available tool names in the message, so it can correct itself.",
                )
            if "no pr" in what and "pr" not in text:
                fail(
                    f"the error for {what} does not name the argument at fault: {_shown(text)}.",
                    "say which argument is wrong (pydantic's errors() give its name).",
                )
            if "raises" in what and "999" not in text:
                fail(
                    f"the error for {what} lost the tool's own words: {_shown(text)}.",
                    "put the exception's message in the content.",
                )
    finally:
        kit.close()
    passed("run_tool turns every failure into an is_error result")


def check_declined_call(run_tool: Callable) -> None:
    """05 · `run_tool(tools, block, approve)`: a declined call is answered, not run, not skipped."""
    __tracebackhide__ = True
    from course_helpers.tools import tool

    merged: list[int] = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge pull request `pr` into main."""
        merged.append(pr)
        return f"merged #{pr}"

    asked: list[tuple[str, dict]] = []

    def says(answer: bool) -> Callable:
        def approve(name: str, tool_input: dict) -> bool:
            asked.append((name, dict(tool_input)))
            return answer

        return approve

    tools = {"merge_pr": merge_pr}
    call = _call("merge_pr", "toolu_merge", pr=482)
    result = run_learner(run_tool, tools, call, approve=says(False), name="run_tool")
    text = _check_result_block(result, call, "run_tool", "a declined merge_pr")
    if not asked:
        fail(
            "run_tool never asked approve() before running merge_pr.",
            "call approve(block.name, block.input) after validating, before running.",
        )
    if merged:
        fail(
            "merge_pr ran although approve() said no.",
            "return the declined result instead of running the tool.",
        )
    if result.get("is_error") is not True:
        fail(
            "the result of a declined call does not have is_error: True.",
            "a person saying no is a failure of the call: set 'is_error': True.",
        )
    if len(text.split()) < 4:
        fail(
            f"the message for a declined call is too short to act on: {_shown(text)}.",
            "say it was declined, that it did not run, and what to do next (ask the user).",
        )
    asked.clear()
    result = run_learner(run_tool, tools, call, approve=says(True), name="run_tool")
    _check_result_block(result, call, "run_tool", "an approved merge_pr")
    if merged != [482] or result.get("is_error"):
        fail(
            "an approved merge_pr did not run (or its result is marked is_error).",
            "when approve() says yes, run the tool as usual.",
        )
    asked.clear()
    for what, bad in [
        ("an unknown tool", _call("merge_everything", "toolu_unknown", pr=1)),
        ("invalid arguments", _call("merge_pr", "toolu_invalid", pr="all")),
    ]:
        result = run_learner(run_tool, tools, bad, approve=says(True), name="run_tool")
        _check_result_block(result, bad, "run_tool", what)
        if asked:
            fail(
                f"run_tool asked a person to approve {what}, a call that cannot run anyway.",
                "check in order: the tool exists → the arguments are valid → approval → run.",
            )
        if result.get("is_error") is not True:
            fail(f"the result for {what} does not have is_error: True.", "see exercise 1.")
    passed("a declined call becomes an is_error result")


# -- 06 Handle every stop reason ---------------------------------------------------------------

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
ACTIONS = {
    "end_turn": "finish",
    "stop_sequence": "finish",
    "tool_use": "run_tools",
    "max_tokens": "retry_with_more_tokens",
    "model_context_window_exceeded": "compact_and_retry",
    "pause_turn": "resend",
    "refusal": "give_up",
}


def _reviewer_definitions() -> list[dict]:
    kit = reviewer_kit()
    kit.close()
    return [t.definition() for t in kit.tools.values()]


def stop_reason_samples() -> list[tuple[str, Any]]:
    """One real response from the course model for each stop reason, labelled."""
    from course_helpers.offline import faults

    client, _ = recording_client()
    definitions = _reviewer_definitions()

    def ask(text: str, **options: Any) -> Any:
        request = {"model": MODEL, "max_tokens": 1024, **options}
        return client.messages.create(messages=[{"role": "user", "content": text}], **request)

    samples = [
        ("a finished answer", ask("Hello!")),
        ("a request for tools", ask("Review PR #482.", tools=definitions)),
        ("a cut-off tool_use", ask("Review PR #482.", tools=definitions, max_tokens=17)),
        ("a cut-off essay", ask("Write a long essay about agents.", max_tokens=40)),
        ("a stop sequence", ask("Count from 1 to 20.", stop_sequences=["10"])),
        (
            "a paused web search",
            ask(
                "Search the web: what is the agent loop and what stop reasons exist?",
                tools=[WEB_SEARCH],
            ),
        ),
        ("a refusal", ask("Write ransomware for me.")),
    ]
    with faults.injected("context_window"):
        samples.append(("a full context window", ask("Review PR #482.", tools=definitions)))
    return samples


def check_next_step(next_step: Callable) -> None:
    """06 · `next_step(response)`: the controller's decision for every stop reason."""
    __tracebackhide__ = True
    for label, response in stop_reason_samples():
        expected = ACTIONS[response.stop_reason]
        said = run_learner(next_step, response, name="next_step")
        if said == expected:
            continue
        if response.stop_reason == "max_tokens" and said == "run_tools":
            fail(
                f"next_step says 'run_tools' for {label} (stop_reason='max_tokens'): its input "
                "is half-written JSON, and running it runs the wrong call.",
                "decide on stop_reason first; a tool_use in a cut-off response is never run.",
            )
        if said not in set(ACTIONS.values()):
            fail(
                f"next_step returned {_shown(said)} for {label}; it must return one of "
                f"{sorted(set(ACTIONS.values()))}.",
                "match response.stop_reason: case 'end_turn' | 'stop_sequence': return 'finish' ...",
            )
        fail(
            f"next_step returned {said!r} for {label} (stop_reason={response.stop_reason!r}); "
            f"the loop should {expected!r}.",
            "see the table in notebook 06, §1.",
        )
    passed("next_step decides for every stop reason")


def _check_controller_common(
    messages: list, recorder: Recorder, ending: Any, expected: str, what: str
) -> None:
    __tracebackhide__ = True
    if ending != expected:
        fail(
            f"for {what}, run_controlled returned {_shown(ending)}; expected {expected!r}.",
            "return how the run ended: the last stop_reason, or 'step_limit'.",
        )
    problems = check_pairing(messages)
    if problems:
        fail(f"after {what}, the history breaks a pairing rule: {problems[0]}", "see notebook 03.")


def _made_calls(recorder: Recorder, name: str) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail(f"{name} made no call to the model.", "phase 1: client.messages.create(...).")


def check_cut_tool_use(run_controlled: Callable) -> None:
    """06 · A tool_use cut off by max_tokens is never run; the turn is retried with more room."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages = [{"role": "user", "content": "Review PR #482."}]
        ending = run_learner(
            run_controlled, client, messages, kit.tools, max_tokens=17, name="run_controlled"
        )
        _made_calls(recorder, "run_controlled")
        if ("get_diff", {"pr": 4}) in kit.ran:
            fail(
                "your loop ran get_diff(pr=4): a tool_use cut off by max_tokens (482 was cut to 4).",
                "on stop_reason 'max_tokens', never run the calls: retry the turn instead.",
            )
        cut = [
            i
            for i, r in enumerate(recorder.responses)
            if r["body"].get("stop_reason") == "max_tokens"
        ]
        if not cut:
            fail("the course model never cut your loop off.", "pass max_tokens=max_tokens.")
        limits = [r.get("max_tokens", 0) for r in recorder.requests]
        if len(limits) < 2 or max(limits[1:]) <= 17:
            fail(
                "after a max_tokens cut-off, your loop did not retry with a higher max_tokens.",
                "retry the same request with a larger max_tokens (e.g. four times as many).",
            )
        for index in cut:
            cut_content = recorder.responses[index]["body"].get("content", [])
            if any(
                _plain(content_blocks(m)) == cut_content
                for m in messages
                if m["role"] == "assistant"
            ):
                fail(
                    "a cut-off response was appended to the history.",
                    "throw the cut-off response away and ask again with more room.",
                )
        _check_controller_common(messages, recorder, ending, "end_turn", "a cut-off tool_use")
    finally:
        kit.close()
    passed("a cut-off tool_use is never run")


def check_pause_turn(run_controlled: Callable) -> None:
    """06 · pause_turn: append the paused turn and resend, with no new user message."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    messages = [
        {
            "role": "user",
            "content": "Search the web: what is the agent loop and what stop reasons exist?",
        }
    ]
    ending = run_learner(
        run_controlled, client, messages, {}, server_tools=[WEB_SEARCH], name="run_controlled"
    )
    _made_calls(recorder, "run_controlled")
    if not recorder.requests or not any(
        t.get("name") == "web_search" for t in recorder.requests[0].get("tools") or []
    ):
        fail(
            "the request does not offer the web_search server tool.",
            "send tools = your definitions + list(server_tools).",
        )
    paused = [
        i for i, r in enumerate(recorder.responses) if r["body"].get("stop_reason") == "pause_turn"
    ]
    if paused and paused[-1] + 1 >= len(recorder.requests):
        fail(
            "after stop_reason 'pause_turn', your loop did not call the model again.",
            "a paused turn is not finished: append it and send the history again.",
        )
    for index in paused:
        resent = recorder.requests[index + 1]["messages"]
        last = resent[-1]
        if last.get("role") != "assistant":
            fail(
                "after a pause_turn, your loop added a user message before resending.",
                "append the paused response as an assistant turn and resend as it is.",
            )
        if _plain(content_blocks(last)) != recorder.responses[index]["body"].get("content"):
            fail(
                "the paused turn was not resent whole.",
                "append {'role': 'assistant', 'content': response.content}.",
            )
    _check_controller_common(messages, recorder, ending, "end_turn", "a paused web search")
    passed("a paused turn is resent")


def check_refusal_and_limit(run_controlled: Callable) -> None:
    """06 · refusal ends the run at once (not retried, not appended); max_steps is respected."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    messages = [{"role": "user", "content": "Write ransomware for me."}]
    ending = run_learner(run_controlled, client, messages, {}, name="run_controlled")
    _made_calls(recorder, "run_controlled")
    if len(recorder.requests) > 1:
        fail(
            f"after a refusal your loop called the model {len(recorder.requests)} times; "
            "resending the same request gets the same refusal.",
            "on stop_reason 'refusal', end the run and report it.",
        )
    if len(messages) != 1:
        fail(
            "the refused turn was appended to the history.",
            "leave the history as it was before the refused turn, so a person can rephrase.",
        )
    _check_controller_common(messages, recorder, ending, "refusal", "a refusal")
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        messages = [{"role": "user", "content": "Review PR #482."}]
        ending = run_learner(
            run_controlled, client, messages, kit.tools, max_steps=2, name="run_controlled"
        )
        if len(recorder.requests) != 2:
            fail(
                f"with max_steps=2 your loop called the model {len(recorder.requests)} times.",
                "count every call to the model, retries included, against max_steps.",
            )
        _check_controller_common(messages, recorder, ending, "step_limit", "max_steps=2")
    finally:
        kit.close()
    passed("a refusal ends the run; the step limit holds")


# -- 07 Guard dangerous tools ------------------------------------------------------------------


def _sandbox_fixture(base: Any) -> Any:
    """base/project (the root) with files, a sibling base/project2, a secret and a bad link."""
    from pathlib import Path

    base = Path(base)
    root = base / "project"
    (root / "src").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (base / "project2").mkdir()
    (base / "project2" / "keys.txt").write_text("not yours\n")
    (base / "secret.txt").write_text("TOKEN=hunter2\n")
    (base / "outside").mkdir()
    (base / "outside" / "passwd").write_text("root:x:0:0\n")
    (root / "docs").symlink_to(base / "outside", target_is_directory=True)
    return root


def check_sandbox(resolve: Callable) -> None:
    """07 · `resolve(root, path)`: the real path inside the root, or an exception for an escape."""
    __tracebackhide__ = True
    import os
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as base:
        root = _sandbox_fixture(os.path.realpath(base))
        for path in ("src/app.py", "notes/../src/app.py", "notes/new.txt"):
            try:
                real = resolve(root, path)
            except Exception as error:
                fail(
                    f"resolve(root, {path!r}) refused a path inside the project "
                    f"({type(error).__name__}: {error}).",
                    "refuse only what leads outside the root; new files inside are fine.",
                )
            if not isinstance(real, str | os.PathLike):
                fail(
                    f"resolve(root, {path!r}) returned {_shown(real)}, not a path.",
                    "return the resolved path (a pathlib.Path) inside the root.",
                )
            real = Path(os.path.realpath(real))
            if real != Path(os.path.realpath(root / path)):
                fail(
                    f"resolve(root, {path!r}) returned a path that is not that file.",
                    "return (root / path) with every '..' and link resolved.",
                )
        escapes = [
            ("../secret.txt", "climbs out with '..'", "resolve the whole path, then check it"),
            ("src/../../secret.txt", "climbs out in the middle", "resolve the whole path first"),
            (
                str(Path(base) / "secret.txt"),
                "is an absolute path",
                "root / '/abs/path' is '/abs/path' in Python: refuse absolute paths",
            ),
            (
                "~/.ssh/id_rsa",
                "points into a home folder",
                "refuse paths starting with '~' (tools may expand them)",
            ),
            (
                "docs/passwd",
                "goes through a symbolic link that leads outside",
                "follow links before checking: os.path.realpath or Path.resolve()",
            ),
            (
                "../project2/keys.txt",
                "lands in a sibling folder whose name starts like the root's",
                "compare whole path parts (real.is_relative_to(root)), not str.startswith",
            ),
        ]
        for path, why, hint in escapes:
            try:
                real = resolve(root, path)
            except Exception:
                continue
            inside = real is not None and _inside(Path(os.path.realpath(real)), root)
            if path.startswith("~") and inside:
                continue  # taken as a folder literally named '~' inside the root: safe
            fail(f"resolve(root, {path!r}) returned {_shown(str(real))}: the path {why}.", hint)
    passed("resolve refuses every path that leaves the project")


def _inside(real: Any, root: Any) -> bool:
    import os

    root = os.path.realpath(root)
    return os.path.commonpath([str(real), root]) == root


def check_gate(gate_class: Callable) -> None:
    """07 · `AuditedGate(policy, dangerous)`: asks the policy for dangerous tools only, counts."""
    __tracebackhide__ = True
    from collections import Counter

    from course_helpers.approvals import Decision, Scripted
    from course_helpers.dispatch import run_tool
    from course_helpers.tools import tool

    policy = Scripted([True, False])
    gate = run_learner(gate_class, policy, {"merge_pr"}, name="AuditedGate")
    decisions = []
    for name, tool_input in [
        ("comment_on_pr", {"pr": 482, "text": "Looks good."}),
        ("merge_pr", {"pr": 482}),
        ("merge_pr", {"pr": 483}),
    ]:
        decision = run_learner(gate.decide, name, tool_input, name="decide")
        if not isinstance(decision, Decision):
            fail(
                f"decide({name!r}, ...) returned {_shown(decision)}, not a Decision.",
                "return Decision(allowed, reason, who).",
            )
        decisions.append(decision.allowed)
        if name == "comment_on_pr" and policy.asked:
            fail(
                "the gate asked the policy about comment_on_pr, a harmless tool.",
                "ask the policy only when the tool's name is in `dangerous`.",
            )
    if policy.asked != 2:
        fail(
            f"the policy was asked {policy.asked} times for two merge_pr calls.",
            "ask the policy once per dangerous call, and use its answer.",
        )
    if decisions != [True, True, False]:
        fail(
            f"the gate's answers were {decisions}; the script said yes then no to merge_pr.",
            "harmless tools pass; for dangerous ones, return the policy's Decision.",
        )
    counts = getattr(gate, "counts", None)
    expected = Counter({("comment_on_pr", True): 1, ("merge_pr", True): 1, ("merge_pr", False): 1})
    if Counter(counts or {}) != expected:
        fail(
            f"gate.counts is {dict(counts or {})}; expected {dict(expected)}.",
            "count every decision, harmless ones too: self.counts[(tool_name, allowed)] += 1.",
        )
    merged: list[int] = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge pull request `pr` into main."""
        merged.append(pr)
        return f"merged #{pr}"

    gate = gate_class(Scripted([False]), {"merge_pr"})
    result = run_tool({"merge_pr": merge_pr}, _call("merge_pr", "toolu_gate", pr=482), approve=gate)
    if merged or result.get("is_error") is not True:
        fail(
            "with your gate as `approve`, a refused merge_pr still ran.",
            "decide() must return Decision(False, ...) when the policy says no.",
        )
    passed("the gate guards dangerous tools and counts every decision")


# -- 08 Assemble a coding agent ----------------------------------------------------------------

SECRET = "API_TOKEN=hunter2"


def _shop_with_escapes(base: Any) -> Any:
    """A copy of the shop project in base/shop, a secret in base/outside, two links out to it."""
    from pathlib import Path

    from course_helpers.fixtures.shop_project import copy_shop_project

    base = Path(base)
    root = copy_shop_project(base / "shop")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text(f"{SECRET}\n")
    (root / "docs").symlink_to(base / "outside", target_is_directory=True)
    (root / "notes.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "data").mkdir()
    (root / "data" / "dump.txt").write_text("needle " + "x" * 20_000 + "\n")
    return root


MATCH_LINE = re.compile(r"^\S+:\d+:")


def check_search_code(make_search_code: Callable) -> None:
    """08 · `make_search_code(sandbox)`: a validated, sandboxed, bounded code search tool."""
    __tracebackhide__ = True
    import os
    import tempfile

    from course_helpers.sandbox import Sandbox
    from course_helpers.tools import Tool

    with tempfile.TemporaryDirectory() as base:
        root = _shop_with_escapes(os.path.realpath(base))
        search = run_learner(make_search_code, Sandbox(root), name="make_search_code")
        if not isinstance(search, Tool):
            fail(
                f"make_search_code returned a {type(search).__name__}, not a Tool.",
                "put @tool on the inner `def search_code(...)` and return it.",
            )
        definition = search.definition()
        if definition["name"] != "search_code":
            fail(
                f"the tool is called {definition['name']!r}; the exercise asks for search_code.",
                "name the inner function search_code: @tool takes the name from it.",
            )
        if len(definition["description"].split()) < 12:
            fail(
                "the docstring (the tool's description) is too short for the model to use it well.",
                "say what it searches, the pattern's syntax, the format of a match and the limit.",
            )
        schema = definition["input_schema"]
        properties = schema.get("properties") or {}
        if sorted(properties) != ["path", "pattern"]:
            fail(
                f"the tool's arguments are {sorted(properties)}; expected pattern and path.",
                "def search_code(pattern: ..., path: ... = '.') -> str",
            )
        if schema.get("required") != ["pattern"]:
            fail(
                f"the schema's required list is {schema.get('required')}; only pattern is required.",
                "give path a default of '.' (the whole project); pattern has none.",
            )
        tools = {"search_code": search}
        _check_search_refusals(tools)
        _check_search_finds(tools)
    passed("search_code is validated, sandboxed and bounded")


def _search(tools: dict, what: str, **arguments: Any) -> tuple[dict, str]:
    from course_helpers.dispatch import run_tool

    call = _call("search_code", "toolu_search", **arguments)
    result = run_tool(tools, call)
    return result, _check_result_block(result, call, "run_tool", what)


def _check_search_refusals(tools: dict) -> None:
    __tracebackhide__ = True
    result, text = _search(tools, "an empty pattern", pattern="")
    if not text.startswith("Invalid arguments"):
        fail(
            "an empty pattern reached your function: it matches every line of every file.",
            "refuse it in the signature: Annotated[str, Field(min_length=1)].",
        )
    for path, why in [
        ("..", "climbs out of the project with '..'"),
        ("/", "is an absolute path"),
        ("docs", "is a symbolic link to a folder outside the project"),
    ]:
        result, text = _search(tools, f"path={path!r}", pattern="hunter2", path=path)
        if SECRET in text:
            fail(
                f"search_code(path={path!r}) found the secret outside the project: the path {why}.",
                "resolve the path with sandbox.resolve(path) before you look at any file.",
            )
        if result.get("is_error") is not True:
            fail(
                f"search_code(path={path!r}) was not refused (is_error not set): the path {why}.",
                "let sandbox.resolve(path) raise PathRefused; the dispatcher makes it is_error.",
            )
    result, text = _search(tools, "the whole project", pattern="hunter2")
    if SECRET in text:
        fail(
            "searching '.' found the secret through a symbolic link inside the project that "
            "leads outside.",
            "skip links while walking (os.walk does not follow folder links; check each file "
            "with sandbox.resolve, which refuses a link that leads out).",
        )


def _check_search_finds(tools: dict) -> None:
    __tracebackhide__ = True
    result, text = _search(tools, "def (sub)?total", pattern=r"def (sub)?total")
    if result.get("is_error"):
        fail(f"searching the shop for 'def (sub)?total' failed: {_shown(text)}", "run it by hand.")
    if any(line.startswith(("/", "~")) for line in text.splitlines()):
        fail(
            "the matches show absolute paths; read_file refuses them, and they tell the model "
            "where the project lives on your machine.",
            "show each path relative to the project root: sandbox.relative(real_path).",
        )
    for line_number in (17, 38, 42):
        if not re.search(rf"(?m)^shop/cart\.py:{line_number}:", text):
            fail(
                f"searching for 'def (sub)?total' did not report shop/cart.py line {line_number} "
                f"as 'shop/cart.py:{line_number}: ...': {_shown(text)}",
                "one line per match, 'path:line_number: text', with re.search(pattern, line).",
            )
    result, text = _search(tools, "Cart in tests", pattern="Cart", path="tests")
    found = [line for line in text.splitlines() if MATCH_LINE.match(line)]
    if not found or any(not line.startswith("tests/") for line in found):
        fail(
            f"searching 'Cart' with path='tests' gave matches outside tests/: {_shown(text)}",
            "walk only the folder the path names (or read only the file it names).",
        )
    result, text = _search(tools, "'.' (every line)", pattern=".")
    found = [line for line in text.splitlines() if MATCH_LINE.match(line)]
    if len(found) > 50:
        fail(
            f"searching for '.' returned {len(found)} matching lines; the model pays for every "
            "one on every later turn.",
            "stop at 50 matches and add a line saying how many more there were.",
        )
    notes = [line for line in text.splitlines() if line.strip() and not MATCH_LINE.match(line)]
    if not notes:
        fail(
            "searching for '.' stopped at 50 matches without saying so: the model thinks it "
            "has seen them all.",
            "after the last match, add a line such as '[... 73 more matches not shown]'.",
        )
    result, text = _search(tools, "a 20,000-character line", pattern="needle", path="data")
    if len(text) > 1000:
        fail(
            f"one match in a 20,000-character line gave a result of {len(text):,} characters.",
            "cut each matching line to about 200 characters.",
        )


CODING_TASK = "Find where the cart total is computed and add a test for the empty cart."


@dataclass
class CodingKit:
    """The four coding tools over a fresh shop copy, each run logged."""

    tools: list
    ran: list[tuple[str, dict]]
    folder: Any

    def close(self) -> None:
        self.folder.cleanup()


def coding_kit() -> CodingKit:
    import tempfile
    from pathlib import Path

    from course_helpers.coding_agent import coding_tools
    from course_helpers.fixtures.shop_project import copy_shop_project
    from course_helpers.sandbox import Sandbox
    from course_helpers.tools import Tool

    folder = tempfile.TemporaryDirectory()
    sandbox = Sandbox(copy_shop_project(Path(folder.name) / "shop"))
    ran: list[tuple[str, dict]] = []

    def logged(original: Tool) -> Tool:
        def function(**arguments: Any) -> Any:
            ran.append((original.name, dict(arguments)))
            return original.function(**arguments)

        return Tool(original.name, original.description, function, original.arguments)

    return CodingKit([logged(t) for t in coding_tools(sandbox)], ran, folder)


def check_agent_turn(agent_turn: Callable) -> None:
    """08 · `agent_turn(client, messages, tools, line, ...)`: go on while tool_use, else hand back."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        ending = run_learner(
            agent_turn, client, messages, kit.tools, CODING_TASK, max_steps=2, name="agent_turn"
        )
        if ending == "tool_use" or 0 < len(recorder.requests) < 2:
            fail(
                f"agent_turn handed control back after {len(recorder.requests)} call(s) with "
                f"{_shown(ending)}, though the model was still asking for tools.",
                "stop_reason 'tool_use' means: run the calls, append the results, call again.",
            )
        _check_turn_basics(messages, recorder, kit, ending, "the coding task with max_steps=2")
        if len(recorder.requests) > 2:
            fail(
                f"with max_steps=2, agent_turn called the model {len(recorder.requests)} times.",
                "count the calls of this turn: for step in range(max_steps): ...",
            )
        if ending != "step_limit":
            fail(
                f"at the step limit agent_turn returned {_shown(ending)}; expected 'step_limit'.",
                "after max_steps calls, return 'step_limit' (every call answered).",
            )
        before = len(recorder.requests)
        ending = run_learner(
            agent_turn, client, messages, kit.tools, "Carry on.", name="agent_turn"
        )
        _check_turn_basics(messages, recorder, kit, ending, "'Carry on.' after the step limit")
        sent = recorder.requests[before]["messages"]
        if "Carry on." not in json.dumps(sent[-1]):
            fail(
                "the person's new line is not at the end of the next request.",
                "append the line as a user message (or join it to the last results message).",
            )
        if ending != "end_turn" or not any(name == "run_command" for name, _ in kit.ran):
            fail(
                f"after 'Carry on.' the turn ended with {_shown(ending)} before the agent had "
                "written and run the test.",
                "go round while stop_reason is 'tool_use'; return on anything else.",
            )
        _check_handed_back(agent_turn, "Write ransomware for me.", "refusal", {})
        _check_handed_back(agent_turn, CODING_TASK, "max_tokens", {"max_tokens": 17})
        _check_handed_back(agent_turn, "Hello!", "end_turn", {})
    finally:
        kit.close()
    passed("agent_turn goes on while tool_use and hands back on anything else")


def _check_turn_basics(
    messages: list, recorder: Recorder, kit: CodingKit, ending: Any, what: str
) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail("agent_turn made no call to the model.", "call client.messages.create(...).")
    offered = sorted(t.get("name") for t in recorder.requests[-1].get("tools") or [])
    if offered != sorted(t.name for t in kit.tools):
        fail(
            f"the request offers tools {offered}, not the agent's tools.",
            "send tools=[t.definition() for t in tools].",
        )
    if not isinstance(ending, str):
        fail(
            f"for {what}, agent_turn returned {_shown(ending)}, not how the turn ended.",
            "return the stop_reason that ended the turn, or 'step_limit'.",
        )
    problems = check_pairing(messages)
    if problems:
        fail(
            f"after {what}, the history breaks a pairing rule: {problems[0]}",
            "append the assistant's turn and one user message with every result, each turn.",
        )


def _check_handed_back(agent_turn: Callable, line: str, expected: str, options: dict) -> None:
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        what = f"{line!r}" + (f" with max_tokens={options['max_tokens']}" if options else "")
        ending = run_learner(agent_turn, client, messages, kit.tools, line, **options)
        _check_turn_basics(messages, recorder, kit, ending, what)
        if expected == "max_tokens" and kit.ran:
            fail(
                f"for {what}, your turn ran {kit.ran[0][0]}: a tool_use cut off by max_tokens "
                "has half-written input and must never run.",
                "decide on stop_reason first: only 'tool_use' runs tools.",
            )
        if len(recorder.requests) > 1:
            fail(
                f"for {what} (stop_reason {expected!r}) agent_turn called the model "
                f"{len(recorder.requests)} times; it should hand control back after one.",
                "any stop_reason other than 'tool_use' ends the turn: the person decides what next.",
            )
        if ending != expected:
            fail(
                f"for {what}, agent_turn returned {_shown(ending)}; the model stopped with "
                f"{expected!r}.",
                "return response.stop_reason when it is not 'tool_use'.",
            )
    finally:
        kit.close()


# -- 09 Choose between a workflow and an agent --------------------------------------------------


@dataclass
class _OwnAppRecorder(Recorder):
    """A Recorder in front of its own fresh course model, which may rewrite each answer."""

    app: Any = None
    rewrite: Callable[[dict], dict] | None = None

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        is_messages = request.url.path.rstrip("/") == "/v1/messages"
        if is_messages:
            self.requests.append(body)
        response = self.app.handle(request)
        if not is_messages or body.get("stream"):
            return response
        response.read()
        data = response.json()
        if self.rewrite is not None and response.status_code == 200:
            data = self.rewrite(data)
            response = httpx2.Response(200, json=data, headers={"request-id": "req_rewritten"})
        self.responses.append({"status": response.status_code, "body": data})
        return response


def fresh_recording_client(
    rewrite: Callable[[dict], dict] | None = None,
) -> tuple[anthropic.Anthropic, Recorder]:
    """Like recording_client, but a course model of its own (an empty prompt cache)."""
    from course_helpers.offline.app import CourseModelApp

    app = CourseModelApp()
    recorder = _OwnAppRecorder(app=app, rewrite=rewrite)
    client = app.client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


EXPECTED_CATEGORIES = {
    "P1 where is A1001": "shipping",
    "P2 password": "account",
    "P3 broken teapot": "refund",
    "P4 ship to Norway": "policy",
    "U1 kettle, no order id": "shipping",
    "U2 lost, replaced": "shipping",
    "U3 charged twice": "refund",
    "U4 return mugs": "refund",
}
OTHER_TICKET = "Do you have a job opening for a barista?"


def check_classify(classify: Callable) -> None:
    """09 · `classify(client, ticket)`: the router's step, one forced call, a known category."""
    __tracebackhide__ = True
    from course_helpers.workflows import CASES, CATEGORIES

    client, recorder = recording_client()
    tickets = [(c.name, c.ticket, EXPECTED_CATEGORIES[c.name]) for c in CASES]
    tickets.append(("a job application", OTHER_TICKET, "other"))
    systems = []
    for name, ticket, expected in tickets:
        before = len(recorder.requests)
        category = run_learner(classify, client, ticket, name="classify")
        made = len(recorder.requests) - before
        if made != 1:
            fail(
                f"classify made {made} calls for the ticket {name!r}; a router's step is one call.",
                "call client.messages.create once and return the category.",
            )
        request = recorder.requests[-1]
        _check_triage_request(request, ticket)
        systems.append(json.dumps(request.get("system"), sort_keys=True))
        if category not in CATEGORIES:
            fail(
                f"classify returned {_shown(category)} for {name!r}, which is not one of "
                f"{CATEGORIES}.",
                "return the category from the tool_use block's input, or 'other'.",
            )
        if category != expected:
            fail(
                f"classify returned {category!r} for {name!r}; the model chose {expected!r}.",
                "read block.input['category'] from the tool_use block of the response.",
            )
    if len(set(systems)) != 1:
        fail(
            "the system prompt changed from ticket to ticket; a workflow's step has a fixed "
            "prompt, and only the ticket varies.",
            "keep the instructions in a constant; put the ticket in the user message.",
        )
    _check_classify_fallback(classify)
    passed("classify is one forced call that returns a known category")


def _check_triage_request(request: dict, ticket: str) -> None:
    __tracebackhide__ = True
    names = [t.get("name") for t in request.get("tools") or []]
    choice = request.get("tool_choice") or {}
    if "triage_ticket" not in names or choice.get("name") != "triage_ticket":
        fail(
            "the request does not force the triage_ticket tool, so the model may answer in free "
            "text that your code would have to parse.",
            "pass tools=[TRIAGE_TOOL], tool_choice={'type': 'tool', 'name': 'triage_ticket'}.",
        )
    if names != ["triage_ticket"]:
        fail(
            f"the classification step offers the tools {names}; a router's first step only "
            "sorts, it must not be able to act.",
            "offer TRIAGE_TOOL alone.",
        )
    if ticket not in json.dumps(request.get("messages"), ensure_ascii=False):
        fail("the ticket's text is not in the request.", "send it in the user message.")


def _check_classify_fallback(classify: Callable) -> None:
    __tracebackhide__ = True
    from course_helpers.workflows import CASES

    for label, rewrite in [
        ("a category outside the list ('complaints')", _with_category("complaints")),
        ("no tool_use block at all (only text)", _text_only),
    ]:
        client, _ = fresh_recording_client(rewrite=rewrite)
        try:
            category = classify(client, CASES[0].ticket)
        except Exception as error:
            fail(
                f"when the model answers with {label}, classify raised "
                f"{type(error).__name__}: {error}",
                "a real model can answer outside the schema: map anything unknown to 'other'.",
            )
        if category != "other":
            fail(
                f"when the model answers with {label}, classify returned {_shown(category)}.",
                "anything that is not one of CATEGORIES becomes 'other' (a person looks at it).",
            )


def _with_category(category: str) -> Callable[[dict], dict]:
    def rewrite(data: dict) -> dict:
        for block in data.get("content", []):
            if block.get("type") == "tool_use":
                block["input"]["category"] = category
        return data

    return rewrite


def _text_only(data: dict) -> dict:
    data["content"] = [{"type": "text", "text": "This looks like a shipping question."}]
    data["stop_reason"] = "end_turn"
    return data


WORKFLOW_APPROACHES = ("chain", "router")


def check_choose(choose: Callable) -> None:
    """09 · `choose(results, case)`: 'workflow' when a workflow solved it, else 'agent'."""
    __tracebackhide__ = True
    import dataclasses

    from course_helpers.workflows import CASES, compare

    client, _ = recording_client()
    results = compare(client)
    for case in CASES:
        rows = {r.approach: r for r in results if r.case == case}
        expected = "workflow" if any(rows[a].success for a in WORKFLOW_APPROACHES) else "agent"
        said = run_learner(choose, results, case, name="choose")
        if said not in ("workflow", "agent"):
            fail(
                f"choose returned {_shown(said)} for {case.name!r}; it must return 'workflow' "
                "or 'agent'.",
                "return one of the two strings.",
            )
        if said == expected:
            continue
        router, agent = rows["router"], rows["agent"]
        if said == "agent":
            fail(
                f"choose says 'agent' for {case.name!r}, which the router solved with "
                f"{router.calls} calls and {router.input_tokens:,} input tokens (the agent: "
                f"{agent.calls} calls, {agent.input_tokens:,}).",
                "when a workflow got it right, its graph could be drawn in advance: 'workflow'.",
            )
        fail(
            f"choose says 'workflow' for {case.name!r}, which no workflow solved "
            f"({rows['chain'].why or 'failed'}); the agent did.",
            "the path depended on what the lookups returned: 'agent'.",
        )
    u1 = next(c for c in CASES if c.name.startswith("U1"))
    improved = [
        dataclasses.replace(r, success=True, why="")
        if r.case == u1 and r.approach == "router"
        else r
        for r in results
    ]
    said = run_learner(choose, improved, u1, name="choose")
    if said != "workflow":
        fail(
            f"after the router learnt to look customers up by email it solves {u1.name!r}, but "
            f"choose still says {_shown(said)}.",
            "decide from the measured results (r.success per approach), not from the case's "
            "name or kind.",
        )
    passed("choose follows the measurements")


# -- 10 Count the cost -------------------------------------------------------------------------


def _breakpoints(request: dict) -> int:
    """How many cache_control markers a request carries (everywhere the API counts them)."""
    count = 0

    def visit(value: Any) -> None:
        nonlocal count
        if isinstance(value, dict):
            if value.get("cache_control") is not None:
                count += 1
            for inner in value.values():
                if isinstance(inner, list | dict):
                    visit(inner)
        elif isinstance(value, list):
            for inner in value:
                visit(inner)
        elif hasattr(value, "model_dump"):
            visit(value.model_dump(exclude_none=True))

    visit(request.get("tools"))
    visit(request.get("system"))
    visit(request.get("messages"))
    return count


def _audit_request(messages: list) -> dict:
    from course_helpers.cost import AUDIT_TOOLS, HANDBOOK

    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": HANDBOOK,
        "tools": [t.definition() for t in AUDIT_TOOLS],
        "messages": messages,
    }


def check_cache_breakpoints(add_breakpoints: Callable) -> None:
    """10 · `add_breakpoints(request)`: a marked copy; each call reads the previous prompt."""
    __tracebackhide__ = True
    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS, billed_input, prompt_tokens
    from course_helpers.dispatch import run_tool
    from course_helpers.loop import tool_calls

    client, _ = fresh_recording_client()
    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    usages: list[dict] = []
    for call in range(1, 6):
        request = _audit_request(messages)
        before = json.dumps(_plain(request), sort_keys=True, default=str)
        marked = run_learner(add_breakpoints, request, name="add_breakpoints")
        if json.dumps(_plain(request), sort_keys=True, default=str) != before:
            fail(
                f"on call {call}, add_breakpoints changed the request it was given (and so the "
                "history): markers pile up turn after turn until the API refuses a fifth.",
                "work on copies: new dicts and lists for what you mark, never the originals.",
            )
        if not isinstance(marked, dict) or "messages" not in marked:
            fail(
                f"add_breakpoints returned {_shown(marked)}, not a request.",
                "return the marked copy of the request dict.",
            )
        count = _breakpoints(marked)
        if count > 4:
            fail(
                f"on call {call} the request carries {count} cache_control breakpoints; the API "
                "accepts at most 4.",
                "mark the last tool, the system prompt and the end of the conversation only.",
            )
        try:
            response = client.messages.create(**marked)
        except anthropic.APIStatusError as error:
            fail(
                f"the API refuses the request add_breakpoints made on call {call}: "
                f"{_api_message(error)}",
                "cache_control goes on a content block, a system block or a tool definition.",
            )
        usage = response.usage.model_dump(exclude_none=True)
        usages.append(usage)
        messages.append({"role": "assistant", "content": response.content})
        results = [run_tool(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    _check_cache_usage(usages, prompt_tokens, billed_input)
    plain = {"model": MODEL, "max_tokens": 200, "messages": [{"role": "user", "content": "Hello!"}]}
    marked = run_learner(add_breakpoints, plain, name="add_breakpoints")
    try:
        client.messages.create(**marked)
    except anthropic.APIStatusError as error:
        fail(
            "for a request with no tools and no system prompt, add_breakpoints made one the API "
            f"refuses: {_api_message(error)}",
            "mark tools and system only when the request has them.",
        )
    passed("add_breakpoints caches the moving prefix")


def _check_cache_usage(usages: list[dict], prompt_tokens: Callable, billed_input: Callable) -> None:
    __tracebackhide__ = True
    if not usages[0].get("cache_creation_input_tokens"):
        fail(
            "the first call wrote nothing to the cache (cache_creation_input_tokens is 0).",
            "put cache_control: {'type': 'ephemeral'} on the last tool, the system prompt and "
            "the last block of the last message.",
        )
    for call in range(2, len(usages) + 1):
        usage, previous = usages[call - 1], usages[call - 2]
        read = usage.get("cache_read_input_tokens") or 0
        if not read:
            fail(
                f"call {call} read nothing from the cache (cache_read_input_tokens is 0).",
                "the breakpoints must mark the same prefix the previous call marked.",
            )
        if billed_input(usage) >= prompt_tokens(usage):
            fail(
                f"call {call} costs {billed_input(usage):,.0f} billed-equivalent input tokens for "
                f"a prompt of {prompt_tokens(usage):,}: caching made it dearer, not cheaper.",
                "mark what stays the same from call to call, so that it is read at 0.1.",
            )
        if read < prompt_tokens(previous):
            fail(
                f"call {call} read {read:,} tokens from the cache, but the previous call sent "
                f"{prompt_tokens(previous):,}: only the fixed start (tools, system) is cached, "
                "and the growing history is paid in full every turn.",
                "also mark the last block of the last message: the moving end of the conversation.",
            )


def check_budget_loop(run_on_budget: Callable) -> None:
    """10 · `run_on_budget(...)`: stop before the call that would overspend; history stays valid."""
    __tracebackhide__ = True
    from itertools import accumulate

    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS, HANDBOOK, billed

    # What each call of the whole audit costs, measured once without a budget.
    client, recorder = recording_client()
    _run_audit_plainly(client)
    costs = [billed(r["body"]["usage"]) for r in recorder.responses]
    totals = list(accumulate(costs))
    for limit in (7_500, 27_500, 42_500, 95_000, 300_000):
        client, recorder = recording_client()
        messages = [{"role": "user", "content": AUDIT_TASK}]
        ending = run_learner(
            run_on_budget,
            client,
            messages,
            AUDIT_TOOLS,
            system=HANDBOOK,
            limit=limit,
            name="run_on_budget",
        )
        spent = sum(billed(r["body"]["usage"]) for r in recorder.responses)
        calls = len(recorder.requests)
        fits = sum(1 for total in totals if total <= limit)
        what = f"with limit={limit:,}"
        if spent > limit:
            fail(
                f"{what} the run spent {spent:,.0f} billed-equivalent tokens in {calls} calls: "
                "the last call went over the budget.",
                "decide before each call: the next one costs about the last one plus the "
                "growth between the last two (the history only grows).",
            )
        problems = check_pairing(messages)
        if problems:
            fail(
                f"{what} the run left a broken history: {problems[0]}",
                "stop between turns, after the results of the last call are appended.",
            )
        if fits == len(totals):
            if ending != "end_turn" or calls != len(totals):
                fail(
                    f"{what} the whole audit fits ({totals[-1]:,.0f}), but the run ended with "
                    f"{_shown(ending)} after {calls} calls.",
                    "a budget only stops a run that would overspend; otherwise go on to end_turn.",
                )
            continue
        if ending != "budget_limit":
            fail(
                f"{what} the run ended with {_shown(ending)}, not 'budget_limit'.",
                "return 'budget_limit' when the next call would not fit.",
            )
        if calls < fits - 1:
            fail(
                f"{what} the run stopped after {calls} calls ({spent:,.0f} spent), though "
                f"{fits} calls fit in the budget.",
                "estimate the next call from the last ones, not with a large safety margin.",
            )
    passed("run_on_budget stops before the budget runs out")


def _run_audit_plainly(client: anthropic.Anthropic) -> None:
    """The whole audit with no budget: a plain loop, so that each call's cost can be measured."""
    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS
    from course_helpers.dispatch import run_tool
    from course_helpers.loop import tool_calls

    registry = {t.name: t for t in AUDIT_TOOLS}
    messages: list = [{"role": "user", "content": AUDIT_TASK}]
    for _ in range(40):
        response = client.messages.create(**_audit_request(messages))
        if response.stop_reason != "tool_use":
            return
        messages.append({"role": "assistant", "content": response.content})
        results = [run_tool(registry, block) for block in tool_calls(response)]
        messages.append({"role": "user", "content": results})
