"""Course machinery (offline course model): plain chat for notebook 01: a greeting, what an agent
is, counting, a long essay, remembering a name, no hands, a simple sum.

These are enough to show a response's parts, a second turn that relies on history,
`stop_sequences` (counting), `max_tokens` (the essay never fits in a small budget) and that a
model asked to act on the world can only write text about it. The greeting also answers when
tools are offered, so notebook 02 can show `tool_choice` "auto" deciding not to call one; so do a
name, what an agent is, counting and a sum, which need no tool either.

Each reads what the person asks (`Conversation.person_text`: not a system prompt, not the
context a program wraps around the question), in English or in Russian ("Привет!", "Меня
зовут Ада.", "Как меня зовут?", "Что такое агент?", "Посчитай от 1 до 20."); the reply to a
Russian question is said in Russian (`offline/russian.py`). A name may be corrected ("My name is
not Ada, it's Ira.", "Меня зовут не Ада, а Ира.", or a later "No, my name is Ira."): the latest
name given is the one remembered. A name the system prompt states ("The user's name is Olga.")
answers "What is my name?" when the person has not given one: a fact in the system prompt is
context the model uses (the question still comes from the person). A thanks or a greeting
before a sum does not hide it ("Thanks! What is 2+2?"), nor does a statement or a clause
("I live in Berlin. What is 2+2?", "Whether or not you like it, what is 10+5?"); a message that only thanks ("Thanks!",
«Спасибо!») asks for nothing and gets "You're welcome!", never a new call.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, blocks_of, own_words, written
from course_helpers.offline.policy import Reply, say, scenario
from course_helpers.offline.reading import after_leads, message_in, without_orders
from course_helpers.offline.russian import cities_in_russian
from course_helpers.offline.stated_numbers import sum_in

_GREETING = re.compile(
    r"^(?:(?:please\s+)?say\s+(?:hello|hi)\b.*"
    r"|(?:hello|hi|hey|greetings|good (?:morning|afternoon|evening))(?: there)?\b"
    r"(?:[\s,]+[A-Z][\w-]*)?[\s,!.?]*"
    r"(?:(?:how are you|what can you do|who are you)\b.*)?"
    r"|(?:привет\w*|здравствуй(?:те)?|добрый (?:день|вечер)|доброе утро"
    r"|доброго (?:дня|вечера|утра)|салют|хай|хелло)\b.*"
    r"|(?:скажи|скажите)\s+(?:привет|здравствуй(?:те)?)\b.*)$",
    re.IGNORECASE | re.DOTALL,
)
_ONE_SENTENCE = re.compile(
    r"\b(?:in )?(?:one|a single)(?: short)? sentence\b|одн\w+ предложени", re.I
)
_NAME = r"[^\W\d_]+(?:-[^\W\d_]+)*(?![\w-])"
# A second capitalised word is part of the name: "Меня зовут Анна Петровна", "My name is Ada
# Lovelace".
_FULL_NAME = rf"{_NAME}(?:\s+(?-i:[A-ZА-ЯЁ][^\W\d_]+(?:-[^\W\d_]+)*)(?![\w-]))?"
# "My name is Ada.", "Меня зовут Анна-Мария.", «Моё имя — Сергей.», «Мое имя Аня», «Зовут меня
# Аня.», «Меня звать Аня»; a correction gives the name it puts right: "My name is not Ada, it's
# Ira.", "Меня зовут не Ада, а Ира."
_INTRODUCED = re.compile(
    r"\b(?:my name is|my name's|меня (?:зовут|звать)|зовут меня|мо[её] имя(?:\s*[—–-])?)\s+"
    rf"(?:(?:not|не)\s+{_NAME}\s*[,;]?\s*"
    rf"(?:(?:but|it's|it is|rather|а|но)\s+)*)?(?!(?:not|не)\b)({_FULL_NAME})",
    re.IGNORECASE,
)
# A name given in short, as the whole message: "I'm Dmitry.", "Call me Sasha", "This is Dmitry.",
# «Я Дмитрий.», «Привет, я Дмитрий.», «Я — Дмитрий», «Это Дмитрий», «Зови меня Саша», «Меня Дмитрий зовут» (the
# name before the verb). The name is a capitalised word («Я устал.», «Это Париж?» give none:
# a question is not an introduction).
_SHORT_NAME = r"([A-ZА-ЯЁ][^\W\d_]*(?:-[^\W\d_]+)*)"
_INTRODUCED_SHORT = re.compile(
    r"^\W*(?:(?i:hi|hello|hey|привет|здравствуй(?:те)?)\W+)?"
    r"(?:(?i:i'm|i am|call me|this is|it's|я|это|зови(?:те)? меня)\s*(?<=\s)(?:[—–-]\s+)?"
    rf"{_SHORT_NAME}|(?i:меня)\s+{_SHORT_NAME}\s+(?i:зовут))[\s.!]*$"
)


def _names_in(text: str) -> list[str]:
    """The names the person gives in one message, in order."""
    short = _INTRODUCED_SHORT.match(text.strip())
    given = [m.group(1) for m in _INTRODUCED.finditer(text)]
    name = (short.group(1) or short.group(2)) if short else None
    # «Это Париж.» names a place, not the person.
    return given or ([name] if name and not cities_in_russian(name) else [])


# A system prompt that states the person's name: "The user's name is Olga.", "The user is called
# Olga.", "You are talking to Olga.", "User name: Olga", "Пользователя зовут Ольга."
_NAME_STATED = re.compile(
    r"\b(?:(?:the\s+)?(?:user|person|customer|client)(?:'s)?\s+(?:name\s+is|is\s+(?:called|named))"
    r"|you\s+are\s+(?:talking|speaking|chatting)\s+(?:to|with)"
    r"|(?:user|customer)(?:'s)?\s+name\s*:"
    rf"|(?:пользователя|собеседника|клиента)\s+зовут)\s+(?!(?:not|unknown|не)\b)({_NAME})",
    re.IGNORECASE,
)
# "What is my name?", "Do you remember my name?", «Как меня зовут?», «Ты помнишь моё имя?»
_ASKS_NAME = re.compile(
    r"\bwhat(?:'s| is) my name\b|\b(?:do you )?(?:remember|know) my name\b|\bкак меня зовут\b"
    r"|\b(?:помнишь|помните|знаешь|знаете)\s+(?:,\s*)?(?:мо[её] имя|как меня зовут)\b",
    re.IGNORECASE,
)


def _plain_chat(conv: Conversation) -> bool:
    return not conv.ends_with_results and not conv.tools


def _needs_no_tool(conv: Conversation) -> bool:
    """A name, what an agent is or counting needs no tool: tools on offer change nothing."""
    return not conv.ends_with_results


@scenario("hello", "Say hello and introduce itself (try: 'Hello!').", priority=900)
def hello(conv: Conversation) -> Reply | None:
    # Tools on offer do not matter: a greeting needs none (what "auto" tool_choice shows).
    if conv.ends_with_results or not _GREETING.match(conv.person_text.strip()):
        return None
    if _names_in(conv.person_text):  # «Привет, я Дмитрий.» gives a name to remember
        return None
    if _ONE_SENTENCE.search(conv.person_text):
        return say("Hello! I am the offline course model.")
    return say("Hello! I am the offline course model. What would you like to try?")


_GOODBYE = re.compile(
    r"^\W*(?:(?:good)?bye(?:-bye)?|see you(?: later)?|пока|до свидания|до встречи|увидимся)"
    r"[\s,!.)]*$",
    re.IGNORECASE,
)


@scenario("goodbye", "", priority=900)
def goodbye(conv: Conversation) -> Reply | None:
    if conv.ends_with_results or not _GOODBYE.match(conv.person_text):
        return None
    return say("Goodbye!")


@scenario("count", "Count: 'Count from 1 to 20.' (try it with stop_sequences)", priority=900)
def count(conv: Conversation) -> Reply | None:
    if not _needs_no_tool(conv):
        return None
    match = re.search(
        r"(?:count|посчитай|сосчитай)\s+(?:(?:from\s+|от\s+)?(\d+)\s+)?(?:to|до)\s+(\d+)",
        conv.person_text.lower(),
    )
    if not match:
        return None
    # "Count to 10." starts at 1.
    start, end = int(match.group(1) or 1), int(match.group(2))
    if end - start > 500:
        end = start + 500
    return say(", ".join(str(n) for n in range(start, end + 1)) + ".")


AGENT_ANSWER = (
    "An agent is a program that calls a language model in a loop. Each time round, the model "
    "reads the whole conversation and either answers or asks for a tool. Your program runs the "
    "tool and sends the result back. The loop ends when the model answers without asking for a "
    "tool."
)


@scenario(
    "agent", "Say what an agent is: 'What is an agent?' (try it with a system prompt)", priority=900
)
def agent(conv: Conversation) -> Reply | None:
    if not _needs_no_tool(conv):
        return None
    if re.search(
        r"\bwhat(?:'s| is) an (?:ai |llm )?agent\b|\bчто такое (?:ии-|llm-)?агент\b",
        conv.person_text,
        re.IGNORECASE,
    ):
        return say(AGENT_ANSWER)
    return None


ESSAY_PARAGRAPH = (
    "An agent is a program that calls a language model in a loop. Each time round, the model "
    "reads the whole conversation so far and either answers or asks for a tool. The program "
    "runs the tool, adds the result to the conversation and calls the model again. Nothing "
    "else is magic: the loop ends when the model stops asking for tools, or when the program "
    "decides it has gone on long enough. "
)


@scenario(
    "essay",
    "Write at length: 'Write a long essay about agents.' (try a small max_tokens)",
    priority=900,
)
def essay(conv: Conversation) -> Reply | None:
    if not _plain_chat(conv) or not re.search(
        r"\b(long|essay|story)\b|\b(?:длинн\w+|эссе|сочинени\w+|рассказ)\b",
        conv.person_text.lower(),
    ):
        return None
    paragraphs = [f"{i + 1}. {ESSAY_PARAGRAPH}" for i in range(12)]
    return say("\n\n".join(paragraphs))


@scenario("remember", "Remember your name: 'My name is Ada.' then 'What is my name?'", priority=900)
def remember(conv: Conversation) -> Reply | None:
    if not _needs_no_tool(conv):
        return None
    last = conv.person_text
    introduced = _names_in(last)
    if introduced:
        return say(f"Nice to meet you, {introduced[0]}!")
    if _ASKS_NAME.search(last):
        # The latest name given wins: "No, my name is Ira." corrects an earlier "Ada".
        for message in reversed(conv.messages[:-1]):
            if message.get("role") != "user":
                continue
            said = own_words(written(blocks_of(message), " "))
            found = _names_in(said)
            if found:
                return say(f"Your name is {found[-1]}. You told me earlier in this conversation.")
        # The person has not said it, but the system prompt states it: context to use.
        stated = _NAME_STATED.search(conv.system)
        if stated:
            return say(f"Your name is {stated.group(1)}.")
        return say(
            "I don't know your name. I only see the messages sent in this request, and none of "
            "them tells me."
        )
    return None


_ACTIONS = re.compile(
    r"\b(?:create|write|save|delete|remove|open|edit)\b.{0,20}\bfile\b"
    r"|\bsend\b.{0,20}\be-?mail\b"
    r"|\bwhat time is it\b"
    r"|\brun\b.{0,30}\b(?:command|script|tests?)\b"
    r"|\b(?:создай|запиши|сохрани|удали|открой)\w*\b.{0,20}\bфайл"
    r"|\b(?:отправь|пошли)\w*\b.{0,20}\b(?:письмо|e-?mail|почт)"
    r"|\bкоторый час\b|\bсколько (?:сейчас )?времени\b"
    r"|\bзапусти\w*\b.{0,30}\b(?:команд|скрипт|тест)",
    re.IGNORECASE,
)


@scenario(
    "no_hands",
    "Explain that it cannot act: 'Create a file called notes.txt that says hi.'",
    priority=900,
)
def no_hands(conv: Conversation) -> Reply | None:
    said = conv.person_text
    if not _plain_chat(conv) or not (_ACTIONS.search(said) or message_in(said)):
        return None  # message_in: "Email bob@example.com that the meeting moved to 3pm"
    return say(
        "I can't do that myself. I can only read the messages you send me and write text "
        "back: I have no access to your files, your clock, your email or a terminal. If your "
        "program gives me a tool for it, I can ask for that tool, your code can run it and "
        "send me the result."
    )


_THANKS = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|ок(?:ей)?|окей)[\s,!.]+)?"
    r"(?:(?:thanks|thank you|thx|cheers|many thanks)(?: (?:a lot|so much|very much))?"
    r"|(?:большое\s+)?спасибо(?:\s+большое|\s+огромное)?|благодарю|спс|спасибки)"
    r"(?:[\s,]+(?:that's|that is|it's)?\s*(?:great|helpful|perfect)|[\s,]+(?:это\s+)?(?:очень\s+)?"
    r"(?:помогло|здорово|отлично))?[\s!.)]*$",
    re.IGNORECASE,
)


# Before the weather scenario (50): a thanks after a weather answer is no new lookup.
@scenario("thanks", "", priority=49)
def thanks(conv: Conversation) -> Reply | None:
    if conv.ends_with_results or not _THANKS.match(conv.person_text):
        return None
    return say("You're welcome!")


_SUM_QUESTION = re.compile(
    r"^(?:(?:а|and|so)\s+)?(?:what(?:'s| is)|how much is|calculate|compute|сколько будет|чему равно|посчитай)\s+"
    r"(.+?)\s*[?=.!]*$",
    re.IGNORECASE,
)


_FOR_SUMS = re.compile(r"calculat|arithmetic|\bmath|\bsums?\b|\beval", re.IGNORECASE)
# A thanks or a greeting before the question does not hide it: "Thanks! What is 2+2?", "Hi!
# What's 7 times 6?".
_COURTESY = re.compile(
    r"^(?:(?:thanks|thank you|hi|hello|hey|ok(?:ay)?|great|спасибо|привет)"
    r"(?: (?:so much|a lot|there))?[\s,!.]+)+",
    re.IGNORECASE,
)
# ... and a thanks after it is not part of the sum: "What is 2+2? Thanks!"
_THANKS_AFTER = re.compile(
    r"(?<=[?.!])\s*(?:thanks|thank you|спасибо|please|пожалуйста)[\s!.)]*$", re.IGNORECASE
)


@scenario("sum", "Do a simple sum: 'What is 2+2?'", priority=900)
def simple_sum(conv: Conversation) -> Reply | None:
    # Like a greeting, a sum needs no tool: unless one is offered for sums (then it is the
    # caller's scenario, not plain chat).
    if conv.ends_with_results or any(
        _FOR_SUMS.search(f"{t.get('name', '')} {t.get('description') or ''}") for t in conv.tools
    ):
        return None
    # An order about the answer does not hide the question: "Answer in Russian: what is 2+2?";
    # nor does a statement or a clause before it: "I live in Berlin. What is 2+2?".
    own = _THANKS_AFTER.sub("", _COURTESY.sub("", without_orders(conv.person_text)))
    for part in after_leads(own):
        asked = _SUM_QUESTION.match(part)
        total = sum_in(asked.group(1)) if asked else None
        if total is not None:
            return say(f"{asked.group(1).strip()} = {total}.")
    return None
