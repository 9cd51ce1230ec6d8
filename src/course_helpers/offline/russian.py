"""Course machinery (offline course model): the Russian the course model understands, and how it
answers in Russian.

Where the lessons invite free input (00–03: greetings, "my name is …", "what is an agent?",
counting, the system-prompt instructions of 01, the weather questions of 02–03), a learner may
type Russian. The scenarios read those requests in either language (their patterns list the
Russian wordings beside the English ones), and a reply to a person who wrote in Russian is said
in Russian: `answer_in_russian` puts each sentence of the reply through a phrase book, the way
`instructions.french` does for French. A sentence the book does not hold stays in English, and
the reply says so at its start. Data lines ("Paris: 18°C") are left as they are.

    writes_russian("Какая погода в Париже?")   # True
    english_city("Париже")                     # "Paris"
"""

from __future__ import annotations

import re

_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_LATIN = re.compile(r"[A-Za-z]")


def writes_russian(value: str) -> bool:
    """True when the text is written mostly in Cyrillic letters."""
    cyrillic = len(_CYRILLIC.findall(value))
    return cyrillic > 0 and cyrillic >= len(_LATIN.findall(value))


# Cities of the weather lessons, with the endings Russian gives them after "в" / "для".
CITIES: dict[str, tuple[str, ...]] = {
    "Paris": ("Париж", "Парижа", "Париже"),
    "Tokyo": ("Токио",),
    "London": ("Лондон", "Лондона", "Лондоне"),
    "Berlin": ("Берлин", "Берлина", "Берлине"),
    "Moscow": ("Москва", "Москвы", "Москве"),
    "Rome": ("Рим", "Рима", "Риме"),
    "Madrid": ("Мадрид", "Мадрида", "Мадриде"),
    "Oslo": ("Осло",),
    "Sydney": ("Сидней", "Сиднея", "Сиднее"),
    "New York": ("Нью-Йорк", "Нью-Йорка", "Нью-Йорке"),
    "Saint Petersburg": ("Санкт-Петербург", "Санкт-Петербурга", "Санкт-Петербурге"),
    "Kazan": ("Казань", "Казани"),
    "Reykjavik": ("Рейкьявик", "Рейкьявика", "Рейкьявике"),
    "Yekaterinburg": ("Екатеринбург", "Екатеринбурга", "Екатеринбурге"),
    "Novosibirsk": ("Новосибирск", "Новосибирска", "Новосибирске"),
    "Minsk": ("Минск", "Минска", "Минске"),
    "Beijing": ("Пекин", "Пекина", "Пекине"),
    "Atlantis": ("Атлантида", "Атлантиды", "Атлантиде", "Атлантиду"),
}
_BY_FORM = {form.lower(): city for city, forms in CITIES.items() for form in forms}
_BY_FORM.update({form: "Saint Petersburg" for form in ("питер", "питера", "питере")})
_UNITS = {"fahrenheit": r"фаренгейт\w*", "celsius": r"цельси\w*", "kelvin": r"кельвин\w*"}
_LATIN_LETTERS = "a b v g d e yo zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya"
_TO_LATIN = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", _LATIN_LETTERS.split(" "), strict=True))


def english_city(word: str) -> str | None:
    """The English name of a city written in Russian (any of its forms), or None."""
    return _BY_FORM.get(word.lower())


def russian_name(city: str) -> str:
    """The Russian name of a city the phrase book knows; the name itself otherwise."""
    return CITIES.get(city, (city,))[0]


def in_latin(word: str) -> str:
    """A Russian name a city list does not hold, in Latin letters, as a model would pass it to
    a tool that takes English names: the ending "в Екатеринбурге" gives it dropped
    ("Yekaterinburg"); a name that may be of any form is only transliterated."""
    stem = re.sub(r"(?<=[бвгджзклмнпрстфхцчшщ])е$", "", word)
    latin = "".join(_TO_LATIN.get(c.lower(), c) for c in stem).replace("-", "")
    if stem[:1] in "ЕеЁё" and latin[:1] in "eE":  # "Екатеринбург" is "Yekaterinburg"
        latin = "y" + latin
    return latin[:1].upper() + latin[1:]


_WORD = r"[А-ЯЁA-Z][\w'’]*(?:-[\w'’]+)*"
# "в Париже и Атлантиде", "для Берлина, Рима и Мадрида": the capitalised names after "в"/"для".
_RU_PLACES = re.compile(
    rf"(?<!\w)(?i:в|во|для)\s+({_WORD}(?:\s*(?:,|(?i:и))\s*(?:(?i:в|во|для)\s+)?{_WORD})*)"
)


