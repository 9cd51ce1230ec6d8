"""A learner who copies the cells they built into one module of their own gets a working agent.

The notebooks import what earlier notebooks built from `course_helpers`. A learner who writes
the course's code themselves keeps it in one module, cells copied in order. Then an import
inside a copied cell rebinds a name their own cells defined: harmless for a function that
behaves the same, a silent bug for a class, which `isinstance` and `except` compare by
identity. (Notebook 10's budget once imported `Ending` in its own cell: the learner's
`OverBudget` then derived from the package's `Ending`, and their `run_agent`, which catches
their own, let it fly.)

The copy is built the way a learner builds it: every `# Saved in` cell of notebooks 02 to 06
and 10, verbatim, after the imports of the other cells, without the names the copied cells
define (nobody imports what they wrote). It runs against the offline course model, in this
process. Nothing here executes a notebook.
"""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from course_helpers.client import MODEL
from course_helpers.fixtures.pr_repo import build_pr_repo
from course_helpers.offline import CourseModelApp
from course_tools import execute_notebooks as executor

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# Saved in course_helpers."
COPIED = ("02_", "03_", "04_", "05_", "06_", "10_")


def course_cells(prefixes: tuple[str, ...]) -> list[tuple[str, bool, str]]:
    """(notebook, promoted?, source) of every code cell of the notebooks named, in order."""
    found = []
    for path in executor.course_notebooks():
        if path.parent.name == "notebooks" and path.name.startswith(prefixes):
            for cell in nbformat.read(path, as_version=4).cells:
                if cell.cell_type == "code":
                    found.append((path.name, cell.source.startswith(MARKER), cell.source))
    return found


def defined_names(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def imports(source: str, leave_out: set[str]) -> list[str]:
    """The import statements of a cell, without the names in `leave_out`."""
    lines = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            kept = [a for a in node.names if (a.asname or a.name) not in leave_out]
            if kept:
                lines.append(ast.unparse(ast.ImportFrom(node.module, kept, 0)))
        elif isinstance(node, ast.Import):
            lines.append(ast.unparse(node))
    return lines


def learner_module(prefixes: tuple[str, ...] = COPIED) -> types.ModuleType:
    cells = course_cells(prefixes)
    built = set().union(*(defined_names(source) for _, promoted, source in cells if promoted))
    header = sorted(
        {line for _, promoted, source in cells if not promoted for line in imports(source, built)}
    )
    body = [source for _, promoted, source in cells if promoted]
    module = types.ModuleType("my_agent")
    sys.modules["my_agent"] = module  # dataclasses look their module up while it runs
    code = compile("\n".join(header) + "\n\n" + "\n\n".join(body), "my_agent.py", "exec")
    exec(code, vars(module))
    return module


# The notebooks whose promoted cells this rule covers so far. Known cases elsewhere, each an
# import of a class in a cell that uses it for annotations or a check of its own: 05 (Tool),
# 07 (Decision), 08 (AgentRun, Tool).
RULED = ("06_", "10_")


def classes_imported_by_promoted_cells() -> list[str]:
    """Classes a promoted cell of RULED imports although a promoted cell defines them."""
    cells = course_cells(("0", "1"))
    classes = {
        node.name
        for _, promoted, source in cells
        if promoted
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }
    return [
        f"{notebook}: imports {alias.name} from {node.module}"
        for notebook, promoted, source in cells
        if promoted and notebook.startswith(RULED)
        for node in ast.parse(source).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name in classes
    ]


def test_no_promoted_cell_imports_a_class_the_learner_builds() -> None:
    assert classes_imported_by_promoted_cells() == []


def test_the_check_finds_a_class_imported_in_a_promoted_cell(monkeypatch) -> None:
    real = course_cells

    def with_the_old_budget(prefixes):
        cells = real(prefixes)
        return [*cells, ("10_count_the_cost.ipynb", True, MARKER + "x\nfrom a.b import Ending\n")]

    monkeypatch.setattr(__import__(__name__), "course_cells", with_the_old_budget)
    assert classes_imported_by_promoted_cells() == [
        "10_count_the_cost.ipynb: imports Ending from a.b"
    ]


@pytest.fixture(scope="module")
def mine() -> Iterator[types.ModuleType]:
    yield learner_module()
    del sys.modules["my_agent"]


@pytest.fixture
def client():
    client = CourseModelApp().client(_strict_response_validation=True, max_retries=0)
    yield client
    client.close()


@pytest.fixture
def review_tools(mine, tmp_path):
    repo = build_pr_repo(tmp_path / "invoicing")

    @mine.tool
    def get_diff(pr: int) -> str:
        """Return the unified diff of pull request number `pr`."""
        return repo.get_diff(pr)

    @mine.tool
    def read_file(path: str) -> str:
        """Return the text of one file, as the pull request leaves it."""
        return repo.read_file(path)

    return [get_diff, read_file]


def test_the_copy_is_the_learners_own_code(mine) -> None:
    assert mine.run_agent.__module__ == mine.Ending.__module__ == "my_agent"
    assert mine.OverBudget.__mro__[1] is mine.Ending
    assert mine.CutOff.__mro__[1] is mine.Ending


def test_the_learners_tools_run_in_the_learners_agent(mine, client, review_tools) -> None:
    run = mine.run_agent(
        client,
        messages=[{"role": "user", "content": "Review PR #482."}],
        tools=review_tools,
        model=MODEL,
    )
    assert run.ending == "end_turn", run.log
    assert [line for line in run.log if line.startswith("ran ")] == [
        "ran get_diff",
        "ran read_file",
    ]


def test_the_learners_budget_ends_the_learners_run(mine, client, review_tools) -> None:
    budget = mine.Budget(limit=1)
    run = mine.run_agent(
        client,
        messages=[{"role": "user", "content": "Review PR #482."}],
        tools=review_tools,
        wrap_sample=budget,
    )
    assert run.ending == "budget_limit", run.log
    assert budget.calls == 1


def test_the_learners_controller_ends_a_cut_off_run(mine, client, review_tools) -> None:
    run = mine.run_agent(
        client,
        messages=[{"role": "user", "content": "Review PR #482."}],
        tools=review_tools,
        max_tokens=34,
        max_tokens_ceiling=34,
    )
    assert run.ending == "max_tokens" and isinstance(run.error, mine.CutOff)


def test_an_object_that_is_not_a_tool_gets_a_clear_error(mine, client) -> None:
    with pytest.raises(TypeError, match=r"neither a tool .* nor a definition dict"):
        mine.run_agent(client, messages=[{"role": "user", "content": "Hi"}], tools=[print])
