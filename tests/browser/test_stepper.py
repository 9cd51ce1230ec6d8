"""Notebook 04's loop stepper, clicked in JupyterLab: one agent turn per click.

The notebook runs whole first (Run All Cells, as a learner would). The cells after the stepper
drive a stepper of their own (`demo.step()`), so the one on screen must still wait for a click:
"Ready", its button enabled, no transcript yet. The test then clicks "Next turn" until the run
ends. After every click the status line must report a longer history and the transcript under
the button must show exactly that many messages, and the status line must be shown once.
"""

from __future__ import annotations

import re

import pytest

from .conftest import NOTEBOOKS, LabPage, skip_without_browser

skip_without_browser()

NOTEBOOK = "04_build_the_loop.ipynb"
BUTTON = "Next turn"
MAX_CLICKS = 10  # the offline reviewer needs 3 turns; a live model a few more

pytestmark = pytest.mark.skipif(
    not (NOTEBOOKS / NOTEBOOK).exists(), reason=f"notebooks/{NOTEBOOK} does not exist yet"
)


def messages_in(status: str) -> int:
    """`len(messages) = N` from the stepper's status line."""
    match = re.search(r"len\(messages\) = (\d+)", status)
    assert match, f"no message count in the status line {status!r}"
    return int(match.group(1))


def test_stepper_clicks_through_a_run(lab_page: LabPage) -> None:
    from playwright.sync_api import expect

    lab_page.open(NOTEBOOK)
    lab_page.run_all()

    index = lab_page.find_cell(
        "(source, type) => type === 'code' && source.includes('LoopStepper(')"
    )
    assert index >= 0, "no cell creates a LoopStepper"
    cell = lab_page.cell(index)
    button = cell.get_by_role("button", name=BUTTON)
    status = cell.locator(".widget-label").first

    # After Run All the stepper on screen still waits: the code-only cells stepped their own.
    expect(button).to_be_visible()
    expect(button).to_be_enabled()
    expect(status).to_contain_text("Ready")
    turns = cell.locator(".course-transcript [title^='messages[']")
    expect(turns).to_have_count(0)
    count = messages_in(status.inner_text())
    lab_page.screenshot("ready-after-run-all", cell)

    clicks = 0
    while button.is_enabled():
        assert clicks < MAX_CLICKS, f"still not finished after {MAX_CLICKS} clicks"
        before = status.inner_text()
        button.scroll_into_view_if_needed()
        button.click()
        clicks += 1
        expect(status).not_to_have_text(before, timeout=30_000)
        lab_page.wait_idle()
        now = messages_in(status.inner_text())
        assert now > count, f"click {clicks}: the history did not grow ({count} → {now})"
        # The transcript under the button shows the whole history: one header per message.
        expect(turns).to_have_count(now)
        expect(cell.locator(".course-transcript")).to_have_count(1)
        shown = cell.locator(".jp-Cell-outputArea").inner_text()
        assert shown.count("len(messages) = ") == 1, f"the status line is shown twice:\n{shown}"
        count = now
        lab_page.screenshot(f"click-{clicks}", turns.last)

    expect(status).to_contain_text("Finished after")
    expect(button).to_be_disabled()
    assert clicks >= 2, f"the run ended after {clicks} click(s); a loop needs at least two turns"
    # The last turn is the model's answer: the last header is an assistant's.
    expect(turns.last).to_have_text("assistant")
    assert all(shot.stat().st_size > 0 for shot in lab_page.shots)
