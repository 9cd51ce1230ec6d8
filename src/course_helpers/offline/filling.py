"""Course machinery (offline course model): values for a schema taken from what the request says.

Where no scenario knows the answer (a structured output, a forced tool call, an output tool), the
course model still fills each field the way a model would when the request names a value of
that field's kind: a city, a country, a person's name, an email, a postcode, a unit or another
value an `enum` lists (or names: `x-enum-varnames`, a description "1 = red, 2 = green"), the
items listed after an array field's name, a number the request states or the result of a
simple sum it asks for, the address, subject and body of a message it asks to send ("Email
bob@example.com that the meeting moved to 3pm": `to`, `subject`, `body`) (the readers of one
kind each are in `reading.py`), the branch of an anyOf/oneOf the request says most about, and
what `phrases.py` reads from the person's own words alone (a value written after the field's
words, the things ordered, what a log records, a date; a count: `stated_numbers.py`). A prose
field holds the person's words, but never a question as its own answer. Fields the request
says nothing about keep the placeholders of `schemas.example_for`.

    fill(schema, "Is it cold in Oslo, in fahrenheit?")   # {"city": "Oslo", "unit": "fahrenheit"}
    fill(schema, "Холодно ли в Осло по Фаренгейту?")    # the same: Russian names read in English
    fill({"properties": {"answer": {"type": "integer"}}}, "What is 2+2?")   # {"answer": 4}
"""

from __future__ import annotations

import re
from typing import Any

from course_helpers.offline import phrases, reading
from course_helpers.offline.dates import date_in, iso_date
from course_helpers.offline.patterns import quick_to_search
from course_helpers.offline.russian import cities_in_russian, in_english
from course_helpers.offline.schema_parts import branches_of, merge, non_null_first
from course_helpers.offline.schemas import conform, example_for, resolve
from course_helpers.offline.stated_numbers import RESULT_FIELD, Numbers

KNOWN_CITIES = (
    "Amsterdam", "Athens", "Auckland", "Bangkok", "Barcelona", "Beijing", "Berlin", "Bogota",
    "Boston", "Brussels", "Budapest", "Buenos Aires", "Cairo", "Cape Town", "Chicago",
    "Copenhagen", "Delhi", "Dubai", "Dublin", "Edinburgh", "Geneva", "Hamburg", "Helsinki",
    "Hong Kong", "Istanbul", "Jakarta", "Kyiv", "Lagos", "Lima", "Lisbon", "London",
    "Los Angeles", "Lyon", "Madrid", "Manchester", "Marseille", "Melbourne", "Mexico City",
    "Miami", "Milan", "Montreal", "Moscow", "Mumbai", "Munich", "Nairobi", "New York", "Oslo",
    "Paris", "Prague", "Reykjavik", "Rio de Janeiro", "Rome", "San Francisco", "Santiago",
    "Seattle", "Seoul", "Shanghai", "Singapore", "Stockholm", "Sydney", "Taipei", "Tokyo",
    "Toronto", "Vancouver", "Vienna", "Warsaw", "Washington", "Zurich",
)  # fmt: skip
_CITY_FIELD = re.compile(r"city|town|location|place|destination", re.IGNORECASE)
_UNIT_WORDS = ("celsius", "fahrenheit", "kelvin", "metric", "imperial")
# A capitalised name after "in", "at", "for"...: a place the gazetteer does not know.
_AFTER_PREPOSITION = re.compile(
    r"\b(?:in|at|for|to|from|near|about|visit|visiting)\s+"
    r"([A-Z][a-z]+(?:[ -](?:[A-Z][a-z]+|de|da|del))*)"
)
# A person's name: two or more capitalised words, the words that open a request left out.
_PERSON = re.compile(r"\b[A-Z][a-z'-]+(?:\s+(?:[A-Z][a-z'-]+|de|van|von|da))*\s+[A-Z][a-z'-]+\b")
_NOT_NAME_WORDS = frozenset((
    "Add", "Create", "Please", "Save", "Make", "Register", "Put", "Store", "Record", "New", "Hi",
    "Hello", "Dear", "My", "The", "A", "An", "Our", "Contact", "Name", "Call", "Email", "Send",
    "Book", "Set", "Update", "Remember", "Note", "Meet", "Ask", "Tell", "Invite",
))  # fmt: skip
_NAME_FIELD = re.compile(
    r"(?:full|first|last|given|family|person|contact|customer|user|display)?_?name", re.I
)
_EMAIL = reading.EMAIL
# The text of a message to send: `body`, `message`, `email_body`, `messageText` (not `context`).
_MESSAGE_FIELD = re.compile(r"(?:e?mail|message|msg)?_?(?:body|message|content|text)")
# What a log, a note or a post holds: `message`, `text`, `note`, `content`, `log_entry`.
_RECORD_FIELD = re.compile(
    r"(?:log|e?mail|message|msg|note)?_?(?:body|message|content|text|note|entry|comment|msg|log)"
)
_NOT_PLACES = frozenset({"English", "French", "German", "Python", "Celsius", "Fahrenheit"})


