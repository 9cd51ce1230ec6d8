"""01's instructions and names as a learner types them, in Russian and in English, read by one
rule: a negated persona orders nothing, a negation does not swallow the next instruction, the
common Russian forms of the four instructions are followed, quoted words order nothing, a
system-prompt order to call a tool works for a question that names the tool's city, and a
corrected name wins over the first one."""

from __future__ import annotations

import pytest
from russian_answers import STRICT
from russian_answers import ask as _ask
from russian_answers import calls as _calls
from russian_answers import said as _said

from course_helpers.offline import CourseModelApp


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


QUESTION = "Что такое агент?"
PLAIN = "Агент — это программа, которая вызывает языковую модель в цикле. На каждой итерации"
ONE = "Агент — это программа, которая вызывает языковую модель в цикле."
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
WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for one city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


# -- 7. negations ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "system"),
    [
        (QUESTION, "Ты не пират."),
        (QUESTION, "Вы не пират!"),
        ("What is an agent?", "You are not a pirate."),
        ("Что такое агент? Ты не пират.", None),
    ],
)
def test_a_negated_persona_is_no_persona(client, question, system):
    said = _said(_ask(client, question, **({"system": system} if system else {})))
    assert not said.startswith(("Арр", "Arr")), said


@pytest.mark.parametrize(
    ("question", "system", "expected"),
    [
        (QUESTION, "Не отвечай по-французски, отвечай одним предложением.", ONE),
        (
            "What is an agent?",
            "Don't answer in French, answer in one sentence.",
            "An agent is a program that calls a language model in a loop.",
        ),
    ],
)
def test_a_negation_does_not_swallow_the_next_instruction(client, question, system, expected):
    assert _said(_ask(client, question, system=system)) == expected


# -- 8. common Russian forms ---------------------------------------------------------------------


@pytest.mark.parametrize("system", ["Ты — пират!", "Ты - пират.", "Отвечай как пират."])
def test_common_russian_forms_of_the_pirate(client, system):
    assert _said(_ask(client, QUESTION, system=system)).startswith("Арр! Агент")


@pytest.mark.parametrize("system", ["Ответь по пунктам.", "Используй маркированный список."])
def test_common_russian_forms_of_bullet_points(client, system):
    assert _said(_ask(client, QUESTION, system=system)).startswith("- Агент")


@pytest.mark.parametrize(
    "question",
    ["Что такое агент? Ответь как пират.", "Что такое агент? Отвечай одним предложеньем."],
)
def test_common_russian_forms_in_the_persons_message(client, question):
    said = _said(_ask(client, question))
    assert said.startswith("Арр! Агент") or said == ONE, said


def test_two_russian_instructions_in_one_sentence(client):
    said = _said(_ask(client, QUESTION, system="Отвечай списком и как пират."))
    assert said.startswith("Арр!\n- Агент — это программа"), said


def test_the_english_forms_of_the_same_rules(client):
    said = _said(_ask(client, "What is an agent?", system="Use a bulleted list."))
    assert said.startswith("- An agent is a program")


# -- 6. quoted instructions order nothing ----------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Мой друг сказал: «Отвечай по-французски». Что такое агент?",
        "Скажи 'ты пират' своему другу. Что такое агент?",
        'Мой друг сказал: "Ответь одним предложением". Что такое агент?',
    ],
)
def test_a_quoted_instruction_orders_nothing_in_russian(client, question):
    assert _said(_ask(client, question)).startswith(PLAIN)


def test_a_quoted_instruction_orders_nothing_in_english(client):
    said = _said(_ask(client, 'My friend said: "Answer in French." What is an agent?'))
    assert said.startswith("An agent is a program that calls a language model in a loop. Each")


@pytest.mark.parametrize(
    ("question", "called"),
    [
        ('Друг написал: "посмотри, всегда вызывай convert_currency". Как устроен Plan 9?', False),
        ('My friend wrote "look and then call convert_currency". How does Plan 9 work?', False),
        ("Всегда вызывай convert_currency. Как устроен Plan 9?", True),
    ],
)
def test_a_quoted_tool_order_orders_nothing(client, question, called):
    assert bool(_calls(_ask(client, question, tools=[CONVERTER]))) is called


# -- 9. a system-prompt order for a question that names the tool's city -------------------------


@pytest.mark.parametrize(
    ("question", "system"),
    [
        ("Холодно ли сейчас в Осло?", "Используй get_weather."),
        ("Is it cold in Oslo right now?", "Use get_weather."),
    ],
)
def test_a_system_order_to_call_a_tool_for_its_city(client, question, system):
    message = _ask(client, question, system=system, tools=[WEATHER])
    assert _calls(message) == [("get_weather", {"city": "Oslo"})]


def test_a_system_order_does_not_call_for_an_unrelated_question(client):
    message = _ask(client, "Как устроен Plan 9?", system="Используй get_weather.", tools=[WEATHER])
    assert _calls(message) == []


# -- 10. names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("Меня зовут не Ада, а Ира.", "Приятно познакомиться, Ира!"),
        ("My name is not Ada, it's Ira.", "Nice to meet you, Ira!"),
        ("Меня зовут Анна-Мария.", "Приятно познакомиться, Анна-Мария!"),
    ],
)
def test_the_name_given_is_the_one_greeted(client, said, answer):
    assert _said(_ask(client, said)) == answer


@pytest.mark.parametrize(
    ("turns", "question", "answer"),
    [
        (["Меня зовут Ада.", "Нет, меня зовут Ира."], "Как меня зовут?", "Вас зовут Ира."),
        (["My name is Ada.", "Sorry, my name is Ira."], "What is my name?", "Your name is Ira."),
    ],
)
def test_the_latest_name_given_wins(client, turns, question, answer):
    messages = []
    for turn in turns:
        messages += [
            {"role": "user", "content": turn},
            {"role": "assistant", "content": "OK."},
        ]
    said = _said(_ask(client, [*messages, {"role": "user", "content": question}]))
    assert said.startswith(answer), said


# -- 15. asked for English -----------------------------------------------------------------------


@pytest.mark.parametrize("system", ["Отвечай по-английски.", "Answer in English."])
def test_a_russian_question_asked_to_be_answered_in_english(client, system):
    said = _said(_ask(client, QUESTION, system=system))
    assert said.startswith("An agent is a program that calls a language model in a loop."), said


def test_english_is_not_asked_for_by_a_negation(client):
    assert _said(_ask(client, QUESTION, system="Не отвечай по-английски.")).startswith(PLAIN)
