"""The course model reacts to what the prompt lessons teach: tool descriptions and `system`.

Notebook 02 says "the description is a prompt" and notebook 01 says what `system` is for; these
tests pin the documented, deterministic reactions that let a learner see both offline
(`scenarios/weather.py` and `scenarios/instructions.py` list the rules).
"""

from __future__ import annotations

from typing import Any

import pytest

from course_helpers.offline.scenarios import catalogue
from course_helpers.offline.scenarios.instructions import instructions_in

PARIS_AND_TOKYO = "What's the weather in Paris and Tokyo?"
TOMORROW = "Will it rain in Paris tomorrow?"


def weather_tool(description: str | None, *, name: str = "get_weather", city: str = "") -> dict:
    properties: dict[str, Any] = {"city": {"type": "string"}}
    if city:
        properties["city"]["description"] = city
    tool = {
        "name": name,
        "input_schema": {"type": "object", "properties": properties, "required": ["city"]},
    }
    if description is not None:
        tool["description"] = description
    return tool


GOOD = weather_tool(
    "Get the current weather for one city. Returns the temperature and the sky in one short "
    "line. It only knows current conditions (no forecasts).",
    city="City name in English, e.g. 'Paris'.",
)
VAGUE = weather_tool("Gets weather.")
MISLEADING = weather_tool("Returns the population of a city.")
FORECAST = weather_tool("Get tomorrow's forecast for one city.", name="get_forecast")


def ask(client, question: str, tools: list[dict], **extra: Any):
    return client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=tools,
        messages=[{"role": "user", "content": question}],
        **extra,
    )


def calls(response) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in response.content if b.type == "tool_use"]


def text(response) -> str:
    return "\n".join(b.text for b in response.content if b.type == "text")


# -- tool descriptions ----------------------------------------------------------------------


def test_a_clear_description_gets_one_call_per_city(client) -> None:
    response = ask(client, PARIS_AND_TOKYO, [GOOD])
    assert response.stop_reason == "tool_use"
    assert calls(response) == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]


def test_a_vague_description_gets_the_places_as_written_in_one_call(client) -> None:
    response = ask(client, PARIS_AND_TOKYO, [VAGUE])
    assert calls(response) == [("get_weather", {"city": "Paris and Tokyo"})]


def test_the_argument_description_is_read_too(client) -> None:
    vague_but_typed = weather_tool("Gets weather.", city="One city name, e.g. 'Paris'.")
    response = ask(client, PARIS_AND_TOKYO, [vague_but_typed])
    assert [c[1]["city"] for c in calls(response)] == ["Paris", "Tokyo"]


@pytest.mark.parametrize(
    "description",
    [
        "Get the current weather in a given city.",
        "Get the current weather in a given location.",
        "Weather for a single location.",
        "Retrieves the current weather conditions for a specified city and state.",
    ],
)
@pytest.mark.parametrize("choice", ["any", "auto"])
@pytest.mark.parametrize("question", [PARIS_AND_TOKYO, "What's the weather in Paris and in Tokyo?"])
def test_a_description_of_one_place_gets_one_call_per_city(
    client, description, choice, question
) -> None:
    """ "A given location" and "a specified city and state" take one place, as "one city" does
    (the public parallel-call set BFCL `live_parallel` expects a call per city for them)."""
    tool = {
        "name": "get_weather",
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    }
    response = client.messages.create(
        model="claude-haiku-5-5",  # accepts a forced tool_choice
        max_tokens=1024,
        tools=[tool],
        tool_choice={"type": choice},
        messages=[{"role": "user", "content": question}],
    )
    assert [c[1] for c in calls(response)] == [{"location": "Paris"}, {"location": "Tokyo"}]


def test_a_stated_limit_prevents_a_call_the_tool_cannot_answer(client) -> None:
    response = ask(client, TOMORROW, [GOOD])
    assert response.stop_reason == "end_turn" and calls(response) == []
    assert "only knows current conditions" in text(response)


def test_without_a_stated_limit_the_tool_is_called_anyway(client) -> None:
    response = ask(client, TOMORROW, [VAGUE])
    assert calls(response) == [("get_weather", {"city": "Paris"})]


def test_a_misleading_description_wins_over_the_name(client) -> None:
    response = ask(client, PARIS_AND_TOKYO, [MISLEADING])
    assert response.stop_reason == "end_turn" and calls(response) == []
    assert "None of my tools gives the weather" in text(response)
    assert "population" in text(response)


def test_without_a_description_the_name_decides(client) -> None:
    response = ask(client, PARIS_AND_TOKYO, [weather_tool(None)])
    assert calls(response) == [("get_weather", {"city": "Paris and Tokyo"})]


