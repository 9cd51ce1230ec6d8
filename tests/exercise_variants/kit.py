"""What the exercise-variant files share: the way a table of variants is proven, and the few
helpers more than one exercise's learners write.

A variants file holds, for one exercise notebook, wrong solutions (each with the words its
failure must contain) and right ones; these functions run them against their check.
"""

from __future__ import annotations

import re

import pytest

from course_helpers.exercise_checks import CheckFailed, NotWrittenYet


def text_of(response) -> str:
    return "".join(block.text for block in response.content if block.type == "text")


def unwritten(*args, **kwargs):
    """An exercise still as the blank notebook has it."""
    raise NotWrittenYet


def failure_of(check, function) -> str:
    """The message `check` fails `function` with; it must have its two parts."""
    with pytest.raises(CheckFailed) as failure:
        check(function)
    text = str(failure.value)
    assert "\nHint: " in text, text
    return text


def fails_with_its_own_mistake(label: str, check, variant, expected: str) -> None:
    text = failure_of(check, variant)
    assert expected in text, f"{label}: the message does not name the mistake: {text!r}"
    what, hint = text.split("\nHint: ")
    assert what and hint, text


def fails_like_another(check, variant, expected: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        check(variant)
    assert expected in str(failure.value), str(failure.value)


def passes(check, variant, capsys) -> None:
    check(variant)
    assert re.search(r"✓ .+: passed", capsys.readouterr().out)


def messages_differ(wrong: dict) -> None:
    """No two mistakes of one check share a first line: each names its own."""
    messages: dict = {}
    for label, (check, variant, _) in wrong.items():
        try:
            check(variant)
        except CheckFailed as failure:
            messages.setdefault(check.__name__, {})[label] = str(failure).split("\n")[0]
    for check, by_label in messages.items():
        assert len(set(by_label.values())) == len(by_label), (check, by_label)


def assert_each_fails_its_own_way(check, variants: dict) -> None:
    """Each variant fails with its words in the message, and no two messages are the same."""
    messages = {}
    for label, (function, expected) in variants.items():
        text = failure_of(check, function)
        assert expected in text, f"{label}: unexpected message {text!r}"
        messages[label] = text
    assert len(set(messages.values())) == len(messages), messages


def assert_passes(check, function, capsys) -> None:
    check(function)
    assert "passed" in capsys.readouterr().out
