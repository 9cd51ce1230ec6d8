"""Course machinery (offline course model): the Russian the course model understands, and how it
answers in Russian.

Where the lessons invite free input (00–03: greetings, "my name is …", "what is an agent?",
counting, the system-prompt instructions of 01, the weather questions of 02–03), a learner may
type Russian. The scenarios read those requests in either language (their patterns list the
Russian wordings beside the English ones), and a reply to a person who wrote in Russian is said
in Russian: `answer_in_russian` puts each sentence of the reply through a phrase book
(`russian_phrases.py`), the way
`instructions.french` does for French. A sentence the book does not hold stays in English, and
the reply says so at its start. A data line of a city's weather gives the city its Russian name
and each condition the book holds in Russian ("Paris: 18°C, light rain" gives "Париж: 18°C,
небольшой дождь"); other data lines are left as they are.

The language is decided from the person's words as a whole: "Какая погода в Paris?" is
Russian. A city may be of several words or hyphenated, in any of its forms ("в Нижнем
Новгороде", "в Ростове-на-Дону"); one the list does not know keeps all its words, in Latin
letters ("в Великом Устюге" gives "Velikiy Ustyug").

    writes_russian("Какая погода в Париже?")   # True
    english_city("Париже")                     # "Paris"
"""

from __future__ import annotations

import re

from course_helpers.offline.russian_cases import ADJECTIVE, nominative, nominatives
from course_helpers.offline.russian_phrases import LINE_PHRASES, LISTED, PHRASES, WEATHER_WORDS
from course_helpers.offline.russian_spelling import closest, cyrillic_lookalikes

_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_LATIN = re.compile(r"[A-Za-z]")


_SCRIPT_WORD = re.compile(r"\w+(?:[-'’]\w+)*")  # "get_weather" and "Нью-Йорк" are one word each


def writes_russian(value: str) -> bool:
    """True when the person's words are mostly Russian: more Cyrillic words than Latin ones, or
    as many and the first is Cyrillic. A name, a term or a tool in Latin letters ("Какая погода
    в Paris?", "Что такое prompt caching?") leaves a Russian message Russian."""
    words = [w for w in _SCRIPT_WORD.findall(value) if _CYRILLIC.search(w) or _LATIN.search(w)]
    cyrillic = sum(1 for w in words if _CYRILLIC.search(w))
    latin = len(words) - cyrillic
    return cyrillic > latin or (cyrillic == latin > 0 and bool(_CYRILLIC.search(words[0])))


# Cities of the weather lessons, each in the nominative, then the short names people use
# ("Питер", "Мск", "в Нижнем" for Нижний Новгород). The other forms ("в Париже", "для Москвы",
# "в Казани") are read by their endings (`russian_cases.py`).
CITIES: dict[str, tuple[str, ...]] = {
    "Paris": ("Париж",),
    "Tokyo": ("Токио",),
    "London": ("Лондон",),
    "Berlin": ("Берлин",),
    "Moscow": ("Москва", "Мск"),
    "Rome": ("Рим",),
    "Madrid": ("Мадрид",),
    "Oslo": ("Осло",),
    "Sydney": ("Сидней",),
    "New York": ("Нью-Йорк",),
    "Saint Petersburg": ("Санкт-Петербург", "Петербург", "Питер", "СПб"),
    "Nizhny Novgorod": ("Нижний Новгород", "Нижний"),
    "Rostov-on-Don": ("Ростов-на-Дону",),
    "Los Angeles": ("Лос-Анджелес",),
    "Rio de Janeiro": ("Рио-де-Жанейро",),
    "Buenos Aires": ("Буэнос-Айрес",),
    "Prague": ("Прага",),
    "Kazan": ("Казань",),
    "Reykjavik": ("Рейкьявик",),
    "Yekaterinburg": ("Екатеринбург",),
    "Novosibirsk": ("Новосибирск",),
    "Vladivostok": ("Владивосток",),
    "Minsk": ("Минск",),
    "Beijing": ("Пекин",),
    "Samara": ("Самара",),
    "Tula": ("Тула",),
    "Ufa": ("Уфа",),
    "Warsaw": ("Варшава",),
    "Tver": ("Тверь",),
    "Perm": ("Пермь",),
    "Istanbul": ("Стамбул",),
    "Lisbon": ("Лиссабон",),
    "Sochi": ("Сочи",),
    "Kyiv": ("Киев",),
    "Almaty": ("Алматы", "Алма-Ата"),
    "Tbilisi": ("Тбилиси",),
    "Riga": ("Рига",),
    "Vilnius": ("Вильнюс",),
    "Tallinn": ("Таллин", "Таллинн"),
    "Helsinki": ("Хельсинки",),
    "Novy Urengoy": ("Новый Уренгой",),
    "Atlantis": ("Атлантида",),
}
_BY_FORM = {form.lower(): city for city, forms in CITIES.items() for form in forms}
_UNITS = {"fahrenheit": r"фаренгейт\w*", "celsius": r"цельси\w*", "kelvin": r"кельвин\w*"}
_LATIN_LETTERS = "a b v g d e yo zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya"
_TO_LATIN = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", _LATIN_LETTERS.split(" "), strict=True))
_TO_LATIN.update({"ъ": "", "ь": ""})


