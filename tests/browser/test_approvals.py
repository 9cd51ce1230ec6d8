"""Notebook 07's approval gate, clicked in JupyterLab: Deny, then Approve; Run All; a second try.

After the notebook ran whole, the first cell that creates an `ApprovalPanel` is run again (what
a learner does to try the buttons): it shows a new approval request (buttons "Approve" and
"Deny"), and no code has answered it yet. Clicking Deny must show a tool result saying the call was
declined, and the panel's header must say that Deny was clicked. Then Approve is clicked on
the next request (in the same output or a later cell; if there is none, the gate cell is run
again and the same request is approved): the tool must run, so a new tool result appears that
is not a refusal.

After Run All, the cell after the panel has answered it with `panel.deny()`: the panel's header
must say so ("Denied from code"), never that someone clicked. Then the panel cell alone is run
again, as the notebook invites: it must build a new repository and ask again (no error), and a
click on Approve must merge PR #482, which the cell that prints `main` then shows.

The three tests share one page, its kernel and one Run All of the notebook (`after_run_all`;
opening JupyterLab, starting a kernel and running 07 cost seconds each time), in this order:
the header after Run All, then Deny and Approve on the panel run again, then Approve on the
panel run once more and main changed.
"""

from __future__ import annotations

import re

import pytest

from .conftest import NOTEBOOKS, LabPage, skip_without_browser

skip_without_browser()

NOTEBOOK = "07_guard_dangerous_tools.ipynb"
DECLINED = re.compile(r"declined", re.IGNORECASE)

pytestmark = pytest.mark.skipif(
    not (NOTEBOOKS / NOTEBOOK).exists(),
    reason=f"notebooks/{NOTEBOOK} does not exist yet: the approval-gate test runs once it does",
)

# Index of the first cell at or after `start` whose output shows a button named `label`.
_CELL_WITH_BUTTON = """
([label, start, enabledOnly]) => {
  const cells = window.jupyterapp.shell.currentWidget.content.widgets;
  for (let i = start; i < cells.length; i++) {
    for (const button of cells[i].node.querySelectorAll('.jp-OutputArea button')) {
      if (button.textContent.trim() === label && !(enabledOnly && button.disabled)) return i;
    }
  }
  return -1;
}
"""


def cell_with_button(lab_page: LabPage, label: str, start: int = 0, enabled: bool = True) -> int:
    return lab_page.page.evaluate(_CELL_WITH_BUTTON, [label, start, enabled])


def results_in(cell) -> tuple[int, int]:
    """(tool results shown, how many of them say declined) in a cell's output."""
    output = cell.locator(".jp-Cell-outputArea")
    text = output.inner_text()
    return text.count("tool_result"), len(DECLINED.findall(text))


def click(lab_page: LabPage, cell, label: str) -> None:
    """Click the first enabled `label` button of a cell, wait for its effect and the kernel."""
    from playwright.sync_api import expect

    button = cell.locator(".jp-Cell-outputArea button:enabled", has_text=label).first
    before = cell.locator(".jp-Cell-outputArea").inner_text()
    button.scroll_into_view_if_needed()
    button.click()
    expect(cell.locator(".jp-Cell-outputArea")).not_to_have_text(before, timeout=30_000)
    lab_page.wait_idle()
    lab_page.page.wait_for_timeout(300)  # the last output message after the kernel went idle


@pytest.fixture(scope="module")
def page_07(module_page: LabPage) -> LabPage:
    """The module's page with notebook 07 open and its kernel idle."""
    module_page.open(NOTEBOOK)
    return module_page


@pytest.fixture(scope="module")
def after_run_all(page_07: LabPage) -> LabPage:
    """07 run whole once (Run All Cells), in the kernel its opening started."""
    page_07.run_all()
    return page_07


@pytest.fixture
def lab_page(page_07: LabPage, named_page: LabPage) -> LabPage:
    return named_page


PANEL_CELL = "(source, type) => type === 'code' && source.includes('ApprovalPanel(')"

# Index of the first code cell after `start` that prints main's last commit.
_MAIN_CELL_AFTER = """
(start) => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  for (let i = start + 1; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === 'code' && cell.sharedModel.getSource().includes('print("main:"')) return i;
  }
  return -1;
}
"""


def header_of(cell) -> str:
    """The panel's header: the first label of the widget in the cell's output."""
    return cell.locator(".jp-Cell-outputArea .widget-label").first.inner_text()


