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
}
_BY_FORM = {form.lower(): city for city, forms in CITIES.items() for form in forms}


def english_city(word: str) -> str | None:
    """The English name of a city written in Russian (any of its forms), or None."""
    return _BY_FORM.get(word.lower())


def russian_name(city: str) -> str:
    """The Russian name of a city the phrase book knows; the name itself otherwise."""
    return CITIES.get(city, (city,))[0]


def cities_in_russian(question: str) -> list[str]:
    """The cities a Russian question names, in order, by their English names."""
    found = []
    for match in re.finditer(r"[А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?", question):
        city = english_city(match.group(0))
        if city and city not in found:
            found.append(city)
    return found


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
        "На каждом круге модель читает весь разговор и либо отвечает, либо просит инструмент.",
    ),
    (
        r"Each time round, the model reads the whole conversation so far and either answers or "
        r"asks for a tool\.",
        "На каждом круге модель читает весь разговор и либо отвечает, либо просит инструмент.",
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
    (r"I could not get the weather for (.+?): (.+)", r"Мне не удалось узнать погоду для \1: \2"),
]
UNTRANSLATED = (
    "(Офлайн-модель курса знает по-русски не все фразы; остальное написано по-английски.)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DATA_LINE = re.compile(r"^[\w'’ -]+: \S")  # "Paris: 18°C, light rain" is data, not prose
_CITY_IN_SENTENCE = re.compile("|".join(rf"\b{re.escape(c)}\b" for c in CITIES))


def _translate(sentence: str) -> str | None:
    for english, russian in PHRASES:
        if re.fullmatch(english, sentence):
            said = re.sub(english, russian, sentence)
            return _CITY_IN_SENTENCE.sub(lambda m: russian_name(m.group(0)), said).replace(
                " and ", " и "
            )
    return None


def answer_in_russian(value: str) -> str:
    """The reply said in Russian, sentence by sentence, through the phrase book."""
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
        said = []
        for sentence in (s for s in _SENTENCE_END.split(body.strip()) if s):
            translated = _translate(sentence) if _LATIN.search(sentence) else sentence
            if translated is None:
                missing = True
                translated = sentence
            said.append(translated)
        lines.append(prefix + " ".join(said))
    reply = "\n".join(lines)
    return f"{UNTRANSLATED}\n{reply}" if missing else reply