def english_city(word: str) -> str | None:
    """The English name of a city written in Russian (any of its forms), or None."""
    forms = nominatives(cyrillic_lookalikes(word))  # "Парижe" with a Latin "e" is "Париже"
    return next((_BY_FORM[f.lower()] for f in forms if f.lower() in _BY_FORM), None)


def _close_city(name: str) -> str | None:
    """The one known city a name not on the list is a letter or two off ("Пааариже", "в Осле",
    "в Токе"), compared in the nominative; None when none or several are so close."""
    return next(filter(None, (closest(f, _BY_FORM) for f in nominatives(name))), None)


def russian_name(city: str) -> str:
    """The Russian name of a city the phrase book knows; the name itself otherwise."""
    return CITIES.get(city, (city,))[0]


def _latin_part(part: str) -> str:
    latin = "".join(_TO_LATIN.get(c.lower(), c) for c in part)
    if part[:1] in "ЕеЁё" and latin[:1] == "e":  # "Екатеринбург" is "Yekaterinburg"
        latin = "y" + latin
    return latin[:1].upper() + latin[1:] if part[:1].isupper() else latin


def in_latin(name: str) -> str:
    """A Russian name a city list does not hold, in Latin letters, as a model would pass it to
    a tool that takes English names, every word kept: "в Екатеринбурге" gives "Yekaterinburg",
    "в Великом Устюге" "Velikiy Ustyug", "в Красной Поляне" "Krasnaya Polyana"; a hyphen stays
    ("Усть-Илимск" gives "Ust-Ilimsk")."""
    words = nominative(name).split()
    return " ".join("-".join(_latin_part(p) for p in word.split("-")) for word in words)


_WORD = r"[А-ЯЁA-Z][\w'’]*(?:-[\w'’]+)*"
# "в Париже и Атлантиде", "для Берлина, Рима и Мадрида", "в Великом Устюге": the capitalised
# names after "в"/"для", a name of several words kept together.
_NAME = rf"{_WORD}(?:\s+{_WORD})*"
_RU_PLACES = re.compile(
    rf"(?<!\w)(?i:в|во|для)\s+({_NAME}(?:\s*(?:,|(?i:и))\s*(?:(?i:в|во|для)\s+)?{_NAME})*)"
)
_ANY_WORD = re.compile(r"[\w'’]+(?:-[\w'’]+)*")
_BY_NAME = {city.lower(): city for city in CITIES}


def _known(said: str) -> str | None:
    return english_city(said) or _BY_NAME.get(said.lower())


def _known_cities(question: str) -> list[tuple[int, int, str]]:
    """(start, end, English name) of each city the list knows, in any form and case: a name of
    two words ("в Нижнем Новгороде", "in new york") before either of its words alone."""
    found: list[tuple[int, int, str]] = []
    words = list(_ANY_WORD.finditer(question))
    skip_to = 0
    for index, match in enumerate(words):
        if match.start() < skip_to:
            continue
        after = words[index + 1] if index + 1 < len(words) else None
        if after and question[match.end() : after.start()].strip() == "":
            # "Нью Йорк" and "Санкт Петербург" are the hyphenated names, the hyphen left out.
            pair = (match.group(0), after.group(0))
            city = _known(" ".join(pair)) or _known("-".join(pair))
            if city:
                found.append((match.start(), after.end(), city))
                skip_to = after.end()
                continue
        if after and ADJECTIVE.search(match.group(0)) and after.group(0)[:1].isupper():
            continue  # "в Нижнем Тагиле": the adjective is part of a name of two words
        city = _known(match.group(0))
        if city:
            found.append((match.start(), match.end(), city))
    return found


