"""Everyday requests get sensible answers: a fact the system prompt states is used, "Answer in
Russian." is followed, the city a question asks about is the one looked up, a thanks before a
question does not hide it, and a message to send takes the address and words the person gives."""

from __future__ import annotations

import json
import re

import pydantic
import pytest
from tool_shapes import GET_WEATHER_ONE_CITY

from course_helpers.offline import CourseModelApp
from course_helpers.offline.reading import message_in, subject_in
from course_helpers.offline.russian import writes_russian

MODEL = "claude-sonnet-5-5"
FORCING_MODEL = "claude-haiku-5-5"  # accepts a forced tool_choice
STRICT = {"_strict_response_validation": True, "max_retries": 0}
EMAIL_TOOL = {
    "name": "send_email",
    "description": "Send an email.",
    "input_schema": {
        "type": "object",
        "properties": {
            "to": {"type": "string"},
            "subject": {"type": "string"},
            "body": {"type": "string"},
        },
        "required": ["to", "subject", "body"],
    },
}


@pytest.fixture(scope="module")
def client():
    client = CourseModelApp().client(**STRICT)
    yield client
    client.close()


def _ask(client, question: str, **extra):
    return client.messages.create(
        **{"model": MODEL, "max_tokens": 2048, **extra},
        messages=[{"role": "user", "content": question}],
    )


def _said(message) -> str:
    return "\n".join(b.text for b in message.content if b.type == "text")


def _calls(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


# -- a fact in the system prompt is context ---------------------------------------------------


@pytest.mark.parametrize(
    "system",
    [
        "The user's name is Olga.",
        "You are a helpful assistant. The user is called Olga and lives in Berlin.",
        "You are talking to Olga.",
    ],
)
def test_a_name_the_system_prompt_states_answers_what_is_my_name(client, system):
    assert _said(_ask(client, "What is my name?", system=system)) == "Your name is Olga."


def test_the_persons_own_name_comes_before_the_system_prompts(client):
    message = client.messages.create(
        model=MODEL,
        max_tokens=1024,
        system="The user's name is Olga.",
        messages=[
            {"role": "user", "content": "My name is Ada."},
            {"role": "assistant", "content": "Nice to meet you, Ada!"},
            {"role": "user", "content": "What is my name?"},
        ],
    )
    assert _said(message).startswith("Your name is Ada.")


def test_a_name_the_system_prompt_states_in_russian_answers_in_russian(client):
    said = _said(_ask(client, "Как меня зовут?", system="Пользователя зовут Ольга."))
    assert said == "Вас зовут Ольга."


@pytest.mark.parametrize("system", ["Your name is Claude.", "The user's name is not known."])
def test_a_system_prompt_that_states_no_name_of_theirs_gives_none(client, system):
    said = _said(_ask(client, "What is my name?", system=system))
    assert said.startswith("I don't know your name.")


@pytest.mark.parametrize(
    ("system", "city"),
    [
        ("The user lives in Berlin.", "Berlin"),
        ("You are a helpful assistant. The customer is based in Lyon, France.", "Lyon"),
        ("The user's city is Oslo.", "Oslo"),
    ],
)
def test_a_city_the_system_prompt_gives_answers_a_question_that_names_none(client, system, city):
    message = _ask(client, "What's the weather like?", system=system, tools=[GET_WEATHER_ONE_CITY])
    assert _calls(message) == [("get_weather", {"city": city})]


def test_the_city_the_question_names_comes_before_the_system_prompts(client):
    system = "The user lives in Berlin."
    message = _ask(
        client, "What's the weather in Rome?", system=system, tools=[GET_WEATHER_ONE_CITY]
    )
    assert _calls(message) == [("get_weather", {"city": "Rome"})]


# -- "Answer in Russian." ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "system", ["Answer in Russian.", "Respond in Russian", "Reply only in Russian."]
)
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Hello!", "Привет! Я офлайн-модель курса. Что вы хотите попробовать?"),
        ("My name is Ada.", "Приятно познакомиться, Ada!"),
        ("What is an agent?", "Агент — это программа, которая вызывает языковую модель в цикле."),
        ("What is 2+2?", "2+2 = 4."),
    ],
    ids=["greeting", "name", "agent", "sum"],
)
def test_answer_in_russian_is_followed_for_an_english_question(client, system, question, answer):
    said = _said(_ask(client, question, system=system))
    assert said.startswith(answer)
    assert "offline course model" not in said and "agent is" not in said


