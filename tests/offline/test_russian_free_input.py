"""Free input a Russian-speaking learner types in lessons 00–03, beyond the lessons' own wordings:
English that would slip through a Russian answer unnoticed, cities the Russian list does not
know, lowercase and Latin-script names, a unit asked for, and structured output from a Russian
question. The English forms of the same rules are tested beside them."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, WEATHER
from russian_answers import ask as _ask
from russian_answers import calls as _calls
from russian_answers import said as _said

from course_helpers.offline import CourseModelApp
from course_helpers.offline.russian import UNTRANSLATED, answer_in_russian


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


def _round_trip(client, question: str, results: dict[str, tuple[str, bool]], **extra):
    """The question, the model's calls, and the answer to `results` (city: (text, is_error))."""
    messages = [{"role": "user", "content": question}]
    first = _ask(client, messages, tools=[WEATHER], **extra)
    answers = [
        {
            "type": "tool_result",
            "tool_use_id": b.id,
            "content": results[b.input["city"]][0],
            "is_error": results[b.input["city"]][1],
        }
        for b in first.content
        if b.type == "tool_use"
    ]
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": answers},
    ]
    return _said(_ask(client, messages, tools=[WEATHER], **extra))


# -- 1. no English sentence gets through a Russian answer unnoticed ------------------------------


@pytest.mark.parametrize(
    ("english", "russian"),
    [
        (
            "I could not get the weather for London: Error: no data. Try Paris.",
            "Мне не удалось узнать погоду в городе Лондон: Error: no data. Try Paris.",
        ),
        (
            # 02's tool with a vague description gets the places in one call.
            "I could not get the weather for Paris and Tokyo: Error: unknown city.",
            "Мне не удалось узнать погоду в городе Париж и Токио: Error: unknown city.",
        ),
        (
            "Here is the weather you asked about: Paris: 18°C, light rain.",
            "Вот погода, о которой вы спрашивали: Париж: 18°C, небольшой дождь.",
        ),
    ],
)
def test_a_line_that_introduces_data_is_said_in_russian(english, russian):
    assert answer_in_russian(english) == russian


def test_a_sentence_before_a_colon_is_prose_not_data():
    said = answer_in_russian("The tool told me something new: it is raining.")
    assert said.splitlines()[0] == UNTRANSLATED


def test_a_failed_city_in_a_russian_round_trip_is_said_in_russian(client):
    said = _round_trip(
        client,
        "Какая погода в Париже и Лондоне?",
        {"Paris": ("18°C, light rain", False), "London": ("Error: service unavailable", True)},
    )
    assert said == (
        "Вот погода, о которой вы спрашивали:\nПариж: 18°C, небольшой дождь\n"
        "Мне не удалось узнать погоду в городе Лондон: Error: service unavailable"
    )


def test_a_misleading_description_is_explained_in_russian(client):
    tool = {**WEATHER, "description": "Returns the population of a city."}
    said = _said(_ask(client, "Какая погода в Париже?", tools=[tool]))
    assert said.startswith("Ни один из моих инструментов не сообщает погоду: про get_weather")
    assert UNTRANSLATED not in said


def test_a_quoted_question_of_several_sentences_stays_one_sentence(client):
    said = _said(_ask(client, "Спасибо! Пока!"))
    assert "на запрос «Спасибо! Пока!» ответить не могу." in said
    assert "cannot answer" not in said


# -- 2, 3. cities the list does not know, any case, either script ----------------------------------


@pytest.mark.parametrize(
    ("question", "cities"),
    [
        ("Какая погода в Екатеринбурге?", ["Yekaterinburg"]),
        ("Какая погода в Париже и Атлантиде?", ["Paris", "Atlantis"]),
        ("Какая погода в Краснодаре?", ["Krasnodar"]),
        ("Как там погода в Питере?", ["Saint Petersburg"]),
        ("какая щас погода в москве", ["Moscow"]),
        ("Какая погода в Paris?", ["Paris"]),
        ("What's the weather in Париж?", ["Paris"]),
        ("what's the weather in moscow", ["Moscow"]),
    ],
)
def test_every_city_the_question_names_is_asked_for(client, question, cities):
    calls = _calls(_ask(client, question, tools=[WEATHER]))
    assert calls == [("get_weather", {"city": city}) for city in cities]


def test_a_city_the_tool_does_not_know_fails_honestly_in_russian(client):
    said = _round_trip(
        client,
        "Какая погода в Атлантиде?",
        {"Atlantis": ("Error: No weather data for 'Atlantis'", True)},
    )
    assert said.startswith(
        "Мне не удалось узнать погоду в городе Атлантида: Error: No weather data for 'Atlantis'"
    )


