"""The exercise notebooks: generated from the solutions, and every check proven both ways.

- The blank notebooks under notebooks/exercises/ are exactly what `course_tools.make_exercises`
  makes from the solutions (a stale copy fails here: run `make exercises`).
- Every check cell passes on the solution (read from the stored outputs, which nbval keeps
  honest) and fails on the blank exercise with `CheckFailed` and a hint, shown in Jupyter as
  those two lines only (no traceback). A check that passes on the blank is a bug in the check.
  Every other cell of a blank notebook runs, or stops with a one-line `NotWrittenYet`.
- Exercise 03's typical mistakes each get their own message.

The blank notebooks are run here once each, offline, by `tests/notebook_runner.py`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from notebook_runner import NotebookRunner, problem

from course_tools import execute_notebooks as executor
from course_tools import make_exercises as generator

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "notebooks" / "exercises"
SOLUTIONS = EXERCISES / "solutions"
CHECK_CELL = re.compile(r"^check_\w+\(.*\)$")
# Notebook 01 needs one exercise; every later one at least two.
MIN_CHECKS = {"01": 1}


SOLUTION_PATHS = sorted(SOLUTIONS.glob("*.ipynb"))
NAMES = [p.name for p in SOLUTION_PATHS]


def check_cells(nb: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    """(index, cell) of every check cell: a code cell that is one `check_xxx(...)` call."""
    return [
        (i, c)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and CHECK_CELL.match(c.source.strip())
    ]


def stdout_of(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def errors_of(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [o for o in cell.get("outputs", []) if o.output_type == "error"]


def with_outputs(path: Path, outcome: dict) -> nbformat.NotebookNode:
    """The blank notebook at `path` with the outputs of a run (see `notebook_runner`)."""
    if outcome.get("outputs") is None:
        raise RuntimeError(f"{path.name} could not be run: {problem(outcome)}")
    nb = nbformat.read(path, as_version=4)
    for ran in outcome["outputs"]:
        outputs = [
            nbformat.v4.new_output("stream", name=name, text=ran[name])
            for name in ("stdout", "stderr")
            if ran[name]
        ]
        outputs += [nbformat.v4.new_output("error", **error) for error in ran["errors"]]
        nb.cells[ran["cell"]].outputs = outputs
    return nb


@pytest.fixture(scope="module")
def executed_blanks(request, tmp_path_factory) -> dict[str, nbformat.NotebookNode]:
    """Every selected blank exercise notebook, run once with errors allowed (every cell runs).

    They run in `tests/notebook_runner.py`'s runner, offline: each one in a fresh fork of one
    process in a copy of notebooks/exercises/, in an IPython shell that shows errors exactly as
    the kernel does (`_render_traceback_` included), instead of a Jupyter kernel each.
    """
    selected = {
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_checks_fail_on_the_blank"
        and hasattr(item, "callspec")
    }
    paths = [EXERCISES / name for name in NAMES if name in selected or not selected]
    base = tmp_path_factory.mktemp("blanks")
    runner = NotebookRunner(executor.offline_environment(), base)
    try:
        return {p.name: with_outputs(p, runner.run(p, keep_going=True)) for p in paths}
    finally:
        runner.close()


def test_there_are_solutions() -> None:
    assert SOLUTION_PATHS, "no solution notebooks under notebooks/exercises/solutions/"


def test_generated_exercises_are_up_to_date(tmp_path: Path) -> None:
    made = generator.generate(tmp_path)
    stale = [
        p.name
        for p, text in made.items()
        if not (EXERCISES / p.name).is_file() or (EXERCISES / p.name).read_text("utf-8") != text
    ]
    assert not stale, f"exercise notebooks are stale, run `make exercises`: {stale}"
    orphans = sorted({p.name for p in EXERCISES.glob("*.ipynb")} - {p.name for p in made})
    assert not orphans, f"exercise notebooks without a solution: {orphans}"


def test_generator_markers() -> None:
    source = (
        "def f():\n    # BEGIN SOLUTION\n    # BLANK: return 0\n    return 42\n    # END SOLUTION"
    )
    assert generator.blank_source(source) == "def f():\n    # YOUR CODE HERE\n    return 0"
    assert generator.blank_source("# BEGIN SOLUTION\nx = 1\n# END SOLUTION") == (
        "# YOUR CODE HERE\npass"
    )
    with pytest.raises(generator.MarkerError):
        generator.blank_source("# BEGIN SOLUTION\nx = 1")


@pytest.mark.parametrize("name", NAMES)
def test_every_solution_block_is_blanked(name: str) -> None:
    """The blank keeps no solution code, and has as many check cells as the solution."""
    solution = nbformat.read(SOLUTIONS / name, as_version=4)
    blank = nbformat.read(EXERCISES / name, as_version=4)
    text = "\n".join(c.source for c in blank.cells if c.cell_type == "code")
    assert "BEGIN SOLUTION" not in text and "# BLANK:" not in text
    assert "# YOUR CODE HERE" in text
    assert len(check_cells(blank)) == len(check_cells(solution))
    assert all(c.execution_count is None and not c.outputs for _, c in check_cells(blank))


@pytest.mark.parametrize("name", NAMES)
def test_checks_pass_on_the_solution(name: str) -> None:
    nb = nbformat.read(SOLUTIONS / name, as_version=4)
    checks = check_cells(nb)
    assert len(checks) >= MIN_CHECKS.get(name[:2], 2), f"{name}: too few check cells"
    for index, cell in checks:
        assert not errors_of(cell), f"{name} cell {index}: the check failed on the solution"
        assert re.search(r"✓ .+: passed", stdout_of(cell)), f"{name} cell {index}: no '✓ passed'"


@pytest.mark.parametrize("name", NAMES)
def test_checks_fail_on_the_blank(name: str, executed_blanks) -> None:
    nb = executed_blanks[name]
    checks = {i for i, _ in check_cells(nb)}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = errors_of(cell)
        if index not in checks:
            # A demo cell may only stop because the exercise it calls is not written yet,
            # and then it says so in one line.
            shown = [f"{e.ename}: {e.evalue}" for e in errors]
            assert all(e.ename == "NotWrittenYet" for e in errors), (
                f"{name} cell {index}: a non-check cell fails on the blank: {shown}"
            )
            for error in errors:
                assert "is not written yet" in error.evalue
                assert len(error.traceback) == 1, f"{name} cell {index}: {error.traceback}"
            continue
        assert "passed" not in stdout_of(cell), f"{name} cell {index}: a check passes on the blank"
        assert errors, f"{name} cell {index}: the check raised nothing on the blank"
        error = errors[0]
        assert error.ename == "CheckFailed", f"{name} cell {index}: {error.ename}: {error.evalue}"
        lines = error.evalue.strip().splitlines()
        assert len(lines) == 2 and lines[1].startswith("Hint: "), (
            f"{name} cell {index}: a failure must be 'what is wrong' + 'Hint: ...': {lines}"
        )
        # What the learner sees is the message and the hint, not a traceback into the checks.
        shown = "\n".join(error.traceback)
        assert len(error.traceback) == 2 and "common.py" not in shown, shown
        assert lines[0] in shown and lines[1] in shown
        # A blank's first check says so: the learner has not written anything wrong yet.
        if index == min(checks):
            assert "not written yet" in lines[0], f"{name} cell {index}: {lines[0]}"
    blank_code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if "raise NotWrittenYet" in blank_code:
        said = [e.evalue for i in checks for e in errors_of(nb.cells[i])]
        assert any("is not written yet" in text for text in said), (
            f"{name}: no check says that the exercise is not written yet: {said}"
        )


# -- exercise 03: typical mistakes, each with its own message -------------------------------------


def _weather(city: str) -> str:
    known = {"Paris": "18°C, light rain", "Tokyo": "24°C, clear sky"}
    if city not in known:
        raise LookupError(f"No weather data for {city!r}")
    return known[city]


def _result(call, *, use_id=True, mark_errors=True) -> dict:
    try:
        content, failed = _weather(call.input["city"]), False
    except LookupError as error:
        content, failed = f"Error: {error}", True
    block = {
        "type": "tool_result",
        "tool_use_id": call.id if use_id else "toolu_typo",
        "content": content,
    }
    if failed and mark_errors:
        block["is_error"] = True
    return block


def _calls(response) -> list:
    return [b for b in response.content if b.type == "tool_use"]


def correct(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    messages.append({"role": "user", "content": [_result(c) for c in _calls(response)]})


def text_only(messages, response):
    kept = [b for b in response.content if b.type == "text"]
    messages.append({"role": "assistant", "content": kept})
    messages.append({"role": "user", "content": [_result(c) for c in _calls(response)]})


def split_messages(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    for call in _calls(response):
        messages.append({"role": "user", "content": [_result(call)]})


def text_first(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    note = {"type": "text", "text": "Here are the results."}
    messages.append({"role": "user", "content": [note, *(_result(c) for c in _calls(response))]})


def wrong_id(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    messages.append(
        {"role": "user", "content": [_result(c, use_id=False) for c in _calls(response)]}
    )


def no_is_error(messages, response):
    messages.append({"role": "assistant", "content": response.content})
    messages.append(
        {"role": "user", "content": [_result(c, mark_errors=False) for c in _calls(response)]}
    )


MISTAKES = {
    "text only": (text_only, "only its text was kept"),
    "split messages": (split_messages, "ONE message"),
    "text first": (text_first, "must come first"),
    "wrong id": (wrong_id, "matches no tool_use"),
    "no is_error": (no_is_error, "is_error is not set"),
}


def test_exercise_03_correct_version_passes(capsys) -> None:
    from course_helpers.exercise_checks import check_tool_turn

    check_tool_turn(correct)
    assert "passed" in capsys.readouterr().out


def test_exercise_03_typical_mistakes_get_different_messages() -> None:
    from course_helpers.exercise_checks import CheckFailed, check_tool_turn

    messages = {}
    for label, (mistake, expected) in MISTAKES.items():
        with pytest.raises(CheckFailed) as failure:
            check_tool_turn(mistake)
        text = str(failure.value)
        assert expected in text, f"{label}: unexpected message {text!r}"
        assert "\nHint: " in text, f"{label}: no hint in {text!r}"
        messages[label] = text
    assert len(set(messages.values())) == len(messages), json.dumps(messages, indent=1)


def test_checks_survive_a_learner_function_that_raises() -> None:
    from course_helpers.exercise_checks import CheckFailed, check_tool_turn

    def broken(messages, response):
        raise KeyError("city")

    with pytest.raises(CheckFailed, match="raised KeyError"):
        check_tool_turn(broken)
    with pytest.raises(CheckFailed, match="not a function"):
        check_tool_turn(SimpleNamespace())
