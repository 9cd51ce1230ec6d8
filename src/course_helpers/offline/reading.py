"""Course machinery (offline course model): readers of one kind of value each, from the words of a
request: a country, a postcode, a list, a one-word name, a file name, the arithmetic a request
asks for, a shell command. `filling` fills schema fields with them; `scenarios/asked_tool`
fills the fields of a tool the person asks for.

    country_in("London, United Kingdom.")          # "United Kingdom"
    postcode_in("living in Lyon 69001")            # "69001"
    list_after("tags", "tags a and b, email x")     # ["a", "b"]
    file_in("Summarise notes.txt for me.")         # "notes.txt"
    expression_in("What is 1234 * 5678?")          # "1234 * 5678"
    command_in("List the files in the current directory.")   # "ls"
    message_in("Email bob@example.com that the meeting moved to 3pm")   # "The meeting moved to 3pm."
"""

from __future__ import annotations

import re

COUNTRIES = (
    "Argentina", "Australia", "Austria", "Belgium", "Brazil", "Canada", "Chile", "China",
    "Colombia", "Czech Republic", "Denmark", "Egypt", "Finland", "France", "Germany", "Greece",
    "Hungary", "Iceland", "India", "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kenya",
    "Mexico", "Morocco", "Netherlands", "New Zealand", "Nigeria", "Norway", "Peru", "Poland",
    "Portugal", "Russia", "Saudi Arabia", "Scotland", "Singapore", "South Africa",
    "South Korea", "Spain", "Sweden", "Switzerland", "Taiwan", "Thailand", "Turkey", "Ukraine",
    "United Arab Emirates", "United Kingdom", "United States", "Vietnam", "Wales", "England",
)  # fmt: skip
# Other names of a country, by the name a model writes (matched with their case: "US", not "us").
_COUNTRY_NAMES = {
    "UK": "United Kingdom",
    "U.K.": "United Kingdom",
    "Great Britain": "United Kingdom",
    "Britain": "United Kingdom",
    "USA": "United States",
    "U.S.A.": "United States",
    "US": "United States",
    "U.S.": "United States",
    "United States of America": "United States",
    "UAE": "United Arab Emirates",
    "Holland": "Netherlands",
    "the Netherlands": "Netherlands",
    "Korea": "South Korea",
}
_COUNTRY_FIELD = re.compile(r"country|nation(?!ality)", re.IGNORECASE)


def is_country_field(described: str) -> bool:
    """Whether a field (its name and description) holds a country."""
    return _COUNTRY_FIELD.search(described) is not None


def country_in(text: str) -> str | None:
    """The last country the text names, by the name a model writes ("the UK" is the United
    Kingdom): a request that asks and then answers ("The biggest city in the UK? Answer:
    London, United Kingdom.") gives its answer last."""
    found = []
    for name in (*COUNTRIES, *_COUNTRY_NAMES):
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w])", text):
            found.append((match.start(), -len(name), _COUNTRY_NAMES.get(name, name)))
    if not found:
        return None
    # The longest name at the last place ("United States of America", not "US").
    last = max(start for start, _, _ in found)
    return min(item for item in found if item[0] == last)[2]


_POSTCODE_FIELD = re.compile(r"zip|postal|postcode|post_code", re.IGNORECASE)
_POSTCODES = (
    re.compile(r"(?<![\w-])\d{5}(?:-\d{4})?(?![\w-])"),  # 69001, 10115, 94103-1234
    re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b"),  # SW1A 1AA
    re.compile(r"(?:zip|post(?:al)? ?code)[ :]*(\d{4,6})\b", re.IGNORECASE),  # postcode 1010
)


def is_postcode_field(name: str) -> bool:
    return _POSTCODE_FIELD.search(name) is not None


def postcode_in(text: str) -> str | None:
    """The first postcode the text states: five digits, a British code, or the digits after
    the words "zip" or "postcode"."""
    for pattern in _POSTCODES:
        match = pattern.search(text)
        if match:
            return match.group(match.lastindex or 0)
    return None


_ITEM = r"(?:\"[^\"]+\"|'[^']+'|[\w#+.-]*\w)"
_AFTER_LIST_WORD = r"(?:\s*:\s*|\s+(?:are|is|of|like|such as)\s+|\s+)"


