"""Stored notebooks are clean: executed in order, no errors, no machine paths, the skeleton of §5.

Stored outputs are also quiet in a git diff: nothing in them changes from run to run (a pytest
run's duration), and HTML is stored a line per element, not as one line of several KB.

Every test here reads the stored files only (nothing is executed); `notebook_path` is
parametrised by tests/conftest.py over every course notebook (solutions included, blank
exercises excluded: those are stored unexecuted on purpose).
"""

from __future__ import annotations

import json
import re
import sys
from itertools import pairwise
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME_PATTERN = re.compile(r"^\d{2}_[a-z]+(?:_[a-z0-9]+)+\.ipynb$")
# Binary payloads are base64: long enough to contain "/tmp/" by chance, and never a path.
BINARY_MIME_TYPES = ("image/png", "image/jpeg", "image/gif")
OPENING_PHRASES = ("build", "learn", "need")
# pytest's summary ends with the run's duration ("4 passed in 0.01s"), new on every run.
PYTEST_TIMING = re.compile(
    r"\b(?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|no tests ran)"
    r" in \d+(?:\.\d+)?s\b"
)
# A transcript (course_helpers.display.html) writes one element per line. Its longest markup
# line is an opening tag with its inline style (the JSON block's <pre>: 332 characters); a line
# of shown text is as long as the message's own line (329 at most in the stored outputs). 400
# leaves room for both, and still catches HTML written on one line, several KB long and
# rewritten whole in a diff whenever anything in it changes.
MAX_HTML_LINE = 400


def machine_paths() -> list[str]:
    """Fragments that reveal the machine a notebook ran on, most specific first."""
    # A home of "/" (some containers) would match everything: keep real folders only.
    specific = {p for p in (str(ROOT), sys.prefix, str(Path.home())) if len(Path(p).parts) > 1}
    generic = ["/work/", "/tmp/", "/root/", "/home/"]
    return sorted(specific, key=len, reverse=True) + generic


def read(path: Path) -> nbformat.NotebookNode:
    """Read a stored notebook as nbformat 4."""
    return nbformat.read(path, as_version=4)


def code_cells(nb: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    """(index, cell) of every non-empty code cell."""
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]


def markdown_text(cells: list[nbformat.NotebookNode]) -> str:
    """The markdown cells' sources, joined."""
    return "\n\n".join(c.source for c in cells if c.cell_type == "markdown")


def output_text(output: nbformat.NotebookNode) -> str:
    """Everything an output shows, as text, without binary images."""
    shown = dict(output)
    shown["data"] = {k: v for k, v in output.get("data", {}).items() if k not in BINARY_MIME_TYPES}
    return json.dumps(shown, ensure_ascii=False)


def test_notebooks_exist(course_notebooks: list[Path]) -> None:
    assert course_notebooks, "no course notebooks found under notebooks/"


def test_file_names_follow_the_pattern(course_notebooks: list[Path]) -> None:
    bad = [p.name for p in course_notebooks if not NAME_PATTERN.match(p.name)]
    assert not bad, f"notebook names must look like NN_verb_topic.ipynb: {bad}"


def execution_problems(nb: nbformat.NotebookNode) -> list[str]:
    """nbval does not compare a cell without execution_count; counts go 1, 2, 3... in order."""
    cells = code_cells(nb)
    unexecuted = [i for i, c in cells if c.execution_count is None]
    if unexecuted:
        return [f"code cells never executed (re-run `make notebooks`): {unexecuted}"]
    counts = [c.execution_count for _, c in cells]
    in_order = counts[:1] == [1] and all(a < b for a, b in pairwise(counts))
    return [] if not counts or in_order else [f"execution counts must rise from 1: {counts}"]


def error_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Failures are shown by catching and printing them, never as a stored traceback."""
    return [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in code_cells(nb)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]


def first_machine_path(text: str) -> str | None:
    """The most specific machine path fragment found in `text`, if any."""
    return next((fragment for fragment in machine_paths() if fragment in text), None)


def machine_path_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Stored outputs must read the same on every machine: no absolute local paths."""
    return [
        f"cell {i}: {fragment!r}"
        for i, c in code_cells(nb)
        for o in c.get("outputs", [])
        if (fragment := first_machine_path(output_text(o)))
    ]


def timing_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """A duration changes on every run: stored, it makes a diff of every re-execution."""
    return [
        f"cell {i}: {match.group(0)!r} (show the counts without the time)"
        for i, c in code_cells(nb)
        for o in c.get("outputs", [])
        if (match := PYTEST_TIMING.search(output_text(o)))
    ]


def long_html_lines(nb: nbformat.NotebookNode) -> list[str]:
    """HTML outputs one element per line, so that a diff of them can be read."""
    problems = []
    for i, c in code_cells(nb):
        for o in c.get("outputs", []):
            page = o.get("data", {}).get("text/html", "")
            page = "".join(page) if isinstance(page, list) else page
            longest = max((len(line) for line in page.splitlines()), default=0)
            if longest > MAX_HTML_LINE:
                problems.append(f"cell {i}: an HTML line of {longest} characters")
    return problems


