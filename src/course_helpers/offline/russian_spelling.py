"""Course machinery (offline course model): a Russian word typed not quite right, read as a model
reads it.

A Latin letter that looks like a Cyrillic one, in a Cyrillic word, is read as the Cyrillic letter
("Парижe" with a Latin "e" is "Париж" in its prepositional case). A name one or two letters off a
known one ("Пааариж", "Осл", "Ток") is that name when it is the only one so close.

    cyrillic_lookalikes("Парижe")                    # "Париже"
    closest("Пааариж", {"Париж": "Paris"})   # "Paris"
"""

from __future__ import annotations

import re

_LOOKALIKES = str.maketrans("aeopcxyAEOPCXBHKMT", "аеорсхуАЕОРСХВНКМТ")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def cyrillic_lookalikes(word: str) -> str:
    """A word with Cyrillic letters, its Latin look-alikes ("e", "o", "p", ...) made Cyrillic; a
    word without Cyrillic letters as it is."""
    return word.translate(_LOOKALIKES) if _CYRILLIC.search(word) else word


def distance(one: str, other: str) -> int:
    """How many letters to add, drop or change to make one word the other (Levenshtein)."""
    row = list(range(len(other) + 1))
    for i, a in enumerate(one, 1):
        previous, row[0] = row[0], i
        for j, b in enumerate(other, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (a != b))
    return row[-1]


def closest(word: str, known: dict[str, str]) -> str | None:
    """What the one known word within reach of the word stands for (`known` maps each word to
    it): two letters off for a word of five letters or more, one for a word of four, the first
    letter the same; a word of three letters or less ("Рим", "Мск") only as it is written. None when nothing is so close,
    or several things are."""
    said = word.lower().replace("ё", "е")
    near = {
        meant
        for name, meant in known.items()
        if len(name) > 3
        and name[:1].lower() == said[:1]  # "Рязань" is not "Казань"
        and distance(said, name.lower().replace("ё", "е")) <= (len(name) > 4) + 1
    }
    return near.pop() if len(near) == 1 else None