def fill(schema: Any, text: str, *, hint: str = "", asked: str = "") -> Any:
    """A value valid against `schema`, with the fields `text` names filled from it.

    `hint` (what the model would have said) fills the first string nothing else fills. Without
    one, a field of prose (a summary, a description, a message...) holds `asked`, the person's
    own words ("Paris, 18 C and sunny" summarises itself), rather than a placeholder.
    """
    numbers = Numbers(text)
    prose = "" if hint else _prose(asked, unanswered=CANNOT_ANSWER)
    said = in_english(asked if asked.strip() else text)
    found = _from_text(schema, in_english(text), schema, 0, numbers, prose=prose, said=said)
    return _keep_stated(conform(found, schema, hint=hint), found, schema, schema)


def stated(schema: Any, text: str, *, asked: str = "") -> dict:
    """Only the fields of an object schema that `text` names (no placeholders): what a model
    could send without guessing."""
    numbers = Numbers(text)
    prose, said = _prose(asked, unanswered=""), in_english(asked if asked.strip() else text)
    found = _from_text(schema, in_english(text), schema, 0, numbers, prose=prose, said=said)
    return found if isinstance(found, dict) else {}


# What a prose field says for a question the course model cannot answer (never the question).
CANNOT_ANSWER = (
    "I cannot answer that: I am the offline course model, and I only play the course's scenarios."
)


def _prose(asked: str, *, unanswered: str) -> str:
    """What a prose field holds: the person's words ("Paris, 18 C and sunny" summarises
    itself), but for a question, which is not its own answer, `unanswered`. A sentence that
    orders the output ("Give me the weather report as data.") is no part of it."""
    said = reading.without_orders(asked)[:300]
    return unanswered if said and reading.is_question(said) else said


