"""Code built in a notebook and promoted to course_helpers stays identical in both places.

Mark a notebook cell for promotion by making its first line exactly

    # Saved in course_helpers.loop

Three rules follow, checked on the syntax trees (`ast.dump`: comments and formatting may differ,
code, constants and docstrings may not). Imports are left out on both sides: a notebook imports
in its first cell, a module at its top.

1. Every statement of a promoted cell is in the module, unchanged (a `def` or `class` is found
   by name, so a difference shows as a diff).
2. Every statement of a module that has promoted cells is shown in one of them: what the
   learner is said to build is all in the notebooks, constants included.
3. Every other module of course_helpers says, in the first line of its docstring, that it is
   course machinery (the client, display, widgets, checks, the offline model, fixtures...).

The modules are read as source, never imported, and notebooks are never executed here.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from course_tools import execute_notebooks as executor

MARKER = re.compile(r"^# Saved in (course_helpers(?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "course_helpers"
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
MACHINERY = re.compile(r"course machinery", re.IGNORECASE)


@dataclass(frozen=True)
class PromotedCell:
    """A notebook cell marked `# Saved in course_helpers.<module>`."""

    notebook: str
    index: int
    module: str
    source: str


def promoted_cells(nb: nbformat.NotebookNode, notebook: str = "") -> list[PromotedCell]:
    """Every code cell whose first line is the promotion marker."""
    found = []
    for index, cell in enumerate(nb.cells):
        first_line = cell.source.split("\n", 1)[0].rstrip() if cell.cell_type == "code" else ""
        if match := MARKER.match(first_line):
            found.append(PromotedCell(notebook, index, match.group(1), cell.source))
    return found


def statements(source: str) -> list[ast.stmt]:
    """The top-level statements that count: no docstring, nothing that only imports."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [node for node in body if not is_import(node)]