# -- 4, 5. the unit asked for; structured output from a Russian question -----------------------------


@pytest.mark.parametrize(
    "question",
    ["Какая погода в Осло по Фаренгейту?", "What's the weather in Oslo in fahrenheit?"],
)
def test_a_unit_the_person_asks_for_is_passed(client, question):
    calls = _calls(_ask(client, question, tools=[WEATHER]))
    assert calls == [("get_weather", {"city": "Oslo", "unit": "fahrenheit"})]


def test_no_unit_is_sent_when_none_is_asked_for(client):
    calls = _calls(_ask(client, "Какая погода в Осло?", tools=[WEATHER]))
    assert calls == [("get_weather", {"city": "Oslo"})]


def test_structured_output_reads_a_russian_city_and_unit(client):
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city", "unit"],
        "additionalProperties": False,
    }
    message = _ask(
        client,
        "Какой город и какую единицу имеет в виду вопрос: 'Холодно ли в Осло по Фаренгейту?'",
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    assert _said(message) == '{"city": "Oslo", "unit": "fahrenheit"}'


def test_a_tool_asked_for_by_name_gets_the_russian_city(client):
    message = _ask(client, "Нужен ли зонт в Париже? Используй get_weather.", tools=[WEATHER])
    assert _calls(message) == [("get_weather", {"city": "Paris"})]
    assert UNTRANSLATED not in _said(message)


# -- 14. wording ----------------------------------------------------------------------------------


def test_three_cities_are_listed_with_commas(client):
    message = _ask(client, "Какая погода в Берлине, Риме и Мадриде?", tools=[WEATHER])
    assert _said(message) == "Сейчас узнаю погоду: Берлин, Рим и Мадрид."
    message = _ask(client, "What's the weather in Berlin, Rome and Madrid?", tools=[WEATHER])
    assert _said(message) == "I'll check the weather in Berlin, Rome and Madrid."


def test_a_forecast_is_introduced_as_a_forecast(client):
    forecast = {
        "name": "get_forecast",
        "description": "Weather forecast for one city for the coming days.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
    question = [{"role": "user", "content": "Будет ли дождь в Париже завтра?"}]
    first = _ask(client, question, tools=[forecast])
    (call,) = [b for b in first.content if b.type == "tool_use"]
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "rain"}
    messages = [
        *question,
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [result]},
    ]
    said = _said(_ask(client, messages, tools=[forecast]))
    assert said == "Вот прогноз, о котором вы спрашивали:\nПариж: дождь"


def test_a_french_call_intro_joins_cities_in_french(client):
    message = _ask(
        client,
        "What's the weather in Paris and Tokyo?",
        system="Answer in French.",
        tools=[WEATHER],
    )
    assert _said(message) == "Je regarde la météo à Paris et Tokyo."


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ("Доброго вечера!", "Здравствуйте!"),
        ("Приветствую вас.", "Здравствуйте!"),
        ("Салют!", "Привет!"),
    ],
)
def test_more_russian_greetings_are_greetings(client, asked, expected):
    assert _said(_ask(client, asked)).startswith(expected)


FORECAST = {
    "name": "get_forecast",
    "description": "The weather forecast for a city and a day.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


@pytest.mark.parametrize(
    "asked",
    [
        "Какая погода будет в Париже послезавтра?",
        "Какая погода в Париже через два дня?",
        "What's the weather in Paris the day after tomorrow?",
    ],
)
def test_the_day_after_tomorrow_asks_for_a_forecast(client, asked):
    calls = _calls(_ask(client, asked, tools=[WEATHER, FORECAST]))
    assert [name for name, _ in calls] == ["get_forecast"]


def test_a_stated_weather_in_russian_is_answered_in_russian(client):
    message = _ask(client, "Париж, 18 градусов и солнечно. Дай отчёт о погоде.", tools=[WEATHER])
    assert _said(message).startswith("Погоду вы назвали сами")
    assert _calls(message) == []


def test_a_french_weather_answer_says_the_conditions_in_french(client):
    first = _ask(
        client, "What's the weather in Paris?", system="Answer in French.", tools=[WEATHER]
    )
    call = next(b for b in first.content if b.type == "tool_use")
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "Paris: 18°C, light rain"}
    messages = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [result]},
    ]
    said = _said(_ask(client, messages, system="Answer in French.", tools=[WEATHER]))
    assert "pluie légère" in said, said
    assert "light rain" not in said