def _keep_stated(value: Any, found: Any, schema: Any, root: Any) -> Any:
    """`value` (made valid) with what the request states put back where making it valid
    replaced it: an email where the schema's `format: email` gave a placeholder, a constant of
    an anyOf/oneOf of constants where the first was taken."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    constants = [const for const, _ in _constant_choices(schema, root)]
    if any(type(found) is type(const) and found == const for const in constants):
        return found
    if isinstance(value, dict) and isinstance(found, dict):
        properties = schema.get("properties") or {}
        return {
            key: _keep_stated(item, found[key], properties.get(key), root)
            if key in found and key in properties
            else item
            for key, item in value.items()
        }
    if (
        schema.get("format") == "email"
        and isinstance(found, str)
        and isinstance(value, str)
        and _EMAIL.fullmatch(found)
        and not schema.get("pattern")
        and len(found) >= int(schema.get("minLength", 0))
        and len(found) <= int(schema.get("maxLength", len(found)))
    ):
        return found
    return value


def city_in(text: str) -> str | None:
    """The first city the text names: a known one, else a capitalised name after a preposition
    (Russian names are read by `russian.in_english` and `russian.cities_in_russian`)."""
    found = [
        (match.start(), city)
        for city in KNOWN_CITIES
        for match in [re.search(rf"\b{re.escape(city)}\b", text)]
        if match
    ]
    if found:
        return min(found)[1]
    russian = cities_in_russian(text) if re.search("[А-Яа-яЁё]", text) else []
    if russian:
        return russian[0]  # "в Екатеринбурге": a name the list does not know, in Latin letters
    for match in _AFTER_PREPOSITION.finditer(text):
        if match.group(1) not in _NOT_PLACES:
            return match.group(1)
    return None


def person_in(text: str) -> str | None:
    """The first person's name the text gives ("Add Ada Lovelace" gives "Ada Lovelace"): two or
    more capitalised words, not a known city, without the words that open a request."""
    for match in _PERSON.finditer(text):
        words = match.group(0).split()
        while words and words[0] in _NOT_NAME_WORDS:
            words = words[1:]
        name = " ".join(words)
        if len(words) >= 2 and name not in KNOWN_CITIES:
            return name
    return None


def _person_field(name: str, text: str) -> str | None:
    """A name field's value: the person's name, or its first or last word for a first or last
    name field."""
    person = person_in(text)
    lowered = name.lower()
    if person is None:
        # One word ("Save the contact Alice"): a first name, never a last one.
        if lowered.startswith(("last", "family")):
            return None
        return reading.single_name_in(text, frozenset(KNOWN_CITIES) | _NOT_PLACES)
    if lowered.startswith(("first", "given")):
        return person.split()[0]
    if lowered.startswith(("last", "family")):
        return person.split()[-1]
    return person


_PROSE_FIELD = re.compile(
    r"summary|description|text|message|content|reason|explanation|comment|note|details|"
    r"sentence|greeting|reply|response|answer|output|result",
    re.IGNORECASE,
)
_CONDITIONS_FIELD = re.compile(r"condition|weather|sky|forecast", re.IGNORECASE)
_CONDITIONS = (
    "partly cloudy", "light rain", "heavy rain", "thunderstorms", "thunderstorm", "overcast",
    "drizzle", "sunny", "cloudy", "rainy", "rain", "snowy", "snow", "windy", "foggy", "fog",
    "clear", "stormy",
)  # fmt: skip


def _from_text(
    schema: Any,
    text: str,
    root: Any,
    depth: int,
    numbers: Numbers,
    name: str = "",
    *,
    prose: str = "",
    said: str = "",
) -> Any:
    """The parts of a value that `text` names (None where it names nothing). `said`, the
    person's own words, gives the values read from a phrase (`phrases.py`): never the words of
    a tool result or a program's feedback."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict) or depth > 8:
        return None
    enum = schema.get("enum")
    if isinstance(enum, list):
        return _named_value(schema, enum, text)
    constants = _constant_choices(schema, root)
    if constants:
        return next((value for value, words in constants if _mentions(text, words)), None)
    if branches_of(schema):
        return _from_branches(schema, text, root, depth, numbers, name, prose=prose, said=said)
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds or ("items" in schema and kinds == [None]):
        return _listed(schema, text, root, name, said)
    if "object" in kinds or "properties" in schema:
        properties = schema.get("properties") or {}
        found = {
            key: _from_text(value, text, root, depth + 1, numbers, key, prose=prose, said=said)
            for key, value in properties.items()
        }
        return {key: value for key, value in found.items() if value is not None}
    if "integer" in kinds or "number" in kinds:
        value = numbers.next_for(name)
        if value is None or ("integer" in kinds and not float(value).is_integer()):
            return None
        return int(value) if "integer" in kinds else value
    if "string" in kinds:
        described = f"{name} {schema.get('description', '')}"
        if _CITY_FIELD.search(described):
            # Named or not, a city field holds a city (the placeholder), never other prose.
            return city_in(text) or example_for(schema, name=name, root=root)
        if reading.is_country_field(described):
            return reading.country_in(text)
        if reading.is_postcode_field(name):
            return reading.postcode_in(text)
        if "unit" in name.lower():
            return next((word for word in _UNIT_WORDS if _mentions(text, word)), None)
        if "email" in name.lower() or schema.get("format") == "email":
            email = _EMAIL.search(text)
            return email.group(0) if email else None
        if reading.is_recipient_field(name) and _EMAIL.search(text):
            return _EMAIL.search(text).group(0)  # "to": the address the request gives
        if _NAME_FIELD.fullmatch(name.replace("-", "_")) or name in (
            "fullName",
            "firstName",
            "lastName",
        ):
            return _person_field(name, text)
        if schema.get("format") == "date" or (
            not schema.get("format") and phrases.is_date_field(name)
        ):
            dated = iso_date(said) if schema.get("format") == "date" else date_in(said)
            if dated:
                return dated
        if schema.get("pattern"):
            return _matching_word(str(schema["pattern"]), text)
        if schema.get("format"):
            return None
        labelled = phrases.labelled_value(name, said)
        if labelled:
            return labelled  # "card 4111 1111 1111 1111" for `card_number`
        if name.lower() == "subject" and reading.subject_in(text):
            return reading.subject_in(text)  # "Email bob@example.com that the meeting moved"
        if _MESSAGE_FIELD.fullmatch(name.lower()) and reading.message_in(text):
            return reading.message_in(text)
        if _RECORD_FIELD.fullmatch(name.lower()) and phrases.recorded(said):
            return phrases.recorded(said)  # "Log that the backup finished."
        if _CONDITIONS_FIELD.search(described):
            named = next((word for word in _CONDITIONS if _mentions(text, word)), None)
            if named:
                return named
        if RESULT_FIELD.search(name) and numbers.total is not None:
            return str(numbers.total)
        if prose and _PROSE_FIELD.search(name):
            return prose
    return None


