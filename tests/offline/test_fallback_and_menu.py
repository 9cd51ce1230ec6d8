"""What the course model says about itself: a request it cannot serve gets a short answer that
fits a small max_tokens and says how to see what it can do; the list of what it can play comes
when the person asks for it ("What can you do?", "Help", «Что ты умеешь?»), in the person's
language."""

from __future__ import annotations

import pytest
from russian_answers import MODEL, STRICT, ask, said

from course_helpers.offline import CourseModelApp, scenarios
from course_helpers.offline.russian import UNTRANSLATED
from course_helpers.offline.russian_phrases import LISTED


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


@pytest.mark.parametrize(
    ("asked", "cannot", "how"),
    [
        ("What is the capital of Peru?", "so I cannot answer", 'Ask "What can you do?"'),
        ("Tell me a joke.", "so I cannot answer", 'Ask "What can you do?"'),
        ("Help me write an email to Bob.", "so I cannot answer", 'Ask "What can you do?"'),
        ("What do you know about Peru?", "so I cannot answer", 'Ask "What can you do?"'),
        ("Какая столица Перу?", "ответить не могу", "Спросите «Что ты умеешь?»"),
        ("Расскажи анекдот.", "ответить не могу", "Спросите «Что ты умеешь?»"),
    ],
)
def test_what_it_cannot_serve_gets_a_short_answer(client, asked, cannot, how):
    messages = [{"role": "user", "content": asked}]
    message = client.messages.create(model=MODEL, max_tokens=300, messages=messages)
    answer = said(message)
    assert message.stop_reason == "end_turn" and message.usage.output_tokens < 100
    assert answer.count(". ") <= 1  # two sentences at most
    assert cannot in answer and how in answer and UNTRANSLATED not in answer
    assert "Here is what I can do" not in answer and "Вот что я умею" not in answer


@pytest.mark.parametrize(
    "asked",
    [
        "What can you do?",
        "What can you play?",
        "Help",
        "help!",
        "What do you know?",
        "What else can you do?",
        "What are you able to do?",
        "Hi! What can you do?",
        "What can you do? Answer in English.",
    ],
)
def test_the_list_comes_when_asked(client, asked):
    answer = said(ask(client, asked))
    assert "Here is what I can do:" in answer
    for entry in scenarios.registered():
        if entry.description:
            assert f"- {entry.description}" in answer


@pytest.mark.parametrize(
    "asked", ["Что ты умеешь?", "Что ты можешь?", "Помощь", "Что вы умеете?", "Что умеешь?"]
)
def test_the_list_comes_in_russian_when_asked_in_russian(client, asked):
    answer = said(ask(client, asked))
    assert answer.startswith("Я офлайн-модель курса") and "Вот что я умею:" in answer
    assert UNTRANSLATED not in answer
    for entry in scenarios.registered():
        if entry.description:
            assert f"- {LISTED[entry.description]}" in answer


def test_every_scenario_on_the_list_has_its_russian_line():
    listed = [s.description for s in scenarios.registered() if s.description]
    assert [d for d in listed if d not in LISTED] == []


def test_a_greeting_before_the_question_is_answered(client):
    assert said(ask(client, "Hi! What can you do?")).startswith("Hello! I am the offline")
