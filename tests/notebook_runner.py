"""Run course notebooks top to bottom without starting a Jupyter kernel for each one.

`tests/test_every_model.py` and `tests/test_live_path.py` run every notebook once more, on
another model; nbval already runs each one in a real kernel and compares its outputs. Starting a
kernel and importing the SDK costs seconds of CPU per notebook, so these two runs use one
*runner* process per pytest worker instead:

- one *root* process per pytest worker imports the heavy third-party modules once (the SDK,
  IPython, pydantic, matplotlib, ipywidgets: most of a start's seconds), then waits for
  requests on stdin (one JSON line each);
- each `NotebookRunner` (one per environment a test chose: model, backend or server address)
  is a fork of the root, in a process group of its own, that takes that environment, imports
  the course modules the notebooks import, and serves that runner's notebooks (the root passes
  the requests on); `close()` stops that group only;
- for each notebook the runner forks: the child is a fresh copy of that warmed-up process
  (nothing a previous notebook did is left), chdirs into a temporary copy of the notebook's
  folder, and runs every code cell in order in a fresh IPython shell (magics included), as a
  kernel does;
- a cell fails if it raises or if IPython shows a traceback while it runs (an error while
  displaying a result, for instance), exactly what a kernel reports as an `error` output and
  nbclient turns into a failure;
- the child's own stdout and stderr (and those of the processes it starts) go to a log file in
  the temporary folder; the result comes back on a pipe of its own; the child then runs the
  notebook's clean-ups (atexit handlers, temporary folders) and exits; what it left running is
  stopped with the runner's process group at the end. A runner that times out takes the root
  down with it (the next runner starts a new root).

`tests/test_exercises.py` also runs the blank exercise notebooks here, every cell even after an
error, and gets each cell's printed text and error outputs as a kernel would send them.
Outputs are otherwise not compared (nbval does that for the default model).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

RUNNER = Path(__file__).resolve()
READY = "runner ready"
# What a kernel makes of matplotlib: figures are shown as images (ipykernel sets the same).
KERNEL_ENVIRONMENT = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}
NOTEBOOKS = RUNNER.parents[1] / "notebooks"
# Imported once in the runner, before any fork, with the course modules the notebooks import.
# None of them hooks into IPython at import (matplotlib's inline backend, which does, is loaded
# by the first figure, in the child, where the shell exists).
WARM_MODULES = (
    "anthropic",
    "IPython.core.interactiveshell",
    "ipywidgets",
    "matplotlib.pyplot",
    "pydantic",
)
COURSE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(course_helpers(?:\.\w+)*)", re.MULTILINE)


class _Root:
    """The root process of this pytest worker (see the module docstring), started on first use."""

    current: _Root | None = None

    def __init__(self, start_timeout: float) -> None:
        import tempfile

        self.home = Path(tempfile.mkdtemp(prefix="notebook-runner-"))
        self.log = self.home / "root.log"
        self.profiles = 0
        self.runners: list[int] = []  # process ids (and groups) of its runners
        # matplotlib reads these when imported (in the root): its backend and its cache folder.
        environment = {**os.environ, **KERNEL_ENVIRONMENT, "MPLCONFIGDIR": str(self.home)}
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(RUNNER)],
                env=environment,
                cwd=self.home,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # its own process group: stop() can stop it all
            )
        line = self.read_line(start_timeout)
        if line != READY:
            self.stop()
            raise RuntimeError(f"the notebook runner did not start: {line!r}\n{self.log_tail()}")

    @classmethod
    def get(cls, start_timeout: float) -> _Root:
        if cls.current is None or cls.current.process.poll() is not None:
            cls.current = cls(start_timeout)
            atexit.register(cls.current.stop)
        return cls.current

    def send(self, request: dict) -> None:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    def read_line(self, timeout: float) -> str | None:
        """The root's next line on stdout; None if none came within `timeout` seconds."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                return None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the notebook runner stopped:\n{self.log_tail()}")
        return line.rstrip("\n")

    def stop(self) -> None:
        """End the root, every runner and anything they left running."""
        if _Root.current is self:
            _Root.current = None
        for pid in self.runners:  # each runner is a process group of its own
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        self.process.stdout.close()
        shutil.rmtree(self.home, ignore_errors=True)

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return "(no log)"


