"""Where does the test suite's time go? Worker-seconds per part of the last `make test`.

Usage: python benchmarks/suite_parts.py   (or `make suite-parts`; `make bench` runs it too)

Reads the seconds pytest kept for every test of the last run of the whole suite
(`.pytest_cache/v/course/last-full-run`, written by `tests/conftest.py`; after narrower runs
only, the merged seconds of every test ever run, `course/durations`) and adds them up per part
of the suite, as `tests/suite_parts.py` cuts it. The floor is executing every course notebook
once (nbval): the rest checks the same notebooks on other models, in a browser, and the code
under them. Prints the table, then, last, the ratio of the whole suite to that floor: the day a
change makes it jump, the table says which part grew.

A measurement only: nothing here asserts on time. The seconds are those of the machine and the
load the run had; compare runs made in the same conditions.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".pytest_cache" / "v" / "course"


def load_parts():
    """tests/suite_parts.py, the one definition of the parts (loaded from its file)."""
    spec = importlib.util.spec_from_file_location("suite_parts", ROOT / "tests" / "suite_parts.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def recorded() -> tuple[str, dict[str, float]] | None:
    for name, what in (
        ("last-full-run", "the last run of the whole suite"),
        ("durations", "every test's last run (no whole-suite run recorded)"),
    ):
        path = CACHE / name
        if path.is_file():
            return what, json.loads(path.read_text(encoding="utf-8"))
    return None


def main() -> int:
    parts = load_parts()
    found = recorded()
    if found is None:
        print("No test run recorded in .pytest_cache: run `make test` first.")
        print("suite / floor: unknown")
        return 0
    what, seconds = found
    per_part = parts.seconds_per_part(seconds)
    print(f"Worker-seconds per part, from {what} ({len(seconds)} tests)\n")
    lines = parts.table(per_part.values(), with_wall=False)
    for line in lines[:-1]:
        print(line)
    floor = per_part.get(parts.FLOOR)
    total = sum(part.seconds for part in per_part.values())
    print()
    if floor is None or not floor.seconds:
        print("suite / floor: unknown (no nbval run recorded)")
        return 0
    print(f"suite / floor (every notebook once under nbval): {total / floor.seconds:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
