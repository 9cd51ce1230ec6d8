"""What a live workshop costs: every notebook run once, as a learner would, priced per token.

Usage (from the project root):

    python -m course_tools.workshop_cost                     # every notebook, default model
    python -m course_tools.workshop_cost --participants 25 --reruns 2

Each course notebook (00-10) and each exercise solution is executed once in a fresh kernel
against the offline course model, with a recorder around the course model's `respond()` that
keeps the `usage` of every answer. That is the course model's own accounting (about four
characters a token, caching by the documented rules), so it is an estimate of what the same
cells would use live on the default model. Calls made by the exercise checks are left out:
checks always use the offline course model, live or not, and cost nothing.

The price is computed from the per-token prices in PRICES below, for the model given with
--model (default: the course's model).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from course_helpers.client import MODEL
from course_helpers.lessons.cost.usage import token_count
from course_tools import execute_notebooks as executor

# US dollars per million tokens: input, output, cache write (5 minutes), cache write (1 hour),
# cache read. Source: the models' overview pages of the Claude documentation,
# https://platform.claude.com/docs/en/models/sonnet-5-5/overview (Sonnet 5.5: $2 / $10, cache
# writes $2.50 / $4, cache reads $0.20) and the comparison table on the same page (Opus 5.5:
# $4 / $20; its cache prices follow the same multipliers of the input price: 1.25x, 2x, 0.1x).
# Check https://www.anthropic.com/pricing before a workshop: prices change.
PRICES = {
    "claude-sonnet-5-5": (2.00, 10.00, 2.50, 4.00, 0.20),
    "claude-opus-5-5": (4.00, 20.00, 5.00, 8.00, 0.40),
}

# Runs first in each kernel (not saved anywhere): record the usage of every answer the course
# model gives, except those asked for by an exercise check.
RECORDER = """
import json as _json, sys as _sys
from course_helpers.offline.engine import CourseModel as _CourseModel

def _record_usage(respond, _path={path!r}):
    def recorded(self, body, *args, **kwargs):
        outcome = respond(self, body, *args, **kwargs)
        frame = _sys._getframe(1)
        while frame is not None:
            if frame.f_globals.get("__name__", "").startswith("course_helpers.exercise_checks"):
                return outcome  # an exercise check: always offline, never billed
            frame = frame.f_back
        record = {{"usage": outcome.message.get("usage") or {{}}, "max_tokens": body.get("max_tokens")}}
        with open(_path, "a", encoding="utf-8") as log:
            log.write(_json.dumps(record) + "\\n")
        return outcome
    return recorded

_CourseModel.respond = _record_usage(_CourseModel.respond)
"""


@dataclass
class Usage:
    calls: int = 0
    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    ceiling: int = 0  # the calls' max_tokens added up: the most they could have written
    failure: str = ""

    def add(self, usage: dict, max_tokens: int = 0) -> None:
        self.calls += 1
        self.ceiling += int(max_tokens or 0)
        self.input += token_count(usage, "input_tokens")
        self.output += token_count(usage, "output_tokens")
        written = token_count(usage, "cache_creation_input_tokens")
        one_hour = token_count(usage, "cache_creation", "ephemeral_1h_input_tokens")
        self.cache_write_1h += one_hour
        self.cache_write_5m += written - one_hour
        self.cache_read += token_count(usage, "cache_read_input_tokens")

    def __iadd__(self, other: Usage) -> Usage:
        for name in self.__dataclass_fields__:
            if name == "failure":
                continue
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    @property
    def tokens(self) -> int:
        return (
            self.input + self.output + self.cache_write_5m + self.cache_write_1h + self.cache_read
        )

    @property
    def worst_case(self) -> int:
        """Every input token, and every call writing (thinking included) up to its max_tokens."""
        return self.tokens - self.output + self.ceiling

    def price(self, model: str, *, output: int | None = None) -> float:
        """The cost in dollars; `output` replaces the measured output (e.g. the ceiling)."""
        rates = PRICES[model]
        counts = (
            self.input,
            self.output if output is None else output,
            self.cache_write_5m,
            self.cache_write_1h,
            self.cache_read,
        )
        return sum(n * rate for n, rate in zip(counts, rates, strict=True)) / 1_000_000


def recorder_cell(log: Path) -> str:
    """The code that, run first in a notebook's process, appends each billed call to `log`."""
    return RECORDER.format(path=str(log))


