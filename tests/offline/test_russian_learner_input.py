"""More free input a Russian-speaking learner types in lessons 00–03: cities of several words,
Latin words in a Russian message, weather asked without the word «погода», plain chat with a
tool on offer, pirate and one sentence together, and what the person says after a weather answer
(thanks, "where is it warmer?"). The English forms of the same rules beside them."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, WEATHER, ask, calls, said, then

from course_helpers.offline import CourseModelApp
from course_helpers.offline.russian import UNTRANSLATED, writes_russian


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


RESULTS = {"Paris": "18°C, light rain", "London": "12°C, cloudy", "Oslo": "41°F, clear"}


def _looked_up(client, question: str, **extra) -> list[dict]:
    """The messages of a weather question, the model's calls, their results and its answer."""
    messages = [{"role": "user", "content": question}]
    first = ask(client, messages, tools=[WEATHER], **extra)
    results = [
        {"type": "tool_result", "tool_use_id": b.id, "content": RESULTS[b.input["city"]]}
        for b in first.content
        if b.type == "tool_use"
    ]
    assert results, said(first)
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": results},
    ]
    answer = ask(client, messages, tools=[WEATHER], **extra)
    return [*messages, {"role": "assistant", "content": answer.content}]


# -- 1. cities of several words and hyphenated ones ------------------------------------------------


@pytest.mark.parametrize(
    ("place", "city"),
    [
        ("в Нижнем Новгороде", "Nizhny Novgorod"),
        ("в Нижний Новгород", "Nizhny Novgorod"),
        ("в нижнем новгороде", "Nizhny Novgorod"),
        ("для Нижнего Новгорода", "Nizhny Novgorod"),
        ("в Санкт-Петербурге", "Saint Petersburg"),
        ("в Петербурге", "Saint Petersburg"),
        ("в Питере", "Saint Petersburg"),
        ("в Ростове-на-Дону", "Rostov-on-Don"),
        ("в Нью-Йорке", "New York"),
        ("в Лос-Анджелесе", "Los Angeles"),
        ("в Рио-де-Жанейро", "Rio de Janeiro"),
        ("в Буэнос-Айресе", "Buenos Aires"),
        ("в Праге", "Prague"),
        ("в Великом Устюге", "Velikiy Ustyug"),
        ("в Нижнем Тагиле", "Nizhniy Tagil"),
        ("в Красной Поляне", "Krasnaya Polyana"),
        ("для Верхней Пышмы", "Verkhnyaya Pyshma"),
        ("в Усть-Илимске", "Ust-Ilimsk"),
    ],
)
def test_a_city_of_several_words_is_passed_whole(client, place, city):
    message = ask(client, f"Какая погода {place}?", tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": city})]
    assert UNTRANSLATED not in said(message)


def test_a_known_city_of_two_words_is_named_in_russian_in_the_answer(client):
    message = ask(client, "Какая погода в Нижнем Новгороде и Париже?", tools=[WEATHER])
    assert said(message) == "Сейчас узнаю погоду: Нижний Новгород и Париж."


# -- 2. a Latin word in a Russian message ---------------------------------------------------------


@pytest.mark.parametrize(
    "asked",
    [
        "Какая погода в Paris?",
        "Привет, я Olga",
        "Что такое API?",
        "Что такое Claude Code?",
        "Расскажи про API Anthropic",
        "Используй get_weather.",
    ],
)
def test_a_russian_message_with_latin_words_is_russian(asked):
    assert writes_russian(asked)


@pytest.mark.parametrize("asked", ["What is Привет?", "Hello, Олег!", "Paris, 18 C and sunny"])
def test_an_english_message_with_a_russian_word_is_english(asked):
    assert not writes_russian(asked)


def test_a_russian_question_about_a_latin_term_is_answered_in_russian(client):
    answer = said(ask(client, "Что такое Claude Code?"))
    assert answer.startswith("Я офлайн-модель курса")
    assert "«Что такое Claude Code?»" in answer and "Спросите «Что ты умеешь?»" in answer
    assert UNTRANSLATED not in answer


# -- 3. weather asked without the word for it ----------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "city"),
    [
        ("Холодно в Осло?", "Oslo"),
        ("Сколько градусов в Берлине?", "Berlin"),
        ("Нужен ли зонт в Лондоне?", "London"),
        ("Жарко ли сейчас в Риме?", "Rome"),
        ("Идёт ли дождь в Праге?", "Prague"),
        ("Какая температура в Мадриде?", "Madrid"),
        ("Is it cold in Oslo?", "Oslo"),
        ("Do I need an umbrella in London?", "London"),
        ("How many degrees is it in Berlin?", "Berlin"),
    ],
)
def test_a_weather_question_without_the_word_calls_the_tool(client, asked, city):
    assert calls(ask(client, asked, tools=[WEATHER])) == [("get_weather", {"city": city})]