def run_cell(lab_page: LabPage, index: int) -> None:
    """Run one cell alone (Shift-Enter on it) and wait until it and the kernel are done."""
    lab_page.select(index)
    lab_page.execute("notebook:run-cell")
    lab_page.wait_executed()
    lab_page.page.wait_for_timeout(300)  # the last output message after the kernel went idle


def test_after_run_all_the_panel_says_code_answered_it(
    after_run_all: LabPage, lab_page: LabPage
) -> None:
    from playwright.sync_api import expect

    cell = lab_page.cell(lab_page.find_cell(PANEL_CELL))
    expect(cell.locator(".jp-Cell-outputArea .widget-label").first).to_contain_text("from code")
    header = header_of(cell)
    lab_page.screenshot("after-run-all", cell.locator(".jp-Cell-outputArea .widget-label").first)
    assert header.startswith("Denied from code for merge_pr: panel.deny(), not a click;"), header
    assert "clicked" not in header.lower(), f"no one clicked, yet the header says: {header}"
    buttons = cell.locator(".jp-Cell-outputArea button")
    assert buttons.count() == 2 and all(buttons.nth(i).is_disabled() for i in range(2))
    assert "answered from code: panel.deny()" in cell.locator(".jp-Cell-outputArea").inner_text()


def test_deny_then_approve(after_run_all: LabPage, lab_page: LabPage) -> None:
    panel = lab_page.find_cell(PANEL_CELL)
    assert panel >= 0, "no cell creates an ApprovalPanel"
    run_cell(lab_page, panel)  # it asks again: a new request, no code answers it

    gate = cell_with_button(lab_page, "Deny")
    assert gate >= 0, "no cell shows an enabled approval request (a button named Deny)"
    cell = lab_page.cell(gate)
    assert cell_with_button(lab_page, "Approve", start=gate) == gate, "Approve is missing"
    lab_page.screenshot("request", cell)

    results, declined = results_in(cell)
    click(lab_page, cell, "Deny")
    after_results, after_declined = results_in(cell)
    assert after_declined > declined, "after Deny, no shown tool result says it was declined"
    header = cell.locator(".jp-Cell-outputArea").inner_text()
    assert "You clicked Deny" in header, "after Deny, the panel's header does not say so"
    lab_page.screenshot("denied", cell.get_by_text(DECLINED).last)

    # Approve the next request: in the same output, in a later cell, or the gate asked again.
    target = cell_with_button(lab_page, "Approve", start=gate)
    if target < 0:
        run_cell(lab_page, gate)
        target = gate
    cell = lab_page.cell(target)
    results, declined = results_in(cell)
    click(lab_page, cell, "Approve")
    after_results, after_declined = results_in(cell)
    assert after_results > results, "after Approve, no new tool result is shown"
    assert after_declined == declined, "after Approve, the tool result still says declined"
    lab_page.screenshot("approved", cell.get_by_text("tool_result", exact=True).last)


def test_the_panel_cell_runs_again_and_approve_changes_main(
    after_run_all: LabPage, lab_page: LabPage
) -> None:
    from playwright.sync_api import expect

    panel = lab_page.find_cell(PANEL_CELL)
    main = lab_page.page.evaluate(_MAIN_CELL_AFTER, panel)
    assert 0 <= panel < main, "no cell after the panel's prints main"
    assert "main: Start the invoicing library" in lab_page.cell(main).inner_text()

    run_cell(lab_page, panel)  # a second try, as the notebook invites
    cell = lab_page.cell(panel)
    expect(cell.locator(".jp-Cell-outputArea .widget-label").first).to_contain_text(
        "Waiting for your answer: merge_pr"
    )
    assert cell_with_button(lab_page, "Approve", start=panel) == panel, "no Approve to click"
    lab_page.screenshot("asked-again", cell)

    click(lab_page, cell, "Approve")
    header = header_of(cell)
    assert header.startswith("You clicked Approve for merge_pr; the agent went on"), header
    assert "Merged PR #482" in cell.locator(".jp-Cell-outputArea").inner_text()

    run_cell(lab_page, main)
    shown = lab_page.cell(main).locator(".jp-Cell-outputArea").inner_text()
    lab_page.screenshot("main-changed", lab_page.cell(main))
    assert "main: Merge branch 'pr-482'" in shown, f"main did not change:\n{shown[-400:]}"
