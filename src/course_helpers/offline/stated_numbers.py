"""Course machinery (offline course model): the numbers a request states, for number fields.

The numbers it writes ("18C" gives 18), the result of a simple sum it asks for ("What is 2+2?"
gives 4), and a count it gives in words ("for two people" gives 2 to a `travellers` field).
A day of a date ("on 12 May") is no count.

    numbers_in("Set it to 18C and 25%.")          # [18, 25]
    sum_in("What is 7 times 6?")                   # 42
"""

from __future__ import annotations

import ast
import operator
import re

from course_helpers.offline.dates import DATE
from course_helpers.offline.phrases import field_words
from course_helpers.offline.reading import expression_in

_NUMBER = r"-?\d+(?:\.\d+)?"
_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def sum_in(text: str) -> int | float | None:
    """The result of the first simple sum the text asks for ("2+2", "7 times 6"), if any."""
    expression = expression_in(text)
    if expression is None:
        return None
    try:
        value = _evaluate(ast.parse(expression, mode="eval").body)
    except (SyntaxError, ZeroDivisionError, ValueError):
        return None
    return int(value) if float(value).is_integer() else value


def numbers_in(text: str) -> list[int | float]:
    """The numbers the text states, in order, without the days and years of its dates."""
    dates = [match.span() for match in DATE.finditer(text)]
    # A unit may follow the number: "18C", "18°C", "25%", "5km".
    found = [
        match.group(1)
        for match in re.finditer(
            rf"(?<![\w.])({_NUMBER})(?:°?[A-Za-z]{{1,3}}\b|%|°)?(?!\w|\.\d)", text
        )
        if not any(start <= match.start() < end for start, end in dates)
    ]
    return [_number(n) for n in found]


def _number(said: str) -> int | float:
    return int(float(said)) if float(said).is_integer() else float(said)


_WORDS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
)  # fmt: skip
_NUMBER_WORDS = {word: value for value, word in enumerate(_WORDS, start=1)}
# Words that all count people: a `travellers` field counts the "two people" of a booking.
_PEOPLE = frozenset((
    "people", "persons", "person", "travellers", "travelers", "traveller", "traveler", "guests",
    "guest", "passengers", "passenger", "adults", "adult", "pax", "party",
))  # fmt: skip
_COUNTED = re.compile(
    rf"(?<![\w.])(\d+|{'|'.join(_NUMBER_WORDS)})\s+([a-z]+)\b(?:\s+([a-z]+)\b)?", re.IGNORECASE
)


def count_for(name: str, text: str) -> int | None:
    """The count the text gives of what a field counts, in digits or words, with the thing
    counted right after it or one word later: "for two people" gives 2 to `travellers` or
    `num_people`, "3 nights" gives 3 to `nights`, "two adult guests" 2 to `guests`."""
    words = [w for w in field_words(name) if len(w) > 2]
    for match in _COUNTED.finditer(text):
        for noun in filter(None, (match.group(2), match.group(3))):
            noun = noun.lower()
            if any(w[:5] == noun[:5] for w in words) or (
                noun in _PEOPLE and any(w in _PEOPLE for w in words)
            ):
                said = match.group(1).lower()
                return _NUMBER_WORDS.get(said) or int(said)
    return None


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        return _ARITHMETIC[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError("not a simple sum")


RESULT_FIELD = re.compile(r"answer|result|sum|total|value", re.IGNORECASE)


class Numbers:
    """The numbers a request gives: the result of its sum, for a field that holds a result,
    the count of what a field counts, and the numbers it states, one field after the other."""

    def __init__(self, text: str) -> None:
        self.text, self.total, self.stated = text, sum_in(text), numbers_in(text)

    def copy(self) -> Numbers:
        """The same numbers, to try a field with and leave these as they were."""
        other = Numbers.__new__(Numbers)
        other.text, other.total, other.stated = self.text, self.total, list(self.stated)
        return other

    def next_for(self, name: str) -> int | float | None:
        counted = count_for(name, self.text)
        if counted is not None:
            if counted in self.stated:
                self.stated.remove(counted)
            return counted
        if self.total is not None and (RESULT_FIELD.search(name) or not self.stated):
            return self.total
        return self.stated.pop(0) if self.stated else self.total
