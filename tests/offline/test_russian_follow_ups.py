"""More of what a Russian-speaking learner types in lessons 00–03: a name given in other short
forms, a question that refers back to a weather answer, a comparison or a question about what
to wear asked first, and city names in their case endings. The English forms of the same
rules are tested beside them."""

from __future__ import annotations

import pytest
from russian_answers import MODEL, STRICT, WEATHER, ask, calls, said, then

from course_helpers.offline import CourseModelApp
from course_helpers.offline.russian import answer_in_russian


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


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
    assert said(then(client, history, asked)).startswith(answer)


def test_a_place_is_not_taken_for_a_name(client):
    history = [{"role": "user", "content": "Это Париж."}, {"role": "assistant", "content": "Да."}]
    assert said(then(client, history, "Как меня зовут?")).startswith("Я не знаю")


# -- weather: a follow-up that refers back, a comparison and what to wear asked first -----------

RESULTS = {"Paris": "18°C, light rain", "London": "12°C, cloudy", "Moscow": "-5°C, snow"}


def _looked_up(client, question: str) -> list[dict]:
    """The messages of a weather question, the model's calls, their results and its answer."""
    messages = [{"role": "user", "content": question}]
    first = ask(client, messages, tools=[WEATHER])
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
    answer = ask(client, messages, tools=[WEATHER])
    return [*messages, {"role": "assistant", "content": answer.content}]


@pytest.mark.parametrize(
    ("question", "follow_up", "answer"),
    [
        (
            "Какая погода в Париже?",
            "Это холодно?",
            "Нет, в городе Париж 18°C — это тепло, а не холодно.",
        ),
        (
            "Какая погода в Москве?",
            "А это тепло?",
            "Нет, в городе Москва -5°C — это холодно, а не тепло.",
        ),
        ("Какая погода в Москве?", "Холодно?", "Да, в городе Москва -5°C — это холодно."),
        ("What's the weather in Paris?", "Is that cold?", "No, 18°C in Paris is warm, not cold."),
        ("What's the weather in London?", "Is it warm?", "No, 12°C in London is cool, not warm."),
    ],
)
def test_a_follow_up_about_that_weather_is_answered_from_it(client, question, follow_up, answer):
    message = then(client, _looked_up(client, question), follow_up, tools=[WEATHER])
    assert calls(message) == []
    assert said(message) == answer


def test_a_follow_up_about_another_city_is_still_a_lookup(client):
    message = then(
        client, _looked_up(client, "Какая погода в Париже?"), "А в Москве холодно?", tools=[WEATHER]
    )
    assert calls(message) == [("get_weather", {"city": "Moscow"})]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which is warmer, Paris or London?", "Paris is warmer than London: 18°C, against 12°C."),
        (
            "Where is it colder, in Paris or in London?",
            "London is colder than Paris: 12°C, against 18°C.",
        ),
    ],
)
def test_an_english_comparison_asked_first_looks_both_cities_up(client, question, answer):
    history = _looked_up(client, question)
    assert [b.input["city"] for b in history[1]["content"] if b.type == "tool_use"] == [
        "Paris",
        "London",
    ]
    assert said(ask(client, history[:-1], tools=[WEATHER])) == answer


def test_a_choice_without_a_comparison_names_no_city(client):
    message = ask(client, "Should I learn Python or Rust?", tools=[WEATHER])
    assert calls(message) == []


@pytest.mark.parametrize(
    ("question", "city", "advice"),
    [
        (
            "Что надеть сегодня в Москве?",
            "Moscow",
            "В городе Москва стоит надеть тёплое пальто, шапку и перчатки. "
            "В городе Москва наденьте тёплую непромокаемую обувь.",
        ),
        (
            "What should I wear in Paris today?",
            "Paris",
            "In Paris, light clothes are enough. In Paris, take an umbrella.",
        ),
        (
            "Как одеться в Лондоне?",
            "London",
            "В городе Лондон стоит надеть лёгкую куртку или свитер.",
        ),
    ],
)
def test_what_to_wear_is_looked_up_then_advised(client, question, city, advice):
    history = _looked_up(client, question)
    assert [b.input["city"] for b in history[1]["content"] if b.type == "tool_use"] == [city]
    answer = "".join(b.text for b in history[-1]["content"] if b.type == "text")
    assert answer.endswith("\n" + advice)


# -- city names in their case endings --------------------------------------------------------------