class NotebookRunner:
    """A runner (seen from the test): `run()` one notebook at a time, `close()` at the end."""

    def __init__(self, env: dict[str, str], base: Path, start_timeout: float = 120) -> None:
        self.base = base
        self.log = base / "runner.log"
        self._count = 0
        self.root = _Root.get(start_timeout)
        self.root.profiles += 1
        self.profile = self.root.profiles
        # IPython and matplotlib keep their state in the temporary folder, never in $HOME.
        home = {"IPYTHONDIR": str(base / "ipython"), "MPLCONFIGDIR": str(base / "matplotlib")}
        environment = {**KERNEL_ENVIRONMENT, **env, **home}
        start = {"profile": self.profile, "env": environment, "base": str(base)}
        self.root.send({**start, "log": str(self.log)})
        line = self._read_line(start_timeout)
        if line != READY:
            self.close()
            raise RuntimeError(f"the notebook runner did not start: {line!r}\n{self._log_tail()}")
        self.pid = int((base / "runner.pid").read_text())
        self.root.runners.append(self.pid)

    def run(self, notebook: Path, *, keep_going: bool = False, timeout: float = 600) -> dict:
        """Run `notebook` in a copy of its folder; see `run_cells` for what comes back."""
        self._count += 1
        folder = self.base / f"run-{self._count}" / notebook.parent.name
        request = {"notebook": str(notebook), "folder": str(folder), "keep_going": keep_going}
        self.root.send({"profile": self.profile, **request})
        line = self._read_line(timeout)
        if line is None:
            self.root.stop()  # a notebook still running: nothing else can use the root
            raise TimeoutError(f"{notebook.name} did not finish in {timeout:g} s")
        return json.loads(line)

    def close(self) -> None:
        """End this runner and anything it left running (its process group)."""
        if self.root.process.poll() is None:
            try:
                self.root.send({"profile": self.profile, "close": True})
                if self.root.read_line(60) is None:
                    self.root.stop()
            except (OSError, RuntimeError):
                self.root.stop()
        if getattr(self, "pid", None) in self.root.runners:
            self.root.runners.remove(self.pid)

    def _read_line(self, timeout: float) -> str | None:
        try:
            return self.root.read_line(timeout)
        except RuntimeError as stopped:
            raise RuntimeError(f"{stopped}\n{self._log_tail()}") from None

    def _log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return "(no log)"


def problem(outcome: dict) -> str | None:
    """What went wrong in a run (the failing cell, its error and traceback), or None."""
    failure = outcome["failure"]
    if failure is not None:
        return f"cell {failure['cell']}: {failure['error']}\n{failure['detail'][-3000:]}"
    if outcome["cells"] == 0:
        return "no code cell ran"
    return None


# --------------------------------------------------------------------------- the runner process


def cells_of(notebook: Path) -> list[dict]:
    """The cells of a notebook file, read as JSON: nbformat would import jsonschema (slow), which
    a kernel never does."""
    with open(notebook, encoding="utf-8") as file:
        return json.load(file)["cells"]


