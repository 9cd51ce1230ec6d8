"""More of what a Russian-speaking learner types in lessons 00–03: a name given in other short
forms, a question that refers back to a weather answer, a comparison or a question about what
to wear asked first, and city names in their case endings. The English forms of the same
rules are tested beside them."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, WEATHER, ask, calls, said

from course_helpers.offline import CourseModelApp


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


def _then(client, messages: list[dict], follow_up: str, **extra):
    return ask(client, [*messages, {"role": "user", "content": follow_up}], **extra)


# -- a name given in short ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "asked", "answer"),
    [
        ("Я — Дмитрий", "Как меня зовут?", "Вас зовут Дмитрий."),
        ("Я - Дмитрий.", "Как меня зовут?", "Вас зовут Дмитрий."),
        ("Меня Дмитрий зовут", "Как меня зовут?", "Вас зовут Дмитрий."),
        ("Это Дмитрий", "Как меня зовут?", "Вас зовут Дмитрий."),
        ("This is Dmitry.", "What is my name?", "Your name is Dmitry."),
    ],
)
def test_a_name_given_in_short_is_remembered(client, given, asked, answer):
    first = ask(client, given)
    history = [
        {"role": "user", "content": given},
        {"role": "assistant", "content": first.content},
    ]
    assert said(_then(client, history, asked)).startswith(answer)


def test_a_place_is_not_taken_for_a_name(client):
    history = [{"role": "user", "content": "Это Париж."}, {"role": "assistant", "content": "Да."}]
    assert said(_then(client, history, "Как меня зовут?")).startswith("Я не знаю")