def is_import(node: ast.stmt) -> bool:
    """Imports, `if TYPE_CHECKING:` blocks (imports for annotations) and `__all__`."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.If):
        return ast.unparse(node.test) == "TYPE_CHECKING"
    return isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"


def label(node: ast.stmt) -> str:
    """A short name for a statement: the name it defines, or its first line."""
    if isinstance(node, DEFINITIONS):
        return node.name
    return ast.unparse(node).splitlines()[0][:60]


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
    """Rule 1: one problem per statement of the cell missing from, or differing in, the module."""
    in_module = statements(module_source)
    by_name = {node.name: node for node in in_module if isinstance(node, DEFINITIONS)}
    dumps = {ast.dump(node) for node in in_module}
    problems = []
    for node in statements(cell_source):
        if ast.dump(node) in dumps:
            continue
        promoted = by_name.get(node.name) if isinstance(node, DEFINITIONS) else None
        if promoted is not None:
            problems.append(
                f"{node.name}: differs from {module}\n{unified_diff(node.name, promoted, node, module)}"
            )
        elif isinstance(node, DEFINITIONS):
            problems.append(f"{node.name}: not defined at the top level of {module}")
        else:
            problems.append(f"`{label(node)}`: not in {module}")
    return problems


def not_shown(module_source: str, cell_sources: list[str]) -> list[str]:
    """Rule 2: the statements of a module that no promoted cell shows."""
    shown = {ast.dump(node) for source in cell_sources for node in statements(source)}
    return [label(node) for node in statements(module_source) if ast.dump(node) not in shown]


def module_path(module: str) -> Path:
    """The source file of a course_helpers module, found without importing it."""
    parts = module.split(".")[1:]
    candidate = PACKAGE.joinpath(*parts)
    return candidate / "__init__.py" if candidate.is_dir() else candidate.with_suffix(".py")


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def all_promoted_cells() -> list[PromotedCell]:
    cells = []
    for path in executor.course_notebooks():
        nb = nbformat.read(path, as_version=4)
        cells += promoted_cells(nb, str(path.relative_to(ROOT)))
    return cells


CELLS = all_promoted_cells()
LEARNER_MODULES = sorted({cell.module for cell in CELLS})


def test_promoted_code_matches_course_helpers(notebook_path: Path) -> None:
    nb = nbformat.read(notebook_path, as_version=4)
    name = notebook_path.relative_to(ROOT) if notebook_path.is_relative_to(ROOT) else notebook_path
    problems = []
    for cell in promoted_cells(nb):
        path = module_path(cell.module)
        if not path.is_file():
            problems.append(f"{name}, cell {cell.index}: {cell.module} has no source file")
            continue
        problems += [
            f"{name}, cell {cell.index}: {problem}"
            for problem in compare(cell.source, path.read_text(encoding="utf-8"), cell.module)
        ]
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.parametrize("module", LEARNER_MODULES)
def test_every_line_of_a_learner_module_is_shown_in_a_notebook(module: str) -> None:
    sources = [cell.source for cell in CELLS if cell.module == module]
    missing = not_shown(module_path(module).read_text(encoding="utf-8"), sources)
    assert not missing, (
        f"{module} has code that no '# Saved in {module}' cell shows: {', '.join(missing)}. "
        "Show it in the notebook that teaches it, or move it to a course-machinery module."
    )


def says_machinery(path: Path) -> bool:
    """The first paragraph of the module's docstring, or of an enclosing package's, says
    "course machinery" (so `offline/__init__.py` covers the whole offline model)."""
    for candidate in [path, *(folder / "__init__.py" for folder in path.parents)]:
        if candidate == PACKAGE.parent / "__init__.py" or not candidate.is_relative_to(PACKAGE):
            break
        if candidate.is_file():
            docstring = ast.get_docstring(ast.parse(candidate.read_text(encoding="utf-8"))) or ""
            if MACHINERY.search(docstring.split("\n\n", 1)[0]):
                return True
    return False


def test_every_other_module_says_it_is_course_machinery() -> None:
    unmarked = [
        module_name(path)
        for path in sorted(PACKAGE.rglob("*.py"))
        if module_name(path) not in LEARNER_MODULES
        and statements(path.read_text(encoding="utf-8"))  # not a file of imports only
        and not says_machinery(path)
    ]
    assert not unmarked, (
        "neither shown in a notebook nor marked as course machinery in the first paragraph "
        f"of their docstring (or their package's): {', '.join(unmarked)}"
    )


# The rules themselves, on sources in memory: proof that the tests above can fail.

MODULE = '''
"""A promoted module."""

import json

LIMIT = 20


def run_tool(name, args):
    """Run one tool."""
    return TOOLS[name](**args)


class Loop:
    steps = 20
'''

CELL = """# Saved in course_helpers.loop
# A comment and other formatting do not count, nor do imports.
import os

LIMIT = 20


def run_tool(name, args):
    \"\"\"Run one tool.\"\"\"
    return TOOLS[name](
        **args
    )
"""


def test_compare_accepts_identical_statements() -> None:
    assert compare(CELL, MODULE, "course_helpers.loop") == []


def test_compare_reports_a_changed_definition() -> None:
    changed = MODULE.replace("steps = 20", "steps = 30")
    problems = compare("class Loop:\n    steps = 20\n", changed, "course_helpers.loop")
    assert len(problems) == 1
    assert problems[0].startswith("Loop: differs from course_helpers.loop")
    assert "-    steps = 30" in problems[0] and "+    steps = 20" in problems[0]


def test_compare_reports_a_changed_constant_and_a_missing_name() -> None:
    cell = "LIMIT = 30\n\ndef dispatch():\n    pass\n\nprint(LIMIT)\n"
    assert compare(cell, MODULE, "course_helpers.loop") == [
        "`LIMIT = 30`: not in course_helpers.loop",
        "dispatch: not defined at the top level of course_helpers.loop",
        "`print(LIMIT)`: not in course_helpers.loop",
    ]


def test_not_shown_lists_what_no_cell_shows() -> None:
    assert not_shown(MODULE, [CELL]) == ["Loop"]
    assert not_shown(MODULE, [CELL, "class Loop:\n    steps = 20\n"]) == []


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