def source_of(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def run_cells(notebook: Path, keep_going: bool = False) -> dict:
    """Run the notebook's code cells in order in a fresh IPython shell (in this process).

    Stop at the first failing cell, unless `keep_going`: then every cell runs (nbclient's
    `allow_errors`) and the result also lists each code cell's outputs as a kernel sends them:
    what it printed, and its errors (name, value, the traceback lines IPython shows).
    """
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    errors: list[dict] = []

    def record(etype, evalue, stb):
        """Every traceback IPython shows: a kernel sends it as an error output, not as printed
        text (ipykernel's `_showtraceback`, with the same three fields)."""
        errors.append({"ename": etype.__name__, "evalue": str(evalue), "traceback": stb})

    shell._showtraceback = record
    # Results and displays are outputs of their own in a kernel, not printed text.
    shell.displayhook.write_output_prompt = lambda: None
    shell.displayhook.write_format_data = lambda format_dict, md_dict=None: None
    shell.display_pub.publish = lambda *args, **kwargs: None
    shell.display_pub.clear_output = lambda *args, **kwargs: None

    cells, outputs = 0, []
    for index, cell in enumerate(cells_of(notebook)):
        if cell["cell_type"] != "code":
            continue
        cells += 1
        errors.clear()
        printed, warned = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(warned):
            result = shell.run_cell(source_of(cell), store_history=True)
        outputs.append(
            {
                "cell": index,
                "stdout": printed.getvalue(),
                "stderr": warned.getvalue(),
                "errors": list(errors),
            }
        )
        if (errors or not result.success) and not keep_going:
            error = result.error_in_exec or result.error_before_exec
            what = f"{type(error).__name__}: {error}" if error else "a traceback was shown"
            shown = shell.InteractiveTB.stb2text(errors[0]["traceback"]) if errors else ""
            detail = re.sub(r"\x1b\[[0-9;]*m", "", shown)  # without the colours
            return {"cells": cells, "failure": {"cell": index, "error": what, "detail": detail}}
    return {"cells": cells, "failure": None, "outputs": outputs if keep_going else None}


def run_in_child(notebook: Path, folder: Path, keep_going: bool, answer: int) -> None:
    """In the forked child: run the notebook in `folder`, write the result to `answer`, exit."""
    status = 0
    try:
        folder.parent.mkdir(parents=True)
        shutil.copytree(notebook.parent, folder, ignore=shutil.ignore_patterns("*.ipynb"))
        # No input: a cell reading stdin fails (under nbclient too), and neither it nor a command
        # it starts can read the runner's requests.
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's stdin until it exits
        log = os.open(folder.parent / "output.log", os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.chdir(folder)
        outcome = run_cells(notebook, keep_going)
    except BaseException as error:  # reported to the test, whatever it is
        status = 1
        outcome = {
            "cells": 0,
            "failure": {
                "cell": None,
                "error": f"the runner failed: {type(error).__name__}: {error}",
                "detail": traceback.format_exc(),
            },
        }
    with os.fdopen(answer, "w") as channel:
        channel.write(json.dumps(outcome))
    # The notebook's clean-ups run (atexit handlers, which include weakref finalizers such as
    # TemporaryDirectory's), then the child ends without tearing down every module it shares
    # with the runner (copying those pages is the slowest part of a fork's life).
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def serve_notebooks(requests, answers) -> None:
    """A runner's loop: fork one child per notebook read from `requests`, answer each."""
    for line in requests:
        request = json.loads(line)
        if request.get("close"):
            return
        reading, writing = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(reading)
            notebook, folder = Path(request["notebook"]), Path(request["folder"])
            run_in_child(notebook, folder, request.get("keep_going", False), writing)
        os.close(writing)
        with os.fdopen(reading) as channel:
            text = channel.read()
        _, status = os.waitpid(pid, 0)
        try:
            outcome = json.loads(text)
        except ValueError:
            code = os.waitstatus_to_exitcode(status)
            outcome = {
                "cells": 0,
                "failure": {"cell": None, "error": f"the child exited with {code}", "detail": ""},
            }
        outcome["seconds"] = round(time.monotonic() - started, 2)
        answers.write(json.dumps(outcome) + "\n")
        answers.flush()


def start_runner(request: dict, inherited: list[int]) -> tuple[int, object, object]:
    """Fork a runner for one environment; (its pid, its request pipe, its answer pipe).
    `inherited`: file descriptors of the other runners, closed in the new one."""
    request_end, root_writes = os.pipe()  # (read, write): the root writes, the runner reads
    root_reads, answer_end = os.pipe()  # the runner writes, the root reads
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(root_writes)
        os.close(root_reads)
        try:
            for fd in inherited:  # the other runners' pipes stay theirs
                os.close(fd)
            os.setsid()  # a process group of its own: closing it stops what its notebooks left
            Path(request["base"], "runner.pid").write_text(str(os.getpid()))
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["base"])
            log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(log, 1)  # the root's stdout is the root's
            os.dup2(log, 2)
            os.close(log)
            requests, answers = os.fdopen(request_end), os.fdopen(answer_end, "w")
            warm_up(course_modules())
            answers.write(READY + "\n")
            answers.flush()
            serve_notebooks(requests, answers)
        except BaseException:  # noqa: BLE001 - said in the runner's log, then the runner ends
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(0)
    os.close(request_end)
    os.close(answer_end)
    return pid, os.fdopen(root_writes, "w"), os.fdopen(root_reads)


def course_modules() -> list[str]:
    """Every course_helpers module some notebook imports."""
    found = {
        name
        for path in NOTEBOOKS.rglob("*.ipynb")
        for cell in cells_of(path)
        if cell["cell_type"] == "code"
        for name in COURSE_IMPORT.findall(source_of(cell))
    }
    return sorted(found)


def warm_up(names) -> None:
    for name in names:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - the notebook importing it will report the error
            pass
    gc.freeze()  # what was imported stays out of the children's garbage collections


def serve() -> None:
    """The root's loop: warm up, then start runners and pass each one its requests."""
    # Run as a script, Python put tests/ first on sys.path; a kernel has its working folder.
    sys.path[0] = ""
    warm_up(WARM_MODULES)
    print(READY, flush=True)
    runners: dict[int, tuple[int, object, object]] = {}
    try:
        for line in sys.stdin:
            request = json.loads(line)
            profile = request["profile"]
            if "env" in request:
                others = [f.fileno() for _, *pipes in runners.values() for f in pipes]
                runners[profile] = pid, requests, answers = start_runner(request, others)
            else:
                pid, requests, answers = runners[profile]
                requests.write(line)
                requests.flush()
            if request.get("close"):
                requests.close()
                answers.close()
                os.waitpid(pid, 0)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)  # what its notebooks left running
                del runners[profile]
                print(json.dumps({"closed": profile}), flush=True)
                continue
            answer = answers.readline()
            if not answer:  # the runner died: said in its log
                os.waitpid(pid, 0)
                error = {"cell": None, "error": "the notebook runner stopped", "detail": ""}
                answer = json.dumps({"cells": 0, "failure": error}) + "\n"
            sys.stdout.write(answer)
            sys.stdout.flush()
    finally:
        for pid, _, _ in runners.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


if __name__ == "__main__":
    serve()