def list_after(word: str, text: str) -> list[str] | None:
    """The items listed after `word` or its singular ("tags a and b", "labels: x, y and z"). A
    list without "and" runs to the end of its sentence; otherwise its first item only."""
    forms = {word.lower(), word.lower().removesuffix("s"), word.lower().removesuffix("es")}
    forms = {f for f in forms if len(f) > 1}
    head = "|".join(sorted(map(re.escape, forms), key=len, reverse=True))
    pattern = re.compile(
        rf"\b(?:{head})s?{_AFTER_LIST_WORD}({_ITEM}(?:\s*,\s*{_ITEM})*)"
        rf"(?:(,?\s+and\s+)({_ITEM}))?(.?)",
        re.IGNORECASE,
    )
    match = pattern.search(text)
    if match is None:
        return None
    listed, joined, last, after = match.groups()
    items = [item.strip() for item in listed.split(",")]
    if last:
        items.append(last)
    elif after not in ("", ".", "!", "?", ";", "\n"):
        items = items[:1]
    return [item.strip("\"'") for item in items if item]


# A request's words that open it or ask, never a person's name.
_NOT_A_NAME = frozenset((
    "I", "A", "An", "The", "My", "Our", "Your", "His", "Her", "Their", "It", "This", "That",
    "There", "Here", "Hi", "Hello", "Dear", "Thanks", "OK", "Okay", "Yes", "No", "Please",
    "What", "Who", "Where", "When", "Why", "How", "Which", "Is", "Are", "Can", "Could",
    "Would", "Will", "Do", "Does", "Did", "Should", "Use", "Call", "Add", "Create", "Save",
    "Make", "Register", "Put", "Store", "Record", "New", "Contact", "Name", "Email", "Send",
    "Book", "Set", "Update", "Remember", "Note", "Meet", "Ask", "Tell", "Invite", "Show",
    "List", "Give", "Get", "Find", "Run", "Monday", "Tuesday", "Wednesday", "Thursday",
    "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December", "English", "French",
    "German", "Spanish", "Italian", "Russian", "Chinese", "Japanese", "Python", "Celsius",
    "Fahrenheit",
))  # fmt: skip
_CAPITALISED = re.compile(r"(?<![\w@.'-])([A-Z][a-z'-]+)\b")
_PLACE_BEFORE = re.compile(r"\b(?:in|at|near|visit|visiting)\s+$")


def single_name_in(text: str, places: frozenset[str]) -> str | None:
    """A one-word name the text gives ("Save the contact Alice, alice@acme.io." gives Alice): a
    capitalised word inside a sentence (not the word that opens it), not a request's own word,
    a day, a month, a place or a word after "in"/"at"."""
    for match in _CAPITALISED.finditer(text):
        word, start = match.group(1), match.start()
        before = text[:start]
        if not before.strip() or re.search(r"[.!?:]\s*$", before):
            continue  # the word that opens a sentence
        if word in _NOT_A_NAME or word in places or word in COUNTRIES:
            continue
        if _PLACE_BEFORE.search(before):
            continue
        return word
    return None


_EXTENSIONS = (
    "py|txt|md|rst|json|jsonl|yaml|yml|toml|cfg|ini|csv|tsv|js|mjs|ts|tsx|jsx|html|css|sh|"
    "log|xml|c|h|cpp|hpp|java|go|rs|rb|php|sql|ipynb|lock|env|conf|pdf|tex"
)
_FILE = re.compile(
    rf"(?<![\w@/.-])((?:\.{{0,2}}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS}))(?![\w/-])"
    r"|(?<![\w@/.-])((?:[\w.-]+/)*(?:Makefile|Dockerfile|README|LICENSE|Procfile))(?![\w/-])(?!\.\w)"
)


def file_in(text: str) -> str | None:
    """The first file the text names ("setup.py", "docs/notes.txt", "Makefile")."""
    match = _FILE.search(text)
    return (match.group(1) or match.group(2)) if match else None


_NUMBER = r"-?\d+(?:\.\d+)?"
_OPERATOR_WORDS = {"plus": "+", "minus": "-", "times": "*", "×": "*", "divided by": "/"}
# A hyphen counts as "minus" only between spaces: "3-5 days" and dates are not sums.
_OPERATOR = r"(?:\s*[+*/×]\s*|\s+-\s+|\s+(?:plus|minus|times|divided by)\s+)"
SUM = re.compile(rf"{_NUMBER}(?:{_OPERATOR}{_NUMBER})+", re.IGNORECASE)


