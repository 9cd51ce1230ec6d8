"""Write the modules of `course_helpers.lessons` from the notebook cells that build them.

Usage (from the project root; `make promote` runs it):

    python -m course_tools.promote           # rewrite every learner module from the notebooks
    python -m course_tools.promote --check   # exit 1 and name the modules that are out of date

A code cell whose first line is exactly `# Saved in course_helpers.lessons.<module>` belongs to
that module. The module is its preamble followed by those cells, in course order (notebooks by
name, cells top to bottom), comments included:

    <preamble: the module's docstring and imports, kept by hand>
    # ---- everything below is written by `make promote` ...
    # From notebooks/04_build_the_loop.ipynb
    <the cell, without its marker line and without the imports it starts with>

The preamble is what the module adds around the cells: a docstring that says what the module is
for, and the imports (a notebook imports in its first cells, a module at its top). It may hold
nothing else: `tests/test_promotion.py` refuses any other statement there, so every line of code
a learner module runs is shown in a notebook. The imports a cell starts with are left out of the
module: they are the notebook's way of reaching the same names the preamble imports.

The output depends only on the notebooks and the preambles, so a test regenerates every module
in memory and compares bytes.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "course_helpers"
LESSONS = PACKAGE / "lessons"
NOTEBOOKS = ROOT / "notebooks"
MARKER = re.compile(r"^# Saved in (course_helpers\.lessons(?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
GENERATED = (
    "# ---- Everything below is written by `make promote` from the notebook cells marked\n"
    "# ---- `# Saved in {module}`. Edit those cells, then run `make promote`.\n"
)
DEFAULT_PREAMBLE = '"""{module}: built in the notebooks (write what it is for here)."""\n\nfrom __future__ import annotations\n'


@dataclass(frozen=True)
class SavedCell:
    """A notebook cell marked `# Saved in course_helpers.lessons.<module>`."""

    notebook: str  # relative to the project root
    index: int
    module: str
    source: str


def lesson_notebooks() -> list[Path]:
    """The lesson notebooks, in course order (saved cells live only in lessons)."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def marked_module(source: str) -> str | None:
    """The module a cell is saved in, from its first line, or None."""
    match = MARKER.match(source.split("\n", 1)[0].rstrip())
    return match.group(1) if match else None


def saved_cells(nb: nbformat.NotebookNode, notebook: str) -> list[SavedCell]:
    return [
        SavedCell(notebook, index, module, cell.source)
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (module := marked_module(cell.source))
    ]


def all_saved_cells(notebooks: list[Path] | None = None) -> list[SavedCell]:
    cells = []
    for path in notebooks if notebooks is not None else lesson_notebooks():
        nb = nbformat.read(path, as_version=4)
        cells += saved_cells(nb, path.relative_to(ROOT).as_posix())
    return cells


def module_path(module: str) -> Path:
    """`course_helpers.lessons.cost.budget` → src/course_helpers/lessons/cost/budget.py."""
    return PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")


def cell_body(source: str) -> str:
    """The cell without its marker line and without the imports it starts with.

    Comments stay, those above the imports included; only the import statements go (the
    module's preamble imports the same names).
    """
    lines = source.split("\n")[1:]
    dropped: set[int] = set()
    for node in ast.parse("\n".join(lines)).body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        dropped |= set(range(node.lineno - 1, node.end_lineno or node.lineno))
    kept = [line for number, line in enumerate(lines) if number not in dropped]
    text = "\n".join(kept).strip("\n") + "\n"
    while "\n\n\n\n" in text:  # the blank lines around removed imports
        text = text.replace("\n\n\n\n", "\n\n\n")
    return text


def in_preamble(node: ast.stmt) -> bool:
    """What a preamble may hold: a docstring, imports, `if TYPE_CHECKING:` imports, `__all__`."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, ast.If):
        return ast.unparse(node.test) == "TYPE_CHECKING"
    return isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"


def preamble(path: Path, module: str) -> str:
    """What the committed module holds above the generated part (a default for a new module)."""
    if not path.is_file():
        return DEFAULT_PREAMBLE.format(module=module)
    text = path.read_text(encoding="utf-8")
    head = GENERATED.format(module=module)
    if head not in text:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        raise ValueError(
            f"{shown} has no generated part: keep its docstring and imports, "
            f"end them with the two lines `make promote` writes ({head.splitlines()[0]} ...), "
            "and move its code into '# Saved in' cells"
        )
    return text.split(head, 1)[0].rstrip("\n") + "\n"


def render(module: str, cells: list[SavedCell], head: str) -> str:
    """The whole module: preamble, the generated-part header, each cell with its provenance."""
    parts = [head.rstrip("\n") + "\n\n" + GENERATED.format(module=module)]
    for cell in cells:
        parts.append(f"# From {cell.notebook}\n{cell_body(cell.source)}")
    return "\n\n".join(parts)


def expected_modules(cells: list[SavedCell] | None = None) -> dict[Path, str]:
    """Every learner module as the notebooks write it, by path."""
    cells = all_saved_cells() if cells is None else cells
    modules: dict[str, list[SavedCell]] = {}
    for cell in cells:
        modules.setdefault(cell.module, []).append(cell)
    return {
        module_path(module): render(module, found, preamble(module_path(module), module))
        for module, found in sorted(modules.items())
    }


def stale_modules() -> list[Path]:
    return [
        path
        for path, text in expected_modules().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which modules are stale")
    args = parser.parse_args(argv)
    try:
        return check() if args.check else write_all()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def check() -> int:
    stale = stale_modules()
    for path in stale:
        print(f"out of date: {path.relative_to(ROOT)} (run `make promote`)")
    return 1 if stale else 0


def write_all() -> int:
    for path, text in expected_modules().items():
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
