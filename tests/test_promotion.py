"""What the learner builds is written once, in the notebooks, and kept apart from course machinery.

A notebook cell whose first line is exactly `# Saved in course_helpers.lessons.<module>` is part
of that module. `make promote` (`course_tools.promote`) writes every module of
`course_helpers/lessons/` from those cells, comments included, below a preamble that holds only
the module's docstring and imports. The tests here hold that in place:

1. every learner module is byte for byte what `make promote` writes (else: run it);
2. a preamble holds no code, so every line a learner module runs is shown in a notebook;
3. every module in `lessons/` is written from a notebook, and no cell is saved anywhere else;
4. the import graph keeps the two kinds apart: what you build never imports the course's front
   (exercise checks, widgets, measurement, display, the offline model, ready-made approvers),
   and machinery reaches into `lessons/` only where this file lists it, with the reason;
5. copies of learner code elsewhere (exercise 04's solution loop, `agent_turns`) are tested
   against the saved code, and hints that quote the loop read it from the saved module.

Modules are read as source, never imported (except the loop, for rule 5), and no notebook is run.
"""

from __future__ import annotations

import ast
import difflib
import inspect
from pathlib import Path

import nbformat
import pytest

from course_tools import promote
from course_tools.execute_notebooks import course_notebooks

ROOT = promote.ROOT
PACKAGE = promote.PACKAGE
LESSONS = promote.LESSONS
CELLS = promote.all_saved_cells()
LEARNER_MODULES = sorted({cell.module for cell in CELLS})


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


# -- 1 and 2: the modules are what the notebooks say ----------------------------------------------


def test_every_learner_module_is_what_make_promote_writes() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in promote.expected_modules(CELLS).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, (
        f"out of date with the notebooks' saved cells: {', '.join(stale)}. "
        "Edit the notebook cell (never the module below its generated line), then run "
        "`make promote`."
    )


@pytest.mark.parametrize("module", LEARNER_MODULES)
def test_a_preamble_holds_only_a_docstring_and_imports(module: str) -> None:
    path = promote.module_path(module)
    head = promote.preamble(path, module)
    extra = [
        ast.unparse(node).splitlines()[0]
        for node in ast.parse(head).body
        if not promote.in_preamble(node)
    ]
    assert not extra, (
        f"{module}: the part above the generated line runs code no notebook shows: {extra}. "
        "Move it into a '# Saved in' cell of the notebook that teaches it, then `make promote`."
    )