def recorded_usage(log: Path, usage: Usage | None = None) -> Usage:
    """The usage of every call the recorder wrote to `log`, added to `usage`."""
    usage = usage if usage is not None else Usage()
    for line in log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        usage.add(record["usage"], record["max_tokens"])
    return usage


def measure(path: Path, model: str) -> Usage:
    """Run one notebook with the recorder; the usage of every call its cells made."""
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "usage.jsonl"
        log.touch()
        nb.cells.insert(0, nbformat.v4.new_code_cell(recorder_cell(log)))
        env = executor.offline_environment()
        env["COURSE_MODEL"] = model
        usage = Usage()
        try:
            executor.execute(nb, path.parent, env=env)
        except Exception as error:  # a broken notebook is reported, the others still measured
            name = getattr(error, "ename", type(error).__name__)
            said = str(getattr(error, "evalue", error)).strip().splitlines() or [""]
            usage.failure = f"{name}: {said[0]}"[:160]
        recorded_usage(log, usage)
    return usage


def measure_all(paths: list[Path], model: str, jobs: int = 2) -> dict[str, Usage]:
    """{notebook's path under notebooks/: its usage}, for every notebook given."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        usages = list(pool.map(lambda p: measure(p, model), paths))
    return {
        os.path.relpath(path, executor.NOTEBOOKS): usage
        for path, usage in zip(paths, usages, strict=True)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=MODEL, choices=sorted(PRICES))
    parser.add_argument("--participants", type=int, default=25)
    parser.add_argument("--reruns", type=float, default=2.0, help="how often cells are re-run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or executor.course_notebooks()
    measured = measure_all(paths, args.model, args.jobs)
    rates = PRICES[args.model]
    print(f"Tokens one learner uses running each notebook once, on {args.model}")
    print(
        f"(course model's estimates; prices per million tokens: input ${rates[0]:.2f}, output "
        f"${rates[1]:.2f}, cache write ${rates[2]:.2f} (5 min) / ${rates[3]:.2f} (1 h), "
        f"cache read ${rates[4]:.2f}). 'ceiling' is every call's max_tokens added up: what the "
        "output could reach if the model thought (thinking is billed as output) up to each "
        "call's max_tokens.\n"
    )
    header = (
        f"{'notebook':<50} {'calls':>5} {'input':>9} {'cache r/w':>9} {'output':>7} "
        f"{'ceiling':>8} {'cost':>7} {'at ceiling':>10}"
    )
    print(header)
    print("-" * len(header))
    total = Usage()
    for name, usage in measured.items():
        total += usage
        print(_row(name, usage, args.model))
        if usage.failure:
            print(f"    (stopped early, counts are partial: {usage.failure})")
    print("-" * len(header))
    print(_row("one learner, every notebook once", total, args.model))
    room = args.participants * args.reruns
    print(
        f"\n{args.participants} participants x {args.reruns:g} runs of each cell: "
        f"about ${total.price(args.model) * room:,.2f} ({total.tokens * room:,.0f} tokens) "
        f"as measured, at most ${total.price(args.model, output=total.ceiling) * room:,.2f} "
        f"({total.worst_case * room:,.0f} tokens) if every call writes up to its max_tokens"
    )
    return 0


def _row(name: str, usage: Usage, model: str) -> str:
    cache = usage.cache_read + usage.cache_write_5m + usage.cache_write_1h
    return (
        f"{name:<50} {usage.calls:>5} {usage.input:>9,} {cache:>9,} {usage.output:>7,} "
        f"{usage.ceiling:>8,} ${usage.price(model):>6.3f} "
        f"${usage.price(model, output=usage.ceiling):>9.3f}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