def test_the_fallback_follows_answer_in_russian(client):
    said = _said(_ask(client, "Tell me a joke.", system="Answer in Russian."))
    assert writes_russian(said) and "Спросите «Что ты умеешь?»" in said


def test_answer_in_english_still_wins_over_russian(client):
    said = _said(_ask(client, "Hello!", system="Answer in Russian. No, answer in English."))
    assert said.startswith("Hello!")


# -- the city a question asks about -----------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "The weather in Paris is nice. What's the weather in Tokyo?",
        "Paris is 18 C and sunny. What's the weather in Tokyo?",
        "В Париже хорошая погода. Какая погода в Токио?",
    ],
    ids=["statement first", "weather stated first", "in Russian"],
)
def test_the_city_looked_up_is_the_one_the_question_asks_about(client, question):
    assert _calls(_ask(client, question, tools=[GET_WEATHER_ONE_CITY])) == [
        ("get_weather", {"city": "Tokyo"})
    ]


def test_a_city_said_before_a_question_that_names_none_is_still_the_one(client):
    calls = _calls(
        _ask(client, "I'm in Paris. What's the weather like?", tools=[GET_WEATHER_ONE_CITY])
    )
    assert calls == [("get_weather", {"city": "Paris"})]


# -- a thanks or a greeting before the question -----------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Thanks! What is 2+2?", "2+2 = 4."),
        ("Hi! What's 7 times 6?", "7 times 6 = 42."),
        ("Thank you so much. How much is 3 + 4?", "3 + 4 = 7."),
    ],
)
def test_a_thanks_or_a_greeting_does_not_hide_the_question(client, question, answer):
    assert _said(_ask(client, question)) == answer


# -- a message to send ------------------------------------------------------------------------

EMAIL = "Email bob@example.com that the meeting moved to 3pm"
SENT = {
    "to": "bob@example.com",
    "subject": "Meeting moved to 3pm",
    "body": "The meeting moved to 3pm.",
}


@pytest.mark.parametrize(
    "choice", [None, {"type": "any"}, {"type": "tool", "name": "send_email"}], ids=str
)
def test_a_message_to_send_takes_the_address_and_words_the_person_gives(client, choice):
    extra = {"tool_choice": choice, "model": FORCING_MODEL} if choice else {}
    message = _ask(client, EMAIL, tools=[EMAIL_TOOL], **extra)
    assert _calls(message) == [("send_email", SENT)]


@pytest.mark.parametrize(
    "choice", [None, {"type": "any"}, {"type": "tool", "name": "send_email"}], ids=str
)
def test_a_message_about_something_says_what_it_is_about(client, choice):
    extra = {"tool_choice": choice, "model": FORCING_MODEL} if choice else {}
    question = "Write an email to bob@example.com about the budget."
    message = _ask(client, question, tools=[EMAIL_TOOL], **extra)
    assert _calls(message) == [
        (
            "send_email",
            {"to": "bob@example.com", "subject": "About the budget", "body": "About the budget."},
        )
    ]


def test_a_message_tool_by_another_name_is_called_the_same_way(client):
    tool = {**EMAIL_TOOL, "name": "send_message", "description": "Send a message to someone."}
    assert _calls(_ask(client, EMAIL, tools=[tool])) == [("send_message", SENT)]


def test_a_message_to_send_without_tools_is_one_the_model_cannot_send(client):
    assert _said(_ask(client, EMAIL)).startswith("I can't do that myself.")


