"""How long each notebook takes a newcomer to read and run: the basis of the workshop plans.

Usage (from the project root):

    python -m course_tools.reading_time

For each course notebook and its exercise notebook: the words of prose (markdown cells), the
lines of code (code cells), and the minutes they take at the stated speeds. Prose is read at
PROSE_WPM words a minute (careful reading of technical text by someone new to the topic); code
at CODE_LPM lines a minute (reading a cell, running it and looking at its output). Exercise
work is not measured here: docs/workshop.md adds the sizing of each exercise.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat

from course_tools.execute_notebooks import EXERCISES, NOTEBOOKS

PROSE_WPM = 150
CODE_LPM = 8
WORD = re.compile(r"[A-Za-z0-9_']+")


def counts(path: Path) -> tuple[int, int]:
    """(words of prose, non-blank lines of code) in one notebook."""
    nb = nbformat.read(path, as_version=4)
    words = sum(len(WORD.findall(c.source)) for c in nb.cells if c.cell_type == "markdown")
    lines = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if line.strip() and not line.strip().startswith("#")
    )
    return words, lines


def minutes(words: int, lines: int) -> int:
    return math.ceil(words / PROSE_WPM + lines / CODE_LPM)


def lesson_minutes() -> dict[str, tuple[int, int | None]]:
    """{lesson's stem: (minutes to read it, minutes to read its exercises, or None)}."""
    found: dict[str, tuple[int, int | None]] = {}
    for lesson in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        exercise = EXERCISES / f"{lesson.stem}_exercises.ipynb"
        found[lesson.stem] = (
            minutes(*counts(lesson)),
            minutes(*counts(exercise)) if exercise.is_file() else None,
        )
    return found


def main() -> int:
    print(f"prose at {PROSE_WPM} words/min, code at {CODE_LPM} lines/min\n")
    print(f"{'notebook':<36} {'words':>6} {'code':>5} {'min':>4}   {'exercises':>9} {'min':>4}")
    for lesson in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        words, lines = counts(lesson)
        exercise = EXERCISES / f"{lesson.stem}_exercises.ipynb"
        if exercise.is_file():
            e_words, e_lines = counts(exercise)
            extra = f"{e_words:>9} {minutes(e_words, e_lines):>4}"
        else:
            extra = f"{'-':>9} {'-':>4}"
        print(f"{lesson.stem:<36} {words:>6} {lines:>5} {minutes(words, lines):>4}   {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
