"""Course machinery (offline course model): weather tools for notebooks 02 and 03: the model reads
the tool descriptions it is offered.

Asked about the weather somewhere ("What's the weather in Paris and Tokyo?", "Will it rain in
Paris tomorrow?", "Is it cold in Oslo?", "Нужен ли зонт в Лондоне?"), the course model decides from the descriptions, by four fixed rules, which
tool it calls, whether it calls one, and with what. A real model weighs descriptions with
judgement; these rules only make the same lesson visible, the same way on every run:

1. **Which tool.** A tool is a weather tool when its description speaks of the weather
   (weather, temperature, rain, snow, forecast); a tool without any description is judged by
   its name alone. A question about the future (tomorrow, tonight, next week, a forecast, "will
   it...") goes to a tool whose description offers forecasts; any other question to one that
   does not.
2. **A misleading description.** A tool whose description speaks of something else is not used
   for the weather, whatever its name says: the model answers that it has no weather tool.
3. **Limits.** When the chosen tool's description says it only knows current conditions ("no
   forecasts", "only current"), a question about the future gets a text answer instead of a
   call. A description that states no limit gets called anyway, and the tool answers a
   question it was never meant for.
4. **How to call.** When the description (the tool's or the place argument's) says the tool
   takes one place ("one city", "a city", "a given location", "per city", "city name"), the
   model makes one call per city, in parallel. When it does not (a vague "Gets weather."), the model passes the places
   exactly as the question wrote them, in a single call (`{"city": "Paris and Tokyo"}`).

A question that names no city asks about the one the system prompt says the person is in
("The user lives in Berlin."). A later message carries the earlier weather question on only
when it names a place or a day ("And in Tokyo?", "А завтра?"); other chat ("Hello!", "What is
2+2?") is answered as chat, a thanks is `chat.py`'s, a comparison `weather_talk.py`'s. Once results
come back it answers from them; an `is_error` result is reported honestly instead
of invented weather. With `tool_choice` "none" it says it may not use the tool instead of
promising to check. An instruction not to call the tool ("Never call get_weather.") is obeyed
too: the `instructions` scenario drops the call and says why (see its docstring).
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, ToolCall, example_value, own_words
from course_helpers.offline.filling import city_in
from course_helpers.offline.injections import reported
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.russian import cities_in_russian, in_english, writes_russian
from course_helpers.offline.scenarios.weather_advice import what_to_wear

_CITY = r"[A-Z][a-zA-Z\-']+(?: [A-Z][a-zA-Z\-']+)?"
# "in Paris and Tokyo", "in Paris, and in Tokyo": the preposition may be said again.
_PLACES = (
    rf"\b(?:in|for|at)\s+({_CITY}(?:\s*(?:,|and|or|&)\s*(?:,?\s*(?:and|or)\s+)?"
    rf"(?:(?:in|for|at)\s+)?{_CITY})*)"
)
_JOINS = r"\s*(?:,|\band\b|\bor\b|&)\s*(?:\b(?:and|or)\b\s*)?(?:\b(?:in|for|at)\s+)?"
# A comparison: "Which is warmer?", "Где холоднее?"
WARMER = re.compile(r"\b(?:warmer|warmest|hotter|hottest)\b|\b(?:теплее|жарче)\b", re.I)
COLDER = re.compile(r"\b(?:colder|coldest|cooler|coolest)\b|\b(?:холоднее|прохладнее)\b", re.I)
# A comparison may name its cities as the choices, without "in": "Which is warmer, Paris or
# London?"
_CHOICES = re.compile(rf"({_CITY}(?:\s*,\s*{_CITY})*\s*,?\s+or\s+{_CITY})")
# What to wear is a question about the weather: "What should I wear in Paris today?", «Что
# надеть сегодня в Москве?», «Как одеться?»
WEARS = re.compile(r"\bwhat (?:should i|shall i|do i|to) wear\b|\b(?:надеть|одеться)\b", re.I)
_TOPIC = re.compile(
    r"\b(?:weather|temperature|rain\w*|snow\w*|sunny|forecasts?)\b"
    r"|\b(?:погод|температур|дожд|снег|солнечн|прогноз)\w*",
    re.I,
)
# A question may ask about the weather without the word: "Is it cold in Oslo?", "Do I need an
# umbrella in London?", "Холодно в Осло?", "Сколько градусов в Берлине?", "Нужен ли зонт?".
ASKS_WEATHER = re.compile(
    _TOPIC.pattern + r"|\b(?:is it|will it be|how)\s+(?:\w+\s+)?(?:cold|hot|warm|chilly|windy)\b"
    r"|\b(?:umbrella|degrees)\b"
    r"|\b(?:холодн|тепл|жарк|прохладн|ветрен|мороз|зонт)\w*|\bградус\w*|" + WEARS.pattern,
    re.I,
)
_FUTURE = re.compile(
    r"\b(?:tomorrow|tonight|next week|this weekend|forecasts?|will it)\b"
    r"|\bday after tomorrow\b|\bin (?:two|three|a few|\d+) days\b"
    r"|\b(?:завтра|послезавтра|сегодня вечером|на следующей неделе|на выходных|прогноз\w*"
    r"|будет ли)\b|\bчерез (?:два|три|несколько|\d+) дн(?:я|ей)\b",
    re.IGNORECASE,
)
_OFFERS_FORECAST = re.compile(r"\b(?:forecasts?|tomorrow|coming days|next \w+ days)\b", re.I)
_ONLY_CURRENT = re.compile(
    r"\bno forecasts?\b|\bnot? (?:give |make |do )?forecasts?\b|\bonly (?:knows? )?current\b"
    r"|\bcurrent conditions only\b",
    re.IGNORECASE,
)
# One place a call: "for one city", "in a given location", "a specified city and state" (the
# wording of the public parallel-call test set BFCL `live_parallel`, where two places asked for
# are two calls), "per city", "city name", "name of the city".
_ONE_CITY = re.compile(
    r"\b(?:one|an?|each|single)\s+(?:(?:given|single|specified|specific|particular)\s+)?"
    r"(?:city|location|place|town)\b|\bper (?:city|location|place)\b|\bcity name\b"
    r"|\bname of (?:the|a) city\b|\bonce per\b",
    re.IGNORECASE,
)
PLACE_ARGUMENTS = ("city", "location", "place", "town")


def cities_in(question: str) -> list[str]:
    """Capitalised place names after 'in'/'for'/'at', e.g. 'in Paris and Tokyo' → both; else
    the cities the question names in either language and any case, by their English names
    ('в Париже' → Paris, 'in moscow' → Moscow, 'в Екатеринбурге' → Yekaterinburg)."""
    match = re.search(_PLACES, question)
    if not match and (WARMER.search(question) or COLDER.search(question)):
        match = _CHOICES.search(question)
    if not match:
        return cities_in_russian(_where(question))
    return [c.strip() for c in re.split(_JOINS, match.group(1)) if c.strip()]


def _where(question: str) -> str:
    """Where a question may name its places: a Russian question anywhere; an English one after
    'in'/'for'/'at' ('in moscow', 'in Париж'), so that 'Paris, 18 C and sunny' names none."""
    if writes_russian(question):
        return question
    found = re.search(r"\b(?:in|for|at)\s+", question, re.IGNORECASE)
    return question[found.end() :] if found else ""


def places_as_written(question: str) -> str | None:
    """The place phrase exactly as the question wrote it: 'Paris and Tokyo' (cities found
    otherwise, such as a Russian question's, by their English names, joined the same way)."""
    match = re.search(_PLACES, question)
    if match is None:
        return " and ".join(cities_in_russian(_where(question))) or None
    return match.group(1).strip()


def _description(tool: dict) -> str:
    return str(tool.get("description") or "").strip()


def is_weather_tool(tool: dict) -> bool:
    """Rules 1 and 2: the description decides; without one, the name does."""
    description = _description(tool)
    if description:
        return bool(_TOPIC.search(description))
    return "weather" in str(tool.get("name", "")).lower()


def offers_forecasts(tool: dict) -> bool:
    description = _description(tool)
    return bool(_OFFERS_FORECAST.search(description)) and not _ONLY_CURRENT.search(description)


def says_one_city(tool: dict, place: str) -> bool:
    """Rule 4: the tool's description, or its place argument's, says it takes one city."""
    props = (tool.get("input_schema") or {}).get("properties") or {}
    argument = str((props.get(place) or {}).get("description") or "")
    return bool(_ONE_CITY.search(_description(tool) + " " + argument))


def choose_tool(conv: Conversation, future: bool) -> dict | None:
    """Rule 1: the weather tool that fits the question best, or None."""
    candidates = [t for t in conv.tools if "input_schema" in t and is_weather_tool(t)]
    if not candidates:
        return None
    fitting = [t for t in candidates if offers_forecasts(t) == future]
    return (fitting or candidates)[0]


def _misnamed_tool(conv: Conversation) -> dict | None:
    """Rule 2: a tool whose name says weather but whose description says something else."""
    return next(
        (
            t
            for t in conv.tools
            if "weather" in str(t.get("name", "")).lower() and _description(t)
            if not is_weather_tool(t)
        ),
        None,
    )


def _arguments(tool: dict, place: str, city: str, question: str = "") -> dict:
    """The call's input: the city under `place`, an allowed value the question names for any
    other argument ("in fahrenheit", "по Фаренгейту" for a unit), and a plausible value for
    every other required argument (the first allowed unit, 'tomorrow' for a day)."""
    arguments = {place: city}
    schema = tool.get("input_schema") or {}
    props = schema.get("properties") or {}
    asked = in_english(question)
    for name, spec in props.items():
        allowed = spec.get("enum") if isinstance(spec, dict) and name != place else None
        named = [
            value
            for value in allowed or []
            if isinstance(value, str)
            and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", asked, re.IGNORECASE)
        ]
        if named:
            arguments[name] = named[0]
    for name in schema.get("required") or []:
        if name in arguments:
            continue
        spec = props.get(name, {})
        if spec.get("enum"):
            arguments[name] = spec["enum"][0]
        elif "unit" in name:
            arguments[name] = "celsius"
        elif name in ("day", "date", "when"):
            arguments[name] = "tomorrow"
        else:
            arguments[name] = example_value(spec, name)
    return arguments


def asks_about_another_time(said: str) -> bool:
    """Whether the words name a day to come or a unit ("А завтра?", "In fahrenheit?")."""
    unit = re.search(r"\b(?:fahrenheit|celsius|kelvin)\b", in_english(said), re.IGNORECASE)
    return bool(_FUTURE.search(said) or unit)


def _is_weather_question(conv: Conversation) -> bool:
    # The person's words, never the context a program wraps around them.
    said = conv.person_text
    if ASKS_WEATHER.search(said) or (
        (WARMER.search(said) or COLDER.search(said)) and cities_in(said)
    ):
        return not asks_something_else(said)
    if not ASKS_WEATHER.search(own_words(conv.first_user_text)):
        return False
    # An earlier weather question carries over to a follow-up that names a place, a day or a
    # unit ("And in Tokyo?", "А завтра?", "По Фаренгейту?"), not to other chat ("Hello!",
    # "Сколько будет 2+2?").
    return conv.ends_with_results or bool(cities_in(said)) or asks_about_another_time(said)


@scenario(
    "weather",
    "Use a weather tool you offer, chosen by its description: 'What's the weather in Paris "
    "and Tokyo?' or 'Will it rain in Paris tomorrow?' (try a vague description)",
    priority=50,
)
def weather(conv: Conversation) -> Reply | None:
    if not conv.tools or not _is_weather_question(conv):
        return None
    question = conv.person_text or conv.first_user_text
    future = bool(_FUTURE.search(question))
    tool = choose_tool(conv, future)
    if tool is None:
        misnamed = _misnamed_tool(conv)
        if misnamed is None or conv.ends_with_results:
            return None
        return say(
            f"None of my tools gives the weather: {misnamed['name']} says it does something "
            f'else ("{_description(misnamed)[:120]}"), so I cannot look the weather up.'
        )
    where = _asked_part(question)
    asked = cities_in(where) or cities_in(own_words(conv.first_user_text))
    asked = asked or _persons_city(conv.system)
    stated = stated_weather(question)
    if stated and where != question and any(c not in in_english(stated) for c in asked):
        stated = ""  # "Paris is 18 C. What's the weather in Tokyo?" asks about another city
    if stated and not conv.ends_with_results and not conv.calls():
        # The person gives the weather ("Paris, 18 C and sunny"): nothing to look up.
        return say(f"You gave the weather yourself, so there is nothing to look up: {stated}")
    name = tool["name"]
    place = conv.argument_for(name, PLACE_ARGUMENTS, of_type="string")
    if not conv.ends_with_results:
        return _first_turn(conv, tool, place, asked, question, future)
    return _answer(conv, tool, place, asked)


# Where the system prompt says the person is: "The user lives in Berlin.", "The customer is
# based in Lyon.", "The user's city is Oslo."
_PERSONS_PLACE = re.compile(
    r"\b(?:user|person|customer|client)(?:'s)?\b[^.!?\n]{0,30}?"
    r"(?:\b(?:lives|living|is|based|located|staying)\s+(in\s+[^.!?\n]+)"
    r"|\b(?:city|location|home town)\s+is\s+([^.!?\n]+))",
    re.IGNORECASE,
)


def _persons_city(system: str) -> list[str]:
    """The city the system prompt says the person is in, for a question that names none ("What's
    the weather like?"): a fact the system prompt states is context, never a question."""
    found = _PERSONS_PLACE.search(system)
    if found is None:
        return []
    return cities_in(found.group(1) or f"in {found.group(2)}")[:1]


def asks_something_else(said: str) -> bool:
    """Whether the weather is only talked about, and the question asks something else: "I wrote
    a poem about weather yesterday. What rhymes with cat?" (its question names no weather and no
    place)."""
    asking = _questions(said)
    return bool(asking) and not ASKS_WEATHER.search(asking) and not cities_in(asking)


def _questions(text: str) -> str:
    """The sentences of a text that end in a question mark, joined ('' if none)."""
    return " ".join(s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.endswith("?"))


def _asked_part(question: str) -> str:
    """Where the question names the places it asks about: its questions, when they name one
    ("The weather in Paris is nice. What's the weather in Tokyo?" asks about Tokyo); else all
    of it ("I'm in Paris. Will it rain?", "Check the weather in Paris.")."""
    part = _questions(question)
    return part if part and cities_in(part) else question


# A temperature stated with its unit: "18 C", "18°C", "-3 °F".
_TEMPERATURE = re.compile(
    r"(?<![\w.])-?\d+(?:\.\d+)?\s?(?:°?\s?[CF]\b|°|градус\w*|по цельсию)", re.IGNORECASE
)


def stated_weather(question: str) -> str:
    """The sentence in which the person states a city's weather themselves (a known city and a
    temperature with its unit), or ''."""
    for sentence in re.split(r"(?<=[.!?])\s+", question):
        if _TEMPERATURE.search(sentence) and city_in(in_english(sentence)):
            return sentence.strip()
    return ""


def _first_turn(
    conv: Conversation, tool: dict, place: str, asked: list[str], question: str, future: bool
) -> Reply:
    name = tool["name"]
    where = " in " + listed(asked) if asked else ""
    if not conv.tools_allowed:
        # tool_choice "none": the model knows the tool but may not call it this time.
        return say(
            f"I have a {name} tool, but I may not use it in this request, so I cannot tell you "
            f"the current weather{where}."
        )
    if not asked:
        return say("Which city would you like the weather for?")
    if future and not offers_forecasts(tool) and _ONLY_CURRENT.search(_description(tool)):
        # Rule 3: the description states the limit, so the model does not call.
        return say(
            f"My {name} tool only knows current conditions, not forecasts, so I cannot tell you "
            f"about the weather to come{where}. I can tell you the weather{where} right now."
        )
    if not says_one_city(tool, place):
        # Rule 4: nothing says the tool takes one city, so the places go in as written.
        written = places_as_written(_asked_part(question)) or " and ".join(asked)
        return Reply(
            [
                text(f"I'll check {_what(future)} {written}."),
                tool_use(name, **_arguments(tool, place, written, question)),
            ]
        )
    answered = {c.input.get(place) for c in conv.calls_to(name)}
    todo = [c for c in asked if c not in answered] or asked
    intro = f"I'll check {_what(future)} {listed(todo)}."
    calls = (tool_use(name, **_arguments(tool, place, c, question)) for c in todo)
    return Reply([text(intro), *calls])


def listed(names: list[str]) -> str:
    """'Paris', 'Paris and Tokyo', 'Berlin, Rome and Madrid'."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _what(future: bool) -> str:
    return "the forecast for" if future else "the weather in"


def _task_results(conv: Conversation, name: str, place: str) -> list[ToolCall]:
    """Every answered call of this question to the tool, the latest one per place: calls made
    one per turn (parallel calls disabled) are all answered, not only the last."""
    latest: dict[object, ToolCall] = {}
    for call in conv.task_calls():
        if call.name == name:
            latest.pop(call.input.get(place), None)
            latest[call.input.get(place)] = call
    return list(latest.values()) or conv.latest_results()


def _answer(conv: Conversation, tool: dict, place: str, asked: list[str]) -> Reply:
    name = tool["name"]
    results = _task_results(conv, name, place)
    answered = {c.input.get(place) for c in conv.calls_to(name)}
    lines = []
    for call in results:
        city = call.input.get(place, "there")
        if call.is_error:
            lines.append(f"I could not get the weather for {city}: {call.result}")
        elif not (call.result or "").strip():
            lines.append(f"{city}: the tool returned nothing.")
        else:
            said = reported(call.result)
            # "Paris: 18C, cloudy" already names the city: it is not said twice.
            named = said.lower().startswith(f"{str(city).lower()}:")
            lines.append(said if named else f"{city}: {said}")
    missing = [c for c in asked if c not in answered]
    if (
        missing
        and conv.parallel_allowed is False
        and conv.tools_allowed
        and says_one_city(tool, place)
    ):
        # Parallel calls were disabled: ask for the next city on its own turn.
        question = conv.person_text or conv.first_user_text
        return Reply([tool_use(name, **_arguments(tool, place, missing[0], question))])
    if results and all(c.is_error for c in results):
        return say(
            "\n".join(lines) + "\nI won't guess the weather; please check the tool or try again."
        )
    what = "forecast" if offers_forecasts(tool) else "weather"
    advice = []
    if WEARS.search(conv.person_text or conv.first_user_text):
        # "What should I wear in Paris?": the results, then what they mean for clothes.
        for call in results:
            if not call.is_error:
                advice += what_to_wear(str(call.input.get(place, "there")), call.result or "")
    tail = "\n" + " ".join(advice) if advice else ""
    return say(f"Here is the {what} you asked about:\n" + "\n".join(lines) + tail)