@pytest.mark.parametrize(
    ("place", "city"),
    [
        ("в Казани", "Kazan"),
        ("для Казани", "Kazan"),
        ("в Перми", "Perm"),
        ("в Твери", "Tver"),
        ("в Сочи", "Sochi"),
        ("в Нижнем Новгороде", "Nizhny Novgorod"),
        ("в Нижнем", "Nizhny Novgorod"),
        ("в Нижнем Тагиле", "Nizhniy Tagil"),
        ("в Новосибирске", "Novosibirsk"),
        ("в Екатеринбурге", "Yekaterinburg"),
        ("во Владивостоке", "Vladivostok"),
        ("в Ростове-на-Дону", "Rostov-on-Don"),
        ("для Ростова-на-Дону", "Rostov-on-Don"),
        ("в Сиднее", "Sydney"),
        ("для Москвы", "Moscow"),
        ("в Атлантиду", "Atlantis"),
        # Names the list does not know, in the nominative their endings give.
        ("в Рязани", "Ryazan"),
        ("в Ярославле", "Yaroslavl"),
        ("в Иркутске", "Irkutsk"),
        ("в Чебоксарах", "Cheboksary"),
        ("в Химках", "Khimki"),
        ("в Набережных Челнах", "Naberezhnye Chelny"),
        ("в Евпатории", "Yevpatoriya"),
    ],
)
def test_a_city_in_any_case_ending_goes_to_the_tool_in_the_nominative(client, place, city):
    message = ask(client, f"Какая погода {place}?", tools=[WEATHER])
    assert calls(message) == [("get_weather", {"city": city})]


# -- the data lines of a Russian answer ----------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "Какая погода в Париже и Лондоне?",
            "Вот погода, о которой вы спрашивали:\nПариж: 18°C, небольшой дождь\n"
            "Лондон: 12°C, облачно",
        ),
        (
            "What's the weather in Paris and London?",
            "Here is the weather you asked about:\nParis: 18°C, light rain\nLondon: 12°C, cloudy",
        ),
    ],
)
def test_the_weather_lines_are_said_in_the_language_asked(client, question, answer):
    history = _looked_up(client, question)
    assert "".join(b.text for b in history[-1]["content"] if b.type == "text") == answer


def test_a_condition_the_phrase_book_does_not_hold_stays_as_the_tool_wrote_it():
    assert answer_in_russian("Here is the weather you asked about:\nOslo: 3°C, freezing fog") == (
        "Вот погода, о которой вы спрашивали:\nОсло: 3°C, freezing fog"
    )


# -- an essay cut by max_tokens, continued (01's ask_in_full) --------------------------------------


def _in_full(client, essay: str, go_on: str) -> tuple[str, int]:
    """The pieces of an essay asked for with a small max_tokens, joined, and the calls made."""
    history = [{"role": "user", "content": essay}]
    pieces, made = [], 0
    while made < 40:
        cut = client.messages.create(model=MODEL, max_tokens=80, messages=history)
        made += 1
        pieces.append(said(cut))
        history += [{"role": "assistant", "content": cut.content}]
        if cut.stop_reason != "max_tokens":
            break
        history += [{"role": "user", "content": go_on}]
    return "".join(pieces), made


@pytest.mark.parametrize(
    ("essay", "go_on"),
    [
        ("Напиши длинное эссе об агентах.", "Продолжай"),
        ("Напиши эссе об агентах.", "Продолжи с того места, где остановился."),
        ("Напиши длинное эссе об агентах.", "Continue exactly where you stopped."),
        ("Write a long essay about agents.", "Продолжай"),
    ],
)
def test_a_cut_essay_is_continued_in_the_language_it_was_asked_in(client, essay, go_on):
    whole = said(ask(client, essay))
    joined, made = _in_full(client, essay, go_on)
    assert made > 1
    assert joined == whole


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("Моё имя — Сергей.", "Сергей"),
        ("Мое имя Аня", "Аня"),
        ("Зовут меня Аня.", "Аня"),
        ("Меня звать Аня", "Аня"),
        ("Привет, я Дмитрий.", "Дмитрий"),
        ("Меня зовут Анна Петровна", "Анна Петровна"),
    ],
)
@pytest.mark.parametrize("asked", ["Как меня зовут?", "Ты помнишь моё имя?"])
def test_a_name_given_in_other_words_is_remembered(client, given, name, asked):
    first = ask(client, given)
    assert said(first) == f"Приятно познакомиться, {name}!"
    messages = [
        {"role": "user", "content": given},
        {"role": "assistant", "content": said(first)},
    ]
    assert said(then(client, messages, asked)).startswith(f"Вас зовут {name}.")