def test_a_list_of_recipients_holds_the_addresses(client):
    tool = {**EMAIL_TOOL, "input_schema": {**EMAIL_TOOL["input_schema"]}}
    tool["input_schema"]["properties"] = {
        **EMAIL_TOOL["input_schema"]["properties"],
        "to": {"type": "array", "items": {"type": "string"}},
    }
    question = "Send an email to bob@example.com and ada@example.com saying lunch is at noon."
    ((_, sent),) = _calls(_ask(client, question, tools=[tool]))
    assert sent == {
        "to": ["bob@example.com", "ada@example.com"],
        "subject": "Lunch is at noon",
        "body": "Lunch is at noon.",
    }


def test_a_message_without_an_address_sends_nothing(client):
    message = _ask(client, "Email Bob that the meeting moved to 3pm", tools=[EMAIL_TOOL])
    assert _calls(message) == []


@pytest.mark.parametrize(
    ("request_text", "message", "subject"),
    [
        (
            'Email bob@example.com with the subject "Lunch" that lunch is at 12.30pm.',
            "Lunch is at 12.30pm.",
            "Lunch",
        ),
        ("Tell bob@example.com by email that we won.", "We won.", "We won"),
        ("My email is sam@example.com. My teapot arrived broken: can you refund it?", None, None),
        ("Tell me that story about the message.", None, None),
    ],
)
def test_the_message_is_what_the_request_asks_to_send(request_text, message, subject):
    assert (message_in(request_text), subject_in(request_text)) == (message, subject)


# -- a prose field holds what the request says, not its order about the output -----------------

REPORT = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "number"},
        "summary": {"type": "string"},
    },
    "required": ["city", "temperature_c", "summary"],
    "additionalProperties": False,
}
REPORT_WANTED = {"city": "Paris", "temperature_c": 18, "summary": "Paris, 18 C and sunny."}


@pytest.mark.parametrize(
    "order",
    [
        "Give me the weather report as data.",
        "Return JSON.",
        "Extract the fields.",
        "Fill in the report.",
    ],
)
def test_a_summary_leaves_out_the_order_about_the_output(client, order):
    asked = f"Paris, 18 C and sunny. {order}"
    output = {"format": {"type": "json_schema", "schema": REPORT}}
    (said,) = [
        b.text for b in _ask(client, asked, output_config=output).content if b.type == "text"
    ]
    assert json.loads(said) == REPORT_WANTED
    tool = {"name": "report", "description": "A weather report.", "input_schema": REPORT}
    forced = _ask(
        client,
        asked,
        model=FORCING_MODEL,
        tools=[tool],
        tool_choice={"type": "tool", "name": "report"},
    )
    assert _calls(forced) == [("report", REPORT_WANTED)]


def test_a_summary_parsed_into_a_model_leaves_out_the_order(client):
    class Report(pydantic.BaseModel):
        city: str
        temperature_c: float
        summary: str

    parsed = client.messages.parse(
        model=MODEL,
        max_tokens=1024,
        output_format=Report,
        messages=[
            {
                "role": "user",
                "content": "Paris, 18 C and sunny. Give me the weather report as data.",
            }
        ],
    ).parsed_output
    assert parsed == Report(**REPORT_WANTED)


def test_an_order_with_a_colon_keeps_what_follows_it(client):
    output = {"format": {"type": "json_schema", "schema": REPORT}}
    message = _ask(client, "Extract the report: Paris, 18 C and sunny.", output_config=output)
    assert json.loads(_said(message))["summary"] == "Paris, 18 C and sunny."