def _matching_word(pattern: str, text: str) -> str | None:
    """The word of the request a field's `pattern` describes ("Set ticket T-0042 to urgent"
    gives `T-0042` for `^T-\\d{4}$`), when the pattern is narrow enough to tell one: a pattern
    that an ordinary word also meets ("^.*$") names nothing."""
    if not quick_to_search(pattern):
        return None
    compiled = re.compile(pattern)
    if compiled.search("example") or compiled.search(""):
        return None
    for word in re.findall(r"[^\s,;:!?\"'“”()\[\]{}]+", text):
        word = word.rstrip(".")
        if len(word) <= 64 and compiled.search(word):
            return word
    return None


def _named_value(schema: dict, enum: list, text: str) -> Any:
    """The value of an `enum` the text names: the value itself ("fahrenheit"), or the name the
    schema gives it (`x-enum-varnames`, `x-enumNames` or `enumNames` lists, or a description
    such as "1 = red, 2 = green")."""
    named = [v for v in enum if isinstance(v, str) and _mentions(text, v)]
    if named:
        return named[0]
    for key in ("x-enum-varnames", "x-enumNames", "enumNames"):
        names = schema.get(key)
        if isinstance(names, list) and len(names) == len(enum):
            said = [v for v, n in zip(enum, names, strict=True) if _mentions_name(text, n)]
            if said:
                return said[0]
    description = str(schema.get("description", ""))
    for value in enum:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        v = re.escape(str(value))
        word = r"([A-Za-z][A-Za-z_ -]*?[A-Za-z])"
        for pattern in (
            rf"(?<![\w.]){v}\s*(?:=|:|means|is)\s*{word}\b",
            rf"\b{word}\s*[=:]\s*{v}(?![\w.])",
        ):
            match = re.search(pattern, description)
            if match and _mentions_name(text, match.group(1)):
                return value
    return None


