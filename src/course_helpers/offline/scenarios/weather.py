"""A weather-style tool for notebooks 02 and 03.

Offered a tool whose name mentions weather, and asked about the weather somewhere, the model
calls it once per city (several cities: parallel calls in one turn). Once results come back it
answers from them; an `is_error` result is reported honestly instead of invented weather. With
`tool_choice` "none" it says it may not use the tool instead of promising to check.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use

_CITY = r"[A-Z][a-zA-Z\-']+(?: [A-Z][a-zA-Z\-']+)?"


def cities_in(question: str) -> list[str]:
    """Capitalised place names after 'in'/'for'/'at', e.g. 'in Paris and Tokyo' → both."""
    match = re.search(rf"\b(?:in|for|at)\s+({_CITY}(?:\s*(?:,|and|&)\s*{_CITY})*)", question)
    if not match:
        return []
    return [c.strip() for c in re.split(r"\s*(?:,|\band\b|&)\s*", match.group(1)) if c.strip()]


def _weather_tool(conv: Conversation) -> dict | None:
    return next(
        (t for t in conv.tools if "weather" in t.get("name", "").lower() and "input_schema" in t),
        None,
    )


def _arguments(tool: dict, place: str, city: str) -> dict:
    """The call's input: the city under `place`, and the first allowed value of any other
    required argument (a unit, say)."""
    arguments = {place: city}
    props = (tool.get("input_schema") or {}).get("properties") or {}
    for name in (tool.get("input_schema") or {}).get("required") or []:
        if name in arguments:
            continue
        spec = props.get(name, {})
        arguments[name] = (spec.get("enum") or ["celsius"])[0]
    return arguments


@scenario(
    "weather",
    "Use a weather tool you offer (any tool with 'weather' in its name): "
    "'What's the weather in Paris and Tokyo?'",
    priority=50,
)
def weather(conv: Conversation) -> Reply | None:
    tool = _weather_tool(conv)
    if tool is None or "weather" not in conv.first_user_text.lower() + conv.last_user_text.lower():
        return None
    name = tool["name"]
    place = conv.argument_for(name, ("city", "location", "place", "town"), of_type="string")
    asked = cities_in(conv.last_user_text) or cities_in(conv.first_user_text)
    answered = {c.input.get(place) for c in conv.calls_to(name)}
    if not conv.ends_with_results:
        if not conv.tools_allowed:
            # tool_choice "none": the model knows the tool but may not call it this time.
            where = " in " + " and ".join(asked) if asked else ""
            return say(
                f"I have a {name} tool, but I may not use it in this request, so I cannot "
                f"tell you the current weather{where}."
            )
        if not asked:
            return say("Which city would you like the weather for?")
        todo = [c for c in asked if c not in answered] or asked
        intro = "I'll check the weather in " + " and ".join(todo) + "."
        return Reply([text(intro), *(tool_use(name, **_arguments(tool, place, c)) for c in todo)])
    results = conv.latest_results()
    lines = []
    for call in results:
        city = call.input.get(place, "there")
        if call.is_error:
            lines.append(f"I could not get the weather for {city}: {call.result}")
        else:
            lines.append(f"{city}: {call.result}")
    missing = [c for c in asked if c not in answered]
    if missing and conv.parallel_allowed is False and conv.tools_allowed:
        # Parallel calls were disabled: ask for the next city on its own turn.
        return Reply([tool_use(name, **_arguments(tool, place, missing[0]))])
    if all(c.is_error for c in results):
        return say(
            "\n".join(lines) + "\nI won't guess the weather; please check the tool or try again."
        )
    return say("Here is the weather you asked about:\n" + "\n".join(lines))
