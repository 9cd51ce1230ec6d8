"""The cost table of docs/workshop.md, checked against what nbval's own run of each notebook used.

`python -m course_tools.workshop_tables` writes one cost row per notebook from
`course_tools.workshop_cost.measure`: the notebook run once in a kernel, with a recorder cell
first that appends the usage of every answer of the course model to a log. nbval already runs
every notebook once, on the same model and with the same offline environment; measuring again
would run every notebook a second time. So, when nbval collects a course notebook:

- before its first cell runs, the same recorder is run silently in nbval's kernel (no output,
  no history, nothing left in the notebook's namespace: its names live in a namespace of their
  own), writing to a log in a temporary folder;
- after its last cell, one more test of that notebook, `...ipynb::cost row in docs/workshop.md`,
  reads the log and fails unless the guide holds exactly the row the script would write. It
  runs on the same worker as the cells (same xdist scope), and only counts a run in which every
  cell of the notebook ran and passed; otherwise it fails and says why.

`tests/test_workshop_tables.py` proves the shortcut exact on one notebook: the recorder run this
way and the script's recorder cell measure the same usage.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from queue import Empty

import pytest
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel
from nbval.plugin import IPyNbCell, IPyNbFile

from course_tools import execute_notebooks as executor
from course_tools import workshop_cost, workshop_tables

NAME = "cost row in docs/workshop.md"
INSTALL_TIMEOUT = 60.0


def recorder_code(log: Path) -> str:
    """The script's recorder cell, run in a namespace of its own (the notebook sees none of it)."""
    cell = workshop_cost.recorder_cell(log)
    return f"exec({cell!r}, {{'__name__': 'course_usage_recorder'}})"


def install_recorder(kernel: RunningKernel, log: Path) -> str | None:
    """Run the recorder silently in `kernel`; what went wrong, or None."""
    log.touch()
    msg_id = kernel.kc.execute(recorder_code(log), silent=True, store_history=False)
    while True:
        try:
            reply = kernel.get_message("shell", timeout=INSTALL_TIMEOUT)
        except Empty:
            return f"the usage recorder did not start in {INSTALL_TIMEOUT:.0f} s"
        if reply["parent_header"].get("msg_id") == msg_id:
            content = reply["content"]
            if content["status"] != "ok":
                return f"the usage recorder failed: {content.get('ename')}: {content.get('evalue')}"
            return None


def expected_row(notebook: Path, usage: workshop_cost.Usage) -> str:
    relative = str(notebook.relative_to(executor.NOTEBOOKS))
    return workshop_tables.cost_row(workshop_tables.cost_name(relative), usage, workshop_cost.MODEL)


def guide_rows() -> list[str]:
    text = workshop_tables.GUIDE.read_text(encoding="utf-8")
    return workshop_tables.section(text, "cost").group(2).splitlines()


def measure_like_nbval(
    notebook: Path, environment: Callable[[], AbstractContextManager], folder: Path
) -> workshop_cost.Usage:
    """What nbval's run of `notebook` records: its kernel (started in `environment`, in the
    notebook's folder), the recorder run silently, then every code cell in order."""
    with environment():
        kernel = RunningKernel(CURRENT_ENV_KERNEL_NAME, cwd=str(notebook.parent))
    try:
        log = folder / f"{notebook.stem}.jsonl"
        failed = install_recorder(kernel, log)
        assert failed is None, failed
        for cell in code_cells(notebook):
            kernel.await_reply(kernel.execute_cell_input(cell, allow_stdin=False), timeout=300)
        return workshop_cost.recorded_usage(log)
    finally:
        kernel.stop()


def code_cells(notebook: Path) -> list[str]:
    """The source of each code cell (nbval makes one test of each)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


class CostRow(pytest.Item):
    """The guide's cost row of one notebook, read from nbval's run of it (see the module)."""

    def __init__(self, *, log: Path, **kwargs) -> None:
        super().__init__(**kwargs)
        self.log = log
        self.add_marker(pytest.mark.slow)

    @property
    def notebook(self) -> Path:
        return Path(self.parent.path)

    def runtest(self) -> None:
        plugin: CostRowsPlugin = self.config.pluginmanager.get_plugin(CostRowsPlugin.NAME)
        cells = plugin.cells.get(self.parent.nodeid, 0)
        ran = plugin.passed.get(self.parent.nodeid, 0)
        problem = plugin.problems.get(self.parent.nodeid)
        relative = self.notebook.relative_to(executor.NOTEBOOKS)
        if problem:
            raise CostRowError(f"notebooks/{relative}: {problem}")
        if ran != cells:
            raise CostRowError(
                f"notebooks/{relative}: its cost was not read: {ran} of its {cells} cells ran "
                "and passed under nbval in this run (fix those first, or run the whole notebook)"
            )
        row = expected_row(self.notebook, workshop_cost.recorded_usage(self.log))
        if row not in guide_rows():
            raise CostRowError(
                f"notebooks/{relative} measures\n  {row}\nwhich docs/workshop.md's cost table "
                "does not hold: put this row in place of the notebook's old one and correct the "
                "total row below it (python -m course_tools.workshop_tables rewrites every row, "
                "but executes every notebook to do it)"
            )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CostRowError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.parent.name}::{self.name}"


class CostRowError(AssertionError):
    pass


class CostRowsPlugin:
    """Adds a `CostRow` after each course notebook's cells; runs the recorder in its kernel."""

    NAME = "course-cost-rows"

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="course-cost-"))
        self.logs: dict[str, Path] = {}
        self.cells: dict[str, int] = {}
        self.passed: dict[str, int] = {}
        self.problems: dict[str, str] = {}

    # First, before `-k` and `-m` deselect tests: they deselect these too.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        last: dict[IPyNbFile, int] = {}
        for index, item in enumerate(items):
            if isinstance(item, IPyNbCell) and executor.is_course_notebook(Path(item.path)):
                last[item.parent] = index
        for notebook, index in sorted(last.items(), key=lambda pair: -pair[1]):
            self.cells[notebook.nodeid] = len(code_cells(Path(notebook.path)))
            log = self.folder / f"{len(self.logs)}-{Path(notebook.path).stem}.jsonl"
            self.logs[notebook.nodeid] = log
            items.insert(index + 1, CostRow.from_parent(notebook, name=NAME, log=log))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        result = yield
        notebook = item.parent if isinstance(item, IPyNbCell) else None
        log = self.logs.get(notebook.nodeid) if notebook is not None else None
        if log is not None and not log.exists():  # the notebook's first cell: its kernel is up
            if notebook.kernel is None:
                self.problems[notebook.nodeid] = "nbval started no kernel"
            else:
                failed = install_recorder(notebook.kernel, log)
                if failed:
                    self.problems[notebook.nodeid] = failed
        return result

    def pytest_unconfigure(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        parent = report.nodeid.rsplit("::", 1)[0]
        cell = not report.nodeid.endswith(f"::{NAME}")
        if parent in self.logs and cell and report.when == "call" and report.passed:
            self.passed[parent] = self.passed.get(parent, 0) + 1