# What the course model answers to a request none of its scenarios recognises (see
# course_helpers/offline/scenarios/__init__.py): stored in a lesson, it shows the stand-in, not
# the lesson.
FALLBACK_REPLY = "I only play the course's scenarios"


def fallback_replies(nb: nbformat.NotebookNode) -> list[str]:
    return [
        f"cell {i}: the course model's fallback reply: no scenario recognises this request (add "
        "one in src/course_helpers/offline/scenarios/, README: For maintainers)"
        for i, c in code_cells(nb)
        if any(FALLBACK_REPLY in output_text(o) for o in c.get("outputs", []))
    ]


def widget_state(nb: nbformat.NotebookNode) -> list[str]:
    return ["metadata.widgets is stored"] if "widgets" in nb.metadata else []


def skeleton_problems(nb: nbformat.NotebookNode) -> list[str]:
    """H1 first, the "What you'll build/learn/need" opening, then Summary and Exercises."""
    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown":
        return ["the first cell must be markdown"]
    problems = []
    if not re.match(r"#\s+\S", cells[0].source.lstrip()):
        problems.append("the first cell must open with an H1")
    first_code = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
    opening = markdown_text(cells[:first_code])
    missing = [
        word
        for word in OPENING_PHRASES
        if not re.search(rf"what you(?:'|’| wi)ll {word}", opening, re.IGNORECASE)
    ]
    if missing:
        problems.append(f"the opening (before the first code cell) lacks What you'll {missing}")
    text = markdown_text(cells)
    for heading in ("Summary", "Exercises"):
        if not re.search(rf"^##\s+{heading}\b", text, re.MULTILINE):
            problems.append(f"no '## {heading}' heading")
    return problems


NUMBERED_STEP = re.compile(r"^##\s+\d")


def heading_problems(nb: nbformat.NotebookNode) -> list[str]:
    """A `## ` heading starts its own markdown cell, so a section can gain a cell without
    re-cutting (and re-translating) the cell before it.

    Only the title cell (the first) may hold more `## ` sections, unnumbered ones (the opening's
    "What you'll build / learn / need"), never a numbered step; every other heading, a closing
    "Try it", "Summary" or "Exercises" included, opens its own cell. Lines inside a fenced code
    block are not headings.
    """
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        lines, fenced = [], False
        for line in cell.source.strip().split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            lines.append("" if fenced else line)
        opens_with_heading = bool(lines) and lines[0].startswith("#")
        for line in lines[1:]:
            if line.startswith("## ") and (
                i > 0 or NUMBERED_STEP.match(line) or not opens_with_heading
            ):
                problems.append(
                    f"cell {i} ({cell.get('id')}): {line.strip()!r} is inside the cell; start a "
                    "new markdown cell at this heading (in both editions)"
                )
                opens_with_heading = True  # the new cell would open with this heading
    return problems


CHECKS = {
    "executed_in_order": execution_problems,
    "no_error_outputs": error_outputs,
    "no_machine_paths": machine_path_outputs,
    "no_run_timings": timing_outputs,
    "short_html_lines": long_html_lines,
    "no_fallback_replies": fallback_replies,
    "no_widget_state": widget_state,
    "skeleton": skeleton_problems,
    "headings_start_cells": heading_problems,
}


@pytest.mark.parametrize("check", list(CHECKS))
def test_stored_notebook(notebook_path: Path, check: str) -> None:
    problems = CHECKS[check](read(notebook_path))
    assert not problems, f"{notebook_path.name}:\n" + "\n".join(problems)


def good_notebook() -> nbformat.NotebookNode:
    """A tiny notebook that passes every check; the test below breaks it one way at a time."""
    v4 = nbformat.v4
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_markdown_cell(
            "# Try a thing\n\n## What you'll build\n\n## What you'll learn\n\n## What you'll need"
        ),
        v4.new_code_cell(
            "print(1)", execution_count=1, outputs=[v4.new_output("stream", text="1")]
        ),
        v4.new_code_cell("print(2)", execution_count=2),
        v4.new_markdown_cell("## Summary"),
        v4.new_markdown_cell("## Exercises"),
    ]
    return nb


def _unexecuted(nb):
    nb.cells[2].execution_count = None


def _out_of_order(nb):
    nb.cells[1].execution_count, nb.cells[2].execution_count = 2, 1


def _traceback(nb):
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="KeyError", evalue="'x'")]


def _machine_path(nb):
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text=f"saved to {ROOT}/out.txt")]


def _pytest_timing(nb):
    nb.cells[1].outputs = [
        nbformat.v4.new_output("stream", text="Exit code: 0 · 4 passed in 0.01s")
    ]


