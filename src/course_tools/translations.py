"""Keep the Russian edition (notebooks/ru/) in step with the English one.

Usage (from the project root):

    python -m course_tools.translations status              # what is stale, missing or untranslated
    python -m course_tools.translations sync                # copy code cells and outputs from English
    python -m course_tools.translations stamp NOTEBOOK [--cell ID ...]
                                                            # after updating Russian cells: record
                                                            # the English text they now follow
    python -m course_tools.translations export NOTEBOOK     # English prose of a notebook, for a translator
                                                            # (--russian: the Russian prose, to revise)
    python -m course_tools.translations import FILE NOTEBOOK  # the translator's file back in, stamped

A Russian notebook has the same cells, with the same ids, in the same order, as its English one.
Code cells are byte-identical, outputs included: the code is shared, so strict nbval of the
English edition covers it. Each markdown cell is written in Russian and remembers, in its
metadata (`en_source_sha`), a hash of the English text it was translated from. When the English
cell changes, the hash no longer matches and `status` (and `tests/test_translations.py`) names
the cell. Update the Russian text in the same commit, then `stamp` it.

`sync` rebuilds every Russian notebook from its English one: code cells, outputs and notebook
metadata are copied, Russian markdown is kept by cell id, and a markdown cell new in English
is inserted in English, unstamped, for `status` to list as untranslated. It then writes the
Russian blank exercises from the Russian solutions, as `make exercises` does for English.

A NOTEBOOK argument is a Russian notebook's path or its English one's (either works).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from course_tools import make_exercises

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
RUSSIAN = NOTEBOOKS / "ru"
STAMP = "en_source_sha"
CELL_MARK = re.compile(r"^<!-- cell (\S+) -->$", re.MULTILINE)


def source_hash(text: str) -> str:
    """A short hash of an English cell's text (the first 16 hex digits of its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def english_notebooks(notebooks: Path = NOTEBOOKS) -> list[Path]:
    """The English notebooks with a Russian counterpart: the lessons and the solutions.

    The blank exercises are not translated by hand: they are generated from the solutions in
    each edition (`make exercises`).
    """
    lessons = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    return lessons + sorted((notebooks / "exercises" / "solutions").glob("*.ipynb"))


def russian_path(english: Path, notebooks: Path = NOTEBOOKS) -> Path:
    return notebooks / "ru" / english.relative_to(notebooks)


def english_path(path: Path, notebooks: Path = NOTEBOOKS) -> Path:
    """The English notebook for a path in either edition."""
    path = path.resolve()
    russian = (notebooks / "ru").resolve()
    if path.is_relative_to(russian):
        return notebooks.resolve() / path.relative_to(russian)
    return path


@dataclass
class Report:
    """What differs between one English notebook and its Russian one."""

    english: Path
    russian: Path
    missing: bool = False
    structure: list[str] = field(default_factory=list)  # cells added, removed, moved
    code: list[str] = field(default_factory=list)  # code cells (or outputs) that differ
    stale: list[str] = field(default_factory=list)  # English changed since the translation
    untranslated: list[str] = field(default_factory=list)  # no stamp: never translated

    @property
    def clean(self) -> bool:
        return not (self.missing or self.structure or self.code or self.stale or self.untranslated)

    def lines(self, root: Path = ROOT) -> list[str]:
        name = self.russian.relative_to(root) if self.russian.is_relative_to(root) else self.russian
        if self.missing:
            return [f"{name}: missing (run `sync`, then translate its markdown cells)"]
        redo = "`make exercises`" if "solutions" in self.english.parts else "`sync`"
        found = [f"{name}: {problem} (run {redo})" for problem in self.structure + self.code]
        found += [f"{name}: cell {cell} is stale: its English text changed" for cell in self.stale]
        found += [f"{name}: cell {cell} is not translated yet" for cell in self.untranslated]
        return found


def first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 60 else line[:57] + "..."


