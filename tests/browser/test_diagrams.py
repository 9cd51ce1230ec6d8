"""Every mermaid diagram of every notebook, drawn by JupyterLab itself.

A ```mermaid block in a markdown cell is only text until a front end draws it, and mermaid
refuses more than it seems to (a keyword such as `loop` used as a participant's name is a parse
error). GitHub and JupyterLab may not agree either. So each notebook that holds a diagram is
opened in JupyterLab, and every diagram must come out as a picture: not JupyterLab's warning box
with mermaid's parse error, and not an empty drawing (no text in it, or no size). A diagram so
wide that JupyterLab shrinks it below 55 % of its size at 1280 px fails too: its labels are
then too small to read (lay it out top to bottom, or split it).

A failure names the notebook, the cell (its index, as nbformat counts cells) and what mermaid
said. Screenshots of each diagram go to test-results/browser/.

Opening each notebook in a page of its own cost seconds per notebook, most of it JupyterLab
loading and laying out cells without a diagram. So every diagram cell of both editions is copied,
unchanged, into one notebook (in the lab's temporary root), opened once: JupyterLab draws each
cell as it would in its own notebook (same renderer, same cell width), and each notebook's test
reads the verdicts for its own cells, mapped back to their index in the notebook.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import HEIGHT, KERNEL_TIMEOUT, NOTEBOOKS, WIDTHS, Lab, LabPage, skip_without_browser

skip_without_browser()

FENCE = re.compile(r"^```mermaid\s*$", re.MULTILINE)
DRAW_TIMEOUT = 60.0
# Mermaid writes labels at 16 px: shown at less than 55 % of its own width, they are under 9 px.
SMALLEST_SCALE = 0.55


def diagrams_of(path) -> list[int]:
    """The index of each markdown cell holding a mermaid block, once per block."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            found += [index] * len(FENCE.findall("".join(cell["source"])))
    return found


NOTEBOOKS_WITH_DIAGRAMS = sorted(
    str(path.relative_to(NOTEBOOKS))
    for path in NOTEBOOKS.rglob("*.ipynb")
    if ".ipynb_checkpoints" not in path.parts and diagrams_of(path)
)

# Every diagram of the open notebook, once each is drawn or refused: the cell it is in, whether
# JupyterLab shows mermaid's warning box, the error text, and the picture's text and sizes.
_DIAGRAMS = """
async () => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const found = [];
  for (let index = 0; index < notebook.widgets.length; index++) {
    const cell = notebook.widgets[index];
    if (cell.model.type !== 'markdown') continue;
    for (const box of cell.node.querySelectorAll('.jp-RenderedMermaid')) {
      const item = {cell: index, warning: box.classList.contains('jp-mod-warning')};
      const details = box.querySelector('.jp-RenderedMermaid-Details > pre');
      item.error = details ? details.textContent.trim() : '';
      const img = box.querySelector('figure img');
      item.drawn = !!img;
      if (img) {
        if (!img.complete) await new Promise((done) => { img.onload = img.onerror = done; });
        const svg = decodeURIComponent(img.src.replace(/^data:image\\/svg\\+xml,/, ''));
        const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
        item.text = (doc.documentElement.textContent || '').replace(/\\s+/g, ' ').trim();
        const box = doc.documentElement.viewBox && doc.documentElement.viewBox.baseVal;
        item.natural = box ? [box.width, box.height] : [0, 0];
        item.shown = [img.getBoundingClientRect().width, img.getBoundingClientRect().height];
      }
      found.push(item);
    }
  }
  return found;
}
"""

# True once the notebook shows `count` mermaid boxes, each a picture or a warning.
_ALL_DRAWN = """
([path, count]) => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.context || panel.context.path !== path || !panel.content) return false;
  const boxes = panel.content.node.querySelectorAll('.jp-RenderedMermaid');
  if (boxes.length < count) return false;
  return [...boxes].every((box) =>
    box.classList.contains('jp-mod-warning') ? !!box.querySelector('details') :
      !!box.querySelector('figure img'));
}
"""


ALL_DIAGRAMS = "every-diagram-of-every-notebook.ipynb"


def write_diagram_notebook(lab: Lab) -> list[tuple[str, int]]:
    """Copy every diagram cell of every notebook, unchanged, into one notebook in the lab's root.

    Returns, for each of its cells, (notebook, index of the cell in that notebook)."""
    import nbformat

    origin, cells = [], []
    for notebook in NOTEBOOKS_WITH_DIAGRAMS:
        source = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
        for index in sorted(set(diagrams_of(NOTEBOOKS / notebook))):
            origin.append((notebook, index))
            cells.append(nbformat.v4.new_markdown_cell("".join(source[index]["source"])))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, lab.root / ALL_DIAGRAMS)
    return origin