def expression_in(text: str) -> str | None:
    """The first simple sum the text asks for, written with symbols ("7 times 6" is "7 * 6")."""
    match = SUM.search(text)
    if match is None:
        return None
    expression = match.group(0)
    for word, symbol in _OPERATOR_WORDS.items():
        expression = re.sub(rf"\s*{re.escape(word)}\s*", f" {symbol} ", expression, flags=re.I)
    return re.sub(r"\s+", " ", expression).strip()


# What a plain request asks a shell to do, and the command that does it.
_LIST_FILES = re.compile(
    r"(?:\b(?:list|show)\b[^.?!]*\bfiles\b|\bwhat files are\b)([^.?!]*)", re.IGNORECASE
)
_FOLDER = re.compile(r"\bin\s+(?:the\s+)?((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]*)*/?)")
_CURRENT_FOLDER = re.compile(
    r"\b(?:what|which)\b[^.?!]*\b(?:current|working)\s+(?:directory|folder)\b|\bwhere am i\b",
    re.IGNORECASE,
)
_HERE = frozenset({"current", "this", "working", "here", "directory", "folder"})
_COMMAND_IN_BACKTICKS = re.compile(r"\b(?:run|execute|type)\s+`([^`\n]+)`", re.IGNORECASE)


def command_in(text: str) -> str | None:
    """The shell command the text gives in backticks ("Run `pytest -q`."), or the one a plain
    request implies: listing the files is `ls` (`ls src/` for the files in src/), asking for
    the current directory is `pwd`."""
    quoted = _COMMAND_IN_BACKTICKS.search(text)
    if quoted:
        return quoted.group(1).strip()
    listing = _LIST_FILES.search(text)
    if listing:
        folder = _FOLDER.search(listing.group(1))
        name = folder.group(1) if folder else ""
        if name and name.lower() not in _HERE and ("/" in name or name.islower()):
            return f"ls {name}"
        return "ls"
    if _CURRENT_FOLDER.search(text):
        return "pwd"
    return None


# Commands no request makes safe to run: they delete or overwrite what lies beyond any project
# (the whole disk, the home folder, a device) or stop the machine.
_DESTRUCTIVE = re.compile(
    r"\brm\s+-[a-z]*[rf][a-z]*\s+(?:-[a-z]+\s+)*(?:/|~|\*|\$HOME|/\*)(?:\s|$)"
    r"|\bmkfs\b|\bdd\b[^\n]*\bof=/dev/|>\s*/dev/sd|\b(?:shutdown|reboot|halt|poweroff)\b"
    r"|:\(\)\s*\{|\bchmod\s+-R\s+\d+\s+/(?:\s|$)",
    re.IGNORECASE,
)


def is_destructive(command: str) -> bool:
    """Whether a shell command deletes or overwrites beyond any project, or stops the machine
    (`rm -rf /`, `mkfs`, `dd of=/dev/...`, `shutdown`, a fork bomb)."""
    return bool(_DESTRUCTIVE.search(command))


_QUESTION_WORDS = frozenset((
    "what", "who", "whom", "whose", "where", "when", "why", "how", "which", "is", "are", "am",
    "was", "were", "can", "could", "do", "does", "did", "will", "would", "should", "shall",
    "may", "might", "has", "have",
))  # fmt: skip


def is_question(words: str) -> bool:
    """Whether the person's words ask a question ("What is the capital of France?")."""
    said = words.strip()
    if said.endswith("?"):
        return True
    first = re.match(r"[A-Za-z']+", said)
    one_sentence = not re.search(r"[.!?]\s+\S", said)
    return bool(first) and first.group(0).lower() in _QUESTION_WORDS and one_sentence


EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_RECIPIENT_FIELD = re.compile(r"to|recipients?|cc|bcc|to_?address(?:es)?|send_?to", re.IGNORECASE)


def is_recipient_field(name: str) -> bool:
    """Whether a field holds whom a message goes to (`to`, `recipient`, `cc`)."""
    return _RECIPIENT_FIELD.fullmatch(name) is not None