def cities_in_russian(question: str) -> list[str]:
    """The cities a question names, in order, by their English names: a city the list knows in
    any of its forms and any case ("в москве", "в Paris", "в Нижнем Новгороде"), and a
    capitalised name after "в" or "для" it does not know, in Latin letters ("в Екатеринбурге"
    gives "Yekaterinburg"), so that the tool is asked and can say it has no data for it. A name
    a letter or two off the one known city close to it is that city ("в Пааариже" is Paris)."""
    known = _known_cities(question)
    found = [(start, city) for start, _, city in known]
    for places in _RU_PLACES.finditer(question):
        for match in re.finditer(_NAME, places.group(1)):
            begin = places.start(1) + match.start()
            # The words of the name that are not part of a known city ("в Париже Олег").
            words = [
                w
                for w in re.finditer(_WORD, match.group(0))
                if w.group(0).lower() not in ("и", "в", "во", "для")
                and not any(s <= begin + w.start() < e for s, e, _ in known)
            ]
            if not words:
                continue
            name = match.group(0)[words[0].start() : words[-1].end()]
            where = begin + words[0].start()
            if _CYRILLIC.search(name):
                name = _close_city(name) or in_latin(name)
            found.append((where, name))
    cities: list[str] = []
    for _, city in sorted(found):
        if city not in cities:
            cities.append(city)
    return cities


def in_english(value: str) -> str:
    """The text with the Russian names of cities and temperature units put in English ("в Осло
    по Фаренгейту" gives "в Oslo по fahrenheit"), so that the rules that read a value from a
    request read it the same way in either language."""
    said = re.sub(
        r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*",
        lambda m: english_city(m.group(0)) or m.group(0),
        value,
    )
    for unit, pattern in _UNITS.items():
        said = re.sub(pattern, unit, said, flags=re.IGNORECASE)
    return said


# -- the phrase book (`russian_phrases.py`) ------------------------------------------------------

UNTRANSLATED = (
    "(Офлайн-модель курса знает по-русски не все фразы; остальное написано по-английски.)"
)
# "Paris: 18°C, light rain", "New York: ...", "get_weather: ...", "Error: ..." are data, not
# prose: before the colon, a name (up to three capitalised words) or an identifier.
_DATA_LINE = re.compile(r"^(?:[A-ZА-ЯЁ][\w'’-]*(?: [A-ZА-ЯЁ][\w'’-]*){0,2}|[a-z]+_\w+): \S")
_CITY_IN_SENTENCE = re.compile("|".join(rf"\b{re.escape(c)}\b" for c in CITIES))


_AND_BETWEEN_NAMES = re.compile(r"(?<=[А-Яа-яЁё]) and (?=[А-ЯЁ])")


def _russian_names(said: str) -> str:
    """The cities of a Russian sentence by their Russian names, a list of them joined by «и»
    ("в городе Paris and Tokyo" gives "в городе Париж и Токио")."""
    said = _CITY_IN_SENTENCE.sub(lambda m: russian_name(m.group(0)), said)
    return _AND_BETWEEN_NAMES.sub(" и ", said)


def _translate(sentence: str) -> str | None:
    for english, russian in PHRASES:
        if re.fullmatch(english, sentence):
            said = re.sub(english, russian, sentence)
            return _russian_names(said).replace(" and ", " и ")
    return None


def _sentences(line: str) -> list[str]:
    """The sentences of a line, never split inside a quotation ('You asked: "Спасибо! Пока!".')."""
    said, start, quoted = [], 0, False
    for match in re.finditer(r'["«»“”]|(?<=[.!?])\s+', line):
        mark = match.group(0)
        if mark.strip():
            quoted = mark in "«“" or (mark == '"' and not quoted)
        elif not quoted:
            said.append(line[start : match.start()])
            start = match.end()
    said.append(line[start:])
    return [s for s in said if s]