def _one_line_html(nb):
    page = "<div>" + '<span style="color:#1f2328;">x</span>' * 20 + "</div>"
    nb.cells[1].outputs = [nbformat.v4.new_output("display_data", data={"text/html": page})]


def _fallback_reply(nb):
    text = "I am the offline course model... I only play the course's scenarios, so I cannot"
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text=text)]


def _widget_metadata(nb):
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}


def _no_summary(nb):
    nb.cells[3].source = "## Notes"


def _no_opening(nb):
    nb.cells[0].source = "# Try a thing"


def _step_inside_a_cell(nb):
    nb.cells[3].source = "The end of step 1.\n\n## 2. The next step\n\n## Summary\n\n## Exercises"


def _numbered_step_after_another(nb):
    nb.cells[3].source = "## 1. A step\n\n## 2. The next step\n\n## Summary\n\n## Exercises"


def _summary_inside_a_cell(nb):
    nb.cells[3].source = "Some prose.\n\n## Summary\n\n## Exercises"


def _closing_sections_in_one_cell(nb):
    nb.cells[3].source = "## Summary\n\n## Exercises"
    del nb.cells[4]


@pytest.mark.parametrize(
    ("breakage", "check"),
    [
        (_unexecuted, "executed_in_order"),
        (_out_of_order, "executed_in_order"),
        (_traceback, "no_error_outputs"),
        (_machine_path, "no_machine_paths"),
        (_pytest_timing, "no_run_timings"),
        (_one_line_html, "short_html_lines"),
        (_fallback_reply, "no_fallback_replies"),
        (_widget_metadata, "no_widget_state"),
        (_no_summary, "skeleton"),
        (_no_opening, "skeleton"),
        (_step_inside_a_cell, "headings_start_cells"),
        (_numbered_step_after_another, "headings_start_cells"),
        (_summary_inside_a_cell, "headings_start_cells"),
        (_closing_sections_in_one_cell, "headings_start_cells"),
    ],
)
def test_each_check_catches_what_it_is_for(breakage, check: str) -> None:
    nb = good_notebook()
    assert all(not run(nb) for run in CHECKS.values()), "the good notebook must pass"
    breakage(nb)
    assert CHECKS[check](nb), f"{check} missed {breakage.__name__}"


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("04_build_the_loop.ipynb", True),
        ("00_start_here.ipynb", True),
        ("4_build_loop.ipynb", False),
        ("04_Build_Loop.ipynb", False),
        ("04_loop.ipynb", False),
    ],
)
def test_name_pattern_itself(name: str, ok: bool) -> None:
    assert bool(NAME_PATTERN.match(name)) is ok


LINK = re.compile(r"\]\((?!https?://|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)")


def relative_links(nb: nbformat.NotebookNode) -> list[str]:
    """Targets of the relative markdown links in a notebook (web links and anchors left out)."""
    return [
        m.group(1) for c in nb.cells if c.cell_type == "markdown" for m in LINK.finditer(c.source)
    ]


def every_notebook() -> list[Path]:
    """Lessons, solutions and blank exercises: a learner follows links in all of them."""
    return sorted(
        p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


@pytest.mark.parametrize("path", every_notebook(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(path: Path) -> None:
    dead = [t for t in relative_links(read(path)) if not (path.parent / t).exists()]
    assert not dead, f"{path.relative_to(ROOT)} links to files that do not exist: {dead}"


def test_the_link_check_sees_a_dead_link(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("[next](../02_x.ipynb)")])
    assert relative_links(nb) == ["../02_x.ipynb"]
    assert not (tmp_path / "../02_x.ipynb").exists()


@pytest.mark.parametrize(
    ("text", "timed"),
    [
        ("4 passed in 0.01s", True),
        ("1 failed, 3 passed in 12.30s", True),
        ("==== 2 errors in 1s ====", True),
        ("Exit code: 0 · 4 passed", False),
        ("pytest now reports: 4 passed.", False),
    ],
)
def test_timing_pattern_itself(text: str, timed: bool) -> None:
    assert bool(PYTEST_TIMING.search(text)) is timed


def test_russian_headings_start_their_cells_too(notebook_path: Path) -> None:
    russian = ROOT / "notebooks" / "ru" / notebook_path.relative_to(ROOT / "notebooks")
    assert russian.is_file(), f"no Russian edition of {notebook_path.name}"
    problems = heading_problems(read(russian))
    assert not problems, f"ru/{notebook_path.name}:\n" + "\n".join(problems)


def test_a_heading_inside_a_code_fence_is_not_a_heading() -> None:
    nb = good_notebook()
    nb.cells[3].source = "Run this:\n\n```bash\n## 2. not a heading\n```\n\n## Summary"
    problems = heading_problems(nb)
    assert len(problems) == 1, problems
    assert "'## Summary' is inside the cell" in problems[0]
