"""Shared pytest set-up for the notebook checks.

- Which notebooks are the course: the same rule as `course_tools.execute_notebooks` (blank
  exercises are left out, solutions are in), for nbval collection and for the `notebook_path`
  parameter of the hygiene and promotion tests.
- nbval's kernels get the environment the stored outputs were made with (offline backend, no
  API credentials, `PYTHONHASHSEED=0`), so `make test` passes even on a machine with a key.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbval.kernel
import pytest
import suite_parts
from hypothesis import settings
from nbval.plugin import IPyNbCell
from temporary_folders import REMOVABLE_DEPTH, depth_of

from course_tools import execute_notebooks as executor

ROOT = Path(__file__).resolve().parents[1]

# A kernel that dies before its first reply (seen once in a full run; its cause is not visible,
# as nbval sends the kernel's stderr to /dev/null) is started once more. Only that error, only
# once: a second death, and every other failure or hang, is raised as it is. nbval's own function
# is taken from the wrapper if this file already ran: run twice in one namespace (a reload), the
# wrapper would otherwise call itself.
_start_new_kernel = getattr(
    nbval.kernel.start_new_kernel, "wraps_nbval", nbval.kernel.start_new_kernel
)


def _start_new_kernel_once_more(*args, **kwargs):
    try:
        return _start_new_kernel(*args, **kwargs)
    except RuntimeError as problem:
        if "Kernel died before replying" not in str(problem):
            raise
        return _start_new_kernel(*args, **kwargs)


_start_new_kernel_once_more.wraps_nbval = _start_new_kernel  # type: ignore[attr-defined]
nbval.kernel.start_new_kernel = _start_new_kernel_once_more


def notebook_id(path: Path) -> str:
    """A short readable test id: the path under notebooks/ without the suffix."""
    return path.relative_to(executor.NOTEBOOKS).with_suffix("").as_posix()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that asks for `notebook_path` once per course notebook (with
    `--notebooks=04`, once per course notebook whose file name starts with 04)."""
    if "notebook_path" in metafunc.fixturenames:
        prefix = metafunc.config.getoption("notebooks") or ""
        paths = [p for p in executor.course_notebooks() if p.name.startswith(prefix)]
        metafunc.parametrize("notebook_path", paths, ids=[notebook_id(p) for p in paths])


@pytest.fixture(scope="session")
def course_notebooks() -> list[Path]:
    """Every course notebook, sorted."""
    return executor.course_notebooks()


@contextmanager
def _offline_environ() -> Iterator[None]:
    """Temporarily give this process the offline environment (kernels copy it at start)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(executor.offline_environment(saved))
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


class CourseNotebooksPlugin:
    """Hooks for the notebooks/ tree.

    A conftest.py only sees its own folder, so these are registered as a global plugin instead.
    """

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        """Skip blank exercise notebooks (stored unexecuted on purpose) and the Russian edition
        (its code and outputs are the English ones: tests/test_translations.py checks that)."""
        path = collection_path.resolve()
        blank = path.is_relative_to(executor.EXERCISES) and not (
            path == executor.EXERCISES or path.is_relative_to(executor.SOLUTIONS)
        )
        russian = path.is_relative_to(executor.RUSSIAN)
        # None, not False, elsewhere: leave every other decision (norecursedirs...) to pytest.
        return True if blank or russian else None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        """nbval starts a notebook's kernel while setting up its first cell: do it offline."""
        if not isinstance(item, IPyNbCell):
            return (yield)
        with _offline_environ():
            return (yield)


# Property tests judge correctness, not speed: a loaded CI machine must not fail them on time.
settings.register_profile("course", deadline=None)
settings.load_profile("course")


# Seconds each test took in the last run (setup, call and teardown), kept in pytest's cache, so
# that the next run hands out the longest scopes first (tests/scheduling.py) and
# benchmarks/suite_parts.py can say where the time goes. A run of the whole suite also keeps its
# own seconds alone, under LAST_FULL_RUN_KEY (the merged ones keep tests that no longer exist).
DURATIONS_KEY = "course/durations"
LAST_FULL_RUN_KEY = "course/last-full-run"


def _recorded_durations(config: pytest.Config) -> dict[str, float]:
    cache = getattr(config, "cache", None)  # None with `-p no:cacheprovider`
    recorded = cache.get(DURATIONS_KEY, {}) if cache is not None else {}
    return recorded if isinstance(recorded, dict) else {}


