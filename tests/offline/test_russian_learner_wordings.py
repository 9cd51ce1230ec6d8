"""Wordings a Russian-speaking learner types in lessons 00–01 that the course model must read
like their usual forms: counting without a start, a short greeting, a goodbye, a thanks, a name
given as «Я Дмитрий.», and orders about the answer's shape. The English forms beside them."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, ask, said

from course_helpers.offline import CourseModelApp


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


@pytest.mark.parametrize("asked", ["Посчитай до 10.", "Count to 10.", "Сосчитай до 10"])
def test_counting_without_a_start_counts_from_one(client, asked):
    assert said(ask(client, asked)).strip() == "1, 2, 3, 4, 5, 6, 7, 8, 9, 10."


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        ("Хай", "Привет!"),
        ("Хай!", "Привет!"),
        ("Пока!", "До свидания!"),
        ("До свидания", "До свидания!"),
        ("Bye!", "Goodbye!"),
        ("Goodbye.", "Goodbye!"),
        ("ок, спс", "Пожалуйста!"),
        ("спс", "Пожалуйста!"),
        ("ok, thanks", "You're welcome!"),
    ],
)
def test_a_short_greeting_goodbye_or_thanks_is_answered(client, asked, reply):
    answer = said(ask(client, asked))
    assert answer.startswith(reply), answer
    assert "I only play the course's scenarios" not in answer  # not the fallback
    assert "разыгрываю только сценарии курса" not in answer


@pytest.mark.parametrize(
    ("introduced", "asked", "name"),
    [
        ("Я Дмитрий.", "Как меня зовут?", "Дмитрий"),
        ("Зови меня Саша", "Как меня зовут?", "Саша"),
        ("I'm Dmitry.", "What is my name?", "Dmitry"),
        ("Call me Sasha", "What's my name?", "Sasha"),
    ],
)
def test_a_name_given_in_short_is_remembered(client, introduced, asked, name):
    first = ask(client, introduced)
    assert name in said(first)
    messages = [
        {"role": "user", "content": introduced},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": asked},
    ]
    assert name in said(ask(client, messages))


def test_a_state_is_not_a_name(client):
    messages = [
        {"role": "user", "content": "Я устал."},
        {"role": "assistant", "content": "Понимаю."},
        {"role": "user", "content": "Как меня зовут?"},
    ]
    assert "Устал" not in said(ask(client, messages))
    assert "не знаю" in said(ask(client, messages))


@pytest.mark.parametrize(
    ("system", "found"),
    [
        ("Ответь в одном предложении.", ["one_sentence"]),
        ("Ответь одной фразой.", ["one_sentence"]),
        ("Одно предложение.", ["one_sentence"]),
        ("Оформи ответ списком пунктов.", ["bullets"]),
        ("Ты пират и отвечаешь по-французски.", ["pirate", "french"]),
    ],
)
def test_an_order_in_another_wording_is_read(system, found):
    from course_helpers.offline.instruction_words import instructions_in

    assert sorted(instructions_in(system)) == sorted(found)


@pytest.mark.parametrize(
    "asked",
    [
        "Что такое агент? Отвечай маркированным списком из трёх пунктов.",
        "What is an agent? Answer in three bullet points.",
    ],
)
def test_three_bullet_points_are_three(client, asked):
    lines = said(ask(client, asked)).splitlines()
    assert len(lines) == 3, lines
    assert all(line.startswith("- ") for line in lines)
