"""What the exercise-variant files share: the way a table of variants is proven, and the few
helpers more than one exercise's learners write.

A variants file holds, for one exercise notebook, wrong solutions (each with the words its
failure must contain) and right ones; these functions run them against their check. A file
whose tables are `WRONG`, `WRONG_AGAIN` and `RIGHT` gets its standard tests from
`variant_tests` (one definition for every file, pytest ids named after the table's labels):
a new wrong solution is one more entry in `WRONG`, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


def variant_tests(
    wrong: dict,
    right: dict,
    *,
    wrong_again: dict | None = None,
    unwritten_checks: Sequence[Callable] = (),
) -> dict[str, Callable]:
    """The tests every variants file runs on its tables, defined once here.

    `wrong` maps a label to (check, variant, words its failure must contain), `wrong_again` the
    same for a mistake another variant already names (its message may repeat), `right` a label
    to (check, variant). A variants file declares its tables and puts these tests in its own
    namespace, where pytest collects them under the file's name, one id per label::

        globals().update(variant_tests(WRONG, RIGHT, wrong_again=WRONG_AGAIN,
                                       unwritten_checks=[check_ask]))

    A table left empty gives no test (pytest would report an empty parametrisation as skipped).
    """
    tests: dict[str, Callable] = {}

    if wrong:

        @pytest.mark.parametrize("label", list(wrong))
        def test_a_wrong_solution_fails_with_its_own_mistake(label: str) -> None:
            fails_with_its_own_mistake(label, *wrong[label])

        def test_wrong_solutions_get_different_messages_per_check() -> None:
            """No two mistakes of one exercise share a message: each names its own."""
            messages_differ(wrong)

        tests[test_a_wrong_solution_fails_with_its_own_mistake.__name__] = (
            test_a_wrong_solution_fails_with_its_own_mistake
        )
        tests[test_wrong_solutions_get_different_messages_per_check.__name__] = (
            test_wrong_solutions_get_different_messages_per_check
        )
    if wrong_again:

        @pytest.mark.parametrize("label", list(wrong_again))
        def test_a_wrong_solution_like_another_fails_too(label: str) -> None:
            fails_like_another(*wrong_again[label])

        tests[test_a_wrong_solution_like_another_fails_too.__name__] = (
            test_a_wrong_solution_like_another_fails_too
        )
    if right:

        @pytest.mark.parametrize("label", list(right))
        def test_a_correct_solution_passes(label: str, capsys) -> None:
            passes(*right[label], capsys)

        tests[test_a_correct_solution_passes.__name__] = test_a_correct_solution_passes
    if unwritten_checks:

        @pytest.mark.parametrize("check", list(unwritten_checks), ids=lambda check: check.__name__)
        def test_every_check_says_when_an_exercise_is_not_written_yet(check) -> None:
            with pytest.raises(CheckFailed, match="is not written yet"):
                check(unwritten)

        tests[test_every_check_says_when_an_exercise_is_not_written_yet.__name__] = (
            test_every_check_says_when_an_exercise_is_not_written_yet
        )
    return tests
