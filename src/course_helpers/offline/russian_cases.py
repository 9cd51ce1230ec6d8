"""Course machinery (offline course model): a Russian place name put back in the form a city list
gives (the nominative), from the case ending it has after "в", "во", "для" or "из".

Two uses, one set of endings:

- `nominatives(said)`: every form the name may have come from, the said form first. A city the
  list knows is found by any of them, so the list holds each city once, in the nominative
  ("в Казани", "для Казани" and "Казанью" all give "Казань"; "в Нижнем Новгороде" gives
  "Нижний Новгород"; "в Ростове-на-Дону" gives "Ростов-на-Дону").
- `nominative(said)`: the one most likely form, for a name the list does not know, so that a
  tool that takes English names gets its nominative in Latin letters ("в Рязани" gives
  "Рязань", "в Ярославле" "Ярославль", "в Чебоксарах" "Чебоксары", "в Набережных Челнах"
  "Набережные Челны", "в Великом Устюге" "Великий Устюг", "в Красной Поляне" "Красная Поляна").

A locative "-е" after a hard consonant is read as a masculine name ("в Иркутске" gives
"Иркутск"): most Russian city names are; a feminine one ("в Калуге") cannot be told from its
ending alone, and a tool that knows "Kaluga" gets "Kalug".
"""

from __future__ import annotations

import functools
import itertools
import re

_CONSONANT = "бвгджзйклмнпрстфхцчшщ"
_VELAR_OR_HUSHING = "гкхжшчщ"
# An adjective of a name ("в Нижнем", "для Великого", "в Новом") in its masculine form.
ADJECTIVE = re.compile(r"(?<=[А-ЯЁа-яё]{3})(?:ом|ем|ого|его|ому|ему|ым|им)$")
_SOFT_OR_HUSHING = "кгхжшчщн"
_FEMININE = re.compile(r"(?<=[а-яё]{3})[ое]й$")  # "в Красной Поляне", "для Красной Поляны"
_PLURAL_ADJECTIVE = re.compile(r"(?<=[а-яё]{3})[ыи]х$")  # "в Набережных Челнах"


def _masculine_adjective(word: str) -> str | None:
    adjective = ADJECTIVE.search(word)
    if adjective is None:
        return None
    stem = word[: adjective.start()]
    soft = stem[-1:].lower() in _SOFT_OR_HUSHING or adjective.group(0)[:1] in "еи"
    return stem + ("ий" if soft else "ый")


def _feminine(word: str) -> str:
    adjective = _FEMININE.search(word)
    if adjective:
        soft = adjective.group(0) == "ей" and word[adjective.start() - 1] not in "жшчщ"
        return word[: adjective.start()] + ("яя" if soft else "ая")
    return re.sub(rf"(?<=[{_CONSONANT}])[еыи]$", "а", word)


def _plural(word: str) -> str | None:
    adjective = _PLURAL_ADJECTIVE.search(word)
    if adjective:
        return word[: adjective.start()] + adjective.group(0)[0] + "е"
    noun = re.search(rf"(?<=[{_CONSONANT}])[ая]х$", word)
    if noun is None:
        return None
    stem = word[: noun.start()]
    hard = noun.group(0) == "ах" and stem[-1:].lower() not in _VELAR_OR_HUSHING
    return stem + ("ы" if hard else "и")


def _word_nominative(word: str, feminine: bool = False) -> str:
    """The nominative of one word of a name: the most likely one."""
    if feminine:
        return _feminine(word)
    for derived in (_masculine_adjective(word), _plural(word)):
        if derived:
            return derived
    rules = (
        (r"ии$", "ия"),  # "в Евпатории"
        (r"(?<=[ео])е$", "й"),  # "в Уренгое", "в Сиднее"
        (rf"(?<=[{_CONSONANT}])ле$", "ль"),  # "в Ярославле"
        (r"(?<=[бвдзлмнпрстфч])и$", "ь"),  # "в Рязани", "в Твери" ("в Хельсинки" stays)
        (rf"(?<=[{_CONSONANT}])[еау]$", ""),  # "в Иркутске", "для Омска", "к Омску"
        (rf"(?<=[{_CONSONANT}])ы$", "а"),  # "для Самары"
    )
    for ending, nominative in rules:
        if re.search(ending, word):
            return re.sub(ending, nominative, word)
    return word


def nominative(name: str) -> str:
    """The name in its most likely nominative, every word kept: a name of several words that
    opens with a feminine adjective ("Красной Поляне") is feminine."""
    said = name.split()
    feminine = len(said) > 1 and bool(_FEMININE.search(said[0]))
    return " ".join(_word_nominative(word, feminine) for word in said)


def _word_forms(word: str) -> list[str]:
    """Every nominative one word may come from, the word itself first."""
    forms = [word, _word_nominative(word), _feminine(word)]
    forms += [re.sub(r"[еиыу]$", "а", word), re.sub(r"[еиыя]$", "ь", word)]
    forms += [re.sub(r"[ая]$", "", word), re.sub(r"[ея]$", "й", word), re.sub(r"ю$", "ь", word)]
    forms += [re.sub(r"(?:ом|ем)$", "", word), re.sub(r"(?:ой|ою)$", "а", word)]
    return list(dict.fromkeys(forms))


@functools.lru_cache(maxsize=4096)
def nominatives(name: str) -> tuple[str, ...]:
    """Every form a name of one or more words (hyphenated or not) may have in the nominative,
    the name as said first; each word, and the first and the last part of a hyphenated word
    ("Ростове-на-Дону", "Санкт-Петербурге"), on its own."""
    words = []
    for word in name.split():
        parts = word.split("-")
        if len(parts) == 1:
            words.append(_word_forms(word))
            continue
        middle = "-".join(parts[1:-1])
        pairs = itertools.product(_word_forms(parts[0]), _word_forms(parts[-1]))
        words.append(["-".join(p for p in (a, middle, b) if p) for a, b in pairs])
    return tuple(dict.fromkeys(" ".join(w) for w in itertools.product(*words)))