@pytest.mark.parametrize(
    ("question", "expected"), [(PARIS_AND_TOKYO, "get_weather"), (TOMORROW, "get_forecast")]
)
def test_the_descriptions_decide_which_tool_is_called(client, question, expected) -> None:
    for tools in ([GOOD, FORECAST], [FORECAST, GOOD]):
        assert {name for name, _ in calls(ask(client, question, tools))} == {expected}


def test_swapping_the_descriptions_swaps_the_tool(client) -> None:
    swapped = [
        {**GOOD, "description": FORECAST["description"]},
        {**FORECAST, "description": GOOD["description"]},
    ]
    assert [name for name, _ in calls(ask(client, TOMORROW, swapped))] == ["get_weather"]


def test_the_results_of_a_vague_call_are_reported_honestly(client) -> None:
    first = ask(client, PARIS_AND_TOKYO, [VAGUE])
    (call,) = [b for b in first.content if b.type == "tool_use"]
    failed = {
        "type": "tool_result",
        "tool_use_id": call.id,
        "content": "No weather data for 'Paris and Tokyo'.",
        "is_error": True,
    }
    reply = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=[VAGUE],
        messages=[
            {"role": "user", "content": PARIS_AND_TOKYO},
            {"role": "assistant", "content": first.content},
            {"role": "user", "content": [failed]},
        ],
    )
    assert reply.stop_reason == "end_turn"
    assert "I won't guess the weather" in text(reply)


# -- instructions in system -----------------------------------------------------------------


def chat(client, question: str, system: str | None = None):
    extra = {"system": system} if system else {}
    return client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        messages=[{"role": "user", "content": question}],
        **extra,
    )


AGENT = "What is an agent?"


def test_without_an_instruction_the_answer_has_four_sentences(client) -> None:
    answer = text(chat(client, AGENT))
    assert answer.startswith("An agent is a program") and answer.count(". ") == 3


@pytest.mark.parametrize(
    ("system", "expected"),
    [
        ("Answer in one sentence.", "An agent is a program that calls a language model in a loop."),
        (
            "Answer in French.",
            "Un agent est un programme qui appelle un modèle de langage dans une boucle. ",
        ),
        ("Answer in bullet points.", "- An agent is a program that calls a language model"),
        ("You are a pirate.", "Arr! An agent is a program"),
        (
            "Answer in French, in one sentence.",
            "Un agent est un programme qui appelle un modèle de langage dans une boucle.",
        ),
    ],
)
def test_a_clear_instruction_in_system_changes_the_reply(client, system, expected) -> None:
    answer = text(chat(client, AGENT, system))
    assert answer.startswith(expected)
    if "one sentence" in system:
        assert answer == expected
    if "bullet" in system:
        assert answer.count("\n- ") == 3


def test_system_as_a_list_of_blocks_counts_too(client) -> None:
    system = [{"type": "text", "text": "Answer in French."}]
    assert text(chat(client, "Hello!", system)).startswith("Bonjour !")


def test_a_sentence_the_phrase_book_lacks_is_flagged_not_invented(client) -> None:
    answer = text(chat(client, "What is the capital of Peru?", "Answer in French."))
    assert answer.startswith("(Le modèle de cours hors ligne ne connaît que quelques phrases")
    assert "I am the offline course model" in answer


def test_an_ordinary_system_prompt_changes_nothing(client) -> None:
    plain = text(chat(client, AGENT))
    framed = "You review pull requests. Use the tools to look at the code before you judge it."
    assert text(chat(client, AGENT, framed)) == plain


def test_tool_calls_keep_their_shape_under_a_length_instruction(client) -> None:
    response = ask(client, PARIS_AND_TOKYO, [GOOD], system="Answer in one sentence.")
    assert len(calls(response)) == 2


def test_an_instruction_in_a_long_prompt_must_be_about_the_answer() -> None:
    assert instructions_in("If every parcel was delivered, say so in one sentence.") == []
    assert instructions_in("Reply in one sentence, please.") == ["one_sentence"]
    assert instructions_in("Answer in bullet points and in French.") == ["bullets", "french"]


def test_the_what_i_can_play_answer_lists_the_instructions(client) -> None:
    assert "answer in French, in one sentence, in bullet points, or as a pirate" in catalogue()
    listed = text(chat(client, "What can you do?"))
    assert "instruction in `system`" in listed
    assert "chosen by its description" in listed


# -- the pull-request reviewer: the PR's number, and a declined call ------------------------

DIFF = """diff --git a/invoicing/pricing.py b/invoicing/pricing.py
--- a/invoicing/pricing.py
+++ b/invoicing/pricing.py
-def apply_discount(total: Decimal, percent: Decimal) -> Decimal:
+def apply_discount(total: Decimal, rate: Decimal) -> Decimal:
     Checkout uses this for the customer's loyalty discount.
"""


def reviewer_tool(name: str, *arguments: str) -> dict:
    types = {"pr": "integer", "path": "string"}
    properties = {a: {"type": types[a]} for a in arguments}
    return {
        "name": name,
        "description": f"{name} of a pull request.",
        "input_schema": {"type": "object", "properties": properties, "required": list(arguments)},
    }