def _mentions_name(text: str, name: Any) -> bool:
    """Whether the text says a value's name ("LIGHT_BLUE" said as "light blue")."""
    return isinstance(name, str) and bool(name) and _mentions(text, name.replace("_", " "))


def _constant_choices(schema: dict, root: Any) -> list[tuple[Any, str]]:
    """For an anyOf/oneOf of constants (`{"const": 2, "title": "GREEN"}`), each value with the
    words that name it: its title, its description, or the constant itself."""
    branches = schema.get("oneOf") or schema.get("anyOf")
    if not isinstance(branches, list) or not branches:
        return []
    found = []
    for branch in branches:
        branch = resolve(branch, root)
        if not isinstance(branch, dict) or "const" not in branch:
            return []
        for said in (branch.get("title"), branch.get("description"), branch["const"]):
            if isinstance(said, str) and said:
                found.append((branch["const"], said.replace("_", " ")))
    return found


def _listed(schema: dict, text: str, root: Any, name: str, said: str) -> list | None:
    """An array field's items the text lists: the values of an item `enum` it names, in order,
    the words listed after the field's name ("tags a and b"), or for a list of things (`items`,
    `products`...) the things the person orders ("Order food and silk"), as strings or as
    objects named by them."""
    items = resolve(schema.get("items") or {}, root)
    if not isinstance(items, dict):
        return None
    if isinstance(items.get("enum"), list):
        named = sorted(
            (match.start(), value)
            for value in items["enum"]
            if isinstance(value, str)
            for match in [re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I)]
            if match
        )
        return [value for _, value in named] or None
    kind = items.get("type", "string")
    if kind == "string" and (reading.is_recipient_field(name) or "email" in name.lower()):
        return _EMAIL.findall(text) or None  # recipients: the addresses the request gives
    if kind == "object" and _ITEMS_FIELD.search(name):
        props = items.get("properties") or {}
        key = next((k for k in _ITEM_NAMES if (props.get(k) or {}).get("type") == "string"), None)
        things = phrases.items_listed(said) if key else None
        return [{key: thing} for thing in things] if things else None
    if kind != "string" or not name or items.get("format") or items.get("pattern"):
        return None
    listed = reading.list_after(name, text)
    if not listed and _ITEMS_FIELD.search(name):
        listed = phrases.items_listed(said)
    return listed or None


# A list of things a person orders, needs or buys, and the field that names each thing.
_ITEMS_FIELD = re.compile(
    r"(?:^|_)(?:items?|products?|things|goods|groceries|ingredients|purchases|shopping_list"
    r"|cart|basket)$|(?:Items|Products)$",
    re.IGNORECASE,
)
_ITEM_NAMES = ("name", "item", "title", "product")


def _from_branches(
    schema: dict, text: str, root: Any, depth: int, numbers: Numbers, name: str, **read: str
) -> Any:
    """For an anyOf/oneOf of schemas (a payment by card or by IBAN), the parts of the branch the
    text says the most about ("Pay with card 4111 1111 1111 1111, expiry 12/27": the card's
    number and expiry); None when it says nothing about any. Only the first branches of choices
    near the top are read: a schema of choices inside choices never stalls the course model."""
    if depth > _BRANCH_DEPTH:
        return None
    base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    best, best_numbers, most = None, numbers, 0
    for branch in non_null_first(branches_of(schema) or [], root)[:_BRANCHES]:
        trial = numbers.copy()
        found = _from_text(
            merge(base, resolve(branch, root)), text, root, depth + 1, trial, name, **read
        )
        told = len(found) if isinstance(found, dict) else int(found not in (None, [], ""))
        if told > most:
            best, best_numbers, most = found, trial, told
    numbers.stated[:] = best_numbers.stated
    return best


_BRANCHES, _BRANCH_DEPTH = 8, 3


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None
