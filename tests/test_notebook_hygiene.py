"""Stored notebooks are clean: executed in order, no errors, no machine paths, the skeleton of §5.

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


def test_every_code_cell_was_executed_in_order(notebook_path: Path) -> None:
    """nbval does not compare a cell without execution_count; counts go 1, 2, 3... in order."""
    cells = code_cells(read(notebook_path))
    unexecuted = [i for i, c in cells if c.execution_count is None]
    assert not unexecuted, f"code cells never executed (re-run `make notebooks`): {unexecuted}"
    counts = [c.execution_count for _, c in cells]
    in_order = counts[:1] == [1] and all(a < b for a, b in pairwise(counts))
    assert not counts or in_order, f"execution counts must rise strictly from 1: {counts}"


def test_no_error_outputs(notebook_path: Path) -> None:
    """Failures are shown by catching and printing them, never as a stored traceback."""
    errors = [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in code_cells(read(notebook_path))
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, "error outputs stored:\n" + "\n".join(errors)


def first_machine_path(text: str) -> str | None:
    """The most specific machine path fragment found in `text`, if any."""
    return next((fragment for fragment in machine_paths() if fragment in text), None)


def test_no_machine_paths_in_outputs(notebook_path: Path) -> None:
    """Stored outputs must read the same on every machine: no absolute local paths."""
    found = [
        f"cell {i}: {fragment!r}"
        for i, c in code_cells(read(notebook_path))
        for o in c.get("outputs", [])
        if (fragment := first_machine_path(output_text(o)))
    ]
    assert not found, "outputs contain paths of this machine:\n" + "\n".join(found)


def test_no_widget_state(notebook_path: Path) -> None:
    assert "widgets" not in read(notebook_path).metadata, "metadata.widgets is stored"


def test_skeleton(notebook_path: Path) -> None:
    """H1 first, the "What you'll build/learn/need" opening, then Summary and Exercises."""
    cells = read(notebook_path).cells
    assert cells and cells[0].cell_type == "markdown", "the first cell must be markdown"
    assert re.match(r"#\s+\S", cells[0].source.lstrip()), "the first cell must open with an H1"
    first_code = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
    opening = markdown_text(cells[:first_code])
    missing = [
        word
        for word in OPENING_PHRASES
        if not re.search(rf"what you(?:'|’| wi)ll {word}", opening, re.IGNORECASE)
    ]
    assert not missing, f"the opening (before the first code cell) lacks What you'll {missing}"
    text = markdown_text(cells)
    for heading in ("Summary", "Exercises"):
        assert re.search(rf"^##\s+{heading}\b", text, re.MULTILINE), f"no '## {heading}' heading"


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
