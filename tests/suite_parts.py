"""The parts of the test suite, and what each of them cost in the last run.

`make test` prints one line per part as it finishes and a table of every part at the end
(tests, worker-seconds, the wall time from its first test's start to its last test's end), so
whoever waits on the suite sees what is running and where the time went. The same seconds are
kept in pytest's cache (`.pytest_cache/v/course/`): `tests/conftest.py`'s scheduler hands out
the longest scopes first from them, and `benchmarks/suite_parts.py` prints them with the ratio
of the whole suite to its floor (every notebook executed once, under nbval).

A part is named by the first rule below that a test's node id matches; new test files fall
into the part of their folder, or into "everything else".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# (part, node-id prefixes): the first part with a matching prefix wins.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nbval: every notebook once", ("notebooks/",)),
    ("browser: every diagram", ("tests/browser/test_diagrams.py",)),
    ("browser: approval panel", ("tests/browser/test_approval",)),
    ("browser: stepper, transcript, Russian", ("tests/browser/",)),
    (
        "notebooks on the other models",
        (
            "tests/test_every_model.py",
            "tests/test_live_path.py",
            "tests/test_reluctant_model.py",
            "tests/test_lesson10_other_model.py",
        ),
    ),
    ("exercise variants", ("tests/test_exercise_variants", "tests/exercise_variants/")),
    ("exercise checks", ("tests/test_exercises.py",)),
    ("hostile corpus", ("tests/test_hostile_corpus.py",)),
    ("workshop guide and gateway", ("tests/test_workshop_",)),
    ("everything else", ("",)),
)
FLOOR = PARTS[0][0]  # executing every notebook once: what no speed-up of the rest removes


def part_of(nodeid: str) -> str:
    """The part a test belongs to."""
    for name, prefixes in PARTS:
        if nodeid.startswith(prefixes):
            return name
    raise AssertionError("unreachable: the last part matches everything")


@dataclass
class Part:
    """What one part of a run cost."""

    name: str
    tests: int = 0
    failed: int = 0
    seconds: float = 0.0  # setup, call and teardown of its tests, added up (worker-seconds)
    start: float | None = None
    stop: float | None = None
    done: set[str] = field(default_factory=set)
    failed_tests: set[str] = field(default_factory=set)

    @property
    def wall(self) -> float:
        return 0.0 if self.start is None or self.stop is None else self.stop - self.start


def seconds_per_part(durations: dict[str, float]) -> dict[str, Part]:
    """Worker-seconds per part from {node id: seconds}, in the order of PARTS."""
    parts = {name: Part(name) for name, _ in PARTS}
    for nodeid, seconds in durations.items():
        part = parts[part_of(nodeid)]
        part.tests += 1
        part.seconds += seconds
    return {name: part for name, part in parts.items() if part.tests}


def table(parts: Iterable[Part], *, with_wall: bool) -> list[str]:
    """Readable lines: one per part, then the total and the ratio to the floor."""
    parts = list(parts)
    lines = [
        f"{'part':<40} {'tests':>6} {'worker-s':>9}" + (f" {'wall s':>7}" if with_wall else "")
    ]
    for part in parts:
        line = f"{part.name:<40} {part.tests:>6} {part.seconds:>9.1f}"
        if with_wall:
            line += f" {part.wall:>7.1f}"
        if part.failed:
            line += f"   {part.failed} failed"
        lines.append(line)
    total = sum(part.seconds for part in parts)
    lines.append(f"{'all parts':<40} {sum(p.tests for p in parts):>6} {total:>9.1f}")
    floor = next((part.seconds for part in parts if part.name == FLOOR), 0.0)
    if floor:
        lines.append(f"the whole is {total / floor:.2f} times its floor ({FLOOR}: {floor:.1f} s)")
    return lines
