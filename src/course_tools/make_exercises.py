"""Generate the learner's exercise notebooks from the executed solution notebooks.

Usage (from the project root; `make exercises` runs it):

    python -m course_tools.make_exercises            # write notebooks/exercises/ (and notebooks/ru/exercises/)
    python -m course_tools.make_exercises --check    # exit 1 if a stored exercise notebook is stale
    python -m course_tools.make_exercises --out DIR  # write them somewhere else (used by the tests)

In a solution notebook's code cell, the learner's part sits between a line `# BEGIN SOLUTION`
and a line `# END SOLUTION`. The generator replaces it by `# YOUR CODE HERE` and a placeholder
that still runs but is wrong, so the check cells run on the blank notebook and fail with their
own message. The placeholder is given inside the block by lines `# BLANK: <code>` (several
lines allowed, in order); without any, it is `pass`. Indentation follows the BEGIN line.

The course's convention for a function to write is `# BLANK: raise NotWrittenYet` (from
`course_helpers.exercise_checks`): a cell that calls it then says in one line that it is not written
yet, and its check fails with the same words, instead of running a placeholder that returns
something plausible (an empty list of problems reads like success).

Links in a solution's markdown are written from `solutions/` (`../../04_build_the_loop.ipynb`);
the exercise notebook sits one folder up, so they lose one `../`.

Markdown and code cells tagged `solution-only` are left out of the exercise notebook. Outputs,
execution counts and widget state are removed. The output depends only on the solution files,
so a test can regenerate into a temporary folder and compare bytes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "notebooks" / "exercises" / "solutions"
EXERCISES = ROOT / "notebooks" / "exercises"
RU_SOLUTIONS = ROOT / "notebooks" / "ru" / "exercises" / "solutions"

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION\s*$")
END = re.compile(r"^[ \t]*# END SOLUTION\s*$")
BLANK = re.compile(r"^[ \t]*# BLANK:(?: (?P<code>.*))?$")
SOLUTION_ONLY_TAG = "solution-only"
# A markdown link that climbs out of solutions/ and then out of exercises/.
TWO_UP = re.compile(r"\]\(\.\./\.\./")


class MarkerError(ValueError):
    """A solution cell's BEGIN/END markers do not pair up."""


def blank_source(source: str, where: str = "a cell") -> str:
    """The cell's source with every solution block replaced by its placeholder."""
    out: list[str] = []
    block: list[str] | None = None
    indent = ""
    for number, line in enumerate(source.split("\n"), start=1):
        begin = BEGIN.match(line)
        if begin:
            if block is not None:
                raise MarkerError(f"{where}, line {number}: BEGIN SOLUTION inside another block")
            block, indent = [], begin.group("indent")
            continue
        if END.match(line):
            if block is None:
                raise MarkerError(f"{where}, line {number}: END SOLUTION without BEGIN")
            out.append(f"{indent}# YOUR CODE HERE")
            out.extend(f"{indent}{code}" for code in (block or ["pass"]))
            block = None
            continue
        if block is not None:
            blank = BLANK.match(line)
            if blank:
                block.append(blank.group("code") or "")
            continue
        out.append(line)
    if block is not None:
        raise MarkerError(f"{where}: BEGIN SOLUTION is never closed")
    return "\n".join(out)


def exercise_from(solution: nbformat.NotebookNode, where: str) -> nbformat.NotebookNode:
    """The blank exercise notebook made from one solution notebook."""
    nb = nbformat.from_dict(solution)
    cells = []
    for index, cell in enumerate(nb.cells):
        if SOLUTION_ONLY_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        cell.metadata.pop("execution", None)
        if cell.cell_type == "markdown":
            cell.source = TWO_UP.sub("](../", cell.source)
        if cell.cell_type == "code":
            cell.source = blank_source(cell.source, f"{where}, cell {index}")
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return nb


def exercise_name(solution: Path) -> str:
    return solution.name


def solutions(folder: Path = SOLUTIONS) -> list[Path]:
    return sorted(folder.glob("*.ipynb"))


def render(nb: nbformat.NotebookNode) -> str:
    """The file's text, in the layout course_tools.execute_notebooks writes."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def generate(out_dir: Path, solutions_dir: Path = SOLUTIONS) -> dict[Path, str]:
    """Every exercise notebook's path in `out_dir` and its text, from the solutions in
    `solutions_dir` (the English ones unless told otherwise)."""
    made = {}
    for path in solutions(solutions_dir):
        solution = nbformat.read(path, as_version=4)
        exercise = exercise_from(solution, path.name)
        made[out_dir / exercise_name(path)] = render(exercise)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="where to write the English ones")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    try:
        if args.out is not None:
            made = generate(args.out)
        else:  # every edition: English, and the Russian one's solutions if it has them
            made = generate(EXERCISES)
            if RU_SOLUTIONS.is_dir():
                made |= generate(RU_SOLUTIONS.parent, RU_SOLUTIONS)
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        stale = [p for p, text in made.items() if not p.is_file() or p.read_text("utf-8") != text]
        for path in stale:
            print(
                f"stale: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} (run `make exercises`)"
            )
        if not stale:
            print(f"{len(made)} exercise notebooks up to date with their solutions")
        return 1 if stale else 0
    for path, text in made.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text("utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    print(f"{len(made)} exercise notebooks from their solutions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
