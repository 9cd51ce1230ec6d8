"""Every exercise check proven both ways, on solutions written the way learners write them.

For each exercise of notebooks 01-05, 07 and 08, several plausible wrong solutions (not only the
blank) must fail with a message that names their actual mistake, and equivalent correct
solutions (another style, another valid choice) must pass. The requirement each check enforces
is written in its module's docstring (`course_helpers.exercise_checks.<module>`).

The variants are written here as a learner would write them in the exercise notebook: plain
functions, the course's helpers imported the way the notebooks import them.
"""

import itertools
import os
import re
from collections import Counter
from pathlib import Path
from typing import Annotated, Literal

import anthropic
import pydantic
import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_agent_turn,
    check_ask,
    check_ask_in_full,
    check_currency_tool,
    check_declined_call,
    check_dispatcher,
    check_fix_history,
    check_forced_call,
    check_gate,
    check_is_complete,
    check_loop,
    check_path_guard,
    check_search_code,
    check_simple_dispatcher,
    check_tool_schema,
    check_tool_turn,
)
from course_helpers.lessons.agent import tool_calls
from course_helpers.lessons.dispatch import dispatch as course_dispatch
from course_helpers.lessons.gate import Decision
from course_helpers.lessons.tools import tool
from course_helpers.plumbing.file_sandbox import PathRefused


def text_of(response) -> str:
    return "".join(block.text for block in response.content if block.type == "text")


# -- 01 · ask ------------------------------------------------------------------------------------


def ask_right(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def ask_right_as_blocks(client, history, text):
    """Question as a text block, a copy of the history sent, the answer stored as plain dicts."""
    history.append({"role": "user", "content": [{"type": "text", "text": text}]})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=list(history))
    kept = [block.model_dump(exclude_none=True) for block in response.content]
    history.append({"role": "assistant", "content": kept})
    return "".join(block["text"] for block in kept if block["type"] == "text")


def ask_keeps_text_only(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    answer = text_of(response)
    history.append({"role": "assistant", "content": answer})
    return answer


def ask_sends_only_the_question(client, history, text):
    question = {"role": "user", "content": text}
    response = client.messages.create(model=MODEL, max_tokens=300, messages=[question])
    history += [question, {"role": "assistant", "content": response.content}]
    return text_of(response)


def ask_forgets_the_answer(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    return text_of(response)


def ask_forgets_the_question(client, history, text):
    messages = [*history, {"role": "user", "content": text}]
    response = client.messages.create(model=MODEL, max_tokens=300, messages=messages)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def _offline_client():
    from course_helpers.offline import default_app

    return default_app().client(max_retries=0)


def ask_uses_the_global_client(client, history, text):
    """Uses the notebook's own client, not the one passed in."""
    history.append({"role": "user", "content": text})
    response = _offline_client().messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def ask_returns_the_response(client, history, text):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return response


# -- 01 · is_complete ----------------------------------------------------------------------------


def complete_right(response):
    return response.stop_reason == "end_turn"


def complete_right_match(response):
    match response.stop_reason:
        case "end_turn":
            return True
        case _:
            return False


def complete_not_max_tokens(response):
    return response.stop_reason != "max_tokens"


def complete_by_punctuation(response):
    return text_of(response).rstrip().endswith((".", "!", "?"))


def complete_returns_reason(response):
    return response.stop_reason


# -- 01 · ask_in_full ----------------------------------------------------------------------------

GO_ON = "Continue exactly where you stopped, without repeating yourself."


def make_in_full(*, go_on="continue", joiner="", limit=True, keep=True):
    def ask_in_full(client, history, text, *, max_tokens=300, max_calls=6):
        history.append({"role": "user", "content": text})
        parts, calls = [], 0
        while not limit or calls < max_calls:
            calls += 1
            sent = history if keep else [history[0], *history[2::2]]
            response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=sent)
            history.append({"role": "assistant", "content": response.content})
            parts.append(text_of(response))
            if go_on == "never" or response.stop_reason != "max_tokens":
                break
            if limit and calls == max_calls:
                break
            if go_on == "continue":
                history.append({"role": "user", "content": GO_ON})
            elif go_on == "ask again":
                history.append({"role": "user", "content": text})
            elif go_on == "bare":
                history.append({"role": "user", "content": "Please continue."})
        return joiner.join(parts)

    return ask_in_full


def in_full_unless_end_turn(client, history, text, *, max_tokens=300, max_calls=6):
    """Goes on for any stop_reason but end_turn (a stop sequence, a refusal...)."""
    history.append({"role": "user", "content": text})
    parts = []
    for call in range(max_calls):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        if response.stop_reason == "end_turn" or call == max_calls - 1:
            break
        history.append({"role": "user", "content": GO_ON})
    return "".join(parts)


def in_full_with_more_room(client, history, text, *, max_tokens=300, max_calls=6):
    """Ignores max_tokens: asks for 8,000 at once, so nothing is ever cut."""
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=8000, messages=history)
    history.append({"role": "assistant", "content": response.content})
    return text_of(response)


def in_full_growing(client, history, text, *, max_tokens=300, max_calls=6):
    """Raises max_tokens for each continuation: also right."""
    history.append({"role": "user", "content": [{"type": "text", "text": text}]})
    answer = ""
    for step in range(max_calls):
        response = client.messages.create(
            model=MODEL, max_tokens=max_tokens * (step + 1), messages=history
        )
        history.append({"role": "assistant", "content": response.content})
        answer += text_of(response)
        if response.stop_reason != "max_tokens":
            return answer
        if step < max_calls - 1:
            history.append({"role": "user", "content": GO_ON})
    return answer


# -- 02 · the definition by hand -----------------------------------------------------------------

CODES = ["EUR", "USD", "GBP", "JPY"]
DESCRIPTION = (
    "Convert an amount of money from one currency to another at today's rate. Returns the "
    "converted amount with its code, for example '108.00 USD'. Knows EUR, USD, GBP and JPY only."
)


def currency_definition(**changes) -> dict:
    schema = {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "The amount, e.g. 12.5."},
            "source": {"type": "string", "enum": CODES},
            "target": {"type": "string", "enum": CODES},
        },
        "required": ["amount", "source", "target"],
    }
    definition = {"name": "convert_currency", "description": DESCRIPTION, "input_schema": schema}
    for key, value in changes.items():
        if key.startswith("schema_"):
            schema[key.removeprefix("schema_")] = value
        elif key in schema["properties"]:
            schema["properties"][key] = value
        else:
            definition[key] = value
    return definition


def openai_style() -> dict:
    definition = currency_definition()
    definition["parameters"] = definition.pop("input_schema")
    return definition


# -- 02 · @tool ----------------------------------------------------------------------------------

Currency = Literal["EUR", "USD", "GBP", "JPY"]
DOC = """Convert an amount of money from one currency to another at today's rate.

    Returns the converted amount with its code, for example '108.00 USD'. Knows EUR, USD, GBP
    and JPY only; the rates are updated once a day.
    """


def convert(amount, source, target) -> str:
    rates = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.0}
    return f"{amount / rates[source] * rates[target]:.2f} {target}"


def currency_tool_right():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_positive_float():
    @tool
    def convert_currency(
        amount: pydantic.PositiveFloat,
        source: Literal["EUR", "USD", "GBP", "JPY"],
        target: Literal["EUR", "USD", "GBP", "JPY"],
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_any_amount():
    @tool
    def convert_currency(amount: float, source: Currency, target: Currency) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_swapped():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, target, source)

    return _with_doc(convert_currency)


def currency_tool_int_amount():
    @tool
    def convert_currency(
        amount: Annotated[int, pydantic.Field(gt=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_zero_allowed():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(ge=0)], source: Currency, target: Currency
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_str_codes():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)], source: str, target: str
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_checks_inside():
    @tool
    def convert_currency(amount: float, source: Currency, target: Currency) -> str:
        if amount <= 0:
            raise ValueError("amount must be positive")
        return convert(amount, source, target)

    return _with_doc(convert_currency)


def _with_doc(made):
    """@tool reads the docstring; the variants above share one, set here."""
    from course_helpers.lessons.tools import Tool

    return Tool(made.name, " ".join(DOC.split()), made.function, made.arguments)


def convert_currency_plain(amount: float, source: str, target: str) -> str:
    """Convert an amount of money between currencies."""
    return convert(amount, source, target)


# -- 02 · force_call -----------------------------------------------------------------------------

