"""The Russian edition (notebooks/ru/) cannot silently fall behind the English one.

For every English lesson and solution there is a Russian notebook with the same cells in the
same order; its code cells, outputs included, are byte-identical (so strict nbval of the English
edition covers them), and each markdown cell carries the hash of the English text it was
translated from. Change an English markdown cell and `test_russian_notebook_is_in_step` fails,
naming the stale Russian cells; update them in the same commit and run
`python -m course_tools.translations stamp <notebook>`.

The second half builds a small two-edition course in a temporary folder and walks that workflow
through `course_tools.translations`: proof that the checks above fail when they should.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_tools import make_exercises
from course_tools import translations as tr

ROOT = tr.ROOT
ENGLISH = tr.english_notebooks()
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
CODE_SPAN = re.compile(r"`[^`\n]+`")
SPAN = re.compile(r"`[^`]+`")  # may wrap onto the next line
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s#]+\.ipynb)(?:#[^)]*)?\)")


def name(path: Path) -> str:
    return str(path.relative_to(tr.NOTEBOOKS))


def russian_cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(tr.russian_path(path), as_version=4).cells


@pytest.mark.parametrize("english", ENGLISH, ids=name)
def test_russian_notebook_is_in_step(english: Path) -> None:
    report = tr.check_pair(english)
    assert report.clean, (
        "\n".join(report.lines())
        + "\nWhoever changes English prose updates the Russian cell in the same commit: see "
        "`python -m course_tools.translations status`, then `sync` and `stamp` (README, maintainer "
        "notes)."
    )


def test_no_russian_notebook_without_an_english_one() -> None:
    wanted = {tr.russian_path(p) for p in ENGLISH}
    exercises = {tr.RUSSIAN / "exercises" / p.name for p in ENGLISH if "solutions" in p.parts}
    orphans = sorted(
        p.relative_to(ROOT)
        for p in tr.RUSSIAN.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts and p not in wanted | exercises
    )
    assert not orphans, f"Russian notebooks with no English original: {orphans}"


def test_russian_exercises_are_generated_from_the_russian_solutions(tmp_path: Path) -> None:
    solutions = tr.RUSSIAN / "exercises" / "solutions"
    made = make_exercises.generate(tmp_path, solutions)
    assert sorted(p.name for p in made) == sorted(
        p.name for p in (tr.NOTEBOOKS / "exercises").glob("*.ipynb")
    )
    stale = [
        p.name
        for p, text in made.items()
        if (tr.RUSSIAN / "exercises" / p.name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"stale Russian exercises (run `make exercises`): {stale}"


def prose(text: str) -> str:
    """A markdown cell's text without code blocks, code spans, links' targets and HTML tags."""
    text = FENCE.sub("", text)
    text = CODE_SPAN.sub("", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"<[^>]+>", "", text)


@pytest.mark.parametrize("english", ENGLISH, ids=name)
def test_every_prose_cell_is_in_russian(english: Path) -> None:
    originals = {c.id: c for c in nbformat.read(english, as_version=4).cells}
    untranslated = [
        cell.id
        for cell in russian_cells(english)
        if cell.cell_type == "markdown"
        and len(re.findall(r"[A-Za-z]{3,}", prose(originals[cell.id].source))) >= 3
        and not CYRILLIC.search(prose(cell.source))
    ]
    assert not untranslated, (
        f"{name(english)}: markdown cells with no Russian prose: {untranslated}"
    )


@pytest.mark.parametrize("english", ENGLISH, ids=name)
def test_api_names_and_code_spans_are_kept(english: Path) -> None:
    """`stop_reason`, `tool_use`, function names...: every code span of the English cell is in
    the Russian one, untranslated."""
    originals = {c.id: c for c in nbformat.read(english, as_version=4).cells}
    lost = []
    for cell in russian_cells(english):
        if cell.cell_type != "markdown":
            continue
        # A span may wrap onto the next line in English and not in Russian: compare with
        # whitespace collapsed.
        spans = {
            " ".join(s.split()) for s in SPAN.findall(FENCE.sub("", originals[cell.id].source))
        }
        text = " ".join(cell.source.split())
        missing = sorted(s for s in spans if s not in text)
        if missing:
            lost.append(f"{cell.id}: {', '.join(missing)}")
    assert not lost, f"{name(english)}: code spans missing from the Russian text:\n" + "\n".join(
        lost
    )


@pytest.mark.parametrize("english", ENGLISH, ids=name)
def test_links_stay_in_the_russian_edition(english: Path) -> None:
    russian = tr.russian_path(english)
    outside = []
    for cell in russian_cells(english):
        if cell.cell_type != "markdown":
            continue
        for target in LINK.findall(cell.source):
            landed = (russian.parent / target).resolve()
            to_english_start = (
                "English edition" in cell.source and landed.name == "00_start_here.ipynb"
            )
            if not landed.is_relative_to(tr.RUSSIAN.resolve()) and not to_english_start:
                outside.append(target)
    assert not outside, f"{name(english)}: links that leave the Russian edition: {outside}"


def test_each_start_notebook_links_to_the_other_edition() -> None:
    english = (tr.NOTEBOOKS / "00_start_here.ipynb").read_text(encoding="utf-8")
    russian = (tr.RUSSIAN / "00_start_here.ipynb").read_text(encoding="utf-8")
    assert "](ru/00_start_here.ipynb)" in english
    assert "](../00_start_here.ipynb)" in russian
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "notebooks/ru/00_start_here.ipynb" in readme


def test_the_russian_start_says_why_check_messages_stay_english() -> None:
    cells = russian_cells(tr.NOTEBOOKS / "00_start_here.ipynb")
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert re.search(r"английск", text, re.IGNORECASE) and "passed" in text


def test_the_glossary_lists_the_terms_the_edition_uses() -> None:
    glossary = (ROOT / "docs" / "glossary-ru.md").read_text(encoding="utf-8")
    for term in (
        "агентный цикл",
        "вызов инструмента",
        "результат инструмента",
        "диспетчер",
        "песочница",
        "подтверждение",
        "человек в контуре",
        "лимит итераций",
    ):
        assert term in glossary
    edition = "\n".join(
        c.source for p in ENGLISH for c in russian_cells(p) if c.cell_type == "markdown"
    )
    assert "агентн" in edition and "диспетчер" in edition and "песочниц" in edition


# -- The workflow, on a two-edition course in a temporary folder ----------------------------------


def tiny_course(root: Path) -> Path:
    """notebooks/01_x.ipynb with two prose cells and one code cell, and its Russian edition."""
    notebooks = root / "notebooks"
    (notebooks / "exercises" / "solutions").mkdir(parents=True)
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "# Build the loop\n\nThe `agent_loop` repeats.", id="intro"
            ),
            nbformat.v4.new_code_cell(
                "print('hi')",
                id="code-1",
                execution_count=1,
                outputs=[nbformat.v4.new_output("stream", text="hi\n")],
            ),
            nbformat.v4.new_markdown_cell("## Summary\n\nThat is the loop.", id="summary"),
        ]
    )
    tr.write(nb, notebooks / "01_x.ipynb")
    return notebooks


def edit(path: Path, cell_id: str, source: str) -> None:
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.id == cell_id).source = source
    tr.write(nb, path)


def problems(notebooks: Path) -> list[str]:
    return [line for report in tr.status(notebooks) for line in report.lines(notebooks.parent)]


def translate(notebooks: Path) -> None:
    english = nbformat.read(notebooks / "01_x.ipynb", as_version=4)
    russian_file = notebooks / "ru" / "01_x.ipynb"
    russian = nbformat.read(russian_file, as_version=4)
    text = (
        "<!-- cell intro -->\n# Соберите цикл\n\n`agent_loop` повторяется.\n\n"
        "<!-- cell summary -->\n## Итоги\n\nВот и весь цикл.\n"
    )
    assert tr.import_prose(text, english, russian) == ["intro", "summary"]
    tr.write(russian, russian_file)


def test_a_missing_russian_notebook_is_named(tmp_path: Path) -> None:
    notebooks = tiny_course(tmp_path)
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: missing (run `sync`, then translate its markdown cells)"
    ]


def test_sync_then_translate_then_a_changed_english_cell_is_stale_until_stamped(
    tmp_path: Path,
) -> None:
    notebooks = tiny_course(tmp_path)
    tr.sync(notebooks)
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: cell intro (# Build the loop) is not translated yet",
        "notebooks/ru/01_x.ipynb: cell summary (## Summary) is not translated yet",
    ]
    translate(notebooks)
    assert problems(notebooks) == []

    edit(notebooks / "01_x.ipynb", "summary", "## Summary\n\nThat is the whole loop, in ten lines.")
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: cell summary (## Summary) is stale: its English text changed"
    ]

    # Stamping without updating the Russian text would hide the change: it stays listed until
    # the maintainer says which cell was updated, and the stamp is of the new English text.
    russian_file = notebooks / "ru" / "01_x.ipynb"
    edit(russian_file, "summary", "## Итоги\n\nВот и весь цикл, в десяти строках.")
    english = nbformat.read(notebooks / "01_x.ipynb", as_version=4)
    russian = nbformat.read(russian_file, as_version=4)
    assert tr.stamp(english, russian, ["summary"]) == ["summary"]
    tr.write(russian, russian_file)
    assert problems(notebooks) == []


def test_a_cell_still_in_english_cannot_be_stamped(tmp_path: Path) -> None:
    notebooks = tiny_course(tmp_path)
    tr.sync(notebooks)
    english = nbformat.read(notebooks / "01_x.ipynb", as_version=4)
    russian = nbformat.read(notebooks / "ru" / "01_x.ipynb", as_version=4)
    with pytest.raises(ValueError, match="still holds the English text"):
        tr.stamp(english, russian, ["intro"])
    assert tr.stamp(english, russian) == []  # nothing translated, nothing stamped


def test_changed_code_is_named_and_sync_copies_it_keeping_the_russian_prose(tmp_path: Path) -> None:
    notebooks = tiny_course(tmp_path)
    tr.sync(notebooks)
    translate(notebooks)
    edit(notebooks / "01_x.ipynb", "code-1", "print('hello')")
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: code cell code-1 differs from English (run `sync`)"
    ]
    tr.sync(notebooks)
    assert problems(notebooks) == []
    cells = nbformat.read(notebooks / "ru" / "01_x.ipynb", as_version=4).cells
    assert cells[1].source == "print('hello')" and cells[0].source.startswith("# Соберите цикл")


def test_a_new_english_cell_is_inserted_in_english_and_listed(tmp_path: Path) -> None:
    notebooks = tiny_course(tmp_path)
    tr.sync(notebooks)
    translate(notebooks)
    nb = nbformat.read(notebooks / "01_x.ipynb", as_version=4)
    nb.cells.insert(2, nbformat.v4.new_markdown_cell("A new paragraph.", id="new"))
    tr.write(nb, notebooks / "01_x.ipynb")
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: cells new in English: new (run `sync`)"
    ]
    tr.sync(notebooks)
    assert problems(notebooks) == [
        "notebooks/ru/01_x.ipynb: cell new (A new paragraph.) is not translated yet"
    ]


def test_export_and_import_round_trip(tmp_path: Path) -> None:
    notebooks = tiny_course(tmp_path)
    english = nbformat.read(notebooks / "01_x.ipynb", as_version=4)
    text = tr.export_prose(english)
    assert text.startswith("<!-- cell intro -->\n# Build the loop")
    russian = tr.synced(english, None)
    with pytest.raises(ValueError, match="cells the notebook does not have"):
        tr.import_prose("<!-- cell nope -->\nтекст\n", english, russian)


def test_make_lab_opens_the_russian_start_on_request() -> None:
    import subprocess

    def lab(*args: str) -> str:
        return subprocess.run(
            ["make", "-n", "lab", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout

    assert "notebooks/ru/00_start_here.ipynb" in lab("LANG_EDITION=ru")
    assert "notebooks/ru/" not in lab() and "notebooks/00_start_here.ipynb" in lab()
