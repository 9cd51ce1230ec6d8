"""The Russian edition runs in JupyterLab like the English one.

Its notebooks sit one folder deeper (notebooks/ru/), so the kernel starts there: a cell that
relied on the working folder, or a link written for notebooks/, would break only in this
edition. The test opens the Russian notebook 04 (the loop, its reviewer on a real git repository
and the stepper widget), runs it whole, and reads what a learner sees: Russian headings, no
error, and the stepper waiting for its first click.
"""

from __future__ import annotations

import re

from .conftest import LabPage, skip_without_browser

skip_without_browser()

NOTEBOOK = "ru/04_build_the_loop.ipynb"
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def test_the_russian_loop_notebook_runs_whole(lab_page: LabPage) -> None:
    from playwright.sync_api import expect

    lab_page.open(NOTEBOOK)
    state = lab_page.run_all()
    assert state["code"] and not state["errors"]

    title = lab_page.page.locator(".jp-MarkdownOutput h1").first
    expect(title).to_be_visible()
    assert CYRILLIC.search(title.inner_text()), f"the title is not Russian: {title.inner_text()!r}"

    index = lab_page.find_cell(
        "(source, type) => type === 'code' && source.includes('LoopStepper(')"
    )
    assert index >= 0, "no cell creates a LoopStepper"
    cell = lab_page.cell(index)
    expect(cell.get_by_role("button", name="Next turn")).to_be_enabled()
    expect(cell.locator(".widget-label").first).to_contain_text("Ready")
    lab_page.screenshot("russian-04-after-run-all", cell)
