"""How long does each course notebook take to run, compared with the cheapest possible one?

Usage: python benchmarks/course_runtime.py   (or `make bench`)

Executes every course notebook and `benchmarks/baseline.ipynb` (import course_helpers, make a
client, make one call) once each, one after the other, in a temporary copy of notebooks/ and with
the offline environment of `course_tools.execute_notebooks`. Each time is the wall time of a fresh
kernel running the whole notebook, kernel start included. Prints seconds and the ratio to the
baseline per notebook, then, last, the median ratio. The course aims at a median of at most 2.0.
This is a measurement only: nothing here asserts on time.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from course_tools import execute_notebooks as executor

ROOT = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).resolve().with_name("baseline.ipynb")
TARGET = 2.0


@dataclass(frozen=True)
class Timing:
    """One notebook's run."""

    name: str
    seconds: float
    error: str | None = None


def time_notebook(path: Path, name: str) -> Timing:
    """Execute the notebook at `path` once (in its own folder, nothing saved) and time it."""
    start = time.perf_counter()
    try:
        nb = nbformat.read(path, as_version=4)
        executor.execute(nb, cwd=path.parent)
    except Exception as exc:  # a failing notebook is reported, the others are still measured
        first_line = (str(exc).strip().splitlines() or [""])[0]
        return Timing(name, time.perf_counter() - start, f"{type(exc).__name__}: {first_line}")
    return Timing(name, time.perf_counter() - start)


def copy_course(workdir: Path) -> list[tuple[Path, str]]:
    """Copy notebooks/ into `workdir`; return (copy, display name) of every course notebook."""
    shutil.copytree(executor.NOTEBOOKS, workdir / "notebooks")
    return [
        (workdir / "notebooks" / p.relative_to(executor.NOTEBOOKS), str(p.relative_to(ROOT)))
        for p in executor.course_notebooks()
    ]


def measure() -> tuple[list[Timing], Timing]:
    """Run every course notebook, then the baseline, each once, in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="course-runtime-") as tmp:
        workdir = Path(tmp)
        copies = copy_course(workdir)
        (workdir / "benchmarks").mkdir()
        baseline_copy = Path(shutil.copy(BASELINE, workdir / "benchmarks"))
        timings = []
        for copy, name in copies:
            timings.append(time_notebook(copy, name))
            print(f"  ran {name} in {timings[-1].seconds:.2f} s", file=sys.stderr, flush=True)
        # The baseline runs last, with warm disk caches: a cold baseline would flatter every
        # ratio, while a cold first notebook moves the median very little.
        baseline = time_notebook(baseline_copy, str(BASELINE.relative_to(ROOT)))
    return timings, baseline


def row(timing: Timing, baseline: Timing) -> str:
    """One line of the table: name, seconds, ratio (or the error)."""
    if timing.error is not None:
        return f"{timing.name:<50} {timing.seconds:8.2f}   FAILED: {timing.error}"
    if baseline.error is not None or baseline.seconds <= 0:
        return f"{timing.name:<50} {timing.seconds:8.2f}      n/a"
    return f"{timing.name:<50} {timing.seconds:8.2f} {timing.seconds / baseline.seconds:8.2f}"


def median_ratio(timings: list[Timing], baseline: Timing) -> float | None:
    """Median of notebook/baseline over the notebooks that ran; None when it cannot be known."""
    ratios = [t.seconds / baseline.seconds for t in timings if t.error is None]
    if baseline.error is not None or baseline.seconds <= 0 or not ratios:
        return None
    return statistics.median(ratios)


def main() -> int:
    """Measure, print the table and the median last; exit 1 if any notebook failed."""
    timings, baseline = measure()
    print(f"{'notebook':<50} {'seconds':>8} {'ratio':>8}")
    for timing in [*timings, baseline]:
        print(row(timing, baseline))
    median = median_ratio(timings, baseline)
    shown = "n/a" if median is None else f"{median:.2f}"
    print(f"median notebook/baseline ratio: {shown} (target <= {TARGET})")
    return 1 if any(t.error is not None for t in [*timings, baseline]) else 0


if __name__ == "__main__":
    sys.exit(main())
