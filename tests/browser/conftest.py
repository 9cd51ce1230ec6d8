"""JupyterLab in headless Chromium: the fixtures of the browser tests.

Widgets (the loop stepper, the approval buttons) and the HTML transcript only exist in a real
front end, so these tests start JupyterLab, open a notebook in Chromium, run it through the UI
and click. What each worker of the run gets (pytest-xdist starts one of each per worker):

- `lab`: a JupyterLab server started directly with `subprocess.Popen` on 127.0.0.1, a free
  port and a random token. Its root folder is a temporary copy of notebooks/ with outputs
  stripped (a UI run never touches the repo), its Jupyter and IPython folders are temporary,
  the news pop-up is switched off, and it (and every kernel it starts) has the offline course
  backend forced and no ANTHROPIC_* variables.
- `browser`: Debian's Chromium driven by Playwright (`executable_path`, never a download).
- `lab_page`: a fresh browser page per test, with helpers to open a notebook, run all cells,
  wait for the kernel and take screenshots under test-results/browser/. After each test its
  kernels are shut down through the REST API.
- `module_page` / `named_page`: one page shared by the tests of a module, for checks that read
  the same expensive run (notebook 07's Run All); its kernels are shut down after the module.

At the end of the session, also when a test failed: every kernel is shut down through the REST
API, the server's process group and the browser are stopped, and a last check looks for any
process that still carries this run's marker variable (kernels, Chromium, the server). Any
survivor is killed and reported as an error.

Chromium missing: the tests are skipped with one line saying how to install it; with CI=true
they fail instead, because CI must run them.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "test-results" / "browser"
HERE = Path(__file__).resolve().parent

CHROMIUM_CANDIDATES = ("/usr/bin/chromium",)
MISSING_CHROMIUM = (
    "Chromium not found: install it (sudo apt-get install chromium) to run the browser tests"
)
MISSING_PLAYWRIGHT = (
    "Playwright for Python not importable: `make test` installs it (requirements-test.txt); "
    "it is needed to run the browser tests"
)
# The launch arguments seen to work with Debian's chromium, headless, as root, offline.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
WIDTHS = (1280, 800)
HEIGHT = 900
MARKER_VARIABLE = "COURSE_BROWSER_RUN"  # every process this run starts carries it
SERVER_START_TIMEOUT = 60.0
KERNEL_TIMEOUT = 60.0
RUN_TIMEOUT = 90.0

# JupyterLab settings for the run: no news or update pop-up, every cell rendered (JupyterLab 4
# only renders visible cells by default), no autosave writing into the temporary copy mid-run.
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {
        "checkForUpdates": False,
        "fetchNews": "false",
    },
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
}


# ── when Chromium is missing ──────────────────────────────────────────────────────────────


def in_ci() -> bool:
    """True on CI (`.ci/run` exports CI=true), where a missing browser must fail."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def find_chromium() -> str | None:
    """Debian's chromium binary, or None."""
    for candidate in (*CHROMIUM_CANDIDATES, shutil.which("chromium")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None if they can."""
    if find_chromium() is None:
        return MISSING_CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return MISSING_PLAYWRIGHT
    return None


def _is_browser_test(item: pytest.Item) -> bool:
    return Path(str(item.path)).resolve().is_relative_to(HERE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test here `browser` (so `-m "not browser"` leaves them out)."""
    for item in items:
        if _is_browser_test(item):
            item.add_marker(pytest.mark.browser)


def skip_without_browser() -> None:
    """Called at the top of every test module: skip it if Chromium (or Playwright) is missing.

    Every module skips from this one line with the same reason, so `-rs` (in addopts) folds
    them into a single line. With CI=true nothing is skipped: the `browser` fixture fails.
    """
    reason = _missing()
    if reason is not None and not in_ci():
        pytest.skip(reason, allow_module_level=True)


# ── processes of the run ──────────────────────────────────────────────────────────────────


def _processes_with(marker: str) -> list[int]:
    """Ids of live processes whose environment holds MARKER_VARIABLE=marker (Linux /proc)."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in {"Z", "X"}:  # a zombie is already dead, only not yet reaped
            found.append(int(entry.name))
    return found


def _kill_marked(marker: str) -> None:
    """Last resort at interpreter exit (e.g. after Ctrl-C skipped the teardown)."""
    if Path("/proc/self/environ").exists():
        for pid in _processes_with(marker):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


# Package scope, not session: the server, Chromium and Playwright's event loop stop as soon as
# the last browser test of this worker is done, so tests that run after them on the same xdist
# worker (nbval, asyncio clients) are not disturbed.
@pytest.fixture(scope="package")
def run_marker() -> Iterator[str]:
    """A value unique to this worker's run; checked for survivors once everything stopped."""
    marker = secrets.token_hex(8)
    atexit.register(_kill_marked, marker)
    yield marker
    if not Path("/proc/self/environ").exists():
        return  # not Linux: nothing to scan
    deadline = time.monotonic() + 5
    survivors = _processes_with(marker)
    while survivors and time.monotonic() < deadline:
        time.sleep(0.2)
        survivors = _processes_with(marker)
    if survivors:
        for pid in survivors:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        pytest.fail(f"processes of the browser run still alive after teardown: {survivors}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _strip_outputs(folder: Path) -> None:
    """Remove stored outputs and execution counts, so all the page shows comes from this run."""
    for path in folder.rglob("*.ipynb"):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "code":
                cell["outputs"], cell["execution_count"] = [], None
        nb.get("metadata", {}).pop("widgets", None)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def server_environment(base: dict[str, str], home: Path, marker: str) -> dict[str, str]:
    """The server's (and so every kernel's) environment: offline, isolated, marked."""
    dropped = ("ANTHROPIC_", "COURSE_", "JUPYTER", "IPYTHON")
    env = {key: value for key, value in base.items() if not key.startswith(dropped)}
    env.update(
        COURSE_BACKEND="offline",
        PYTHONHASHSEED="0",
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        IPYTHONDIR=str(home / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        PYTHONUNBUFFERED="1",
    )
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env[MARKER_VARIABLE] = marker
    return env


@dataclass
class Lab:
    """A running JupyterLab server and what a test needs to reach it."""

    url: str
    token: str
    root: Path
    process: subprocess.Popen
    log: Path
    notebooks: list[str] = field(default_factory=list)

    def api(self, method: str, path: str, timeout: float = 10.0) -> Any:
        """Call the REST API with the token; return the decoded JSON (or None)."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            body = reply.read()
        return json.loads(body) if body else None

    def page_url(self, notebook: str) -> str:
        """The address that opens `notebook` (a path under the root) in JupyterLab.

        `reset` starts from the default layout: the workspace the server saved for an earlier
        test (its open tabs, a sidebar widened at another viewport width) is not restored.
        """
        quoted = urllib.parse.quote(notebook)
        return f"{self.url}/lab/tree/{quoted}?reset&token={self.token}"

    def kernel_ids(self) -> list[str]:
        return [kernel["id"] for kernel in self.api("GET", "/api/kernels")]

    def shutdown_kernels(self) -> None:
        """Close every session and shut every kernel down, then wait until none is listed."""
        with contextlib.suppress(urllib.error.URLError, OSError):
            for session in self.api("GET", "/api/sessions"):
                with contextlib.suppress(urllib.error.HTTPError):
                    self.api("DELETE", f"/api/sessions/{session['id']}")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                ids = self.kernel_ids()
            except (urllib.error.URLError, OSError):
                return  # the server is gone; the process-group stop deals with the rest
            if not ids:
                return
            for kernel_id in ids:
                with contextlib.suppress(urllib.error.HTTPError, urllib.error.URLError, OSError):
                    self.api("DELETE", f"/api/kernels/{kernel_id}", timeout=15)
            time.sleep(0.2)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"


def _stop_group(process: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process group `process` leads, then SIGKILL whatever is left."""
    try:
        pgid = os.getpgid(process.pid)
    except ProcessLookupError:
        pgid = None
    if pgid is not None and pgid == process.pid:  # never signal the group of pytest itself
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
    elif process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    if pgid is not None and pgid == process.pid:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    if process.poll() is None:
        process.kill()
    process.wait(timeout=grace)


def _wait_ready(lab: Lab) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            raise RuntimeError(
                f"JupyterLab exited with code {lab.process.returncode}:\n{lab.log_tail()}"
            )
        try:
            lab.api("GET", "/api/status", timeout=2)
            return
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(0.2)
    raise RuntimeError(
        f"JupyterLab did not answer in {SERVER_START_TIMEOUT:.0f} s:\n{lab.log_tail()}"
    )


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="package")
def results_dir() -> Path:
    """test-results/browser/ (gitignored): screenshots and the server log."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    return RESULTS


@pytest.fixture(scope="package")
def lab(
    tmp_path_factory: pytest.TempPathFactory, run_marker: str, results_dir: Path
) -> Iterator[Lab]:
    """A JupyterLab server for this worker, stopped with all its kernels at the end."""
    home = tmp_path_factory.mktemp("jupyterlab")
    root = home / "notebooks"
    shutil.copytree(
        NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )
    _strip_outputs(root)
    settings = home / "lab-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=2))
    for name in ("config", "data", "runtime", "ipython"):
        (home / name).mkdir()

    port, token = _free_port(), secrets.token_hex(24)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.app_settings_dir={settings}",
        "--LabApp.expose_app_in_browser=True",
        "--ServerApp.terminals_enabled=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # CI runs as root; JupyterLab refuses without it
    log = results_dir / f"jupyterlab-{_worker()}.log"
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=server_environment(dict(os.environ), home, run_marker),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as a whole
        )
    server = Lab(f"http://127.0.0.1:{port}", token, root, process, log)
    try:
        _wait_ready(server)
        yield server
    finally:
        try:
            if process.poll() is None:
                server.shutdown_kernels()
        finally:
            _stop_group(process)


@pytest.fixture(scope="package")
def browser(run_marker: str) -> Iterator[Any]:
    """Headless Debian Chromium through Playwright; closed at the end even on failure."""
    reason = _missing()
    if reason is not None:  # reached only on CI: elsewhere _browser_available skipped first
        pytest.fail(f"{reason} (CI=true: the browser tests are mandatory)", pytrace=False)
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(),
            headless=True,
            args=LAUNCH_ARGS,
            env={**os.environ, MARKER_VARIABLE: run_marker},
        )
    except BaseException:
        playwright.stop()
        raise
    try:
        yield chromium
    finally:
        try:
            chromium.close()
        finally:
            playwright.stop()


# ── one page per test ─────────────────────────────────────────────────────────────────────

_NOTEBOOK_STATE = """
(upto) => {
  const app = window.jupyterapp;
  const panel = app && app.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model || !panel.sessionContext) return null;
  const cells = panel.content.model.cells;
  let code = 0, pending = 0, running = 0;
  const errors = [];
  const last = upto === null || upto === undefined ? cells.length - 1 : upto;
  for (let i = 0; i <= last; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    code += 1;
    if (cell.executionCount === null) pending += 1;
    if (cell.executionState === 'running') running += 1;
    for (const output of cell.outputs.toJSON()) {
      if (output.output_type === 'error') errors.push(`cell ${i}: ${output.ename}: ${output.evalue}`);
    }
  }
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return {
    path: panel.context.path, code, pending, running, errors,
    kernel: kernel ? kernel.status : 'none',
    busyPrompts: [...panel.node.querySelectorAll('.jp-InputPrompt')]
      .filter((prompt) => prompt.textContent.includes('*')).length,
  };
}
"""


@dataclass
class LabPage:
    """A Playwright page on the lab, with the few actions the tests need."""

    page: Any
    lab: Lab
    name: str
    results: Path
    shots: list[Path] = field(default_factory=list)

    def open(self, notebook: str) -> None:
        """Open `notebook` and wait until its kernel is idle."""
        self.page.goto(self.lab.page_url(notebook), wait_until="domcontentloaded")
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell", timeout=KERNEL_TIMEOUT * 1000
        )
        self.page.evaluate("async () => { await window.jupyterapp.restored; }")
        self.page.wait_for_function(
            """(path) => {
              const panel = window.jupyterapp.shell.currentWidget;
              if (!panel || !panel.context || panel.context.path !== path) return false;
              const session = panel.sessionContext && panel.sessionContext.session;
              return !!(session && session.kernel && session.kernel.status === 'idle');
            }""",
            arg=notebook,
            timeout=KERNEL_TIMEOUT * 1000,
        )

    def execute(self, command: str, timeout: float = RUN_TIMEOUT) -> None:
        """Run a JupyterLab command and wait (at most `timeout`) for its promise."""
        outcome = self.page.evaluate(
            """async ([command, ms]) => {
              const run = window.jupyterapp.commands.execute(command).then(() => 'done');
              const limit = new Promise((resolve) => setTimeout(() => resolve('timeout'), ms));
              return await Promise.race([run, limit]);
            }""",
            [command, int(timeout * 1000)],
        )
        assert outcome == "done", f"{command} did not finish in {timeout:.0f} s"

    def wait_executed(self, upto: int | None = None) -> dict:
        """Wait until the code cells (up to index `upto`) ran and the kernel is idle."""
        deadline = time.monotonic() + RUN_TIMEOUT
        state: dict = {}
        while time.monotonic() < deadline:
            state = self.page.evaluate(_NOTEBOOK_STATE, upto) or {}
            if state.get("errors"):
                break
            done = state.get("code") and not state["pending"] and not state["running"]
            if done and state["kernel"] == "idle" and not state["busyPrompts"]:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the notebook did not finish in {RUN_TIMEOUT:.0f} s: {state}")
        assert not state["errors"], f"cells raised in the browser run: {state['errors']}"
        return state

    def run_all(self) -> dict:
        """Run every cell through the UI (Run > Run All Cells) and wait for the end."""
        self.execute("notebook:run-all-cells")
        return self.wait_executed()

    def run_through(self, index: int) -> dict:
        """Run the cells above cell `index`, then that cell (what a learner does by hand)."""
        self.select(index)
        self.execute("notebook:run-all-above")
        self.select(index)
        self.execute("notebook:run-cell")
        return self.wait_executed(upto=index)

    def select(self, index: int) -> None:
        self.page.evaluate(
            """(index) => {
              const notebook = window.jupyterapp.shell.currentWidget.content;
              notebook.activeCellIndex = index;
              notebook.deselectAll();
            }""",
            index,
        )

    def find_cell(self, predicate: str) -> int:
        """Index of the first cell whose source `predicate` (a JS function) accepts, or -1."""
        return self.page.evaluate(
            f"""() => {{
              const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
              const accept = {predicate};
              for (let i = 0; i < cells.length; i++) {{
                const cell = cells.get(i);
                if (accept(cell.sharedModel.getSource(), cell.type)) return i;
              }}
              return -1;
            }}"""
        )

    def cell(self, index: int) -> Any:
        """The locator of cell `index` (tagged through the notebook widget, not by position)."""
        self.page.evaluate(
            """(index) => {
              const cell = window.jupyterapp.shell.currentWidget.content.widgets[index];
              cell.node.setAttribute('data-browser-test-cell', String(index));
            }""",
            index,
        )
        return self.page.locator(f"[data-browser-test-cell='{index}']")

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Wait for the kernel to go idle (after a widget click ran code)."""
        self.page.wait_for_function(
            """() => {
              const panel = window.jupyterapp.shell.currentWidget;
              const s = panel.sessionContext.session;
              return s && s.kernel && s.kernel.status === 'idle';
            }""",
            timeout=timeout * 1000,
        )

    def screenshot(self, step: str, target: Any = None, widths: tuple[int, ...] = WIDTHS) -> None:
        """Save a viewport screenshot per width, with `target` (a locator) scrolled into view."""
        for width in widths:
            self.page.set_viewport_size({"width": width, "height": HEIGHT})
            self.page.wait_for_timeout(150)  # let JupyterLab relayout
            if target is not None:
                target.scroll_into_view_if_needed()
            path = self.results / f"{self.name}-{step}-{width}.png"
            self.page.screenshot(path=str(path))
            self.shots.append(path)
        self.page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})