def test_the_saved_cells_are_formatted_as_ruff_formats_code() -> None:
    """`ruff format` leaves lessons/ alone (pyproject.toml): a module it would change is fixed in
    the notebook cells it comes from, never in the module, which `make promote` rewrites."""
    import subprocess
    import sys

    ruff = Path(sys.executable).parent / "ruff"
    unformatted = []
    for module in LEARNER_MODULES:
        path = promote.module_path(module)
        result = subprocess.run(
            [str(ruff), "format", "--diff", "--no-cache", "-"],
            input=path.read_text(encoding="utf-8"),
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            notebooks = sorted({c.notebook for c in CELLS if c.module == module})
            unformatted.append(f"{module} (cells of {', '.join(notebooks)}):\n{result.stdout}")
    assert not unformatted, (
        "format these cells in their notebook as the diff shows (the module is written from "
        "them), then `make notebooks`:\n" + "\n".join(unformatted)
    )


# -- 3: lessons/ is exactly what the notebooks save -----------------------------------------------


def test_every_module_in_lessons_is_written_from_a_notebook() -> None:
    in_folder = {
        module_name(path): path
        for path in sorted(LESSONS.rglob("*.py"))
        if path.name != "__init__.py"
    }
    unsaved = sorted(set(in_folder) - set(LEARNER_MODULES))
    assert not unsaved, (
        f"modules in course_helpers/lessons/ that no notebook builds: {', '.join(unsaved)}. "
        "lessons/ holds only what the learner builds: show it in a '# Saved in' cell, or move "
        "the module to the course machinery (outside lessons/)."
    )


def test_package_files_in_lessons_only_import() -> None:
    for path in sorted(LESSONS.rglob("__init__.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        code = [ast.unparse(n).splitlines()[0] for n in body if not promote.in_preamble(n)]
        assert not code, f"{path.relative_to(ROOT)} runs code no notebook shows: {code}"


def test_no_cell_is_saved_outside_lessons(notebook_path: Path) -> None:
    nb = nbformat.read(notebook_path, as_version=4)
    outside = [
        f"cell {index}: {cell.source.splitlines()[0]}"
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        and cell.source.startswith("# Saved in")
        and not promote.marked_module(cell.source)
    ]
    assert not outside, (
        f"{notebook_path.name}: cells saved outside course_helpers.lessons (or with a marker "
        f"`make promote` cannot read): {outside}"
    )


def test_only_lesson_notebooks_save_cells() -> None:
    lessons = set(promote.lesson_notebooks())
    saving = [
        path.relative_to(ROOT)
        for path in course_notebooks()
        if path not in lessons
        and any(
            c.cell_type == "code" and c.source.startswith("# Saved in")
            for c in nbformat.read(path, as_version=4).cells
        )
    ]
    assert not saving, f"only lessons save code into course_helpers.lessons: {saving}"


# -- 4: the import graph ---------------------------------------------------------------------------

# What the learner's modules may import from the course: the client (the model id), the parts
# that word results and check pairing (support), process and file plumbing, and the fixtures
# (the shop, the support desk) their tools work on.
LESSONS_MAY_IMPORT = {"client", "support", "plumbing", "fixtures", "lessons"}

# Machinery below the lessons that still reaches into lessons/, and why. Everything else that
# imports learner code is the course's front (exercise checks, widgets, measurement, approvers),
# which exists to drive what you built.
ALLOWED_REACH_INTO_LESSONS = {
    (
        "course_helpers.plumbing.file_sandbox",
        "course_helpers.lessons.path_guard",
    ): "the file sandbox runs the two path checks you build in notebook 07",
    (
        "course_helpers.support.expect",
        "course_helpers.lessons.pairing",
    ): "reads response blocks the way notebook 03's pairing code does",
    (
        "course_helpers.fixtures.delivery_audit",
        "course_helpers.lessons.tools",
    ): "the fixture's tools are described with notebook 02's @tool",
    (
        "course_helpers.fixtures.support_desk",
        "course_helpers.lessons.tools",
    ): "the fixture's tools are described with notebook 02's @tool",
    (
        "course_helpers.fixtures.long_task",
        "course_helpers.lessons.tools",
    ): "the fixture's tools are described with notebook 02's @tool",
    (
        "course_helpers.offline.scenarios.guard",
        "course_helpers.lessons.dispatch",
    ): "the course model recognises the dispatcher's wording of a declined call",
}
FRONT = {"exercise_checks", "widgets", "measurement", "approvers"}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("course_helpers")
        ):
            for alias in node.names:  # `from course_helpers.lessons import pairing` names a module
                child = f"{node.module}.{alias.name}"
                is_module = promote.module_path(child).is_file() or (
                    promote.module_path(child).with_suffix("").is_dir()
                )
                found.add(child if is_module else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("course_helpers")}
    return found


def area(module: str) -> str:
    """`course_helpers.plumbing.commands` → plumbing; `course_helpers.client` → client."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_learner_modules_import_only_what_lies_below_them() -> None:
    wrong = [
        f"{module_name(path)} imports {target}"
        for path in sorted(LESSONS.rglob("*.py"))
        for target in sorted(imports_of(path))
        if area(target) not in LESSONS_MAY_IMPORT
    ]
    assert not wrong, (
        "what the learner builds may use the client, support, plumbing and fixtures, never the "
        f"course's checks, widgets, display, measurement or offline model: {wrong}"
    )


def test_machinery_reaches_into_lessons_only_where_listed() -> None:
    reaching = {
        (module_name(path), target)
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(LESSONS) and area(module_name(path)) not in FRONT
        for target in imports_of(path)
        if area(target) == "lessons"
    }
    unlisted = sorted(reaching - set(ALLOWED_REACH_INTO_LESSONS))
    assert not unlisted, (
        f"course machinery imports learner code without a listed reason: {unlisted}. Add the "
        "pair and its reason to ALLOWED_REACH_INTO_LESSONS (and README's maintainer notes), or "
        "move the module to the course's front."
    )
    gone = sorted(set(ALLOWED_REACH_INTO_LESSONS) - reaching)
    assert not gone, f"listed but no longer imported, remove from the list: {gone}"


# -- 5: copies and quotes of learner code ----------------------------------------------------------


def function_body(source: str, name: str) -> list[ast.stmt]:
    """The statements of `name` in `source`, without its docstring."""
    node = next(
        n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == name
    )
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def test_exercise_04s_solution_loop_is_notebook_04s_loop() -> None:
    from course_tools.make_exercises import BEGIN, END

    solution = ROOT / "notebooks/exercises/solutions/04_build_the_loop_exercises.ipynb"
    nb = nbformat.read(solution, as_version=4)
    cell = next(
        c.source for c in nb.cells if c.cell_type == "code" and "def agent_loop" in c.source
    )
    kept = "\n".join(
        line for line in cell.splitlines() if not (BEGIN.match(line) or END.match(line))
    )
    saved = promote.module_path("course_helpers.lessons.loop").read_text(encoding="utf-8")
    ours = [ast.unparse(s) for s in function_body(kept, "agent_loop")]
    theirs = [ast.unparse(s) for s in function_body(saved, "agent_loop")]
    diff = "\n".join(
        difflib.unified_diff(
            "\n".join(theirs).splitlines(),
            "\n".join(ours).splitlines(),
            fromfile="notebook 04's agent_loop (course_helpers.lessons.loop)",
            tofile=f"{solution.relative_to(ROOT)}: agent_loop",
            lineterm="",
        )
    )
    assert ours == theirs, (
        f"{solution.relative_to(ROOT)} writes a loop that differs from notebook 04's: change "
        "both together (the solution is the lesson's loop, written by the learner), then "
        f"`make exercises`:\n{diff}"
    )


def test_hints_quote_the_saved_loop() -> None:
    from course_helpers.exercise_checks import build_loop
    from course_helpers.lessons.loop import agent_loop

    source = inspect.getsource(agent_loop)
    for line in (build_loop.SAMPLE_LINE, build_loop.RUN_CALLS_LINE):
        assert line in source


# -- The generator itself, on sources in memory: proof that the rules above can fail. ------------


CELL = """# Saved in course_helpers.lessons.loop
# A comment stays.
import os
from typing import Any


def run(x: Any) -> str:
    return os.fspath(x)  # so does this one
"""


def test_cell_body_drops_the_marker_and_leading_imports_but_keeps_comments() -> None:
    body = promote.cell_body(CELL)
    assert body.startswith("# A comment stays.\n")
    assert "import" not in body
    assert "# so does this one" in body


def test_imports_after_code_are_kept() -> None:
    cell = "# Saved in course_helpers.lessons.loop\nx = 1\nimport os\n"
    assert promote.cell_body(cell) == "x = 1\nimport os\n"


def test_render_names_each_cell_and_changes_with_a_comment() -> None:
    cell = promote.SavedCell("notebooks/04_x.ipynb", 3, "course_helpers.lessons.loop", CELL)
    text = promote.render("course_helpers.lessons.loop", [cell], '"""Doc."""\n')
    assert "# From notebooks/04_x.ipynb\n# A comment stays." in text
    assert promote.GENERATED.format(module="course_helpers.lessons.loop") in text
    edited = promote.SavedCell(cell.notebook, 3, cell.module, CELL.replace("stays", "moved"))
    assert promote.render(cell.module, [edited], '"""Doc."""\n') != text


def test_the_marker_must_be_the_exact_first_line() -> None:
    assert promote.marked_module("# Saved in course_helpers.lessons.loop\nx = 1") == (
        "course_helpers.lessons.loop"
    )
    assert promote.marked_module("x = 1\n# Saved in course_helpers.lessons.loop") is None
    assert promote.marked_module("# saved in course_helpers.lessons.loop") is None
    assert promote.marked_module("# Saved in course_helpers.loop") is None


def test_a_preamble_with_code_is_caught() -> None:
    head = '"""Doc."""\nimport os\nLIMIT = 3\n'
    assert [promote.in_preamble(n) for n in ast.parse(head).body] == [True, True, False]


def test_a_module_without_its_generated_line_is_refused(tmp_path: Path) -> None:
    """A hand-written module in lessons/ is not silently cut up: the maintainer is told what to do."""
    path = promote.ROOT / "src" / "course_helpers" / "lessons" / "loop.py"
    stray = tmp_path / "loop.py"
    stray.write_text('"""Doc."""\n\nimport os\n\nLIMIT = 3\n', encoding="utf-8")
    with pytest.raises(ValueError, match="has no generated part"):
        promote.preamble(stray, "course_helpers.lessons.loop")
    assert promote.preamble(path, "course_helpers.lessons.loop").startswith('"""The agent loop')
