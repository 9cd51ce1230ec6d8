"""A double click on Approve in JupyterLab approves the call it was shown for, and only that one.

A scratch notebook (not a lesson: cheap to run) builds an `ApprovalPanel` over a scripted model
that asks for two dangerous calls, one per turn: `write_file notes.txt`, then
`write_file conftest.py`. Both clicks of a double click reach the kernel; the second is handled
after the agent has gone on to conftest.py. It must be ignored (the header says so), the
second call must still wait with its buttons enabled, and the gate's audit log must hold one
decision, the person's, for notes.txt.
"""

from __future__ import annotations

import pytest

from .conftest import LabPage, skip_without_browser, write_notebook

skip_without_browser()

SETUP = '''
import time
import anthropic
from course_helpers.lessons.tools import tool
from course_helpers.widgets.approval_buttons import ApprovalPanel

def turn(stop_reason, *content):
    return anthropic.types.Message.model_validate({
        "id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted",
        "content": list(content), "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })

def write_call(n, path):
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "write_file",
            "input": {"path": path, "content": "x"}}

class Scripted:
    """A stand-in model that replays three answers (scripted, not the course model)."""
    def __init__(self, answers):
        self.answers, self.messages = list(answers), self
    def create(self, **request):
        return self.answers.pop(0)

written = []

@tool
def write_file(path: str, content: str) -> str:
    """Write a file (here: only noted)."""
    time.sleep(0.5)  # the agent works a while: the second click arrives meanwhile
    written.append(path)
    return f"Wrote {path}."

client = Scripted([
    turn("tool_use", write_call(1, "notes.txt")),
    turn("tool_use", write_call(2, "conftest.py")),
    turn("end_turn", {"type": "text", "text": "Done."}),
])
panel = ApprovalPanel(client, [{"role": "user", "content": "write two files"}], [write_file],
                      dangerous={"write_file"})
panel.run()
panel
'''

REPORT = """
print("written:", written)
print("log:", [(e["input"]["path"], e["allowed"], e["who"]) for e in panel.gate.audit_log])
print("waiting:", panel.waiting[1]["path"] if panel.waiting else None)
"""


@pytest.fixture
def double_click_notebook(lab) -> str:
    return write_notebook(lab, "approval_double_click.ipynb", [SETUP, REPORT])


def test_a_double_click_on_approve_answers_one_call(lab_page: LabPage, double_click_notebook):
    from playwright.sync_api import expect

    lab_page.open(double_click_notebook)
    lab_page.run_through(0)
    cell = lab_page.cell(0)
    output = cell.locator(".jp-Cell-outputArea")
    expect(output.locator("pre").first).to_contain_text("notes.txt")
    approve = output.locator("button", has_text="Approve")
    expect(approve).to_be_enabled()

    approve.dblclick()
    header = output.locator(".widget-label").first
    # The second click reaches the kernel while the first call runs (then the header counts
    # "1 late click ignored") or never, once the buttons are disabled: either way it answers
    # nothing, which the report below checks. tests/test_approval_widgets.py has the late click.
    expect(header).to_contain_text("waiting for your answer", timeout=30_000)
    expect(output.locator("pre").first).to_contain_text("conftest.py")
    lab_page.wait_idle()
    expect(output.locator("button", has_text="Approve")).to_be_enabled()
    lab_page.screenshot("after-double-click", cell)

    lab_page.select(1)
    lab_page.execute("notebook:run-cell")
    lab_page.wait_executed()
    report = lab_page.cell(1).locator(".jp-Cell-outputArea")
    expect(report).to_contain_text("waiting:")
    text = report.inner_text()
    assert "written: ['notes.txt']" in text, text
    assert "log: [('notes.txt', True, 'person')]" in text, text
    assert "waiting: conftest.py" in text, text
