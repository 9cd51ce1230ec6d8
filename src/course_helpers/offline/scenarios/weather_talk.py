"""Course machinery (offline course model): what the person says around a weather lookup
(notebooks 02–03), besides the lookup itself (`weather.py`).

- **A comparison** ("Which is warmer?", "Где теплее?", "Where is it colder?") after two or more
  cities were looked up is answered from the tool results already in the conversation: the
  temperatures are read from them (°F put in °C to compare) and the warmest (or coldest) city
  is named. A comparison that names a city not looked up yet is the weather scenario's: it
  calls the tool for that city first, and once the results are in, it is answered the same way
  ("Где теплее, в Париже или в Токио?").
- **No weather tool**: a weather question ("Is it cold in Oslo?", "Какая погода в Париже?")
  in a request that offers no weather tool is answered honestly: the model cannot check the
  weather and will not guess it. The question names a place or the weather itself ("What is
  the temperature of the sun?" is not one).
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, ToolCall, blocks_of
from course_helpers.offline.policy import Reply, say, scenario
from course_helpers.offline.scenarios.weather import (
    ASKS_WEATHER,
    COLDER,
    PLACE_ARGUMENTS,
    WARMER,
    asks_about_another_time,
    asks_something_else,
    cities_in,
    is_weather_tool,
    listed,
    stated_weather,
)
from course_helpers.offline.scenarios.weather_advice import DEGREES, celsius, how_it_feels


def _place(call: ToolCall) -> str | None:
    return next(
        (call.input[k] for k in PLACE_ARGUMENTS if isinstance(call.input.get(k), str)), None
    )


def _temperatures(conv: Conversation) -> dict[str, tuple[float, str]]:
    """City: (°C to compare, the temperature as the tool wrote it), from every answered call
    to a weather tool, the latest one per city."""
    found: dict[str, tuple[float, str]] = {}
    for call in conv.calls():
        tool = conv.tool(call.name)
        city = _place(call)
        if call.result is None or call.is_error or not city or not is_weather_tool(tool or {}):
            continue
        degrees = DEGREES.search(call.result)
        if degrees:
            found[city] = (celsius(call.result), degrees.group(0).replace(" ", ""))
    return found


@scenario("compare_weather", "", priority=49)
def compare_weather(conv: Conversation) -> Reply | None:
    asked = conv.person_text
    warmer = bool(WARMER.search(asked))
    if not (warmer or COLDER.search(asked)):
        return None
    known = _temperatures(conv)
    named = cities_in(asked)
    if len(known) < 2 or any(c not in known for c in named):
        return None  # nothing to compare yet, or a city still to look up
    if conv.ends_with_results and not named:
        return None  # the results of a question that named no city to compare
    ranked = sorted(known, key=lambda c: known[c][0], reverse=warmer)
    best, others = ranked[0], ranked[1:]
    same = [c for c in ranked if known[c][0] == known[best][0]]
    if len(same) > 1:
        return say(f"It is the same in {listed(same)}: {known[best][1]}.")
    word = "warmer" if warmer else "colder"
    return say(
        f"{best} is {word} than {listed(others)}: {known[best][1]}, against "
        f"{listed([known[c][1] for c in others])}."
    )


# How warm it is, asked of the weather already looked up: "Is that cold?", «А это тепло?»,
# «Холодно?»
_FEEL_ASKED = {
    "cold": re.compile(r"\b(?:cold|chilly)\b|\b(?:холодно|прохладно)\b", re.I),
    "hot": re.compile(r"\bhot\b|\bжарко\b", re.I),
    "warm": re.compile(r"\bwarm\b|\bтепло\b", re.I),
}


@scenario("weather_feel", "", priority=48)
def weather_feel(conv: Conversation) -> Reply | None:
    """A question whether it is cold or warm that names no place, no day and no unit, after a
    weather answer: answered from the temperatures of the last lookup, not looked up again."""
    asked = conv.person_text
    if conv.ends_with_results or not asked.rstrip().endswith("?"):
        return None
    feel = next((f for f, words in _FEEL_ASKED.items() if words.search(asked)), None)
    if feel is None or cities_in(asked) or asks_about_another_time(asked):
        return None
    known = _temperatures(conv)
    last = _last_lookup(conv)
    cities = list(dict.fromkeys(_place(c) for c in conv.calls() if c.id in last))
    cities = [c for c in cities if c in known]
    if not cities:
        return None
    said = []
    for city in cities:
        degrees, written = known[city]
        is_like = how_it_feels(degrees)
        if is_like == feel or (feel == "warm" and is_like == "hot"):
            said.append(f"Yes, {written} in {city} is {is_like}.")
        else:
            said.append(f"No, {written} in {city} is {is_like}, not {feel}.")
    return say(" ".join(said))


def _last_lookup(conv: Conversation) -> set[str]:
    """The ids of the calls of the last assistant turn that called a tool."""
    for message in reversed(conv.messages):
        ids = {b.get("id") for b in blocks_of(message) if b.get("type") == "tool_use"}
        if message.get("role") == "assistant" and ids:
            return ids
    return set()


# A question, not a statement ("Paris, 18 C and sunny") nor a task ("Write a poem about rain").
_QUESTION = re.compile(
    r"\?\s*$|^\W*(?:what|how|is|will|does|do|should|какая|какой|какое|сколько|холодно|тепло"
    r"|жарко|идёт|идет|нужен|будет)\b",
    re.IGNORECASE,
)


# The weather itself, or a place: "Какая погода?", "Is it cold in Oslo?"
_WEATHER_WORD = re.compile(r"\b(?:weather|forecasts?)\b|\b(?:погод|прогноз)\w*", re.IGNORECASE)


@scenario("no_weather_tool", "", priority=950)
def no_weather_tool(conv: Conversation) -> Reply | None:
    """After every other scenario: a weather question that no tool of the request can answer."""
    asked = conv.person_text
    if conv.ends_with_results or conv.output_schema is not None:
        return None
    if not (ASKS_WEATHER.search(asked) and _QUESTION.search(asked)) or stated_weather(asked):
        return None
    if asks_something_else(asked):  # "I wrote a poem about weather. What rhymes with cat?"
        return None
    if not (_WEATHER_WORD.search(asked) or cities_in(asked)):
        return None  # "What is the temperature of the sun?" asks for no lookup
    if any(is_weather_tool(t) for t in conv.tools):
        return None
    return say(
        "I have no tool to check the weather in this request, so I cannot tell you what it is "
        "like. I will not guess; if your program gives me a weather tool, I can ask for it and "
        "answer from its result."
    )