@pytest.mark.parametrize(
    "asked", ["Холодно в Осло?", "Нужен ли зонт в Лондоне?", "Какая погода в Париже?"]
)
def test_without_a_weather_tool_the_model_says_it_cannot_check_in_russian(client, asked):
    answer = said(ask(client, asked))
    assert answer.startswith("В этом запросе у меня нет инструмента, чтобы узнать погоду")
    assert UNTRANSLATED not in answer


def test_without_a_weather_tool_the_model_says_it_cannot_check_in_english(client):
    answer = said(ask(client, "Is it cold in Oslo?"))
    assert answer.startswith("I have no tool to check the weather in this request")


@pytest.mark.parametrize(
    "asked",
    ["Paris, 18 C and sunny", "Write a poem about rain.", "What is the temperature of the sun?"],
)
def test_a_stated_weather_a_task_or_another_question_is_not_one_to_check(client, asked):
    assert not said(ask(client, asked)).startswith("I have no tool")


# -- 4. plain chat with a tool on offer ------------------------------------------------------------

NAME_GIVEN = [
    {"role": "user", "content": "Меня зовут Олег"},
    {"role": "assistant", "content": "Приятно познакомиться, Олег!"},
    {"role": "user", "content": "Как меня зовут?"},
]


@pytest.mark.parametrize(
    "asked",
    [
        "Привет!",
        "Меня зовут Олег",
        NAME_GIVEN,
        "Сколько будет 2+2?",
        "Что такое агент?",
        "Посчитай от 1 до 5.",
        "Hello!",
        "My name is Oleg",
        "What is 2+2?",
    ],
)
def test_plain_chat_is_answered_the_same_with_a_tool_on_offer(client, asked):
    alone = ask(client, asked)
    offered = ask(client, asked, tools=[WEATHER])
    assert calls(offered) == []
    assert said(offered) == said(alone)
    assert "I only play the course's scenarios" not in said(alone)  # not the fallback
    assert "разыгрываю только сценарии курса" not in said(alone)


@pytest.mark.parametrize(
    ("follow_up", "expected"),
    [
        ("Привет!", "Привет! Я офлайн-модель курса. Что вы хотите попробовать?"),
        ("Меня зовут Олег", "Приятно познакомиться, Олег!"),
        ("Сколько будет 2+2?", "2+2 = 4."),
        ("What is 2+2?", "2+2 = 4."),
    ],
)
def test_plain_chat_after_a_weather_answer_is_not_a_new_lookup(client, follow_up, expected):
    history = _looked_up(client, "Какая погода в Париже?")
    message = then(client, history, follow_up, tools=[WEATHER])
    assert calls(message) == []
    assert said(message) == expected


@pytest.mark.parametrize(
    ("follow_up", "city"), [("А в Лондоне?", "London"), ("And in Oslo?", "Oslo")]
)
def test_a_follow_up_that_names_a_city_is_still_a_lookup(client, follow_up, city):
    history = _looked_up(client, "Какая погода в Париже?")
    message = then(client, history, follow_up, tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": city})]


@pytest.mark.parametrize("follow_up", ["А по Фаренгейту?", "In fahrenheit?"])
def test_a_follow_up_that_names_a_unit_is_still_a_lookup(client, follow_up):
    history = _looked_up(client, "Какая погода в Париже?")
    message = then(client, history, follow_up, tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": "Paris", "unit": "fahrenheit"})]


# -- 6. pirate and one sentence together -----------------------------------------------------------


def test_a_pirate_in_one_sentence_reports_the_weather_in_russian(client):
    history = _looked_up(
        client, "Какая погода в Париже и Лондоне?", system="Ты пират. Отвечай одним предложением."
    )
    answer = "".join(b.text for b in history[-1]["content"] if b.type == "text")
    assert answer == (
        "Арр! Вот погода, о которой вы спрашивали: Париж: 18°C, небольшой дождь; "
        "Лондон: 12°C, облачно."
    )


def test_a_failed_city_in_one_sentence_is_said_in_russian(client):
    messages = [{"role": "user", "content": "Какая погода в Париже и Лондоне?"}]
    first = ask(client, messages, tools=[WEATHER], system="Отвечай одним предложением.")
    results = [
        {
            "type": "tool_result",
            "tool_use_id": b.id,
            "content": "Error: no data" if b.input["city"] == "London" else "18°C",
            "is_error": b.input["city"] == "London",
        }
        for b in first.content
        if b.type == "tool_use"
    ]
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": results},
    ]
    answer = said(ask(client, messages, tools=[WEATHER], system="Отвечай одним предложением."))
    assert answer == (
        "Вот погода, о которой вы спрашивали: Париж: 18°C; "
        "Мне не удалось узнать погоду в городе Лондон: Error: no data."
    )


def test_a_pirate_in_one_sentence_in_english(client):
    history = _looked_up(
        client,
        "What's the weather in Paris and London?",
        system="You are a pirate. Answer in one sentence.",
    )
    answer = "".join(b.text for b in history[-1]["content"] if b.type == "text")
    assert answer == (
        "Arr! Here is the weather you asked about: Paris: 18°C, light rain; London: 12°C, cloudy."
    )


# -- 7. thanks after a weather answer --------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "thanks", "reply"),
    [
        ("Какая погода в Париже?", "Спасибо!", "Пожалуйста!"),
        ("Какая погода в Париже?", "Спасибо большое!", "Пожалуйста!"),
        ("What's the weather in Paris?", "Thanks!", "You're welcome!"),
        ("What's the weather in Paris?", "Thank you so much.", "You're welcome!"),
    ],
)
def test_thanks_after_a_weather_answer_is_answered_without_a_call(client, question, thanks, reply):
    message = then(client, _looked_up(client, question), thanks, tools=[WEATHER])
    assert calls(message) == []
    assert said(message) == reply


