"""The Russian edition's free input: greetings, names, 01's system-prompt instructions and the
weather questions of 02–03, typed in Russian, get Russian answers."""

from __future__ import annotations

import pytest
from russian_answers import STRICT
from russian_answers import ask as _ask
from russian_answers import calls as _calls
from russian_answers import said as _said
from tool_shapes import GET_WEATHER_ONE_CITY

from course_helpers.offline import CourseModelApp
from course_helpers.offline.russian import answer_in_russian, writes_russian


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


CONVERTER = {
    "name": "convert_currency",
    "description": "Convert an amount between currencies.",
    "input_schema": {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "source": {"type": "string", "enum": ["EUR", "JPY", "USD"]},
            "target": {"type": "string", "enum": ["EUR", "JPY", "USD"]},
        },
        "required": ["amount", "source", "target"],
    },
}


@pytest.mark.parametrize(
    ("greeting", "answer"),
    [("Привет!", "Привет!"), ("Здравствуйте.", "Здравствуйте!"), ("Добрый день!", "Здравствуйте!")],
)
def test_a_russian_greeting_is_answered_in_russian_as_formally(client, greeting, answer):
    said = _said(_ask(client, greeting))
    assert said == f"{answer} Я офлайн-модель курса. Что вы хотите попробовать?"


def test_a_name_told_in_russian_is_remembered_in_russian(client):
    first = _ask(client, "Меня зовут Ада.")
    assert _said(first) == "Приятно познакомиться, Ада!"
    messages = [
        {"role": "user", "content": "Меня зовут Ада."},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": "Как меня зовут?"},
    ]
    assert _said(_ask(client, messages)).startswith("Вас зовут Ада.")
    assert _said(_ask(client, "Как меня зовут?")).startswith("Я не знаю, как вас зовут.")


@pytest.mark.parametrize(
    ("system", "expected"),
    [
        (
            "Отвечай одним предложением.",
            "Агент — это программа, которая вызывает языковую модель в цикле.",
        ),
        ("Отвечай списком.", "- Агент — это программа"),
        ("Отвечай по-французски.", "Un agent est un programme"),
    ],
)
def test_the_system_prompt_instructions_of_01_in_russian(client, system, expected):
    said = _said(_ask(client, "Что такое агент?", system=system))
    assert said.startswith(expected)
    if system == "Отвечай одним предложением.":
        assert said == expected


def test_a_pirate_in_russian(client):
    said = _said(_ask(client, "Привет!", system="Ты пират."))
    assert said.startswith("Эй, на палубе!")


def test_the_weather_questions_of_02_and_03_in_russian(client):
    question = [{"role": "user", "content": "Какая погода в Париже и Токио?"}]
    first = _ask(client, question, tools=[GET_WEATHER_ONE_CITY])
    assert _calls(first) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})]
    assert _said(first) == "Сейчас узнаю погоду: Париж и Токио."
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": "18°C"}
            for b in first.content
            if b.type == "tool_use"
        ],
    }
    messages = [*question, {"role": "assistant", "content": first.content}, results]
    answer = _said(_ask(client, messages, tools=[GET_WEATHER_ONE_CITY]))
    assert answer == "Вот погода, о которой вы спрашивали:\nПариж: 18°C\nТокио: 18°C"


@pytest.mark.parametrize(
    ("system", "called"),
    [
        ("Всегда вызывай convert_currency для пересчёта.", True),
        ("Используй convert_currency.", True),
        ("Не вызывай convert_currency.", False),
        ("Никогда не используй convert_currency.", False),
        ("У тебя есть инструмент convert_currency.", False),
    ],
)
def test_an_order_about_a_tool_in_russian(client, system, called):
    message = _ask(client, "Сколько будет 100 EUR в JPY?", system=system, tools=[CONVERTER])
    calls = _calls(message)
    assert bool(calls) is called
    if called:
        assert calls == [("convert_currency", {"amount": 100.0, "source": "EUR", "target": "JPY"})]
        assert _said(message) == "Я вызову convert_currency, как сказано в инструкции."
    else:
        assert "Я офлайн-модель курса" in _said(message)


def test_the_same_questions_in_english_stay_english(client):
    assert _said(_ask(client, "Hello!")).startswith("Hello! I am the offline course model.")
    assert not writes_russian(_said(_ask(client, "What is an agent?")))


def test_a_sentence_the_phrase_book_lacks_stays_english_and_says_so():
    said = answer_in_russian("Hello! Something the book has never seen.")
    assert said.splitlines()[0].startswith("(Офлайн-модель курса знает по-русски не все фразы")
    assert said.splitlines()[1] == "Привет! Something the book has never seen."


def test_a_reply_that_quotes_an_answer_with_the_notice_shows_the_notice_once():
    quoted = answer_in_russian("Something the book has never seen.")
    said = answer_in_russian(f"Hello,\n\n{quoted}\n\nKettle & Co support")
    assert said.count("знает по-русски не все фразы") == 1
    assert said.splitlines()[0].startswith("(Офлайн-модель курса знает по-русски не все фразы")
    assert "Something the book has never seen." in said


def test_the_fallback_says_it_plays_the_course_scenarios(client):
    said = _said(_ask(client, "Как устроен агентный цикл в операционной системе Plan 9?"))
    assert "разыгрываю только сценарии курса" in said, said