def cities_in_russian(question: str) -> list[str]:
    """The cities a question names, in order, by their English names: a city the list knows in
    any of its forms and any case ("в москве", "в Paris"), and a capitalised name after "в" or
    "для" it does not know, in Latin letters ("в Екатеринбурге" gives "Yekaterinburg"), so that
    the tool is asked and can say it has no data for it."""
    found: list[tuple[int, str]] = []
    for match in re.finditer(r"[\w'’]+(?:-[\w'’]+)*", question):
        word = match.group(0)
        city = english_city(word) or next((c for c in CITIES if c.lower() == word.lower()), None)
        if city is None and " " not in word:
            two = re.match(r"\s+([\w'’]+)", question[match.end() :])
            pair = f"{word} {two.group(1)}" if two else ""
            city = next((c for c in CITIES if c.lower() == pair.lower()), None)
        if city:
            found.append((match.start(), city))
    for places in _RU_PLACES.finditer(question):
        for match in re.finditer(_WORD, places.group(1)):
            word = match.group(0)
            if word.lower() in ("и", "в", "во", "для") or english_city(word):
                continue
            where = places.start(1) + match.start()
            if any(start <= where < start + len(city) + 1 for start, city in found):
                continue  # part of a known name ("New York")
            found.append((where, in_latin(word) if _CYRILLIC.search(word) else word))
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


# -- the phrase book ----------------------------------------------------------------------------