def review_turns(client, tools: list[dict], answers: list[tuple[str, bool]]):
    """Play the review, answering the model's calls in order with (content, is_error)."""
    messages: list[dict] = [{"role": "user", "content": "Review PR #482."}]
    responses = []
    for content, is_error in [*answers, (None, False)]:
        response = client.messages.create(
            model="claude-sonnet-5-5", max_tokens=2048, tools=tools, messages=messages
        )
        responses.append(response)
        if content is None or response.stop_reason != "tool_use":
            break
        (call,) = [b for b in response.content if b.type == "tool_use"]
        result = {"type": "tool_result", "tool_use_id": call.id, "content": content}
        messages += [
            {"role": "assistant", "content": response.content},
            {"role": "user", "content": [{**result, "is_error": is_error}]},
        ]
    return responses


def test_read_file_gets_the_number_of_the_pr_under_review(client) -> None:
    tools = [reviewer_tool("get_diff", "pr"), reviewer_tool("read_file", "pr", "path")]
    first, second, *_ = review_turns(client, tools, [(DIFF, False)])
    assert calls(first) == [("get_diff", {"pr": 482})]
    assert calls(second) == [("read_file", {"pr": 482, "path": "invoicing/checkout.py"})]


def test_read_file_without_a_pr_argument_gets_the_path_only(client) -> None:
    tools = [reviewer_tool("get_diff", "pr"), reviewer_tool("read_file", "path")]
    _, second, *_ = review_turns(client, tools, [(DIFF, False)])
    assert calls(second) == [("read_file", {"path": "invoicing/checkout.py"})]


@pytest.mark.parametrize(
    ("declined", "who"),
    [
        ("The user declined to run read_file. It was not run. Ask the user.", "You declined"),
        (
            "The approval policy declined read_file; no person was asked. It was not run.",
            "The approval policy declined",
        ),
    ],
)
def test_a_declined_read_asks_the_person_how_to_go_on(client, declined, who) -> None:
    tools = [reviewer_tool("get_diff", "pr"), reviewer_tool("read_file", "path")]
    *_, last = review_turns(client, tools, [(DIFF, False), (declined, True)])
    assert last.stop_reason == "end_turn" and calls(last) == []
    answer = text(last)
    assert answer.startswith(f"{who} to let me read invoicing/checkout.py")
    assert answer.rstrip().endswith("or finish the review from the diff alone.")
    assert "How would you like me to continue?" in answer
    assert "Review of PR" not in answer  # no half review passed off as a whole one


def answer_to_a_failed_diff(client, pr_in_call: int) -> str:
    """The reply after a get_diff for `pr_in_call` failed, the user having asked for #482."""
    call = {"type": "tool_use", "id": "toolu_01", "name": "get_diff", "input": {"pr": pr_in_call}}
    error = f"get_diff failed: PR #{pr_in_call} does not exist (open PRs: #482, #483)"
    messages = [
        {"role": "user", "content": "Review PR #482."},
        {"role": "assistant", "content": [call]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": error,
                    "is_error": True,
                }
            ],
        },
    ]
    response = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=[reviewer_tool("get_diff", "pr"), reviewer_tool("read_file", "path")],
        messages=messages,
    )
    assert response.stop_reason == "end_turn" and calls(response) == []
    return text(response)


def test_a_failed_diff_is_reported_for_the_number_the_call_used(client) -> None:
    # A call cut off at max_tokens may carry "4" for "482": the error is about PR #4.
    answer = answer_to_a_failed_diff(client, 4)
    assert "asked the code host for PR #4, not PR #482" in answer
    assert "PR #482 does not exist" not in answer
    assert "can't review PR #482" not in answer


def test_a_failed_diff_for_the_number_asked_says_it_does_not_exist(client) -> None:
    answer = answer_to_a_failed_diff(client, 482)
    assert answer.startswith("I can't review PR #482: it does not exist on the code host.")
    assert "The open pull requests are #482 and #483." in answer


@pytest.mark.parametrize(
    "system",
    [
        "You are a patient tutor. Answer in one or two sentences.",  # notebook 01's
        "Answer in two sentences.",
        "Ты терпеливый учитель. Отвечай одним-двумя предложениями.",
        "Отвечай двумя предложениями.",
    ],
)
def test_one_or_two_sentences_means_at_most_two(client, system) -> None:
    answer = text(chat(client, AGENT, system))
    assert answer.count(". ") + answer.count("? ") == 1, answer
    assert answer.startswith("An agent is a program")


def test_a_greeting_word_is_no_sentence_of_the_two(client) -> None:
    answer = text(chat(client, "Hello!", "Answer in one or two sentences."))
    assert answer == "Hello! I am the offline course model. What would you like to try?"
