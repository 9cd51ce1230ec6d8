"""Code built in a notebook and promoted to course_helpers stays identical in both places.

Mark a notebook cell for promotion by making its first line exactly

    # Saved in course_helpers.loop

Every top-level `def`/`class` of that cell must then exist, unchanged, at the top level of
`src/course_helpers/loop.py`. "Unchanged" means the same syntax tree (`ast.dump`): comments and
formatting may differ, code and docstrings may not. The module is read as source, never imported,
and notebooks are never executed here.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

MARKER = re.compile(r"^# Saved in (course_helpers(?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
ROOT = Path(__file__).resolve().parents[1]
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class PromotedCell:
    """A notebook cell marked `# Saved in course_helpers.<module>`."""

    index: int
    module: str
    source: str


def promoted_cells(nb: nbformat.NotebookNode) -> list[PromotedCell]:
    """Every code cell whose first line is the promotion marker."""
    found = []
    for index, cell in enumerate(nb.cells):
        first_line = cell.source.split("\n", 1)[0].rstrip() if cell.cell_type == "code" else ""
        if match := MARKER.match(first_line):
            found.append(PromotedCell(index, match.group(1), cell.source))
    return found


def top_level_definitions(source: str) -> dict[str, ast.AST]:
    """Name -> node of every top-level function and class (the last one wins, as in Python)."""
    return {node.name: node for node in ast.parse(source).body if isinstance(node, DEFINITIONS)}


def unified_diff(name: str, expected: ast.AST, actual: ast.AST, module: str) -> str:
    """A readable diff of two definitions, as `ast.unparse` writes them."""
    return "\n".join(
        difflib.unified_diff(
            ast.unparse(expected).splitlines(),
            ast.unparse(actual).splitlines(),
            fromfile=f"{module}.{name}",
            tofile=f"notebook cell: {name}",
            lineterm="",
        )
    )


def compare(cell_source: str, module_source: str, module: str) -> list[str]:
    """One problem per definition of the cell that is missing from, or differs in, the module."""
    in_module = top_level_definitions(module_source)
    problems = []
    for name, node in top_level_definitions(cell_source).items():
        promoted = in_module.get(name)
        if promoted is None:
            problems.append(f"{name}: not defined at the top level of {module}")
        elif ast.dump(promoted) != ast.dump(node):
            problems.append(
                f"{name}: differs from {module}\n{unified_diff(name, promoted, node, module)}"
            )
    return problems


def module_source(module: str) -> str:
    """The source text of a course_helpers module, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise LookupError(f"{module} has no Python source file")
    return Path(spec.origin).read_text(encoding="utf-8")


def cell_problems(cell: PromotedCell) -> list[str]:
    """Everything wrong with one promoted cell, as readable lines."""
    try:
        source = module_source(cell.module)
    except (LookupError, ModuleNotFoundError) as exc:
        return [f"{cell.module}: {exc}"]
    try:
        return compare(cell.source, source, cell.module)
    except SyntaxError as exc:
        return [f"cannot parse the cell or {cell.module} as plain Python: {exc}"]


def test_promoted_code_matches_course_helpers(notebook_path: Path) -> None:
    nb = nbformat.read(notebook_path, as_version=4)
    name = notebook_path.relative_to(ROOT) if notebook_path.is_relative_to(ROOT) else notebook_path
    problems = [
        f"{name}, cell {cell.index}: {problem}"
        for cell in promoted_cells(nb)
        for problem in cell_problems(cell)
    ]
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


# The comparison itself, on sources in memory: proof that the test above can fail.

MODULE = '''
"""A promoted module."""

LIMIT = 20


def run_tool(name, args):
    """Run one tool."""
    return TOOLS[name](**args)


class Loop:
    steps = 20
'''

CELL = """# Saved in course_helpers.loop
# A comment and other formatting do not count.
def run_tool(name, args):
    \"\"\"Run one tool.\"\"\"
    return TOOLS[name](
        **args
    )

print(run_tool)
"""


def test_compare_accepts_identical_definitions() -> None:
    assert compare(CELL, MODULE, "course_helpers.loop") == []


def test_compare_reports_a_changed_constant() -> None:
    changed = MODULE.replace("steps = 20", "steps = 30")
    problems = compare("class Loop:\n    steps = 20\n", changed, "course_helpers.loop")
    assert len(problems) == 1
    assert problems[0].startswith("Loop: differs from course_helpers.loop")
    assert "-    steps = 30" in problems[0] and "+    steps = 20" in problems[0]


def test_compare_reports_a_missing_name() -> None:
    problems = compare("def dispatch():\n    pass\n", MODULE, "course_helpers.loop")
    assert problems == ["dispatch: not defined at the top level of course_helpers.loop"]


def test_marker_must_be_the_exact_first_line() -> None:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(CELL),
            nbformat.v4.new_code_cell("x = 1\n# Saved in course_helpers.loop"),
            nbformat.v4.new_code_cell("# saved in course_helpers.loop"),
            nbformat.v4.new_markdown_cell("# Saved in course_helpers.loop"),
        ]
    )
    assert [(c.index, c.module) for c in promoted_cells(nb)] == [(0, "course_helpers.loop")]