class _DurationRecorder:
    """In the main process: each test's seconds, a line per part as it ends, a table at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = {}
        self.parts: dict[str, suite_parts.Part] = {}
        self.expected: dict[str, set[str]] = {}

    def collected(self, nodeids: list[str]) -> None:
        """The tests of the run (from the main process's collection, or a worker's)."""
        if self.expected:
            return  # every xdist worker reports the same collection
        for nodeid in nodeids:
            self.expected.setdefault(suite_parts.part_of(nodeid), set()).add(nodeid)
        self.parts = {
            name: suite_parts.Part(name, tests=len(self.expected[name]))
            for name, _ in suite_parts.PARTS
            if name in self.expected
        }
        if self.parts:
            listed = ", ".join(f"{part.name} ({part.tests})" for part in self.parts.values())
            self._say(f"parts of this run (tests): {listed}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:  # without xdist (with it, the workers collect)
            self.collected([item.nodeid for item in session.items])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        name = suite_parts.part_of(report.nodeid)
        part = self.parts.get(name)
        if part is None:
            return
        part.seconds += report.duration
        start, stop = getattr(report, "start", None), getattr(report, "stop", None)
        if start is not None and stop is not None:
            part.start = start if part.start is None else min(part.start, start)
            part.stop = stop if part.stop is None else max(part.stop, stop)
        if report.failed and report.nodeid not in part.failed_tests:
            part.failed_tests.add(report.nodeid)
            part.failed += 1
        if report.when == "teardown":
            part.done.add(report.nodeid)
            if part.done >= self.expected.get(name, set()):
                outcome = f", {part.failed} failed" if part.failed else ""
                self._say(
                    f"done: {part.name}: {part.tests} tests{outcome}, "
                    f"{part.seconds:.0f} worker-s, {part.wall:.0f} s from its first test to its last"
                )

    def _say(self, line: str) -> None:
        """A line of its own between the progress dots."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if reporter._tw.width_of_current_line:
            reporter._tw.line()
        reporter.write_line(line)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.parts:
            return
        terminalreporter.section("time per part")
        for line in suite_parts.table(self.parts.values(), with_wall=True):
            terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seconds:
            return
        cache.set(DURATIONS_KEY, {**_recorded_durations(self.config), **self.seconds})
        whole = self.config.args_source == pytest.Config.ArgsSource.TESTPATHS
        if whole and not session.config.option.keyword and not session.config.option.markexpr:
            cache.set(LAST_FULL_RUN_KEY, self.seconds)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """`--notebooks=PREFIX`; with `-p no:xdist` (one process), accept addopts' `-n` and `--dist`."""
    parser.addoption(
        "--notebooks",
        metavar="PREFIX",
        default=None,
        help="tests that run once per course notebook run only for the notebooks (lessons and "
        "solutions) whose file name starts with PREFIX (`make test NB=04` passes it)",
    )
    if not pluginmanager.has_plugin("xdist"):
        group = parser.getgroup("course", "without pytest-xdist")
        group._addoption(  # "-n" is reserved for plugins: xdist adds it the same way
            "-n",
            "--numprocesses",
            dest="numprocesses",
            default=None,
            help="ignored: pytest-xdist is not loaded (-p no:xdist)",
        )
        group._addoption(
            "--dist",
            dest="dist",
            default="no",
            help="ignored: pytest-xdist is not loaded (-p no:xdist)",
        )


def pytest_configure(config: pytest.Config) -> None:
    """Register the notebook hooks; find the sanitizer file from any working folder."""
    config.pluginmanager.register(CourseNotebooksPlugin(), "course-notebooks")
    if getattr(config.option, "nbval", False):  # the guide's cost rows, read from nbval's run
        from nbval_cost import CostRowsPlugin

        config.pluginmanager.register(CostRowsPlugin(), CostRowsPlugin.NAME)
    recorder = None
    if not hasattr(config, "workerinput"):  # the main process, not an xdist worker
        recorder = _DurationRecorder(config)
        config.pluginmanager.register(recorder, "course-durations")
    if config.pluginmanager.has_plugin("xdist"):
        from scheduling import XdistPlugin

        plugin = XdistPlugin(_recorded_durations(config), recorder)
        config.pluginmanager.register(plugin, "course-scheduling")
    sanitize = getattr(config.option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute():
        config.option.nbval_sanitize_with = str(config.rootpath / sanitize)


@pytest.fixture(autouse=True)
def _tmp_path_stays_removable(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves under its tmp_path a tree too deep for pytest to remove: a later
    run, of any suite, would end in a RecursionError (tests/temporary_folders.py says why)."""
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None:
        depth = depth_of(folder, stop_at=REMOVABLE_DEPTH + 1)
        assert depth <= REMOVABLE_DEPTH, (
            f"this test left more than {REMOVABLE_DEPTH} levels of folders under {folder}: "
            f"pytest's removal of old temporary folders (shutil.rmtree, a frame per level) would "
            f"end a later run in a RecursionError. Remove the tree with "
            f"temporary_folders.remove_tree, or keep it {REMOVABLE_DEPTH} levels deep at most."
        )


@pytest.fixture(scope="session")
def offline_environ():
    """The context manager that gives this process the environment nbval's kernels start in."""
    return _offline_environ


@pytest.fixture(scope="session")
def notebook_executor():
    """`course_tools.execute_notebooks` (execute, offline_environment...)."""
    return executor


@pytest.fixture
def layout(tmp_path):
    """A FileSandbox on a project folder and, beside it, an 'outside' folder with a file that must
    not change (the security tests: tests/test_security.py, tests/test_hostile_corpus.py)."""
    from course_helpers.plumbing.file_sandbox import FileSandbox

    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("original\n")
    return FileSandbox(project), project, outside
