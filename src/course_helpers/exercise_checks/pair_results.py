"""Course machinery (exercise checks): checks for notebook 03, Pair tool results.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_03_pair_tool_results.py and
tests/test_exercises.py):

`check_tool_turn(add_tool_turn)`, `add_tool_turn(messages, response)` for two parallel calls
(Paris succeeds, Atlantis fails); appending or returning a new list are both accepted:
- exactly two messages added: the assistant turn, then one user message;
- the assistant turn is the response's whole content (tool_use blocks included);
- the results are in ONE message, tool_result blocks first (any text after);
- one result per call, each with the call's own id;
- the failed call is answered too, with `is_error: true` (a boolean) and the exception's words
  (they name the city); the successful one is not marked and holds the tool's output (as a
  string or a list of text blocks);
- the course model accepts the history;
- a call whose arguments the signature refuses (unit='kelvin') is answered with is_error too
  (catching only LookupError is not enough); a result's content is a string or a list of
  blocks (an exception object is named, not crashed on).

`check_fix_history(fix_history)`, on four histories (one already valid):
- returns a list with no pairing problem and no two same-role messages in a row (the message
  names the two);
- a repaired copy: the caller's history (its list, messages and content lists) is left as it was;
- no block lost, joined or changed (moved only), is_error and repeated blocks included: the
  histories hold a failed call, a note said twice and two string messages in a row;
- the blocks keep their order (results moved to the front of their message, nothing else);
- the course model accepts each repaired history.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    as_plain,
    ask_model,
    block_types,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
    text_of,
)
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.plumbing.truncate import clip

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
    require_pairing(messages, "the history breaks a pairing rule", "see 03, §4.")
    ask_model(client, messages, tools=[WEATHER_TOOL])
    _check_invalid_arguments(add_tool_turn)
    passed("add_tool_turn keeps the pairing rules")


def _check_added_shape(added: list, calls: list) -> None:
    __tracebackhide__ = True
    roles = [read_field(m, "role") for m in added]
    if not added:
        fail(
            "add_tool_turn added nothing to messages.",
            "append the assistant turn, then one user message holding every tool_result.",
        )
    with_results = [m for m in added if "tool_result" in block_types(m)]
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
    if as_plain(kept) != as_plain(list(response.content)):
        fail(
            f"the assistant turn is not the response's whole content (blocks {block_types(assistant)}, "
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
        flag = read_field(result, "is_error")
        if flag not in (None, True, False):
            fail(
                f"the result for {_described(call)} has is_error {flag!r}, a "
                f"{type(flag).__name__}; the API takes a boolean.",
                "write 'is_error': True (Python's True, not the string 'true').",
            )
        is_error = bool(flag)
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
        text = _result_text(result, call)
        if failed_call and "Atlantis" not in text:
            fail(
                f"the error result for {_described(call)} does not say what failed: "
                f"{short_repr(text)}.",
                "put the exception's message in the content: str(error) names the city.",
            )
        if not failed_call and "°" not in text:
            fail(
                f"the result for {_described(call)} does not hold what get_weather returned "
                f"({short_repr(text)}).",
                "put the tool's return value in the result's 'content'.",
            )


def _result_text(result: Any, call: Any) -> str:
    """The text of a tool_result's content, which must be a string or a list of blocks."""
    __tracebackhide__ = True
    content = read_field(result, "content")
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list) or not all(
        isinstance(read_field(b, "type"), str) for b in content
    ):
        fail(
            f"the result for {_described(call)} has a {type(content).__name__} as its content; "
            "the API takes a string or a list of content blocks.",
            "put the text in: 'content': str(error) for a failure, the tool's output otherwise.",
        )
    return text_of(content)


def _check_invalid_arguments(add_tool_turn: Callable) -> None:
    """A call whose arguments the tool's signature refuses is answered with is_error too."""
    __tracebackhide__ = True
    import anthropic

    call = {"type": "tool_use", "id": "toolu_check_kelvin", "name": "get_weather"}
    call["input"] = {"city": "Paris", "unit": "kelvin"}
    response = anthropic.types.Message.model_validate(
        {
            "id": "msg_check_kelvin",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [call],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 20},
        }
    )
    question = {"role": "user", "content": "What's the weather in Paris, in kelvin?"}
    messages = [question]
    try:
        returned = add_tool_turn(messages, response)
    except Exception as error:
        fail(
            f"a call with arguments the tool refuses (get_weather(city='Paris', unit='kelvin')) "
            f"made add_tool_turn raise {type(error).__name__}: your try/except is too narrow.",
            "catch Exception around get_weather.run(...): invalid arguments fail too, with a "
            "ValidationError, and the model must be told.",
        )
    if isinstance(returned, list) and len(returned) > len(messages):
        messages = returned
    results = [
        b for m in messages[1:] for b in content_blocks(m) if read_field(b, "type") == "tool_result"
    ]
    if len(results) != 1:
        fail(
            "the call get_weather(city='Paris', unit='kelvin'), refused by the tool's signature, "
            f"got {len(results)} results; every call gets exactly one.",
            "a ValidationError is a failure like any other: its text, with 'is_error': True.",
        )