# -- an order about the answer before the question ---------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Answer in Russian: what is 2+2?",
        "Answer in French: what is 2+2?",
        "Answer in Russian. What is 2+2?",
        "Thanks! Answer in one sentence: what is 2+2?",
    ],
)
def test_an_order_about_the_answer_does_not_hide_the_question(client, question):
    said = _said(_ask(client, question))
    assert said.splitlines()[-1] == "2+2 = 4."
    assert "I only play the course's scenarios" not in said  # not the fallback
    assert "разыгрываю только сценарии курса" not in said


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Whether or not you like it, what is 10+5?", "10+5 = 15."),
        ("I live in Berlin. What is 2+2?", "2+2 = 4."),
        ("Before you answer, note I'm new here: what is 3*4?", "3*4 = 12."),
        ("I'm learning - what is 7*6?", "7*6 = 42."),
        ("Я живу в Берлине. Сколько будет 2+2?", "2+2 = 4."),
    ],
)
def test_a_leading_statement_or_clause_does_not_hide_the_question(client, question, answer):
    assert _said(_ask(client, question)) == answer


def test_a_sum_only_mentioned_is_not_asked(client):
    assert "I only play the course's scenarios" in _said(
        _ask(client, "Do not tell me what is 2+2.")
    )


@pytest.mark.parametrize(
    ("thanks", "answer"), [("Thanks!", "You're welcome!"), ("Спасибо!", "Пожалуйста!")]
)
def test_a_thanks_on_its_own_is_answered(client, thanks, answer):
    assert _said(_ask(client, thanks)) == answer
    after = client.messages.create(
        model=MODEL,
        max_tokens=1024,
        messages=[
            {"role": "user", "content": "What is 2+2?"},
            {"role": "assistant", "content": "2+2 = 4."},
            {"role": "user", "content": thanks},
        ],
    )
    assert _said(after) == answer


@pytest.mark.parametrize(
    ("pattern", "question", "stated"),
    [
        (r"^T-\d{4}$", "Set ticket T-0042 to urgent priority.", "T-0042"),
        (r"^(?=.*[A-Z])(?=.*\d)[A-Za-z\d]{8,}$", "Set code Secret123 and zip 10115.", "Secret123"),
        (r"^[A-Z]{3}$", "What is AAPL trading at? I mean IBM.", "IBM"),
    ],
)
def test_a_value_the_request_states_meets_the_fields_pattern(client, pattern, question, stated):
    tool = {
        "name": "set_value",
        "description": "Set a value.",
        "input_schema": {
            "type": "object",
            "properties": {"value": {"type": "string", "pattern": pattern}},
            "required": ["value"],
        },
    }
    message = _ask(
        client,
        question,
        tools=[tool],
        tool_choice={"type": "tool", "name": "set_value"},
        model=FORCING_MODEL,
    )
    assert _calls(message) == [("set_value", {"value": stated})]


def test_a_pattern_with_a_repeat_inside_a_repeat_is_not_searched_in_the_request(client):
    tool = {
        "name": "set_value",
        "description": "Set a value.",
        "input_schema": {
            "type": "object",
            "properties": {"value": {"type": "string", "pattern": "^(a+)+$"}},
            "required": ["value"],
        },
    }
    question = "Set it to " + "a" * 40 + "b please."
    message = _ask(
        client,
        question,
        tools=[tool],
        tool_choice={"type": "tool", "name": "set_value"},
        model=FORCING_MODEL,
    )
    ((_, sent),) = _calls(message)
    assert re.search("^(a+)+$", sent["value"])


@pytest.mark.parametrize("tools", [[GET_WEATHER_ONE_CITY], []], ids=["weather tool", "no tools"])
def test_weather_talked_about_is_not_a_weather_question(client, tools):
    question = "I wrote a poem about weather yesterday. What rhymes with cat?"
    message = _ask(client, question, tools=tools) if tools else _ask(client, question)
    assert _calls(message) == []
    assert "I only play the course's scenarios" in _said(message)  # it cannot answer it


@pytest.mark.parametrize(
    "question",
    ["I wrote a poem about weather. What's the weather in Oslo?", "Tell me the weather. In Oslo?"],
)
def test_a_question_about_the_weather_after_such_talk_is_still_one(client, question):
    assert _calls(_ask(client, question, tools=[GET_WEATHER_ONE_CITY])) == [
        ("get_weather", {"city": "Oslo"})
    ]
