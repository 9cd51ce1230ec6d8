"""The system-prompt orders of notebook 01 in the short forms a learner types ("Одним
предложением.", "Будь пиратом.", "Отвечай по французски", "Не используй инструменты."), with
their English counterparts."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, WEATHER, ask, calls, said

from course_helpers.offline import CourseModelApp
from course_helpers.offline.instruction_words import instructions_in


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


@pytest.mark.parametrize(
    ("system", "kinds"),
    [
        ("Одним предложением.", ["one_sentence"]),
        ("Одним предложением, пожалуйста.", ["one_sentence"]),
        ("In one sentence.", ["one_sentence"]),
        ("Please, in one sentence.", ["one_sentence"]),
        ("Будь пиратом.", ["pirate"]),
        ("Be a pirate.", ["pirate"]),
        ("Отвечай по французски", ["french"]),
        ("Отвечай на французском.", ["french"]),
        ("Отвечай по английски.", ["english"]),
        ("Не будь пиратом.", []),
        ("Don't be a pirate.", []),
        ("It would be fun to have a pirate on board.", []),
        ("Он ответил одним предложением.", []),
    ],
)
def test_short_forms_of_the_instructions(system, kinds):
    assert instructions_in(system) == kinds


@pytest.mark.parametrize(
    ("system", "asked", "expected"),
    [
        (
            "Одним предложением.",
            "Что такое агент?",
            "Агент — это программа, которая вызывает языковую модель в цикле.",
        ),
        (
            "In one sentence.",
            "What is an agent?",
            "An agent is a program that calls a language model in a loop.",
        ),
        (
            "Будь пиратом.",
            "Привет!",
            "Эй, на палубе! Я офлайн-модель курса. Что вы хотите попробовать?",
        ),
        (
            "Be a pirate.",
            "Hello!",
            "Ahoy! I am the offline course model. What would you like to try?",
        ),
        (
            "Отвечай по французски",
            "Привет!",
            "Bonjour ! Je suis le modèle de cours hors ligne. Que voulez-vous essayer ?",
        ),
    ],
)
def test_a_short_instruction_changes_the_answer(client, system, asked, expected):
    assert said(ask(client, asked, system=system)) == expected


@pytest.mark.parametrize(
    ("system", "asked", "note"),
    [
        ("Не используй инструменты.", "Какая погода в Париже?", "Мне сказали не использовать"),
        ("Отвечай без инструментов.", "Какая погода в Париже?", "Мне сказали не использовать"),
        ("Don't use tools.", "What's the weather in Paris?", "I was told not to use"),
        ("Answer without using any tools.", "What's the weather in Paris?", "I was told not to"),
    ],
)
def test_an_order_not_to_use_tools_drops_the_call(client, system, asked, note):
    message = ask(client, asked, system=system, tools=[WEATHER])
    assert calls(message) == []
    assert said(message).startswith(note)


@pytest.mark.parametrize(
    "system",
    [
        "Не используй инструменты, если можно ответить сразу.",
        "Do not use tools unless you must.",
        "Tools are used by the program.",
    ],
)
def test_a_conditional_order_or_a_description_of_tools_drops_no_call(client, system):
    message = ask(client, "Какая погода в Париже?", system=system, tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": "Paris"})]