# "Email bob@example.com that ...", "Send an email to bob@example.com and Ada saying ...",
# "Tell bob@example.com by email: ...": a verb of sending, whom to, then what to say ("My email
# is sam@example.com. It broke: ..." sends nothing).
_WHOM = r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?-i:[A-Z][\w'-]*)|him|her|them|everyone)"
_MESSAGE = re.compile(
    r"\b(?:e-?mail|mail|message|text|tell|notify|write(?: an? (?:e-?mail|message|note))?(?: to)?"
    r"|send (?:an? )?(?:e-?mail|message|note|text)(?: to)?)\s+"
    rf"{_WHOM}(?:\s*(?:,|\band\b)\s*{_WHOM})*\s*(?:(?:by|via|in an) e-?mail\s*)?"
    r"(?:(?:with|under) (?:the )?subject(?: line)? [\"“'][^\"”'\n]+[\"”']\s*(?:,\s*)?)?"
    r"(?:\bthat\b|\bsaying\b|\bto say\b|:|(\babout\b))\s*[\"“']?(\w[^\"”\n]*?)[\"”']?\s*"
    r"(?:[.!?](?:\s|$)|$)",
    re.IGNORECASE,
)
_SUBJECT = re.compile(r"\bsubject(?: line)?\s*(?::|is|of)?\s*[\"“']([^\"”'\n]+)[\"”']", re.I)


def message_in(text: str) -> str | None:
    """What a request asks to be sent or told, as a sentence ("Email bob@example.com that the
    meeting moved to 3pm" gives "The meeting moved to 3pm."): the words after "that", "saying",
    "to say" or a colon, or what it is about ("about the budget" gives "About the budget."). Only a request that speaks of a message (an email address, "email",
    "message") has one."""
    if not (EMAIL.search(text) or re.search(r"\be-?mail|\bmessage\b", text, re.IGNORECASE)):
        return None
    match = _MESSAGE.search(text)
    if match is None:
        return None
    said = match.group(2).strip()
    if match.group(1):  # "Write an email to bob@example.com about the budget."
        said = f"about {said}"
    return said[:1].upper() + said[1:] + ("" if said[-1:] in ".!?" else ".")


def subject_in(text: str) -> str | None:
    """A message's subject: the one the request gives in quotes ('with the subject "Lunch"'),
    else the start of the message itself ("Meeting moved to 3pm")."""
    given = _SUBJECT.search(text)
    if given:
        return given.group(1).strip()
    said = message_in(text)
    if said is None:
        return None
    words = re.sub(r"^(?:the|a|an|our|my)\s+", "", said.rstrip(".!?"), flags=re.I).split()
    short = " ".join(words[:8])
    return short[:1].upper() + short[1:]


# A sentence that orders the output itself, not what it is about: "Give me the weather report as
# data.", "Return JSON.", "Extract the fields.", "Fill in the form.", "Answer in Russian."
_ORDER = re.compile(
    r"^(?:please\s+)?(?:(?:extract|fill(?:\s+(?:in|out))?|parse)\b"
    r"|(?:give|return|output|format|provide|produce|generate|convert|turn|put|respond|reply"
    r"|answer|write|show|send|make|create)\b.*\b(?:data|json|yaml|xml|csv|schema|structured"
    r"|fields?|format|object|form|record|tool)\b"
    r"|(?:answer|respond|reply)\s+(?:only\s+)?(?:in|with|as|using)\b)",
    re.IGNORECASE,
)


def without_orders(text: str) -> str:
    """The text without its sentences that order the output ("Paris, 18 C and sunny. Give me
    the weather report as data." is "Paris, 18 C and sunny."); an order with a colon keeps what
    follows it ("Extract the contact: Ada, ada@x.io" is "Ada, ada@x.io"). Text that is all
    orders stays as it is."""
    kept = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text.strip()):
        if not _ORDER.match(sentence):
            kept.append(sentence)
        elif ":" in sentence and sentence.split(":", 1)[1].strip():
            kept.append(sentence.split(":", 1)[1].strip())
    return " ".join(s for s in kept if s) or text.strip()


# Where a leading statement or clause ends: after a sentence, a comma, a colon, a semicolon or a
# dash ("I live in Berlin. What is 2+2?", "Whether or not you like it, what is 10+5?").
_LEAD_ENDS = re.compile(r"(?<=[.!?,:;])\s+|\s+[—–-]\s+")


def after_leads(text: str) -> list[str]:
    """The text, then what follows each leading statement or clause in it, longest first: a
    question put after one is the start of one of them ("Before you answer, note I'm new here:
    what is 3*4?" gives the whole, "note I'm new here: what is 3*4?" and "what is 3*4?")."""
    said = text.strip()
    return [said, *(said[m.end() :] for m in _LEAD_ENDS.finditer(said))]
