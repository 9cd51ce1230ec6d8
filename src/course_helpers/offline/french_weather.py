"""Course machinery (offline course model): the weather conditions of a data line in French, for
the `french` instruction ("Paris: 18°C, light rain" gives "Paris: 18°C, pluie légère"). A
condition the list does not hold stays as the tool gave it."""

from __future__ import annotations

import re

CONDITIONS: dict[str, str] = {
    "clear": "dégagé",
    "clear sky": "ciel dégagé",
    "sunny": "ensoleillé",
    "partly cloudy": "partiellement nuageux",
    "cloudy": "nuageux",
    "overcast": "couvert",
    "light rain": "pluie légère",
    "rain": "pluie",
    "heavy rain": "forte pluie",
    "showers": "averses",
    "drizzle": "bruine",
    "thunderstorm": "orage",
    "light snow": "neige légère",
    "snow": "neige",
    "heavy snow": "forte neige",
    "sleet": "neige fondue",
    "fog": "brouillard",
    "mist": "brume",
    "windy": "venteux",
}
# "Paris: 18°C, light rain": a place, a temperature, then the conditions, comma by comma.
_WEATHER = re.compile(r"(: -?\d+(?:\.\d+)?\s?°[CFK]?)((?:, [a-z][a-z ]*)+)")


def in_french(text: str) -> str:
    """The text with the conditions after each temperature said in French where the list can."""

    def said(match: re.Match[str]) -> str:
        conditions = match.group(2).split(", ")[1:]
        return match.group(1) + "".join(", " + CONDITIONS.get(c, c) for c in conditions)

    return _WEATHER.sub(said, text)
