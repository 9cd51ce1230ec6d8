"""The layout of `course_helpers`: no import cycles, and modules of a readable size.

Every import counts, the ones inside a function too: an import moved into a function still
ties the two modules together, it only hides the cycle from whoever reads the file. A cycle
is reported with the modules in it, so that whoever adds one sees which import to turn round
(what both need goes into a third module that imports neither).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "course_helpers"
MAX_LINES = 450
# The course model's scenarios are tables of what the model says: long by nature.
LONG_BY_NATURE = ("offline/scenarios/",)


def module_names(root: Path) -> dict[str, Path]:
    """Every module under `root` (a package folder), by its dotted name."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the package that `name` imports, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:  # a module imported from its package
                    found.add(f"{source}.{alias.name}")
                elif source in modules:
                    found.add(source)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, round (Tarjan's strongly connected
    components with more than one module, or a module that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_no_module_of_the_package_imports_itself_round_a_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 100, sorted(graph)  # the whole package was read
    assert cycles(graph) == [], (
        f"modules that import each other (move what both need into a third module): {cycles(graph)}"
    )


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    """Through a relative import and an import inside a function, three modules round."""
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import thing\n")
    (package / "b.py").write_text("def thing():\n    from planted.c import other\n")
    (package / "c.py").write_text("import planted.a\n")
    (package / "d.py").write_text("from planted import a\n")  # imports a, not round
    assert cycles(import_graph(package)) == [["planted.a", "planted.b", "planted.c"]]


def test_a_package_without_cycles_has_none(tmp_path: Path) -> None:
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("from planted.a import thing\n")
    (package / "a.py").write_text("from planted.b import other as thing\n")
    (package / "b.py").write_text("other = 1\n")
    assert cycles(import_graph(package)) == []


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if not p.relative_to(PACKAGE).as_posix().startswith(LONG_BY_NATURE)
    ],
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_a_module_stays_under_the_size_a_reader_takes_in(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, (
        f"{path.relative_to(PACKAGE)} has {lines} lines (at most {MAX_LINES}): split it into "
        "modules with one job each, a package if its importers must keep one name"
    )
