"""Course machinery (offline course model): what a weather result says to a person (notebooks
02–03), read from the tool's text: the temperature in °C, whether it is cold or warm, and what
to wear.

- `celsius("41°F, clear")` gives 5.0 (°F put in °C); a result without a temperature gives None.
- `what_to_wear("Paris", "18°C, light rain")` gives "In Paris, light clothes are enough." and
  "In Paris, take an umbrella.": the clothes follow the temperature, the umbrella rain, the boots
  snow.
- `how_it_feels` sorts a temperature into cold (below 10°C), cool (10–17°C), warm (18–26°C) and
  hot (27°C and up).
"""

from __future__ import annotations

import re

DEGREES = re.compile(r"(-?\d+(?:[.,]\d+)?)\s?°?\s?([CF])\b")
_RAIN = re.compile(r"\b(?:rain\w*|drizzle|showers?|thunderstorms?|дожд\w*|ливень|гроза)\b", re.I)
_SNOW = re.compile(r"\b(?:snow\w*|sleet|снег\w*|метель)\b", re.I)


def celsius(result: str) -> float | None:
    """The temperature a tool result gives, in °C, or None when it gives none."""
    degrees = DEGREES.search(result)
    if degrees is None:
        return None
    value = float(degrees.group(1).replace(",", "."))
    return (value - 32) * 5 / 9 if degrees.group(2).upper() == "F" else value


def how_it_feels(degrees: float) -> str:
    """'cold', 'cool', 'warm' or 'hot'."""
    if degrees < 10:
        return "cold"
    if degrees < 18:
        return "cool"
    return "warm" if degrees < 27 else "hot"


_CLOTHES = {
    "freezing": "wear a warm coat, a hat and gloves",
    "cold": "wear a warm jacket",
    "cool": "wear a light jacket or a sweater",
    "warm": "light clothes are enough",
    "hot": "wear light clothes and protect yourself from the sun",
}


def what_to_wear(city: str, result: str) -> list[str]:
    """The sentences of advice a weather result gives for a city ([] without a temperature)."""
    degrees = celsius(result)
    if degrees is None:
        return []
    feel = "freezing" if degrees < 0 else how_it_feels(degrees)
    advice = [f"In {city}, {_CLOTHES[feel]}."]
    if _RAIN.search(result):
        advice.append(f"In {city}, take an umbrella.")
    if _SNOW.search(result):
        advice.append(f"In {city}, wear warm waterproof boots.")
    return advice