PHRASES: list[tuple[str, str]] = [
    (r"Hello!", "Привет!"),
    (r"Ahoy!", "Эй, на палубе!"),
    (r"Arr!", "Арр!"),
    (r"I am the offline course model\.", "Я офлайн-модель курса."),
    (r"What would you like to try\?", "Что вы хотите попробовать?"),
    (
        r"I am the offline course model, a small stand-in for Claude that runs on your machine "
        r"without an API key\.",
        "Я офлайн-модель курса, небольшая замена Claude, которая работает на вашем компьютере "
        "без ключа API.",
    ),
    (
        r"I only play the course's scenarios, so I cannot really answer that\.",
        "Я разыгрываю только сценарии курса, поэтому по-настоящему ответить на это не могу.",
    ),
    (r'You asked: "(.*)"\.', r'Вы спросили: "\1".'),
    (r"Here is what I can do:", "Вот что я умею:"),
    (
        r"Set ANTHROPIC_API_KEY to talk to the real Claude instead\.",
        "Задайте ANTHROPIC_API_KEY, чтобы говорить с настоящим Claude.",
    ),
    (r"Nice to meet you, (.+)!", r"Приятно познакомиться, \1!"),
    (r"You're welcome!", "Пожалуйста!"),
    (r"Your name is (.+)\.", r"Вас зовут \1."),
    (r"You told me earlier in this conversation\.", "Вы сказали мне это раньше в этом разговоре."),
    (r"I don't know your name\.", "Я не знаю, как вас зовут."),
    (
        r"I only see the messages sent in this request, and none of them tells me\.",
        "Я вижу только сообщения этого запроса, и ни одно из них этого не говорит.",
    ),
    (
        r"An agent is a program that calls a language model in a loop\.",
        "Агент — это программа, которая вызывает языковую модель в цикле.",
    ),
    (
        r"Each time round, the model reads the whole conversation and either answers or asks "
        r"for a tool\.",
        "На каждой итерации модель читает весь разговор и либо отвечает, либо просит инструмент.",
    ),
    (
        r"Each time round, the model reads the whole conversation so far and either answers or "
        r"asks for a tool\.",
        "На каждой итерации модель читает весь разговор и либо отвечает, либо просит инструмент.",
    ),
    (
        r"Your program runs the tool and sends the result back\.",
        "Ваша программа запускает инструмент и отправляет результат обратно.",
    ),
    (
        r"The loop ends when the model answers without asking for a tool\.",
        "Цикл заканчивается, когда модель отвечает, не прося инструмента.",
    ),
    (
        r"The program runs the tool, adds the result to the conversation and calls the model "
        r"again\.",
        "Программа запускает инструмент, добавляет результат в разговор и снова вызывает модель.",
    ),
    (
        r"Nothing else is magic: the loop ends when the model stops asking for tools, or when "
        r"the program decides it has gone on long enough\.",
        "Больше никакой магии: цикл заканчивается, когда модель перестаёт просить инструменты, "
        "или когда программа решает, что хватит.",
    ),
    (r"I'll check the weather in (.+)\.", r"Сейчас узнаю погоду: \1."),
    (r"I'll check the forecast for (.+)\.", r"Сейчас узнаю прогноз: \1."),
    (r"Here is the weather you asked about:", "Вот погода, о которой вы спрашивали:"),
    (r"Here is the forecast you asked about:", "Вот прогноз, о котором вы спрашивали:"),
    (r"Which city would you like the weather for\?", "Для какого города узнать погоду?"),
    (
        r"I won't guess the weather; please check the tool or try again\.",
        "Я не буду угадывать погоду; проверьте инструмент или попробуйте ещё раз.",
    ),
    (r"I can't do that myself\.", "Сам я этого сделать не могу."),
    (
        r"I can only read the messages you send me and write text back: I have no access to "
        r"your files, your clock, your email or a terminal\.",
        "Я могу только читать ваши сообщения и писать текст в ответ: у меня нет доступа к вашим "
        "файлам, часам, почте или терминалу.",
    ),
    (
        r"If your program gives me a tool for it, I can ask for that tool, your code can run it "
        r"and send me the result\.",
        "Если ваша программа даст мне для этого инструмент, я попрошу его, ваш код его запустит "
        "и пришлёт мне результат.",
    ),
    (r"I'll use (\w+), as instructed\.", r"Я вызову \1, как сказано в инструкции."),
    (r"Here is what (\w+) returned:", r"Вот что вернул \1:"),
    (
        r"I was told not to use (\w+), so I will not call it\.",
        r"Мне сказали не использовать \1, поэтому я его не вызываю.",
    ),
    (
        r"Without it I cannot look this up, and I will not make up an answer\.",
        "Без него я не могу это узнать и не буду выдумывать ответ.",
    ),
    (
        r"My (\w+) tool only knows current conditions, not forecasts, so I cannot tell you "
        r"about the weather to come(?: in .+)?\.",
        r"Мой инструмент \1 знает только текущую погоду, а не прогнозы, поэтому я не могу "
        "сказать, какая погода будет.",
    ),
    (r"I can tell you the weather(?: in .+)? right now\.", "Могу сказать, какая погода сейчас."),
    (
        r"I have a (\w+) tool, but I may not use it in this request, so I cannot tell you the "
        r"current weather(?: in .+)?\.",
        r"У меня есть инструмент \1, но в этом запросе мне нельзя его использовать, поэтому я "
        "не могу сказать, какая сейчас погода.",
    ),
    (
        r"I would use a tool for this, but none may be used in this request\.",
        "Для этого я бы вызвал инструмент, но в этом запросе их использовать нельзя.",
    ),
    (r"I'll call (\w+)\.", r"Я вызову \1."),
    (
        r'None of my tools gives the weather: (\w+) says it does something else \("(.*)"\), so I '
        r"cannot look the weather up\.",
        r"Ни один из моих инструментов не сообщает погоду: про \1 сказано, что он делает другое "
        r'("\2"), поэтому узнать погоду я не могу.',
    ),
]
# Lines that introduce data: the words before the colon are said in Russian, the data after it
# (a tool's result, "Paris: 18°C") stays as it is.
LINE_PHRASES: list[tuple[str, str]] = [
    (r"I could not get the weather for (.+?): ", r"Мне не удалось узнать погоду в городе \1: "),
    (
        r"You gave the weather yourself, so there is nothing to look up: ",
        "Погоду вы назвали сами, так что узнавать нечего: ",
    ),
    (r"Here is the weather you asked about: ", "Вот погода, о которой вы спрашивали: "),
    (r"Here is the forecast you asked about: ", "Вот прогноз, о котором вы спрашивали: "),
    (r"Here is what (\w+) returned: ", r"Вот что вернул \1: "),
    (r"Done\. (\w+) returned: ", r"Готово. \1 вернул: "),
    (r"(\w+) failed: ", r"\1 не сработал: "),
]
UNTRANSLATED = (
    "(Офлайн-модель курса знает по-русски не все фразы; остальное написано по-английски.)"
)
# "Paris: 18°C, light rain", "New York: ...", "get_weather: ...", "Error: ..." are data, not
# prose: before the colon, a name (up to three capitalised words) or an identifier.
_DATA_LINE = re.compile(r"^(?:[A-ZА-ЯЁ][\w'’-]*(?: [A-ZА-ЯЁ][\w'’-]*){0,2}|[a-z]+_\w+): \S")
_CITY_IN_SENTENCE = re.compile("|".join(rf"\b{re.escape(c)}\b" for c in CITIES))


def _translate(sentence: str) -> str | None:
    for english, russian in PHRASES:
        if re.fullmatch(english, sentence):
            said = re.sub(english, russian, sentence)
            return _CITY_IN_SENTENCE.sub(lambda m: russian_name(m.group(0)), said).replace(
                " and ", " и "
            )
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
        if not body.strip() or _DATA_LINE.match(body) or not _LATIN.search(body):
            lines.append(line)
            continue
        opening = next((p for p in LINE_PHRASES if re.match(p[0], body)), None)
        if opening is not None:
            head = re.match(opening[0], body)
            said_head = _CITY_IN_SENTENCE.sub(
                lambda m: russian_name(m.group(0)), head.expand(opening[1])
            )
            lines.append(prefix + said_head + body[head.end() :])
            continue
        said = []
        for sentence in _sentences(body.strip()):
            translated = _translate(sentence) if _LATIN.search(sentence) else sentence
            if translated is None:
                missing = True
                translated = sentence
            elif translated == "Привет!" and _FORMAL.match(asked):
                translated = "Здравствуйте!"
            said.append(translated)
        lines.append(prefix + " ".join(said))
    reply = "\n".join(lines)
    return f"{UNTRANSLATED}\n{reply}" if missing else reply