def compare(
    english: nbformat.NotebookNode, russian: nbformat.NotebookNode, report: Report
) -> Report:
    """Fill `report` with every difference the sync test cares about."""
    en_cells = [(c.get("id"), c.cell_type) for c in english.cells]
    ru_cells = [(c.get("id"), c.cell_type) for c in russian.cells]
    if en_cells != ru_cells:
        en_ids, ru_ids = [i for i, _ in en_cells], [i for i, _ in ru_cells]
        added = [i for i in en_ids if i not in ru_ids]
        removed = [i for i in ru_ids if i not in en_ids]
        if added:
            report.structure.append(f"cells new in English: {', '.join(map(str, added))}")
        if removed:
            report.structure.append(f"cells no longer in English: {', '.join(map(str, removed))}")
        if not added and not removed:
            report.structure.append("cells in another order or of another type than in English")
        return report
    for en, ru in zip(english.cells, russian.cells, strict=True):
        if en.cell_type == "markdown":
            stamp = ru.metadata.get(STAMP)
            if stamp is None:
                report.untranslated.append(f"{en.id} ({first_line(en.source)})")
            elif stamp != source_hash(en.source):
                report.stale.append(f"{en.id} ({first_line(en.source)})")
        elif copy_of_code(en) != copy_of_code(ru):
            report.code.append(f"code cell {en.id} differs from English")
    if english.metadata != russian.metadata:
        report.code.append("notebook metadata differs from English")
    return report


def copy_of_code(cell: nbformat.NotebookNode) -> dict:
    """Everything of a code (or raw) cell that must be identical in both editions."""
    return {
        key: cell.get(key)
        for key in ("id", "cell_type", "source", "metadata", "outputs", "execution_count")
    }


def check_pair(english: Path, notebooks: Path = NOTEBOOKS) -> Report:
    russian = russian_path(english, notebooks)
    report = Report(english, russian)
    if not russian.is_file():
        report.missing = True
        return report
    return compare(
        nbformat.read(english, as_version=4), nbformat.read(russian, as_version=4), report
    )


def status(notebooks: Path = NOTEBOOKS) -> list[Report]:
    return [check_pair(path, notebooks) for path in english_notebooks(notebooks)]


def synced(
    english: nbformat.NotebookNode, russian: nbformat.NotebookNode | None
) -> nbformat.NotebookNode:
    """The Russian notebook rebuilt on the English one: English code, Russian prose by cell id."""
    result = copy.deepcopy(english)
    prose = {}
    if russian is not None:
        prose = {c.get("id"): c for c in russian.cells if c.cell_type == "markdown"}
    for index, cell in enumerate(result.cells):
        if cell.cell_type == "markdown" and cell.get("id") in prose:
            result.cells[index] = copy.deepcopy(prose[cell.id])
        elif cell.cell_type == "markdown":
            cell.metadata.pop(STAMP, None)
    return result


def write(nb: nbformat.NotebookNode, path: Path) -> bool:
    """Write `nb` in the layout the other course tools use; True if the file changed."""
    text = make_exercises.render(nb)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def sync(notebooks: Path = NOTEBOOKS) -> list[Path]:
    changed = []
    for english in english_notebooks(notebooks):
        russian = russian_path(english, notebooks)
        old = nbformat.read(russian, as_version=4) if russian.is_file() else None
        if write(synced(nbformat.read(english, as_version=4), old), russian):
            changed.append(russian)
    solutions = notebooks / "ru" / "exercises" / "solutions"
    if solutions.is_dir():
        for path, text in make_exercises.generate(solutions.parent, solutions).items():
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                changed.append(path)
    return changed


def stamp(
    english: nbformat.NotebookNode, russian: nbformat.NotebookNode, cells: list[str] | None = None
) -> list[str]:
    """Record the English text each Russian markdown cell now follows; the ids stamped.

    With no `cells`, every markdown cell whose stamp is missing or stale is stamped, except a
    cell still holding the English text (it has not been translated, so it is not stamped).
    """
    by_id = {c.get("id"): c for c in english.cells}
    done = []
    for cell in russian.cells:
        if cell.cell_type != "markdown" or (cells is not None and cell.get("id") not in cells):
            continue
        source = by_id.get(cell.get("id"))
        if source is None or source.cell_type != "markdown":
            raise ValueError(f"cell {cell.get('id')}: no English markdown cell with that id")
        wanted = source_hash(source.source)
        if cell.metadata.get(STAMP) == wanted:
            continue
        if cell.source == source.source:
            if cells is not None:
                raise ValueError(f"cell {cell.id} still holds the English text: translate it first")
            continue
        cell.metadata[STAMP] = wanted
        done.append(cell.id)
    unknown = sorted(set(cells or []) - {c.get("id") for c in russian.cells})
    if unknown:
        raise ValueError(f"no such cell in the Russian notebook: {', '.join(unknown)}")
    return done


