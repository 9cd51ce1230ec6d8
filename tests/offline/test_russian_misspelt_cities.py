"""A city a Russian-speaking learner of lessons 02–03 types not quite right: a Latin look-alike
letter in a Cyrillic name, or a letter or two off a city the course model knows. The tool gets
the known city when it is the only one so close, and the name as written otherwise."""

from __future__ import annotations

import pytest
from russian_answers import STRICT, WEATHER, ask, calls

from course_helpers.offline import CourseModelApp
from course_helpers.offline.russian_spelling import closest


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


@pytest.mark.parametrize(
    ("question", "city"),
    [
        ("Какая погода в Парижe?", "Paris"),  # a Latin "e"
        ("Какая погода в Пaриже?", "Paris"),  # a Latin "a"
        ("Какая погода в Пааариже?", "Paris"),
        ("Какая погода в Осле?", "Oslo"),
        ("Какая погода в Токе?", "Tokyo"),
        ("Какая погода в Омске?", "Omsk"),  # no known city is close: as written
        ("Какая погода в Великом Устюге?", "Velikiy Ustyug"),
    ],
)
def test_a_misspelt_city_goes_to_the_tool_as_the_known_city(client, question, city):
    assert calls(ask(client, question, tools=[WEATHER])) == [("get_weather", {"city": city})]


def test_a_name_close_to_two_known_cities_is_neither():
    assert closest("Парага", {"Прага": "Prague", "Парма": "Parma"}) is None
    assert closest("Парага", {"Прага": "Prague"}) == "Prague"
