"""Exercise 03's checks, proven both ways.

The exercise: `notebooks/exercises/03_pair_tool_results_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake; equivalent correct solutions (another style, another valid choice) pass.
The requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.pair_results`.
"""

import itertools
from typing import Literal

import pytest

from course_helpers.exercise_checks import (
    CheckFailed,
    check_fix_history,
    check_tool_turn,
)
from course_helpers.lessons.agent import tool_calls
from course_helpers.lessons.tools import tool
from exercise_variants.kit import (
    variant_tests,
)

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


def turn_answers_in_reverse(messages, response):
    """The results in the reverse order of the calls: accepted, as by the API, which pairs each
    result with its call by tool_use_id (exercise 13.2 accepts any order too)."""
    turn = turn_right_new_list(messages, response)
    REVERSED.append(len(turn[-1]["content"]))
    turn[-1]["content"].reverse()
    return turn


REVERSED: list[int] = []  # how many results each reversed turn held


def test_results_in_reverse_pass_on_parallel_calls(capsys) -> None:
    REVERSED.clear()
    check_tool_turn(turn_answers_in_reverse)
    assert "passed" in capsys.readouterr().out
    assert max(REVERSED) > 1, REVERSED  # parallel calls, or the order would not show


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


WRONG = {
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
}


WRONG_AGAIN = {
    "fix: a shallow copy": (check_fix_history, fix_shallow_copy, "changed the history"),
}


RIGHT = {
    "tool turn as a new list": (check_tool_turn, turn_right_new_list),
    "tool turn answering the calls in reverse": (check_tool_turn, turn_answers_in_reverse),
    "tool turn with the error's words": (check_tool_turn, make_turn_answers()),
    "fix with groupby": (check_fix_history, fix_right_groupby),
    "fix on a deep copy": (check_fix_history, fix_deep_copy_first),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(
        WRONG, RIGHT, wrong_again=WRONG_AGAIN, unwritten_checks=[check_tool_turn, check_fix_history]
    )
)


def test_an_exercise_not_written_yet_says_so() -> None:
    from course_helpers.exercise_checks import NotWrittenYet

    def add_tool_turn(messages, response):
        raise NotWrittenYet

    with pytest.raises(NotWrittenYet, match="add_tool_turn is not written yet"):
        add_tool_turn([], None)
    with pytest.raises(CheckFailed, match="add_tool_turn is not written yet"):
        check_tool_turn(add_tool_turn)