def export_prose(english: nbformat.NotebookNode) -> str:
    """The English markdown cells, one block per cell, for a translator."""
    return "\n".join(
        f"<!-- cell {c.id} -->\n{c.source.rstrip()}\n"
        for c in english.cells
        if c.cell_type == "markdown"
    )


def import_prose(
    text: str, english: nbformat.NotebookNode, russian: nbformat.NotebookNode
) -> list[str]:
    """Put a translator's blocks into the Russian notebook's markdown cells, stamped."""
    parts = CELL_MARK.split(text)
    blocks = dict(zip(parts[1::2], (p.strip("\n") for p in parts[2::2]), strict=True))
    cells = {c.get("id"): c for c in russian.cells if c.cell_type == "markdown"}
    unknown = sorted(set(blocks) - set(cells))
    if unknown:
        raise ValueError(f"blocks for cells the notebook does not have: {', '.join(unknown)}")
    for cell_id, source in blocks.items():
        cells[cell_id].source = source
    stamp(english, russian, list(blocks))
    return list(blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("status", help="list what is stale, missing or untranslated")
    commands.add_parser("sync", help="copy code cells and outputs from English")
    to_stamp = commands.add_parser("stamp", help="record the English text updated cells follow")
    to_stamp.add_argument("notebook", type=Path, nargs="+")
    to_stamp.add_argument("--cell", action="append", help="only this cell id (repeatable)")
    out = commands.add_parser("export", help="print a notebook's prose for a translator")
    out.add_argument("notebook", type=Path)
    out.add_argument("--russian", action="store_true", help="the Russian prose, to revise it")
    into = commands.add_parser("import", help="read a translator's file into a Russian notebook")
    into.add_argument("file", type=Path)
    into.add_argument("notebook", type=Path)
    args = parser.parse_args(argv)

    if args.command == "status":
        reports = status()
        problems = [line for report in reports for line in report.lines()]
        if not problems:
            print(f"{len(reports)} Russian notebooks, all in step")
            return 0
        print("\n".join(problems))
        if any(report.stale or report.untranslated for report in reports):
            print(
                "\nUpdate each Russian cell listed (`export --russian` / `import` help), then "
                "record it: python -m course_tools.translations stamp NOTEBOOK --cell ID"
            )
        return 1
    if args.command == "sync":
        changed = sync()
        for path in changed:
            print(f"wrote {path.relative_to(ROOT)}")
        print(f"{len(changed)} Russian notebooks changed")
        return 0
    if args.command == "export":
        path = english_path(args.notebook)
        if args.russian:
            path = russian_path(path, NOTEBOOKS.resolve())
        print(export_prose(nbformat.read(path, as_version=4)), end="")
        return 0
    if args.command in ("stamp", "import"):
        notebooks = args.notebook if args.command == "stamp" else [args.notebook]
        for given in notebooks:
            english_file = english_path(given)
            russian_file = russian_path(english_file, NOTEBOOKS.resolve())
            english = nbformat.read(english_file, as_version=4)
            russian = nbformat.read(russian_file, as_version=4)
            try:
                if args.command == "stamp":
                    done = stamp(english, russian, args.cell)
                else:
                    done = import_prose(args.file.read_text(encoding="utf-8"), english, russian)
            except ValueError as error:
                print(f"error: {russian_file.name}: {error}", file=sys.stderr)
                return 2
            write(russian, russian_file)
            print(
                f"{russian_file.relative_to(ROOT.resolve())}: {len(done)} cells stamped {' '.join(done)}"
            )
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