# -- 8. which city is warmer, from the results already given ---------------------------------------


@pytest.mark.parametrize(
    ("question", "follow_up", "answer"),
    [
        (
            "Какая погода в Париже и Лондоне?",
            "Где теплее?",
            "Париж теплее, чем Лондон: 18°C против 12°C.",
        ),
        (
            "Какая погода в Париже и Лондоне?",
            "Где холоднее?",
            "Лондон холоднее, чем Париж: 12°C против 18°C.",
        ),
        (
            "What's the weather in Paris and London?",
            "Which is warmer?",
            "Paris is warmer than London: 18°C, against 12°C.",
        ),
        (
            "What's the weather in Paris, London and Oslo?",
            "Where is it colder?",
            "Oslo is colder than London and Paris: 41°F, against 12°C and 18°C.",
        ),
    ],
)
def test_a_comparison_is_answered_from_the_results(client, question, follow_up, answer):
    message = then(client, _looked_up(client, question), follow_up, tools=[WEATHER])
    assert calls(message) == []
    assert said(message) == answer


def test_a_comparison_with_a_city_not_looked_up_calls_for_it(client):
    history = _looked_up(client, "Какая погода в Париже и Лондоне?")
    message = then(client, history, "Где теплее, в Париже или в Осло?", tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": "Oslo"})]


@pytest.mark.parametrize(
    ("place", "city"),
    [
        ("в Самаре", "Samara"),
        ("в Туле", "Tula"),
        ("в Уфе", "Ufa"),
        ("в Варшаве", "Warsaw"),
        ("в Твери", "Tver"),
        ("в Перми", "Perm"),
        ("в Стамбуле", "Istanbul"),
        ("в Лиссабоне", "Lisbon"),
        ("в Новом Уренгое", "Novy Urengoy"),
        ("в Мск", "Moscow"),
        ("в СПб", "Saint Petersburg"),
        ("в Санкт Петербурге", "Saint Petersburg"),
        ("в Лос Анджелесе", "Los Angeles"),
        ("в Нью Йорке", "New York"),
        ("в Новом Осколе", "Novyy Oskol"),
    ],
)
def test_a_common_city_or_a_name_without_its_hyphen_is_passed_by_its_name(client, place, city):
    message = ask(client, f"Какая погода {place}?", tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": city})]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Где теплее, в Париже или в Лондоне?", "Париж теплее, чем Лондон: 18°C против 12°C."),
        ("Где холоднее, в Париже или в Лондоне?", "Лондон холоднее, чем Париж: 12°C против 18°C."),
    ],
)
def test_a_comparison_asked_first_is_answered_once_the_results_are_in(client, question, answer):
    history = _looked_up(client, question)
    assert [b.input["city"] for b in history[1]["content"] if b.type == "tool_use"] == [
        "Paris",
        "London",
    ]
    assert "".join(b.text for b in history[-1]["content"] if b.type == "text") == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Сколько будет 2+2? Спасибо!", "2+2 = 4."),
        ("What is 2+2? Thanks!", "2+2 = 4."),
        ("А сколько будет 2+2?", "2+2 = 4."),
        ("And what is 2+2?", "2+2 = 4."),
    ],
)
def test_a_sum_is_worked_out_without_the_words_around_it(client, question, answer):
    message = ask(client, question)
    assert said(message) == answer