def _history(*messages: dict) -> list[dict]:
    return [copy.deepcopy(m) for m in messages]


def _broken_histories(turn_content: list[dict]) -> dict[str, list[dict]]:
    """Histories a buggy program produced, each broken in one typical way.

    `turn_content` is a real answer of the course model to the question (thinking block
    included on a model that thinks): a model that thinks refuses a history whose tool_use turn
    lost its thinking block, so the histories are built around the answer it really gave.
    """
    question = {"role": "user", "content": "What's the weather in Paris and Tokyo?"}
    turn = {"role": "assistant", "content": turn_content}
    weather = {"Paris": "18°C, light rain", "Tokyo": "24°C, clear sky"}
    paris, tokyo = (
        {
            "type": "tool_result",
            "tool_use_id": block["id"],
            "content": weather.get(block["input"].get("city"), "no data"),
        }
        for block in turn_content
        if block["type"] == "tool_use"
    )
    note = {"type": "text", "text": "Answer in one line, please."}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "Paris 18°C, Tokyo 24°C."}]}
    thanks = {"role": "user", "content": "Thanks! And Oslo?"}
    failed = {**tokyo, "content": "Error: the weather service timed out.", "is_error": True}
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
        "a failed call, a note said twice and two questions in a row": _history(
            question,
            turn,
            {"role": "user", "content": [paris]},
            {"role": "user", "content": [failed, note]},
            {"role": "user", "content": [note]},
            answer,
            thanks,
            {"role": "user", "content": "In Fahrenheit, please."},
        ),
    }


def _block_keys(messages: list) -> list[str]:
    return sorted(
        json.dumps(as_plain(b), sort_keys=True) for m in messages for b in content_blocks(m)
    )


def _order(messages: list) -> tuple[list[str], list[str]]:
    """The results in order, and the other blocks in order, over the whole history."""
    blocks = [json.dumps(as_plain(b), sort_keys=True) for m in messages for b in content_blocks(m)]
    results = [b for b in blocks if '"type": "tool_result"' in b]
    return results, [b for b in blocks if b not in results]


def check_fix_history(fix_history: Callable) -> None:
    """03 · `fix_history(history)`: repair split results and text-first results, losing nothing."""
    __tracebackhide__ = True
    client, recorder = recording_client()
    client.messages.create(
        model=MODEL,
        max_tokens=500,
        tools=[WEATHER_TOOL],
        messages=[{"role": "user", "content": "What's the weather in Paris and Tokyo?"}],
    )
    turn_content = recorder.responses[-1]["body"]["content"]
    for label, broken in _broken_histories(turn_content).items():
        original = copy.deepcopy(broken)
        fixed = run_learner(fix_history, broken, name="fix_history")
        if not isinstance(fixed, list):
            fail(
                f"fix_history returned {short_repr(fixed)} for the history with {label}, not a list.",
                "return the repaired history (a new list of messages).",
            )
        require_pairing(
            fixed,
            f"after fix_history, the history with {label} still breaks a rule",
            "merge consecutive user messages into one, tool_result blocks first, text after.",
        )
        if broken != original:
            fail(
                f"fix_history changed the history it was given (the one with {label}): the "
                "caller's list, and the messages in it, must stay as they were.",
                "build a repaired copy: new message dicts and new content lists "
                "(list(content), or copy.deepcopy(history) first), never += on the originals.",
            )
        roles = [read_field(m, "role") for m in fixed]
        for index, (a, b) in enumerate(zip(roles, roles[1:], strict=False)):
            if a == b:
                fail(
                    f"after fix_history, the history with {label} has two {a!r} messages in a "
                    f"row: messages[{index}] and messages[{index + 1}] (roles {roles}).",
                    "merge consecutive messages of the same role into one.",
                )
        if _block_keys(fixed) != _block_keys(original):
            lost = sorted(set(_block_keys(original)) - set(_block_keys(fixed)))
            said = f" (first: {clip(lost[0], 90)})" if lost else " (a repeated block was dropped)"
            fail(
                f"fix_history lost or changed blocks of the history with {label}{said}.",
                "move blocks, never drop, join or edit them: every text, every result (its "
                "is_error included) must survive, repeats too.",
            )
        if _order(fixed) != _order(original):
            fail(
                f"fix_history changed the order of the blocks of the history with {label}.",
                "move only the tool_result blocks to the front of their message, in the order "
                "they came; everything else keeps its order.",
            )
        ask_model(client, fixed, tools=[WEATHER_TOOL])
    passed("fix_history repairs broken histories")