_FORMAL = re.compile(
    r"^\W*(?:здравствуйте|добрый (?:день|вечер)|доброе утро|доброго (?:дня|вечера|утра)"
    r"|приветствую)",
    re.IGNORECASE,
)


def _line_opening(body: str) -> tuple[int, tuple[str, str]] | None:
    """Where in a line the first phrase that introduces data starts, and the phrase: at its
    start or after a sentence ("Arr! Here is the weather you asked about: Paris: 18°C")."""
    starts = [0, *(m.end() for m in re.finditer(r"(?<=[.!?])\s+", body))]
    for start in starts:
        phrase = next((p for p in LINE_PHRASES if re.match(p[0], body[start:])), None)
        if phrase is not None:
            return start, phrase
    return None


def said_weather(line: str) -> str:
    """A data line of a city's weather said in Russian: the city by its Russian name, each
    condition the phrase book holds in Russian ("Paris: 18°C, light rain" gives "Париж: 18°C,
    небольшой дождь"); any other line, and a condition the book does not hold, as it is."""
    city, colon, values = line.partition(": ")
    if not colon or city not in CITIES:
        return line
    end = "." if values.endswith(".") else ""  # the end of a sentence ("...; London: 12°C.")
    said = [WEATHER_WORDS.get(v.strip().lower(), v) for v in values.removesuffix(end).split(", ")]
    return f"{russian_name(city)}: " + ", ".join(said) + end


def _said_data(data: str) -> str:
    """Data after its opening, each "; "-joined piece (one sentence made of several lines)
    given its own opening in Russian: "...; I could not get the weather for London: ..."."""
    pieces = [said_weather(piece) for piece in data.split("; ")]
    for index, piece in enumerate(pieces[1:], 1):
        phrase = next((p for p in LINE_PHRASES if re.match(p[0], piece)), None)
        if phrase is not None:
            head = re.match(phrase[0], piece)
            said = _russian_names(head.expand(phrase[1]))
            pieces[index] = said + piece[head.end() :]
    return "; ".join(pieces)


def _said_prose(body: str, asked: str) -> tuple[str, bool]:
    """A line of prose said sentence by sentence, and whether a sentence stayed in English."""
    said, missing = [], False
    for sentence in _sentences(body.strip()):
        translated = _translate(sentence) if _LATIN.search(sentence) else sentence
        if translated is None:
            missing = True
            translated = sentence
        elif translated == "Привет!" and _FORMAL.match(asked):
            translated = "Здравствуйте!"
        said.append(translated)
    return " ".join(said), missing


def _said_line(body: str, asked: str) -> tuple[str, bool]:
    """One line said in Russian (prose, then the opening of any data it introduces), and
    whether a sentence stayed in English."""
    opening = _line_opening(body)
    if opening is None:
        return _said_prose(body, asked)
    start, (english, russian) = opening
    before, missing = _said_prose(body[:start], asked) if start else ("", False)
    head = re.match(english, body[start:])
    said_head = _russian_names(head.expand(russian))
    data = _said_data(body[start + head.end() :])
    return (f"{before} " if before else "") + said_head + data, missing


def answer_in_russian(value: str, asked: str = "") -> str:
    """The reply said in Russian, sentence by sentence, through the phrase book; a greeting is
    answered as formally as the person greeted (`asked`: "Здравствуйте!" gets "Здравствуйте!")."""
    # A reply that already holds the notice (a subagent's answer quoted in it) shows it once.
    missing = UNTRANSLATED in value
    kept = [line for line in value.splitlines() if line.strip() != UNTRANSLATED]
    value = "\n".join(line.replace(UNTRANSLATED, "").rstrip() for line in kept)
    lines = []
    for line in value.splitlines():
        prefix = "- " if line.startswith("- ") else ""
        body = line.removeprefix("- ")
        if prefix and body in LISTED:  # a line of the list of what the model can play
            lines.append(prefix + LISTED[body])
            continue
        if not body.strip() or _DATA_LINE.match(body) or not _LATIN.search(body):
            lines.append(prefix + said_weather(body))
            continue
        said, untranslated = _said_line(body, asked)
        missing = missing or untranslated
        lines.append(prefix + said)
    reply = "\n".join(lines)
    return f"{UNTRANSLATED}\n{reply}" if missing else reply
