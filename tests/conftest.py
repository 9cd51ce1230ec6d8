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

import pytest
from hypothesis import settings
from nbval.plugin import IPyNbCell
from xdist.scheduler import LoadScopeScheduling

from course_tools import execute_notebooks as executor

ROOT = Path(__file__).resolve().parents[1]


def notebook_id(path: Path) -> str:
    """A short readable test id: the path under notebooks/ without the suffix."""
    return path.relative_to(executor.NOTEBOOKS).with_suffix("").as_posix()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that asks for `notebook_path` once per course notebook."""
    if "notebook_path" in metafunc.fixturenames:
        paths = executor.course_notebooks()
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
# that the next run hands out the longest scopes first.
DURATIONS_KEY = "course/durations"
# Before any run was recorded: a browser test takes tens of seconds, most others much less.
GUESSED_SECONDS = {"tests/browser/": 30.0}
DEFAULT_SECONDS = 0.5


class _BalancedScopes(LoadScopeScheduling):
    """xdist's `loadscope`, with scopes cut and handed out so that both workers end together.

    Scopes keep a module (or a notebook's nbval cells) on one worker. Here:
    - each notebook run of the whole-course modules is a scope of its own: the live-path module
      and the every-model module run every notebook once and would otherwise keep one worker
      busy while the other waits;
    - the browser tests are one scope: they share one JupyterLab server and one Chromium per
      worker (package fixtures), started once instead of once per worker;
    - the longest scopes go out first (as measured in the last run, else guessed), so the last
      ones to run are short and neither worker is left alone with a long one at the end.
    """

    SPLIT = (
        "tests/test_live_path.py::",
        "tests/test_every_model.py::",
        "tests/test_reluctant_model.py::",
    )
    TOGETHER = ("tests/browser/",)

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(self.SPLIT):
            return nodeid
        for folder in self.TOGETHER:
            if nodeid.startswith(folder):
                return folder
        return super()._split_scope(nodeid)

    def _assign_work_unit(self, node) -> None:
        if not getattr(self, "_ordered", False):
            self._ordered = True
            known = _recorded_durations(self.config)

            def seconds(nodeid: str) -> float:
                if nodeid in known:
                    return known[nodeid]
                guesses = (t for p, t in GUESSED_SECONDS.items() if nodeid.startswith(p))
                return next(guesses, DEFAULT_SECONDS)

            scopes = sorted(self.workqueue.items(), key=lambda item: -sum(map(seconds, item[1])))
            self.workqueue.clear()
            self.workqueue.update(scopes)
        super()._assign_work_unit(node)


def _recorded_durations(config: pytest.Config) -> dict[str, float]:
    cache = getattr(config, "cache", None)  # None with `-p no:cacheprovider`
    recorded = cache.get(DURATIONS_KEY, {}) if cache is not None else {}
    return recorded if isinstance(recorded, dict) else {}


class _DurationRecorder:
    """Adds up each test's durations in the main process; saves them at the end of the run."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is not None and self.seconds:
            cache.set(DURATIONS_KEY, {**_recorded_durations(self.config), **self.seconds})


def pytest_xdist_make_scheduler(config: pytest.Config, log) -> LoadScopeScheduling | None:
    if config.getoption("dist") == "loadscope":
        return _BalancedScopes(config, log)
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Register the notebook hooks; find the sanitizer file from any working folder."""
    config.pluginmanager.register(CourseNotebooksPlugin(), "course-notebooks")
    if not hasattr(config, "workerinput"):  # the main process, not an xdist worker
        config.pluginmanager.register(_DurationRecorder(config), "course-durations")
    sanitize = getattr(config.option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute():
        config.option.nbval_sanitize_with = str(config.rootpath / sanitize)


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