def open_without_running(lab_page: LabPage, notebook: str) -> None:
    """Open `notebook` (its markdown is rendered on opening); no cell is run."""
    page = lab_page.page
    page.goto(lab_page.lab.page_url(notebook), wait_until="domcontentloaded")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell", timeout=KERNEL_TIMEOUT * 1000
    )
    page.evaluate("async () => { await window.jupyterapp.restored; }")


@pytest.fixture(scope="module")
def drawn(lab: Lab, browser: Any, results_dir) -> Iterator[dict[str, list[dict]]]:
    """{notebook: what JupyterLab drew for each of its diagrams}, from one page for all."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    origin = write_diagram_notebook(lab)
    blocks = sum(len(diagrams_of(NOTEBOOKS / notebook)) for notebook in NOTEBOOKS_WITH_DIAGRAMS)
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        lab_page = LabPage(page, lab, "every-diagram", results_dir)
        open_without_running(lab_page, ALL_DIAGRAMS)
        # A block JupyterLab never draws is reported by the test of its notebook, not here.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                _ALL_DRAWN, arg=[ALL_DIAGRAMS, blocks], timeout=DRAW_TIMEOUT * 1000
            )
        seen: dict[str, list[dict]] = {notebook: [] for notebook in NOTEBOOKS_WITH_DIAGRAMS}
        for item in page.evaluate(_DIAGRAMS):
            notebook, index = origin[item["cell"]]
            seen[notebook].append({**item, "cell": index})
            name = notebook.removesuffix(".ipynb").replace("/", "_")
            path = results_dir / f"test_every_diagram_is_drawn-{name}-cell-{index}.png"
            with contextlib.suppress(PlaywrightTimeout):
                box = lab_page.cell(item["cell"]).locator(".jp-RenderedMermaid").first
                box.screenshot(path=str(path), timeout=10_000)
        yield seen
    finally:
        context.close()
        lab.shutdown_kernels()


def problems(notebook: str, expected: list[int], seen: list[dict]) -> list[str]:
    """What is wrong with the diagrams of one notebook, one line each."""
    where = f"notebooks/{notebook}"
    found = [item["cell"] for item in seen]
    if sorted(found) != sorted(expected):
        return [f"{where}: mermaid blocks in cells {expected}, JupyterLab drew boxes in {found}"]
    lines = []
    for item in seen:
        cell = f"{where}, cell {item['cell']}"
        if item["warning"] or not item["drawn"]:
            lines.append(f"{cell}: mermaid did not draw it: {item['error'] or '(no message)'}")
            continue
        width, height = item["natural"]
        if not item["text"] or width < 20 or height < 20:
            lines.append(f"{cell}: an empty drawing ({width}x{height} px, text {item['text']!r})")
            continue
        scale = item["shown"][0] / width
        if scale < SMALLEST_SCALE:
            lines.append(
                f"{cell}: drawn {width:.0f} px wide and shrunk to {scale:.0%} to fit: "
                "too small to read (lay it out top to bottom, or split it)"
            )
    return lines


@pytest.mark.parametrize("notebook", NOTEBOOKS_WITH_DIAGRAMS)
def test_every_diagram_is_drawn(drawn: dict[str, list[dict]], notebook: str) -> None:
    expected = diagrams_of(NOTEBOOKS / notebook)
    wrong = problems(notebook, expected, drawn[notebook])
    assert not wrong, "\n".join(wrong)


def test_the_checks_catch_a_parse_error_an_empty_drawing_and_a_tiny_one() -> None:
    """The verdicts above, on made-up measures: each kind of failure is reported, with its cell."""
    good = {"cell": 2, "warning": False, "error": "", "drawn": True, "text": "a b"}
    good |= {"natural": [600, 300], "shown": [600, 300]}
    assert problems("x.ipynb", [2], [good]) == []
    refused = {"cell": 5, "warning": True, "error": "Parse error on line 5", "drawn": False}
    assert problems("x.ipynb", [5], [refused]) == [
        "notebooks/x.ipynb, cell 5: mermaid did not draw it: Parse error on line 5"
    ]
    empty = good | {"text": ""}
    assert "an empty drawing" in problems("x.ipynb", [2], [empty])[0]
    tiny = good | {"natural": [2400, 200], "shown": [900, 75]}
    assert "too small to read" in problems("x.ipynb", [2], [tiny])[0]
    assert "drew boxes in []" in problems("x.ipynb", [2], [])[0]
