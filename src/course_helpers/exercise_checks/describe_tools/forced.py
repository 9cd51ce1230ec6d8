"""Course machinery (exercise checks): exercise 02.3, `check_forced_call`: a call forced where the
model allows it, asked for where not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.exercise_checks.common import (
    accepts_forced_tool_choice,
    api_message,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.lessons.pairing import content_blocks, read_field

FORCE_MODELS = ("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5")
CONVERSION_QUESTION = "How much is 100 EUR in JPY?"
OTHER_QUESTIONS = (CONVERSION_QUESTION, "What is 250 GBP in USD?", "Convert 42.5 USD to EUR.")


def _forces(request: dict) -> bool:
    choice = request.get("tool_choice") or {}
    return isinstance(choice, dict) and choice.get("type") in ("any", "tool")


def _forces_converter(request: dict) -> bool:
    """tool_choice names convert_currency, or is "any" with convert_currency the only tool."""
    choice = request.get("tool_choice") or {}
    names = [t.get("name") for t in request.get("tools") or []]
    if choice.get("type") == "tool":
        return choice.get("name") == "convert_currency"
    return choice.get("type") == "any" and names == ["convert_currency"]


def _instruction_text(request: dict) -> str:
    """The system prompt and the last user message: where an instruction to call can be."""
    system = request.get("system") or ""
    if isinstance(system, list):
        system = text_of(system)
    last = (request.get("messages") or [{}])[-1]
    return f"{system} {text_of(content_blocks(last))}"


def check_forced_call(force_call: Callable) -> None:
    """02 · `force_call(client, question, model)`: a convert_currency call on every current model.

    Forced tool use depends on the model: force the call where the model accepts a forced
    tool_choice (the only guarantee there is), and where it answers 400, ask with "auto" and an
    instruction that names the tool.
    """
    __tracebackhide__ = True
    for number, model in enumerate(FORCE_MODELS):
        question = OTHER_QUESTIONS[number % len(OTHER_QUESTIONS)]
        client, recorder = recording_client()
        response = run_learner(
            _refusal_explained(force_call, recorder, model),
            client,
            question,
            model,
            name=f"force_call(..., {model!r})",
        )
        if not recorder.requests:
            fail("force_call made no request.", "call client.messages.create(...) and return it.")
        request = recorder.requests[-1]
        asked = text_of(content_blocks((request.get("messages") or [{}])[-1]))
        if question not in asked:
            fail(
                f"force_call(client, {question!r}, ...) sent the question {short_repr(asked)}: "
                "it does not ask the question it is given.",
                "put the `question` parameter in the user message: {'role': 'user', "
                "'content': question}.",
            )
        if request.get("model") != model:
            fail(
                f"force_call(client, question, {model!r}) sent model={request.get('model')!r}.",
                "pass model=model to client.messages.create, not the constant MODEL.",
            )
        names = [t.get("name") for t in request.get("tools") or []]
        if "convert_currency" not in names:
            fail(
                f"on {model}, the request offers tools {names}, not convert_currency.",
                "pass tools=[convert_currency.definition()].",
            )
        if recorder.responses and recorder.responses[-1]["status"] != 200:
            fail(
                f"on {model}, the last request was refused ({recorder.responses[-1]['status']}) "
                "and force_call returned anyway.",
                f"{model} answers a forced tool_choice with 400: use 'auto' and an instruction "
                "there.",
            )
        if not hasattr(response, "content") or not hasattr(response, "stop_reason"):
            fail(
                f"on {model}, force_call returned {short_repr(response)}, not the response.",
                "return the Message that client.messages.create gave you.",
            )
        if accepts_forced_tool_choice(model):
            _check_forced(request, response, model)
        else:
            _check_instructed(request, response, model, question)
    passed("force_call gets a convert_currency call on every current model")


def _refusal_explained(force_call: Callable, recorder: Any, model: str) -> Callable:
    """force_call, with a forced tool_choice refused by the model turned into a clear failure."""

    def run(*args: Any) -> Any:
        __tracebackhide__ = True
        try:
            return force_call(*args)
        except anthropic.BadRequestError as error:
            if recorder.requests and _forces(recorder.requests[-1]):
                fail(
                    f"on {model}, force_call forced tool_choice "
                    f"{recorder.requests[-1].get('tool_choice')} and the API answered 400: "
                    f"{api_message(error)}",
                    "on a model that does not support forced tool use, send tool_choice "
                    "{'type': 'auto'} and an instruction that names convert_currency.",
                )
            raise

    run.__name__ = getattr(force_call, "__name__", "force_call")
    return run


def _check_forced(request: dict, response: Any, model: str) -> None:
    __tracebackhide__ = True
    choice = request.get("tool_choice")
    if not _forces(request):
        fail(
            f"on {model}, which accepts a forced tool_choice, the request does not force a call "
            f"(tool_choice is {choice or 'not set, so auto'}): the model may answer with text.",
            "where the model accepts it, pass tool_choice={'type': 'tool', 'name': "
            "'convert_currency'}.",
        )
    if not _forces_converter(request):
        names = [t.get("name") for t in request.get("tools") or []]
        fail(
            f"on {model}, tool_choice is {choice} with tools {names}: that does not force "
            "convert_currency ('any' lets the model pick any of the tools).",
            "{'type': 'tool', 'name': 'convert_currency'} forces this one tool.",
        )
    calls = [b for b in content_blocks(response) if read_field(b, "type") == "tool_use"]
    if response.stop_reason != "tool_use" or not calls:
        fail(
            f"on {model}, the response force_call returned holds no tool_use block.",
            "return the response of the forced call.",
        )


def _check_instructed(request: dict, response: Any, model: str, question: str) -> None:
    """On a model that rejects forcing: auto, an instruction in the system prompt, and a call
    really made."""
    __tracebackhide__ = True
    if _forces(request):
        fail(
            f"on {model}, force_call's request forces tool_choice {request.get('tool_choice')}; "
            f"{model} does not support forced tool use and answers 400.",
            "on a model that rejects it, send tool_choice {'type': 'auto'} (or leave it out) "
            "and tell the model to call convert_currency.",
        )
    if (request.get("tool_choice") or {}).get("type") == "none":
        fail(
            f"on {model}, tool_choice is 'none': the model may not call any tool.",
            "use {'type': 'auto'} and an instruction that names convert_currency.",
        )
    calls = [
        b
        for b in content_blocks(response)
        if read_field(b, "type") == "tool_use" and read_field(b, "name") == "convert_currency"
    ]
    system = request.get("system") or ""
    system = text_of(system) if isinstance(system, list) else str(system)
    asked = text_of(content_blocks((request.get("messages") or [{}])[-1]))
    if "convert_currency" not in system and "convert_currency" in asked.replace(question, ""):
        fail(
            f"on {model}, the instruction to call convert_currency is in the user message, "
            f"with the question ({short_repr(asked, 80)}), not in the system prompt: the user "
            "message is the person's question, sent as it is; a standing rule of your program "
            "goes in the system prompt.",
            "send messages=[{'role': 'user', 'content': question}] and put the instruction in "
            "system='Always call convert_currency for a conversion; ...'.",
        )
    if calls:
        return
    said = _instruction_text(request).strip()
    if "convert_currency" not in said:
        fail(
            f"on {model}, the request leaves the choice to the model (auto) without telling it to "
            "call convert_currency, and it answered in text (a real model may make up a rate).",
            "add an instruction that names the tool, e.g. system='Always use convert_currency "
            "for a conversion; never compute a rate yourself.'",
        )
    fail(
        f"on {model}, the model answered in text, with no convert_currency call: your "
        f"instruction ({short_repr(system.strip() or said, 90)}) does not tell it to call the "
        "tool.",
        "say plainly that it must call it, e.g. system='Always call convert_currency for a "
        "conversion; never compute a rate yourself.'",
    )