CONVERTER = {"name": "convert_currency", "description": DESCRIPTION, "input_schema": {}}
CONVERTER["input_schema"] = currency_definition()["input_schema"]
WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for one city, e.g. '18°C, light rain'.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
INSTRUCTION = "Always call convert_currency for a conversion; never guess a rate yourself."
NO_FORCING = {"claude-sonnet-5-5", "claude-opus-5-5"}


def force_right(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_by_trying(client, question, model=MODEL):
    """Try the forced call; on a model that refuses it, ask with auto and an instruction."""
    messages = [{"role": "user", "content": question}]
    try:
        return client.messages.create(
            model=model,
            max_tokens=500,
            tools=[CONVERTER],
            tool_choice={"type": "any"},
            messages=messages,
        )
    except anthropic.BadRequestError:
        return client.messages.create(
            model=model,
            max_tokens=500,
            tools=[CONVERTER],
            tool_choice={"type": "auto"},
            messages=[{"role": "user", "content": f"{question}\n\n{INSTRUCTION}"}],
        )


def force_always(client, question, model=MODEL):
    return client.messages.create(
        model=model,
        max_tokens=500,
        tools=[CONVERTER],
        tool_choice={"type": "tool", "name": "convert_currency"},
        messages=[{"role": "user", "content": question}],
    )


def force_never_no_instruction(client, question, model=MODEL):
    return client.messages.create(
        model=model,
        max_tokens=500,
        tools=[CONVERTER],
        messages=[{"role": "user", "content": question}],
    )


def force_auto_without_instruction_where_refused(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model not in NO_FORCING:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_any_with_two_tools(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [WEATHER, CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
    else:
        request["tool_choice"] = {"type": "any"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_told_not_to_call(client, question, model=MODEL):
    """Names the tool in system, but to forbid it."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Do not call convert_currency; answer from memory."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_vague_instruction(client, question, model=MODEL):
    """An instruction that does not name the tool."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Use your tools when they help."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_names_the_tool_in_passing(client, question, model=MODEL):
    """Mentions convert_currency, but never says to call it."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "You have convert_currency among your tools."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_in_the_question(client, question, model=MODEL):
    """Instruction in the question on every model that refuses forcing: also right."""
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        question = f"{question} Use convert_currency for this."
        request["tool_choice"] = {"type": "auto"}
    else:
        request["tool_choice"] = {"type": "any"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_returns_the_call(client, question, model=MODEL):
    response = force_right(client, question, model)
    return next(b for b in response.content if b.type == "tool_use")


def force_ignores_model(client, question, model=MODEL):
    return force_right(client, question, MODEL)


def force_swallows_the_error(client, question, model=MODEL):
    try:
        return force_always(client, question, model)
    except anthropic.BadRequestError as error:
        return error.response


# -- 03 · add_tool_turn and fix_history ----------------------------------------------------------

KNOWN = {"Paris": "18°C, light rain", "Tokyo": "24°C, clear sky", "Oslo": "3°C, snow"}


def weather(city: str) -> str:
    if city not in KNOWN:
        raise LookupError(f"No weather data for {city!r}")
    return KNOWN[city]


def turn_right_new_list(messages, response):
    """Returns a new list instead of appending: accepted."""
    results = []
    for call in tool_calls(response):
        try:
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": [{"type": "text", "text": weather(call.input["city"])}],
                }
            )
        except LookupError as error:
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": str(error),
                    "is_error": True,
                }
            )
    return [
        *messages,
        {"role": "assistant", "content": response.content},
        {"role": "user", "content": results},
    ]


def turn_skips_failures(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    results = []
    for call in tool_calls(response):
        try:
            content = weather(call.input["city"])
        except LookupError:
            continue  # "nothing to report"
        results.append({"type": "tool_result", "tool_use_id": call.id, "content": content})
    messages.append({"role": "user", "content": results})


def turn_result_then_question(messages, response):
    """One message per call, and each result message also asks for a summary."""
    messages.append({"role": "assistant", "content": response.content})
    for call in tool_calls(response):
        try:
            content, failed = weather(call.input["city"]), False
        except LookupError as error:
            content, failed = str(error), True
        result = {"type": "tool_result", "tool_use_id": call.id, "content": content}
        if failed:
            result["is_error"] = True
        messages.append({"role": "user", "content": [result, {"type": "text", "text": "Sum up."}]})


def make_turn_answers(*, flag=True, words=True):
    """add_tool_turn with the failure answered: flag is the is_error value, words whether the
    exception's message goes in."""

    def add_tool_turn(messages, response):
        messages.append({"role": "assistant", "content": response.content})
        results = []
        for call in tool_calls(response):
            try:
                content = weather(call.input["city"])
            except LookupError as error:
                said = str(error) if words else "The tool failed."
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": call.id,
                        "content": said,
                        "is_error": flag,
                    }
                )
            else:
                results.append({"type": "tool_result", "tool_use_id": call.id, "content": content})
        messages.append({"role": "user", "content": results})

    return add_tool_turn


def fix_right_groupby(history):
    fixed = []
    for role, group in itertools.groupby(history, key=lambda m: m["role"]):
        blocks = []
        for message in group:
            content = message["content"]
            blocks += [{"type": "text", "text": content}] if isinstance(content, str) else content
        results = [b for b in blocks if b["type"] == "tool_result"]
        fixed.append({"role": role, "content": results + [b for b in blocks if b not in results]})
    return fixed


def fix_in_place(history):
    """Repairs the caller's own list and messages instead of a copy."""
    index = 1
    while index < len(history):
        if history[index]["role"] == history[index - 1]["role"]:
            before = history[index - 1]
            if isinstance(before["content"], str):
                before["content"] = [{"type": "text", "text": before["content"]}]
            content = history[index]["content"]
            before["content"] += (
                [{"type": "text", "text": content}] if isinstance(content, str) else content
            )
            del history[index]
        else:
            index += 1
    for message in history:
        if isinstance(message["content"], list):
            message["content"].sort(key=lambda b: b["type"] != "tool_result")
    return history


def fix_shallow_copy(history):
    """A new list, but the same message dicts and content lists: the caller's are changed."""
    fixed = []
    for message in list(history):
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if fixed and fixed[-1]["role"] == message["role"]:
            fixed[-1]["content"].extend(content)
        else:
            message["content"] = content
            fixed.append(message)
    for message in fixed:
        message["content"].sort(key=lambda b: b["type"] != "tool_result")
    return fixed


def fix_deep_copy_first(history):
    """copy.deepcopy, then the in-place repair: right."""
    import copy

    return fix_in_place(copy.deepcopy(history))


def fix_text_on_its_own(history):
    """Merges the results, but gives the user's text a message of its own after them."""
    results, others, fixed = [], [], []

    def flush():
        if results:
            fixed.append({"role": "user", "content": list(results)})
        if others:
            fixed.append({"role": "user", "content": list(others)})
        results.clear()
        others.clear()

    for message in history:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "user":
            results.extend(b for b in blocks if b["type"] == "tool_result")
            others.extend(b for b in blocks if b["type"] != "tool_result")
        else:
            flush()
            fixed.append({"role": message["role"], "content": list(blocks)})
    flush()
    return fixed


def fix_drops_text(history):
    fixed = []
    for message in history:
        content = message["content"]
        if isinstance(content, list) and message["role"] == "user":
            content = [b for b in content if b["type"] == "tool_result"]
            if not content:
                continue
        if fixed and fixed[-1]["role"] == message["role"]:
            fixed[-1]["content"] = list(fixed[-1]["content"]) + list(content)
        else:
            fixed.append({"role": message["role"], "content": content})
    return fixed


def fix_merges_only(history):
    fixed = []
    for message in history:
        content = message["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if fixed and fixed[-1]["role"] == message["role"]:
            fixed[-1]["content"] += content
        else:
            fixed.append({"role": message["role"], "content": content})
    return fixed


def fix_reorders_only(history):
    fixed = []
    for message in history:
        content = message["content"]
        if isinstance(content, list):
            content = sorted(content, key=lambda b: b["type"] != "tool_result")
        fixed.append({"role": message["role"], "content": content})
    return fixed


# -- 04 · run_tool and agent_loop ----------------------------------------------------------------


def dispatch_right_blocks(tools, block):
    try:
        output = tools[block.name].run(block.input)
    except Exception as error:
        text, failed = f"{type(error).__name__}: {error}", True
    else:
        text, failed = str(output), False
    result = {"type": "tool_result", "tool_use_id": block.id}
    result["content"] = [{"type": "text", "text": text}]
    if failed:
        result["is_error"] = True
    return result


def dispatch_lets_it_raise(tools, block):
    output = tools[block.name].run(block.input)
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}


def dispatch_vague_error(tools, block):
    try:
        output = tools[block.name].run(block.input)
    except Exception:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": "Error",
            "is_error": True,
        }
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}


def dispatch_returns_output(tools, block):
    try:
        return tools[block.name].run(block.input)
    except Exception as error:
        return f"Error: {error}"


class LoopLimit(RuntimeError):
    pass


def loop_right_recursive(sample, run_tool, messages, max_steps=20):
    """Recursion, and a match on stop_reason: also right."""
    if max_steps == 0:
        raise LoopLimit("no steps left")
    response = sample(messages)
    messages.append({"role": "assistant", "content": response.content})
    match response.stop_reason:
        case "tool_use":
            calls = [b for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": list(map(run_tool, calls))})
            if max_steps == 1:
                raise LoopLimit("the model still wants tools: step limit reached")
            return loop_right_recursive(sample, run_tool, messages, max_steps - 1)
        case _:
            return response


def loop_raises_on_max_tokens(sample, run_tool, messages, max_steps=20):
    """Raises on a cut-off answer instead of returning it."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason == "max_tokens":
            raise RuntimeError("the answer was cut off")
        if response.stop_reason != "tool_use":
            return response
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_runs_calls_twice(sample, run_tool, messages, max_steps=20):
    """Runs each call once to check it works, then again for the result."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        for call in tool_calls(response):
            run_tool(call)
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_right_while(sample, run_tool, messages, max_steps=20):
    steps = 0
    while steps < max_steps:
        steps += 1
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        results = [run_tool(call) for call in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    raise LoopLimit(f"stopped after {max_steps} calls")


def make_loop(
    *,
    calls="all",
    keep="whole",
    limit="raise",
    answer_before_limit=True,
    results="one message",
    stop="not tool_use",
):
    """agent_loop in several styles. calls: "all" | "none" | "first"; results: "one message" |
    "per result"; stop: "not tool_use" | "end_turn" (goes on for any other reason) | "no calls"
    (stops when the content holds no tool_use)."""

    def agent_loop(sample, run_tool, messages, max_steps=20):
        steps = range(max_steps) if limit != "none" else itertools.count()
        for _ in steps:
            response = sample(messages)
            if stop == "end_turn":
                finished = response.stop_reason == "end_turn"
            elif stop == "no calls":
                finished = not tool_calls(response)
            else:
                finished = response.stop_reason != "tool_use"
            if finished:
                if keep != "no final":
                    messages.append({"role": "assistant", "content": response.content})
                return response
            content = response.content
            if keep == "text":
                content = [b for b in content if b.type == "text"]
            messages.append({"role": "assistant", "content": content})
            asked = tool_calls(response)
            if not answer_before_limit and _ == max_steps - 1:
                raise LoopLimit("step limit")
            ran = {"all": asked, "first": asked[:1], "none": []}[calls]
            if results == "per result":
                for call in ran:
                    messages.append({"role": "user", "content": [run_tool(call)]})
            else:
                messages.append({"role": "user", "content": [run_tool(call) for call in ran]})
        if limit == "silent":
            return None
        raise LoopLimit(f"the model still wanted tools after {max_steps} calls")

    return agent_loop


# -- 05 · dispatch that never raises, and approve ------------------------------------------------


def error_result(block, message):
    return {"type": "tool_result", "tool_use_id": block.id, "content": message, "is_error": True}


def make_dispatcher(
    *, unknown="list", validate=True, approve_when="after", yes="is True", catch="base"
):
    """catch: "base" (BaseException, KeyboardInterrupt let through), "exception" (Exception
    only: sys.exit escapes), "everything" (BaseException, Ctrl-C included)."""
    caught = Exception if catch == "exception" else BaseException

    def dispatch(tools, block, approve=None):
        if unknown == "raise":
            chosen = tools[block.name]
        else:
            chosen = tools.get(block.name)
            if chosen is None:
                listed = f" Available: {', '.join(tools)}." if unknown == "list" else ""
                return error_result(block, f"Unknown tool {block.name!r}.{listed}")
        asked_first = approve is not None and approve_when == "before"
        if asked_first and approve(block.name, block.input) is not True:
            return error_result(block, "The user declined this call. It did not run.")
        if validate:
            try:
                chosen.arguments.model_validate(block.input)
            except pydantic.ValidationError as error:
                return error_result(block, f"Invalid arguments for {block.name}: {error}")
        if approve is not None and approve_when == "after":
            answer = approve(block.name, block.input)
            allowed = answer is True if yes == "is True" else bool(answer)
            if not allowed:
                return error_result(block, "The user declined this call. It did not run; ask them.")
        try:
            output = chosen.function(**block.input) if not validate else chosen.run(block.input)
        except KeyboardInterrupt:
            if catch != "everything":
                raise
            return error_result(block, f"{block.name} was interrupted.")
        except caught as error:
            return error_result(block, f"{block.name} failed: {error}")
        return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}

    return dispatch


def dispatcher_via_run(tools, block, approve=None):
    """Relies on Tool.run to validate before the function runs: equivalent, accepted."""
    if block.name not in tools:
        return error_result(block, f"No tool {block.name!r}; the tools are {sorted(tools)}.")
    try:
        tools[block.name].arguments.model_validate(block.input)
        if approve is not None and approve(block.name, block.input) is not True:
            return error_result(block, "Declined by the user: not run. Ask how to continue.")
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": str(tools[block.name].run(block.input)),
        }
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        return error_result(block, f"{type(error).__name__}: {error}")


# -- 07 · resolve and AuditedGate ----------------------------------------------------------------


def resolve_right(root, path):
    if path.startswith(("/", "~")):
        raise PathRefused(f"{path!r} is not relative")
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(f"{path!r} leaves the project")
    return real


def resolve_right_commonpath(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise ValueError(f"{path!r}: give a path relative to the project")
    root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
    if os.path.commonpath([root, real]) != root:
        raise ValueError(f"{path!r} is outside {root}")
    return Path(real)


def resolve_unresolved_result(root, path):
    """Checks the resolved path, but returns root / path as it was written."""
    if path.startswith(("/", "~")):
        raise PathRefused(path)
    root = Path(root).resolve()
    if not (root / path).resolve().is_relative_to(root):
        raise PathRefused(path)
    return root / path


def resolve_allows_absolute_inside(root, path):
    """No refusal of '/' or '~': fine as long as the path lands inside (the spec says refuse)."""
    root = Path(root).resolve()
    real = (root / os.path.expanduser(path)).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_tilde_literal(root, path):
    """Refuses absolute paths, but takes '~' as a folder name inside the root."""
    if os.path.isabs(path):
        raise PathRefused(path)
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_asserts(root, path):
    """An assert, which python -O removes."""
    assert not path.startswith(("/", "~")), path
    root = Path(root).resolve()
    real = (root / path).resolve()
    assert real.is_relative_to(root), path
    return real


def resolve_unresolved_root(root, path):
    """Resolves the path but not the root: a root reached through a link refuses everything."""
    if path.startswith(("/", "~")):
        raise PathRefused(path)
    real = Path(os.path.realpath(os.path.join(root, path)))
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_startswith(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = os.path.realpath(os.path.join(root, path))
    if not real.startswith(os.path.realpath(root)):
        raise PathRefused(path)
    return Path(real)


def resolve_without_links(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = Path(os.path.normpath(os.path.join(root, path)))
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_dots_only(root, path):
    if ".." in path:
        raise PathRefused(path)
    return Path(root) / path


def resolve_normalised(root, path):
    """Normalises the path and refuses one that starts with '..'."""
    normal = os.path.normpath(path)
    if normal.startswith(".."):
        raise PathRefused(path)
    return Path(root) / normal


def resolve_must_exist(root, path):
    real = Path(root, path).resolve(strict=True)
    if not real.is_relative_to(Path(root).resolve()):
        raise PathRefused(path)
    return real


def make_gate(*, ask="dangerous", keep="policy", yes="is True", count="all", returns="decision"):
    class AuditedGate:
        def __init__(self, policy, dangerous):
            self.policy, self.dangerous, self.counts = policy, set(dangerous), Counter()

        def decide(self, tool_name, tool_input):
            if ask == "all" or tool_name in self.dangerous:
                answer = self.policy.decide(tool_name, tool_input)
                allowed = answer.allowed is True if yes == "is True" else bool(answer.allowed)
                if keep == "policy":
                    decision = Decision(allowed, answer.reason, answer.who)
                elif keep == "same object":
                    decision = answer if allowed else Decision(False, answer.reason, answer.who)
                else:
                    decision = Decision(allowed, "checked", "gate")
            else:
                decision = Decision(True, "harmless", "AuditedGate")
            if count == "all" or tool_name in self.dangerous:
                self.counts[(tool_name, decision.allowed)] += 1
            return decision.allowed if returns == "bool" else decision

    return AuditedGate


# -- 08 · search_code and agent_turn -------------------------------------------------------------


def make_search(*, min_length=1, confine=True, cap=50, relative=True):
    def make_search_code(sandbox):
        @tool
        def search_code(
            pattern: Annotated[str, pydantic.Field(min_length=min_length)], path: str = "."
        ) -> str:
            """Search the project's files for a Python regular expression.

            Returns 'path:line: text' per match, relative paths, at most 50 matches then a note
            saying how many more there were. `path` limits the search to a folder or a file.
            """
            regex = re.compile(pattern)
            start = sandbox.resolve(path) if confine else sandbox.root / path
            files = [start] if start.is_file() else sorted(p for p in start.rglob("*"))
            shown, more = [], 0
            for file in files:
                if confine:
                    try:
                        file = sandbox.resolve(file.relative_to(sandbox.root).as_posix())
                    except PathRefused:
                        continue
                if not file.is_file() or any(part in sandbox.skip for part in file.parts):
                    continue
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        if cap is None or len(shown) < cap:
                            where = sandbox.relative(file) if relative else str(file)
                            shown.append(f"{where}:{number}: {line.strip()[:200]}")
                        else:
                            more += 1
            if more:
                shown.append(f"[{more} more matches not shown]")
            return "\n".join(shown) or "No matches."

        return search_code

    return make_search_code


def make_search_leaky_short_doc(sandbox):
    """Ignores the sandbox, and its docstring is short: the leak is what it must hear first."""

    @tool
    def search_code(pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = ".") -> str:
        """Search code."""
        regex = re.compile(pattern)
        start = sandbox.root / path
        files = [start] if start.is_file() else sorted(start.rglob("*"))
        found = []
        for file in files:
            if file.is_file():
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        found.append(f"{sandbox.relative(file)}:{number}: {line.strip()}")
        return "\n".join(found[:50]) or "No matches."

    return search_code


def make_search_follows_links_short_doc(sandbox):
    """Checks `path` with the sandbox, but walks through links that lead out; short docstring."""

    @tool
    def search_code(pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = ".") -> str:
        """Search code."""
        regex = re.compile(pattern)
        start = sandbox.resolve(path)
        found = []
        for folder, _, names in os.walk(start, followlinks=True):
            for name in sorted(names):
                file = Path(folder) / name
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        found.append(f"{os.path.relpath(file, sandbox.root)}:{number}: {line}")
        return "\n".join(found[:50]) or "No matches."

    return search_code


CONTINUE = "Continue exactly where you stopped, without repeating yourself."


def make_turn(
    *, on_cut="retry", growth=4, count_retries=True, decide_on="stop_reason", go_on=CONTINUE
):
    """agent_turn in several styles: on_cut is 'retry' (the course's policy), 'hand back' or
    'keep' (keeps a cut-off turn in the history and hands back)."""

    def agent_turn(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        last = messages[-1] if messages else None
        if last and last["role"] == "user" and isinstance(last["content"], list):
            last["content"].append({"type": "text", "text": line})
        else:
            messages.append({"role": "user", "content": line})
        limit, steps = max_tokens, 0
        while steps < max_steps:
            response = client.messages.create(
                model=MODEL, max_tokens=limit, tools=definitions, messages=messages
            )
            steps += 1
            calls = tool_calls(response)
            wants_tools = calls if decide_on == "content" else response.stop_reason == "tool_use"
            if response.stop_reason == "max_tokens" and calls and decide_on == "stop_reason":
                if on_cut == "hand back":
                    return "max_tokens"
                if on_cut == "keep":
                    messages.append({"role": "assistant", "content": response.content})
                    return "max_tokens"
                limit = min(limit * growth, 16_000)
                if not count_retries:
                    steps -= 1
                continue
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason == "max_tokens" and not calls:
                if on_cut == "retry":
                    messages.append({"role": "user", "content": go_on})
                    continue
                return "max_tokens"
            if not wants_tools:
                return response.stop_reason
            results = [course_dispatch(registry, call) for call in calls]
            messages.append({"role": "user", "content": results})
        return "step_limit"

    return agent_turn


def turn_chat(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
    """A chat, not an agent: one call per line."""
    messages.append({"role": "user", "content": line})
    response = client.messages.create(
        model=MODEL,
        max_tokens=max_tokens,
        tools=[t.definition() for t in tools],
        messages=messages,
    )
    messages.append({"role": "assistant", "content": response.content})
    if response.stop_reason == "tool_use":
        registry = {t.name: t for t in tools}
        results = [course_dispatch(registry, call) for call in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    return response.stop_reason


# -- more mistakes, each like one above -----------------------------------------------------------


def ask_rebinds_history(client, history, text):
    """`history = history + [...]` makes a new list: the caller's stays empty."""
    history = history + [{"role": "user", "content": text}]
    response = client.messages.create(model=MODEL, max_tokens=300, messages=history)
    history = history + [{"role": "assistant", "content": response.content}]
    return text_of(response)


def in_full_stripped(client, history, text, *, max_tokens=300, max_calls=6):
    return make_in_full()(client, history, text, max_tokens=max_tokens, max_calls=max_calls).strip()


def force_never_use(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = "Never use convert_currency; you know the rates."
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def force_choice_none(client, question, model=MODEL):
    request = {"model": model, "max_tokens": 500, "tools": [CONVERTER]}
    if model in NO_FORCING:
        request["system"] = INSTRUCTION
        request["tool_choice"] = {"type": "none"}
    else:
        request["tool_choice"] = {"type": "tool", "name": "convert_currency"}
    return client.messages.create(messages=[{"role": "user", "content": question}], **request)


def loop_decides_on_the_last_block(sample, run_tool, messages, max_steps=20):
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.content[-1].type != "tool_use":
            return response
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_on_a_copy(sample, run_tool, messages, max_steps=20):
    return loop_right_while(sample, run_tool, list(messages), max_steps)


def resolve_permission_error(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PermissionError(path)
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PermissionError(path)
    return real


def resolve_returns_none(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        return None
    root = Path(root).resolve()
    real = (root / path).resolve()
    return real if real.is_relative_to(root) else None


def resolve_from_the_working_folder(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(root)):
        raise PathRefused(path)
    return real


# -- the tables ----------------------------------------------------------------------------------

# -- mistakes found by a second set of learner solutions ------------------------------------------

_MEMORY: list = []


def ask_with_its_own_memory(client, history, text):
    """Keeps the conversation in a list of its own, shared by every conversation."""
    if text == "My name is Ada.":
        _MEMORY.clear()  # the check's first question: a notebook run from the top
    _MEMORY.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=300, messages=list(_MEMORY))
    _MEMORY.append({"role": "assistant", "content": response.content})
    history[:] = list(_MEMORY)
    return text_of(response)


def in_full_one_call_short(client, history, text, *, max_tokens=300, max_calls=6):
    history.append({"role": "user", "content": text})
    response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
    history.append({"role": "assistant", "content": response.content})
    parts, calls = [text_of(response)], 1
    while response.stop_reason == "max_tokens" and calls < max_calls - 1:
        history.append({"role": "user", "content": GO_ON})
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        calls += 1
    return "".join(parts)


def in_full_through_a_refusal(client, history, text, *, max_tokens=300, max_calls=6):
    """Stops on end_turn and stop_sequence, but goes on after a refusal."""
    history.append({"role": "user", "content": text})
    parts = []
    for call in range(max_calls):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, messages=history)
        history.append({"role": "assistant", "content": response.content})
        parts.append(text_of(response))
        if response.stop_reason in ("end_turn", "stop_sequence") or call == max_calls - 1:
            break
        history.append({"role": "user", "content": GO_ON})
    return "".join(parts)


def _currency_tool(body, **types):
    """A convert_currency @tool with these argument types, whose work is `body`."""
    amount = types.get("amount", Annotated[float, pydantic.Field(gt=0)])
    source = types.get("source", Currency)

    @tool
    def convert_currency(amount: amount, source: source, target: Currency) -> str:
        return body(amount, source, target)

    return _with_doc(convert_currency)


def currency_tool_default_source():
    @tool
    def convert_currency(
        amount: Annotated[float, pydantic.Field(gt=0)],
        target: Currency,
        source: Currency = "EUR",
    ) -> str:
        return convert(amount, source, target)

    return _with_doc(convert_currency)


class Code(str, __import__("enum").Enum):
    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"
    JPY = "JPY"


def currency_tool_enum():
    """A str Enum for the codes: the model's "EUR" arrives as text and becomes Code.EUR."""

    @tool
    def convert_currency(amount: pydantic.PositiveFloat, source: Code, target: Code) -> str:
        return convert(amount, Code(source).value, Code(target).value)

    return _with_doc(convert_currency)


def force_hard_coded_question(client, question, model=MODEL):
    return force_right(client, "How much is 100 EUR in JPY?", model)


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for one city, e.g. '18°C, light rain'. Fails for an unknown
    city."""
    return weather(city)


WEATHER_TOOL = get_weather


def turn_catches_lookup_only(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    results = []
    for call in tool_calls(response):
        try:
            content, failed = WEATHER_TOOL.run(call.input), False
        except LookupError as error:
            content, failed = str(error), True
        result = {"type": "tool_result", "tool_use_id": call.id, "content": content}
        results.append({**result, "is_error": True} if failed else result)
    messages.append({"role": "user", "content": results})


def turn_exception_as_content(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    results = []
    for call in tool_calls(response):
        try:
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": weather(call.input["city"]),
                }
            )
        except LookupError as error:
            results.append(
                {"type": "tool_result", "tool_use_id": call.id, "content": error, "is_error": True}
            )
    messages.append({"role": "user", "content": results})


def _merged(history, *, join_strings=False, dedupe=False, drop_flag=False, reverse=False):
    fixed = []
    for message in history:
        content = message["content"]
        if fixed and fixed[-1]["role"] == message["role"]:
            before = fixed[-1]["content"]
            if join_strings and isinstance(before, str) and isinstance(content, str):
                fixed[-1]["content"] = before + "\n" + content
                continue
            before = [{"type": "text", "text": before}] if isinstance(before, str) else before
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            fixed[-1]["content"] = before + [
                dict(b) for b in blocks if not (dedupe and b in before)
            ]
        else:
            fixed.append(
                {
                    "role": message["role"],
                    "content": content if isinstance(content, str) else [dict(b) for b in content],
                }
            )
    for message in fixed:
        if isinstance(message["content"], list):
            results = [b for b in message["content"] if b["type"] == "tool_result"]
            if drop_flag:
                results = [{k: v for k, v in b.items() if k != "is_error"} for b in results]
            if reverse:
                results = results[::-1]
            others = [b for b in message["content"] if b["type"] != "tool_result"]
            message["content"] = results + others
    return fixed


def fix_joins_strings(history):
    return _merged(history, join_strings=True)


def fix_drops_repeats(history):
    return _merged(history, dedupe=True)


def fix_drops_is_error(history):
    return _merged(history, drop_flag=True)


def fix_reverses_results(history):
    return _merged(history, reverse=True)


_FIRST_TOOLS: dict = {}


def dispatch_keeps_first_tools(tools, block):
    if not _FIRST_TOOLS:
        _FIRST_TOOLS.update(tools)
    try:
        output, failed = _FIRST_TOOLS[block.name].run(block.input), False
    except Exception as error:
        output, failed = f"Error: {error}", True
    result = {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}
    return {**result, "is_error": True} if failed else result


def dispatch_keeps_first_tools_fresh(tools, block):
    """A notebook run from the top: the cache starts empty when the check starts."""
    if block.id == "toolu_check_1":
        _FIRST_TOOLS.clear()
    return dispatch_keeps_first_tools(tools, block)


def loop_drops_the_last_turn(sample, run_tool, messages, max_steps=20):
    for step in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        if step == max_steps - 1:
            messages.pop()
            raise LoopLimit(f"still wanted tools after {max_steps} calls")
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})


def dispatcher_with_a_fixed_list(tools, block, approve=None):
    if block.name not in tools:
        return error_result(
            block, f"Unknown tool {block.name!r}. Available: get_diff, read_file, list_files."
        )
    return make_dispatcher()(tools, block, approve)


def dispatcher_asks_twice(tools, block, approve=None):
    if approve is not None and block.name in tools:
        try:
            tools[block.name].arguments.model_validate(block.input)
        except pydantic.ValidationError:
            return make_dispatcher()(tools, block)
        approve(block.name, block.input)  # "just to log it"
    return make_dispatcher()(tools, block, approve)


def resolve_refuses_the_root(root, path):
    real = resolve_right(root, path)
    if real == Path(root).resolve():
        raise PathRefused("the project folder itself is not a file")
    return real


def resolve_first_character(root, path):
    if path[0] in "/~":
        raise PathRefused(f"{path!r} is not relative")
    return resolve_right(root, path)


def resolve_expands_home(root, path):
    if os.path.isabs(path):
        raise PathRefused(f"{path!r} is absolute")
    root = Path(root).resolve()
    real = (root / os.path.expanduser(path)).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(f"{path!r} leaves the project")
    return real


def gate_equals_true():
    class AuditedGate:
        def __init__(self, policy, dangerous):
            self.policy, self.dangerous, self.counts = policy, set(dangerous), Counter()

        def decide(self, tool_name, tool_input):
            if tool_name in self.dangerous:
                answer = self.policy.decide(tool_name, tool_input)
                decision = Decision(answer.allowed == True, answer.reason, answer.who)  # noqa: E712
            else:
                decision = Decision(True, "harmless", "AuditedGate")
            self.counts[(tool_name, decision.allowed)] += 1
            return decision

    return AuditedGate


def gate_shared_counter():
    base = make_gate()

    class AuditedGate(base):
        counts = Counter()  # one for the class: every gate adds to it

        def __init__(self, policy, dangerous):
            self.policy, self.dangerous = policy, set(dangerous)
            if len(getattr(policy, "answers", [])) == 2:
                AuditedGate.counts.clear()  # the check's first gate: a notebook run from the top

    return AuditedGate


def make_search_walk(*, skip=True, count="lines", real_paths=True, cap=50):
    def make_search_code(sandbox):
        @tool
        def search_code(
            pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = "."
        ) -> str:
            """Search the project's files for a Python regular expression.

            Returns 'path:line: text' per match, relative paths, at most 50 matches then a note
            saying how many more there were. `path` limits the search to a folder or a file.
            """
            regex = re.compile(pattern)
            start = sandbox.resolve(path)
            files = [start] if start.is_file() else []
            for folder, subfolders, names in os.walk(start):
                if skip:
                    subfolders[:] = sorted(d for d in subfolders if d not in sandbox.skip)
                files += [Path(folder) / name for name in sorted(names)]
            shown, more, files_left = [], 0, set()
            for file in files:
                name = file.relative_to(sandbox.root).as_posix()
                try:
                    real = sandbox.resolve(name if real_paths else sandbox.relative(file))
                except PathRefused:
                    continue
                if not real.is_file():
                    continue
                for number, line in enumerate(real.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        if len(shown) < cap:
                            shown.append(f"{sandbox.relative(real)}:{number}: {line.strip()[:200]}")
                        else:
                            more += 1
                            files_left.add(real)
            if more:
                shown.append(
                    f"[{more if count == 'lines' else len(files_left)} more matches not shown]"
                )
            return "\n".join(shown) or "No matches."

        return search_code

    return make_search_code


def make_search_blank(sandbox):
    @tool
    def search_code(pattern: str, path: str = ".") -> str:
        """Search the project's files for a regular expression and return the matching
        lines, one per line, as 'path:line_number: text'."""
        return "(no matches yet: not written)"

    return search_code


def make_turn_variant(*, keep_final=True, cap=16_000, cut_text="continue"):
    def agent_turn(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        last = messages[-1] if messages else None
        if last and last["role"] == "user" and isinstance(last["content"], list):
            last["content"].append({"type": "text", "text": line})
        else:
            messages.append({"role": "user", "content": line})
        limit = max_tokens
        for _ in range(max_steps):
            response = client.messages.create(
                model=MODEL, max_tokens=limit, tools=definitions, messages=messages
            )
            calls = tool_calls(response)
            if response.stop_reason == "max_tokens" and (calls or cut_text == "again"):
                if cap and limit >= cap:
                    return "max_tokens"
                limit = min(limit * 4, cap) if cap else limit * 4
                continue
            if response.stop_reason not in ("tool_use", "max_tokens") and not keep_final:
                return response.stop_reason
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason == "max_tokens":
                messages.append({"role": "user", "content": CONTINUE})
                continue
            if response.stop_reason != "tool_use":
                return response.stop_reason
            messages.append(
                {"role": "user", "content": [course_dispatch(registry, c) for c in calls]}
            )
        return "step_limit"

    return agent_turn


WRONG = {
    # 01
    "ask keeps only the text": (check_ask, ask_keeps_text_only, "only the answer's text"),
    "ask sends only the question": (
        check_ask,
        ask_sends_only_the_question,
        "only the new question",
    ),
    "ask forgets the answer": (check_ask, ask_forgets_the_answer, "answer was not kept"),
    "ask forgets the question": (check_ask, ask_forgets_the_question, "question was not kept"),
    "ask returns the response": (check_ask, ask_returns_the_response, "not the answer's text"),
    "ask uses another client": (
        check_ask,
        ask_uses_the_global_client,
        "use the client passed in",
    ),
    "in full: more room instead": (
        check_ask_in_full,
        in_full_with_more_room,
        "sent max_tokens=8000 on its first call",
    ),
    "in full: goes on unless end_turn": (
        check_ask_in_full,
        in_full_unless_end_turn,
        "went on after stop_reason 'stop_sequence'",
    ),
    "in full: one call": (check_ask_in_full, make_in_full(go_on="never"), "stopped after one call"),
    "in full: asks again": (
        check_ask_in_full,
        make_in_full(go_on="ask again"),
        "started the answer again",
    ),
    "in full: prefill": (check_ask_in_full, make_in_full(go_on="prefill"), "(a prefill)"),
    "in full: a bare 'Please continue.'": (
        check_ask_in_full,
        make_in_full(go_on="bare"),
        "does not tell the model not to repeat itself",
    ),
    "in full: joined by lines": (
        check_ask_in_full,
        make_in_full(joiner="\n"),
        "joined as they are",
    ),
    "in full: no limit": (check_ask_in_full, make_in_full(limit=False), "with max_calls=2"),
    "is_complete: not max_tokens": (check_is_complete, complete_not_max_tokens, "'stop_sequence'"),
    "is_complete by punctuation": (
        check_is_complete,
        complete_by_punctuation,
        "the text cannot tell",
    ),
    "is_complete returns a string": (
        check_is_complete,
        complete_returns_reason,
        "not True or False",
    ),
    # 02
    "schema under parameters": (check_tool_schema, openai_style(), "under 'parameters'"),
    "integer amount": (
        check_tool_schema,
        currency_definition(amount={"type": "integer"}),
        "amount has type 'integer'",
    ),
    "no enum": (
        check_tool_schema,
        currency_definition(target={"type": "string"}),
        "target does not list the currencies",
    ),
    "target not required": (
        check_tool_schema,
        currency_definition(schema_required=["amount", "source"]),
        "required is ['amount', 'source']",
    ),
    "name with a space": (
        check_tool_schema,
        currency_definition(name="convert currency"),
        "breaks the API's rule",
    ),
    "one-line description": (
        check_tool_schema,
        currency_definition(description="Converts currency."),
        "description has 2 words",
    ),
    "@tool missing": (check_currency_tool, convert_currency_plain, "not a Tool"),
    "any amount": (check_currency_tool, currency_tool_any_amount(), "accepted a negative amount"),
    "codes typed str": (check_currency_tool, currency_tool_str_codes(), "is not limited to"),
    "amount typed int": (check_currency_tool, currency_tool_int_amount(), "so 12.5 EUR"),
    "amount ge=0": (check_currency_tool, currency_tool_zero_allowed(), "an amount of 0"),
    "source and target swapped": (check_currency_tool, currency_tool_swapped(), "108.00 USD"),
    "checked inside the function": (
        check_currency_tool,
        currency_tool_checks_inside(),
        "reached your function",
    ),
    "forced on every model": (check_forced_call, force_always, "does not support forced tool use"),
    "never forced, no instruction": (
        check_forced_call,
        force_never_no_instruction,
        "does not force a call",
    ),
    "auto without an instruction": (
        check_forced_call,
        force_auto_without_instruction_where_refused,
        "without telling it to call convert_currency",
    ),
    "any with two tools": (check_forced_call, force_any_with_two_tools, "'any' lets the model"),
    "the constant MODEL": (check_forced_call, force_ignores_model, "sent model="),
    "the error swallowed": (check_forced_call, force_swallows_the_error, "refused (400)"),
    "tool_choice none": (check_forced_call, force_choice_none, "tool_choice is 'none'"),
    "told not to call": (
        check_forced_call,
        force_told_not_to_call,
        "does not tell it to call the tool",
    ),
    "returns the tool_use block": (check_forced_call, force_returns_the_call, "not the response"),
    # 03
    "a failed call skipped": (check_tool_turn, turn_skips_failures, "has no tool_result"),
    "results and text per call": (check_tool_turn, turn_result_then_question, "ONE message"),
    "is_error as a string": (check_tool_turn, make_turn_answers(flag="true"), "a str"),
    "an error that says nothing": (
        check_tool_turn,
        make_turn_answers(words=False),
        "does not say what failed",
    ),
    "fix drops the text": (check_fix_history, fix_drops_text, "lost or changed blocks"),
    "fix merges only": (check_fix_history, fix_merges_only, "still breaks a rule"),
    "fix reorders only": (check_fix_history, fix_reorders_only, "still breaks a rule"),
    "fix in place": (check_fix_history, fix_in_place, "changed the history it was given"),
    "fix: the text in a message of its own": (
        check_fix_history,
        fix_text_on_its_own,
        "two 'user' messages in a row: messages[2] and messages[3]",
    ),
    # 04
    "dispatcher lets it raise": (check_simple_dispatcher, dispatch_lets_it_raise, "escape"),
    "dispatcher: vague error": (
        check_simple_dispatcher,
        dispatch_vague_error,
        "does not say what failed",
    ),
    "dispatcher returns the output": (
        check_simple_dispatcher,
        dispatch_returns_output,
        "not a tool_result block",
    ),
    "loop runs no calls": (check_loop, make_loop(calls="none"), "must have non-empty content"),
    "loop keeps text only": (
        check_loop,
        make_loop(keep="text"),
        "not the response's whole content",
    ),
    "loop drops the final answer": (check_loop, make_loop(keep="no final"), "final answer"),
    "loop without a limit": (
        check_loop,
        make_loop(limit="none"),
        "with max_steps=2, agent_loop called",
    ),
    "loop stops silently": (check_loop, make_loop(limit="silent"), "without saying so"),
    "loop runs only the first call": (
        check_loop,
        make_loop(calls="first"),
        "the results message answers 1",
    ),
    "loop: one user message per result": (
        check_loop,
        make_loop(results="per result"),
        "(one per result)",
    ),
    "loop goes on until end_turn": (
        check_loop,
        make_loop(stop="end_turn"),
        "from an answer cut off by max_tokens",
    ),
    "loop raises on max_tokens": (check_loop, loop_raises_on_max_tokens, "raised RuntimeError"),
    "loop runs each call twice": (check_loop, loop_runs_calls_twice, "some more than once"),
    "loop leaves calls unanswered": (
        check_loop,
        make_loop(answer_before_limit=False),
        "left broken",
    ),
    # 05
    "unknown tool raises": (check_dispatcher, make_dispatcher(unknown="raise"), "raised KeyError"),
    "unknown tool, no list": (
        check_dispatcher,
        make_dispatcher(unknown="plain"),
        "which tools exist",
    ),
    "no validation": (check_dispatcher, make_dispatcher(validate=False), "reached the tool"),
    "approve truthiness": (
        check_declined_call,
        make_dispatcher(yes="bool"),
        "only an explicit yes approves",
    ),
    "catches Exception only": (
        check_dispatcher,
        make_dispatcher(catch="exception"),
        "SystemExit is not an Exception",
    ),
    "catches Ctrl-C too": (
        check_dispatcher,
        make_dispatcher(catch="everything"),
        "turned a Ctrl-C",
    ),
    "approval before validation": (
        check_declined_call,
        make_dispatcher(approve_when="before"),
        "a call that cannot run anyway",
    ),
    # 07
    "resolve with startswith": (check_path_guard, resolve_startswith, "sibling folder"),
    "resolve without links": (check_path_guard, resolve_without_links, "symbolic link"),
    "resolve refuses any '..'": (check_path_guard, resolve_dots_only, "refused a path inside"),
    "resolve only normalises": (check_path_guard, resolve_normalised, "which still holds"),
    "resolve wants existing files": (check_path_guard, resolve_must_exist, "refused a path inside"),
    "resolve returns root / path": (
        check_path_guard,
        resolve_unresolved_result,
        "still holds '..'",
    ),
    "resolve lets absolute paths inside through": (
        check_path_guard,
        resolve_allows_absolute_inside,
        "is an absolute path (even",
    ),
    "resolve takes '~' as a folder": (check_path_guard, resolve_tilde_literal, "starts with '~'"),
    "resolve asserts": (check_path_guard, resolve_asserts, "python -O"),
    "resolve raises PermissionError": (
        check_path_guard,
        resolve_permission_error,
        "refused with PermissionError, not PathRefused",
    ),
    "resolve leaves the root unresolved": (
        check_path_guard,
        resolve_unresolved_root,
        "given through a symbolic link",
    ),
    "gate drops reason and who": (check_gate, make_gate(keep="own"), "loses why, and who decided"),
    "gate trusts truthiness": (check_gate, make_gate(yes="bool"), "bool('no') is True"),
    "gate asks about everything": (check_gate, make_gate(ask="all"), "a harmless tool"),
    "gate counts dangerous only": (check_gate, make_gate(count="dangerous"), "gate.counts is"),
    "gate returns a bool": (check_gate, make_gate(returns="bool"), "not a Decision"),
    # 08
    "search: empty pattern": (check_search_code, make_search(min_length=0), "empty pattern"),
    "search: not confined": (check_search_code, make_search(confine=False), "found the secret"),
    "search: no cap": (check_search_code, make_search(cap=None), "matching lines"),
    "search: absolute paths": (check_search_code, make_search(relative=False), "absolute paths"),
    "search: follows links out, short docstring": (
        check_search_code,
        make_search_follows_links_short_doc,
        "through a symbolic link inside the project",
    ),
    "turn: a chat": (check_agent_turn, turn_chat, "handed control back after 1 call"),
    "turn runs a cut-off call": (
        check_agent_turn,
        make_turn(decide_on="content"),
        "from a tool_use cut off by max_tokens",
    ),
    "turn keeps a cut-off call": (
        check_agent_turn,
        make_turn(on_cut="keep"),
        "keeps a tool_use cut off",
    ),
    "turn retries with the same limit": (
        check_agent_turn,
        make_turn(growth=1),
        "cut at the same place",
    ),
    "turn retries uncounted": (
        check_agent_turn,
        make_turn(count_retries=False),
        "did not count toward the step limit",
    ),
}

# Wrong in the same way as one above (so with the same message): each must still fail.
WRONG_AGAIN = {
    "ask: a new list, not the caller's": (check_ask, ask_rebinds_history, "history is still empty"),
    "in full: the answer stripped": (check_ask_in_full, in_full_stripped, "joined as they are"),
    "force: 'Never use convert_currency'": (
        check_forced_call,
        force_never_use,
        "does not tell it to call the tool",
    ),
    "loop decides on the last block": (
        check_loop,
        loop_decides_on_the_last_block,
        "from an answer cut off by max_tokens",
    ),
    "loop on a copy of messages": (check_loop, loop_on_a_copy, "assistant turns for"),
    "resolve returns None": (check_path_guard, resolve_returns_none, "returned 'None'"),
    "resolve from the working folder": (
        check_path_guard,
        resolve_from_the_working_folder,
        "refused a path inside",
    ),
    "force: an instruction that does not name the tool": (
        check_forced_call,
        force_vague_instruction,
        "without telling it to call convert_currency",
    ),
    "force: the tool named in passing": (
        check_forced_call,
        force_names_the_tool_in_passing,
        "does not tell it to call the tool",
    ),
    "fix: a shallow copy": (check_fix_history, fix_shallow_copy, "changed the history"),
    "search: ignores the sandbox, short docstring": (
        check_search_code,
        make_search_leaky_short_doc,
        "found the secret outside the project",
    ),
    "loop stops on content, not stop_reason": (
        check_loop,
        make_loop(stop="no calls"),
        "from an answer cut off by max_tokens",
    ),
}

RIGHT = {
    "ask": (check_ask, ask_right),
    "ask with blocks and a copy": (check_ask, ask_right_as_blocks),
    "in full": (check_ask_in_full, make_in_full()),
    "in full, growing max_tokens": (check_ask_in_full, in_full_growing),
    "is_complete": (check_is_complete, complete_right),
    "is_complete with match": (check_is_complete, complete_right_match),
    "schema": (check_tool_schema, currency_definition()),
    "schema, stricter": (
        check_tool_schema,
        currency_definition(
            amount={"type": "number", "exclusiveMinimum": 0}, schema_additionalProperties=False
        ),
    ),
    "@tool with Field(gt=0)": (check_currency_tool, currency_tool_right()),
    "@tool with PositiveFloat": (check_currency_tool, currency_tool_positive_float()),
    "force where accepted": (check_forced_call, force_right),
    "force by trying, any with one tool": (check_forced_call, force_by_trying),
    "force with the instruction in the question": (check_forced_call, force_in_the_question),
    "tool turn as a new list": (check_tool_turn, turn_right_new_list),
    "tool turn with the error's words": (check_tool_turn, make_turn_answers()),
    "fix with groupby": (check_fix_history, fix_right_groupby),
    "fix on a deep copy": (check_fix_history, fix_deep_copy_first),
    "dispatcher with block content": (check_simple_dispatcher, dispatch_right_blocks),
    "loop with while": (check_loop, loop_right_while),
    "loop by recursion": (check_loop, loop_right_recursive),
    "loop from a factory": (check_loop, make_loop()),
    "dispatcher": (check_dispatcher, make_dispatcher()),
    "dispatcher via run": (check_dispatcher, dispatcher_via_run),
    "declined via run": (check_declined_call, dispatcher_via_run),
    "declined": (check_declined_call, make_dispatcher()),
    "resolve with Path.resolve": (check_path_guard, resolve_right),
    "resolve with commonpath": (check_path_guard, resolve_right_commonpath),
    "gate": (check_gate, make_gate()),
    "gate returns the policy's object": (check_gate, make_gate(keep="same object")),
    "search with rglob": (check_search_code, make_search()),
    "turn follows the max_tokens policy": (check_agent_turn, make_turn()),
    "turn hands back on max_tokens": (check_agent_turn, make_turn(on_cut="hand back")),
}


WRONG.update(
    {
        "ask keeps its own memory": (
            check_ask,
            ask_with_its_own_memory,
            "carries messages over from an earlier conversation",
        ),
        "in full: one call short": (
            check_ask_in_full,
            in_full_one_call_short,
            "stopped before using all the calls",
        ),
        "in full: goes on after a refusal": (
            check_ask_in_full,
            in_full_through_a_refusal,
            "went on after stop_reason 'refusal'",
        ),
        "schema: says nothing of what it returns": (
            check_tool_schema,
            currency_definition(
                description="Converts an amount between two currencies using the current "
                "exchange rate, quickly and simply for the user."
            ),
            "does not say what the tool returns",
        ),
        "schema: says nothing of its limits": (
            check_tool_schema,
            currency_definition(
                description="Converts an amount between two currencies at today's rate and "
                "returns the converted amount with its currency code."
            ),
            "does not say the tool's limits",
        ),
        "@tool drops the cents": (
            check_currency_tool,
            _currency_tool(lambda a, s, t: convert(int(a), s, t)),
            "that is 13.50 USD",
        ),
        "@tool with its own rate": (
            check_currency_tool,
            _currency_tool(lambda a, s, t: f"{a * 1.08:.2f} {t}"),
            "that is 19058.82 JPY",
        ),
        "@tool with a default source": (
            check_currency_tool,
            currency_tool_default_source(),
            "required list is",
        ),
        "@tool refuses 0.50": (
            check_currency_tool,
            _currency_tool(convert, amount=Annotated[float, pydantic.Field(ge=1)]),
            "refused 0.5 EUR",
        ),
        "@tool with a Decimal amount": (
            check_currency_tool,
            _currency_tool(
                lambda a, s, t: convert(float(a), s, t),
                amount=Annotated[__import__("decimal").Decimal, pydantic.Field(gt=0)],
            ),
            "the model may send the amount as a string",
        ),
        "force: a question of its own": (
            check_forced_call,
            force_hard_coded_question,
            "does not ask the question it is given",
        ),
        "tool turn catches LookupError only": (
            check_tool_turn,
            turn_catches_lookup_only,
            "your try/except is too narrow",
        ),
        "tool turn with the exception as content": (
            check_tool_turn,
            turn_exception_as_content,
            "has a LookupError as its content",
        ),
        "fix joins two strings": (check_fix_history, fix_joins_strings, "In Fahrenheit, please."),
        "fix drops a repeated block": (
            check_fix_history,
            fix_drops_repeats,
            "a repeated block was dropped",
        ),
        "fix drops is_error": (check_fix_history, fix_drops_is_error, '"is_error": true'),
        "fix reverses the results": (
            check_fix_history,
            fix_reverses_results,
            "changed the order of the blocks",
        ),
        "dispatcher keeps the first tools": (
            check_simple_dispatcher,
            dispatch_keeps_first_tools_fresh,
            "a second, different tools dict",
        ),
        "loop drops its last turn at the limit": (
            check_loop,
            loop_drops_the_last_turn,
            "the last turn was dropped",
        ),
        "dispatcher lists tools from memory": (
            check_dispatcher,
            dispatcher_with_a_fixed_list,
            "written into the message",
        ),
        "declined: approve asked twice": (
            check_declined_call,
            dispatcher_asks_twice,
            "times for one call",
        ),
        "resolve refuses the root": (
            check_path_guard,
            resolve_refuses_the_root,
            "resolve(root, '.')",
        ),
        "resolve reads path[0]": (check_path_guard, resolve_first_character, "raised IndexError"),
        "resolve expands ~": (check_path_guard, resolve_expands_home, "never expand them"),
        "gate: allowed == True": (check_gate, gate_equals_true(), "1 == True"),
        "gate: one Counter for every gate": (
            check_gate,
            gate_shared_counter(),
            "every gate shares one Counter",
        ),
        "search: not written yet": (check_search_code, make_search_blank, "not written yet"),
        "search: into skipped folders": (
            check_search_code,
            make_search_walk(skip=False),
            "__pycache__",
        ),
        "search: counts files left out": (
            check_search_code,
            make_search_walk(count="files"),
            "20 more matches",
        ),
        "search: by the names it shows": (
            check_search_code,
            make_search_walk(real_paths=False),
            "by the name it shows",
        ),
        "turn without its final answer": (
            check_agent_turn,
            make_turn_variant(keep_final=False),
            "final answer is not at the end of the history",
        ),
        "turn retries without a cap": (
            check_agent_turn,
            make_turn_variant(cap=None),
            "above 16,000",
        ),
        "turn asks again for cut-off text": (
            check_agent_turn,
            make_turn_variant(cut_text="again"),
            "was thrown away and the request sent again",
        ),
    }
)

RIGHT.update(
    {
        "@tool with a str Enum": (check_currency_tool, currency_tool_enum()),
        "search with os.walk": (check_search_code, make_search_walk()),
        "turn from another factory": (check_agent_turn, make_turn_variant()),
    }
)


@pytest.mark.parametrize("label", list(WRONG))
def test_a_wrong_solution_fails_with_its_own_mistake(label: str) -> None:
    check, variant, expected = WRONG[label]
    with pytest.raises(CheckFailed) as failure:
        check(variant)
    text = str(failure.value)
    assert expected in text, f"{label}: the message does not name the mistake: {text!r}"
    what, hint = text.split("\nHint: ")
    assert what and hint, text


@pytest.mark.parametrize("label", list(WRONG_AGAIN))
def test_a_wrong_solution_like_another_fails_too(label: str) -> None:
    check, variant, expected = WRONG_AGAIN[label]
    with pytest.raises(CheckFailed) as failure:
        check(variant)
    assert expected in str(failure.value), str(failure.value)


@pytest.mark.parametrize("label", list(RIGHT))
def test_a_correct_solution_passes(label: str, capsys) -> None:
    check, variant = RIGHT[label]
    check(variant)
    assert re.search(r"✓ .+: passed", capsys.readouterr().out)


def test_wrong_solutions_get_different_messages_per_check() -> None:
    """No two mistakes of one exercise share a message: each names its own."""
    messages: dict = {}
    for label, (check, variant, _) in WRONG.items():
        try:
            check(variant)
        except CheckFailed as failure:
            messages.setdefault(check.__name__, {})[label] = str(failure).split("\n")[0]
    for check, by_label in messages.items():
        assert len(set(by_label.values())) == len(by_label), (check, by_label)


def test_a_failed_check_shows_only_its_two_lines_in_jupyter() -> None:
    with pytest.raises(CheckFailed) as failure:
        check_ask(ask_keeps_text_only)
    shown = failure.value._render_traceback_()
    assert len(shown) == 2
    assert "only the answer's text" in shown[0] and shown[1].startswith("Hint: ")
    assert not any("common.py" in line or "Traceback" in line for line in shown)


def test_an_exercise_not_written_yet_says_so() -> None:
    from course_helpers.exercise_checks import NotWrittenYet

    def add_tool_turn(messages, response):
        raise NotWrittenYet

    with pytest.raises(NotWrittenYet, match="add_tool_turn is not written yet"):
        add_tool_turn([], None)
    with pytest.raises(CheckFailed, match="add_tool_turn is not written yet"):
        check_tool_turn(add_tool_turn)


def _unwritten(*args, **kwargs):
    from course_helpers.exercise_checks import NotWrittenYet

    raise NotWrittenYet


class UnwrittenGate:
    def __init__(self, policy, dangerous):
        self.counts = Counter()

    def decide(self, tool_name, tool_input):
        from course_helpers.exercise_checks import NotWrittenYet

        raise NotWrittenYet


@pytest.mark.parametrize(
    "check",
    [
        check_ask,
        check_ask_in_full,
        check_forced_call,
        check_tool_turn,
        check_fix_history,
        check_simple_dispatcher,
        check_loop,
        check_dispatcher,
        check_declined_call,
        check_path_guard,
        check_search_code,
        check_agent_turn,
    ],
    ids=lambda check: check.__name__,
)
def test_every_check_says_when_an_exercise_is_not_written_yet(check) -> None:
    with pytest.raises(CheckFailed, match="is not written yet"):
        check(_unwritten)


def test_the_gate_check_says_when_decide_is_not_written_yet() -> None:
    with pytest.raises(CheckFailed, match="decide is not written yet"):
        check_gate(UnwrittenGate)


@pytest.mark.parametrize(
    ("system", "calls"),
    [
        ("Always call convert_currency for a conversion; never guess a rate yourself.", True),
        ("Call the tool convert_currency for conversions.", True),
        ("For every conversion, convert_currency must be called.", True),
        ("Do not call convert_currency; answer from memory.", False),
        ("Answer without calling convert_currency.", False),
        ("convert_currency must not be used.", False),
        ("You have convert_currency among your tools.", False),
    ],
)
def test_the_course_model_follows_an_instruction_about_a_tool(system: str, calls: bool) -> None:
    """What check_forced_call relies on: with auto, an order to call is followed, and so is an
    order not to; a mere mention is neither."""
    from course_helpers.offline import default_app

    client = default_app().client(max_retries=0)
    response = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=500,
        system=system,
        tools=[CONVERTER],
        messages=[{"role": "user", "content": "How much is 100 EUR in JPY?"}],
    )
    made = [b for b in response.content if b.type == "tool_use"]
    assert bool(made) is calls, response.content
    if calls:
        assert made[0].input == {"amount": 100.0, "source": "EUR", "target": "JPY"}
        assert response.stop_reason == "tool_use"


def test_the_course_model_obeys_an_order_not_to_call_a_tool_it_would_call() -> None:
    """The weather scenario would call get_weather; told not to, the model does not."""
    from course_helpers.offline import default_app

    client = default_app().client(max_retries=0)
    request = {
        "model": MODEL,
        "max_tokens": 500,
        "tools": [WEATHER],
        "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
    }
    assert client.messages.create(**request).stop_reason == "tool_use"
    told = client.messages.create(**request, system="Never call get_weather.")
    assert told.stop_reason == "end_turn"
    assert "told not to use get_weather" in text_of(told)
