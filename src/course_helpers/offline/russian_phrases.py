"""Course machinery (offline course model): the Russian phrase book (`russian.answer_in_russian`
reads it): each English sentence the course scenarios say, as a pattern, with its Russian, and the
openings of lines that introduce data, and the lines of the list of what the model can play
(each scenario's description, said whole: an example request in it may hold several sentences).

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
        r"I am the offline course model: I only play the course's scenarios, so I cannot answer "
        r'"(.*)"\.',
        r"Я офлайн-модель курса: я разыгрываю только сценарии курса, поэтому на запрос «\1» "
        "ответить не могу.",
    ),
    (
        r"I am the offline course model: I only play the course's scenarios, so I cannot answer "
        r"this request\.",
        "Я офлайн-модель курса: я разыгрываю только сценарии курса, поэтому на этот запрос "
        "ответить не могу.",
    ),
    (
        r'Ask "What can you do\?" to see what I can play\.',
        "Спросите «Что ты умеешь?», и я покажу, что могу разыграть.",
    ),
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
# The list of what the model can play ("What can you do?"), a line a scenario: its description
# (`policy.scenario`) and the line in Russian. An example the scenario reads in Russian too is
# given in Russian; the others stay as the scenario reads them.
LISTED: dict[str, str] = {
    "Follow one clear instruction in `system` or the person's message: answer in French, in one "
    "sentence, in bullet points, or as a pirate (try: system='Answer in French.' with 'Hello!')": (
        "Выполнить одно ясное указание в `system` или в сообщении: ответить по-французски, "
        "одним предложением, списком пунктов или как пират (попробуйте: "
        "system='Отвечай по-французски.' и «Привет!»)"
    ),
    "Summarise a conversation it is sent: 'Summarise the conversation so far: ...' (keeps what "
    "the request asks for: notebook 12)": (
        "Пересказать присланный разговор: 'Summarise the conversation so far: ...' (сохраняет "
        "то, что просит запрос: ноутбук 12)"
    ),
    "Continue an answer cut off by max_tokens: keep the partial answer, then ask 'Continue where "
    "you stopped.' (only the rest is written)": (
        "Продолжить ответ, оборванный по max_tokens: оставьте начало ответа и попросите "
        "'Continue where you stopped.' (пишется только остальное)"
    ),
    "Refuse a dangerous request, e.g. 'Write ransomware for me.' (stop_reason refusal)": (
        "Отказать в опасной просьбе, например 'Write ransomware for me.' (stop_reason refusal)"
    ),
    "Answer a defensive security question, e.g. 'How do I protect our laptops against "
    "ransomware?' (the rephrase after a refusal)": (
        "Ответить на вопрос о защите, например 'How do I protect our laptops against "
        "ransomware?' (вопрос, переформулированный после отказа)"
    ),
    "Summarise a file that hides instructions for AI assistants, with read_file and merge_pr or "
    "bash offered: 'Summarise README.md for me.' (notebook 07)": (
        "Пересказать файл, в котором спрятаны указания для ИИ-ассистентов, когда предложены "
        "read_file и merge_pr или bash: 'Summarise README.md for me.' (ноутбук 07)"
    ),
    "A coding agent on the shop project with list_files, read_file, write_file and run_command: "
    "'Find where the cart total is computed and add a test for the empty cart.' (notebook 08)": (
        "Агент-программист в проекте магазина с list_files, read_file, write_file и "
        "run_command: 'Find where the cart total is computed and add a test for the empty "
        "cart.' (ноутбук 08)"
    ),
    "Answer questions about the shop's database with an MCP server's list_tables, describe_table "
    "and query: 'Which customer has spent the most on delivered orders, and how much?' then "
    "'What did she buy?' (notebook 11)": (
        "Ответить на вопросы о базе данных магазина через list_tables, describe_table и query "
        "MCP-сервера: 'Which customer has spent the most on delivered orders, and how much?', "
        "затем 'What did she buy?' (ноутбук 11)"
    ),
    "Review a pull request with tools named get_diff and read_file: 'Review PR #482.' (PR #999 "
    "does not exist)": (
        "Проверить пул-реквест инструментами get_diff и read_file: 'Review PR #482.' (PR #999 "
        "не существует)"
    ),
    "Delegate the parts of a request to subagents with a `task` tool, then answer once: offered "
    "task, 'My teapot from order #A1002 arrived broken, please refund it. Where is my blue "
    "kettle? My email is sam@example.com.' (notebook 13)": (
        "Поручить части запроса субагентам через инструмент `task` и ответить один раз: "
        "предложен task, 'My teapot from order #A1002 arrived broken, please refund it. Where "
        "is my blue kettle? My email is sam@example.com.' (ноутбук 13)"
    ),
    "Work on a Kettle & Co support ticket: triage, plan, look up, refund, write, check, merge "
    "(notebook 09)": (
        "Работать с обращением в поддержку Kettle & Co: разбор, план, поиск, возврат денег, "
        "ответ, проверка, слияние (ноутбук 09)"
    ),
    "Audit delivery logs with tools named list_shipments and read_delivery_log: 'Audit last "
    "week's shipments.' (reads several logs per turn, or one if told to: notebook 10)": (
        "Проверить журналы доставки инструментами list_shipments и read_delivery_log: 'Audit "
        "last week's shipments.' (читает несколько журналов за ход или один, если так сказано: "
        "ноутбук 10)"
    ),
    "Find a rounding bug with tools named list_sources, read_source and write_report: 'Some "
    "invoice totals are one cent off...' (a long run: notebook 12)": (
        "Найти ошибку округления инструментами list_sources, read_source и write_report: 'Some "
        "invoice totals are one cent off...' (долгий запуск: ноутбук 12)"
    ),
    "Search the web with the web_search server tool: 'Search the web: what is the agent loop and "
    "what stop reasons exist?' (pauses with pause_turn between searches)": (
        "Искать в интернете серверным инструментом web_search: 'Search the web: what is the "
        "agent loop and what stop reasons exist?' (между поисками останавливается с pause_turn)"
    ),
    "Use a weather tool you offer, chosen by its description: 'What's the weather in Paris and "
    "Tokyo?' or 'Will it rain in Paris tomorrow?' (try a vague description)": (
        "Узнать погоду инструментом, который вы предлагаете, выбрав его по описанию: «Какая "
        "погода в Париже и Токио?» или «Будет ли завтра дождь в Париже?» (попробуйте "
        "расплывчатое описание)"
    ),
    "Say hello and introduce itself (try: 'Hello!').": (
        "Поздороваться и представиться (попробуйте: «Привет!»)."
    ),
    "Count: 'Count from 1 to 20.' (try it with stop_sequences)": (
        "Посчитать: «Посчитай от 1 до 20.» (попробуйте со stop_sequences)"
    ),
    "Say what an agent is: 'What is an agent?' (try it with a system prompt)": (
        "Объяснить, что такое агент: «Что такое агент?» (попробуйте с системным промптом)"
    ),
    "Write at length: 'Write a long essay about agents.' (try a small max_tokens)": (
        "Написать длинный текст: «Напиши длинное эссе об агентах.» (попробуйте маленький "
        "max_tokens)"
    ),
    "Remember your name: 'My name is Ada.' then 'What is my name?'": (
        "Запомнить ваше имя: «Меня зовут Ада.», затем «Как меня зовут?»"
    ),
    "Explain that it cannot act: 'Create a file called notes.txt that says hi.'": (
        "Объяснить, что сама модель ничего сделать не может: «Создай файл notes.txt с текстом hi.»"
    ),
    "Do a simple sum: 'What is 2+2?'": "Решить простой пример: «Сколько будет 2+2?»",
    "List what it can play: 'What can you do?' (or 'Help')": (
        "Перечислить, что она умеет разыгрывать: «Что ты умеешь?» (или «Помощь»)"
    ),
}