@pytest.fixture(scope="module")
def module_page(lab: Lab, browser: Any, results_dir: Path, request: pytest.FixtureRequest):
    """One page for every test of a module (they share what is open in it, and its kernel):
    for tests that check several things after one expensive run. Each test renames it with
    `named_page`, so its screenshots carry the test's name."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT})
    page = context.new_page()
    page.set_default_timeout(30_000)
    helper = LabPage(page, lab, request.module.__name__.rsplit(".", 1)[-1], results_dir)
    try:
        yield helper
    finally:
        try:
            context.close()
        finally:
            lab.shutdown_kernels()


@pytest.fixture
def named_page(module_page: LabPage, results_dir: Path, request: pytest.FixtureRequest):
    """The module's page, its screenshots named after this test; a failure is screenshot too."""
    name = request.node.name.replace("[", "-").replace("]", "").replace("/", "_")
    for stale in results_dir.glob(f"{name}-*.png"):
        stale.unlink()
    module_page.name, module_page.shots = name, []
    yield module_page
    if request.node.stash.get(_FAILED, False):
        with contextlib.suppress(Exception):
            module_page.page.screenshot(path=str(results_dir / f"{name}-FAILED.png"))


@pytest.fixture
def lab_page(lab: Lab, browser: Any, results_dir: Path, request: pytest.FixtureRequest):
    """A fresh page at 1280 px; afterwards the page is closed and its kernels shut down."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT})
    page = context.new_page()
    page.set_default_timeout(30_000)
    name = request.node.name.replace("[", "-").replace("]", "").replace("/", "_")
    for stale in results_dir.glob(f"{name}-*.png"):
        stale.unlink()  # screenshots of an earlier run of this test
    helper = LabPage(page, lab, name, results_dir)
    try:
        yield helper
    finally:
        try:
            if request.node.stash.get(_FAILED, False):
                with contextlib.suppress(Exception):
                    page.screenshot(path=str(results_dir / f"{name}-FAILED.png"))
            context.close()
        finally:
            lab.shutdown_kernels()


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Remember a failed call, so the page fixture saves a screenshot of the failure."""
    report = yield
    if report.when == "call" and report.failed:
        item.stash[_FAILED] = True
    return report


def write_notebook(lab: Lab, name: str, cells: list[str]) -> str:
    """Write a scratch notebook of code cells into the lab's root; return its path there."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, lab.root / name)
    return name
