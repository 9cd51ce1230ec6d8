"""Course machinery (offline course model): the Russian phrase book (`russian.answer_in_russian`
reads it): each English sentence the course scenarios say, as a pattern, with its Russian, and the
openings of lines that introduce data.

    PHRASES[0]   # ("Hello!", "Привет!")
"""

from __future__ import annotations

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
    (r"You're welcome!", "Пожалуйста!"),
    (r"Goodbye!", "До свидания!"),
    (r"(.+) is warmer than (.+): (.+), against (.+)\.", r"\1 теплее, чем \2: \3 против \4."),
    (r"(.+) is colder than (.+): (.+), against (.+)\.", r"\1 холоднее, чем \2: \3 против \4."),
    (r"It is the same in (.+): (.+)\.", r"Одинаково, \1: \2."),
    # What to wear (`scenarios/weather_advice.py`).
    (
        r"In (.+), wear a warm coat, a hat and gloves\.",
        r"В городе \1 стоит надеть тёплое пальто, шапку и перчатки.",
    ),
    (r"In (.+), wear a warm jacket\.", r"В городе \1 стоит надеть тёплую куртку."),
    (
        r"In (.+), wear a light jacket or a sweater\.",
        r"В городе \1 стоит надеть лёгкую куртку или свитер.",
    ),
    (r"In (.+), light clothes are enough\.", r"В городе \1 хватит лёгкой одежды."),
    (
        r"In (.+), wear light clothes and protect yourself from the sun\.",
        r"В городе \1 стоит надеть лёгкую одежду и беречься от солнца.",
    ),
    (r"In (.+), take an umbrella\.", r"В городе \1 возьмите зонт."),
    (
        r"In (.+), wear warm waterproof boots\.",
        r"В городе \1 наденьте тёплую непромокаемую обувь.",
    ),
    (
        r"I have no tool to check the weather in this request, so I cannot tell you what it is "
        r"like\.",
        "В этом запросе у меня нет инструмента, чтобы узнать погоду, поэтому сказать, какая она, "
        "я не могу.",
    ),
    (
        r"I will not guess; if your program gives me a weather tool, I can ask for it and answer "
        r"from its result\.",
        "Угадывать я не буду; если ваша программа даст мне инструмент погоды, я попрошу его и "
        "отвечу по его результату.",
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
# Whether a temperature looked up is cold or warm (`scenarios/weather_talk.py`): "Yes, 5°C in
# Oslo is cold.", "No, 18°C in Paris is warm, not cold."
_FEELS = {"cold": "холодно", "cool": "прохладно", "warm": "тепло", "hot": "жарко"}
PHRASES += [
    (rf"Yes, (.+) in (.+) is {feel}\.", rf"Да, в городе \2 \1 — это {said}.")
    for feel, said in _FEELS.items()
]
PHRASES += [
    (
        rf"No, (.+) in (.+) is {feel}, not {asked}\.",
        rf"Нет, в городе \2 \1 — это {said}, а не {other}.",
    )
    for feel, said in _FEELS.items()
    for asked, other in _FEELS.items()
    if asked != feel
]

# The conditions a weather tool reports, said in a data line ("Paris: 18°C, light rain" gives
# "Париж: 18°C, небольшой дождь"). A condition not listed stays as the tool wrote it.
WEATHER_WORDS: dict[str, str] = {
    "clear": "ясно",
    "clear sky": "ясное небо",
    "sunny": "солнечно",
    "partly cloudy": "переменная облачность",
    "cloudy": "облачно",
    "overcast": "пасмурно",
    "light rain": "небольшой дождь",
    "rain": "дождь",
    "heavy rain": "сильный дождь",
    "showers": "ливни",
    "drizzle": "морось",
    "thunderstorm": "гроза",
    "light snow": "небольшой снег",
    "snow": "снег",
    "heavy snow": "сильный снег",
    "sleet": "мокрый снег",
    "fog": "туман",
    "mist": "дымка",
    "windy": "ветрено",
}

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
