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
        """Skip blank exercise notebooks: they are stored unexecuted on purpose."""
        path = collection_path.resolve()
        blank = path.is_relative_to(executor.EXERCISES) and not (
            path == executor.EXERCISES or path.is_relative_to(executor.SOLUTIONS)
        )
        # None, not False, elsewhere: leave every other decision (norecursedirs...) to pytest.
        return True if blank else None

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


class _BalancedScopes(LoadScopeScheduling):
    """xdist's `loadscope`, except that each notebook run of the whole-course modules is a scope
    of its own.

    Scopes keep a module (or a notebook's nbval cells) on one worker. The live-path module and
    the every-model module run every notebook once and would otherwise keep one worker busy
    while the other waits.
    """

    SPLIT = ("tests/test_live_path.py::", "tests/test_every_model.py::")

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(self.SPLIT):
            return nodeid
        return super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log) -> LoadScopeScheduling | None:
    if config.getoption("dist") == "loadscope":
        return _BalancedScopes(config, log)
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Register the notebook hooks; find the sanitizer file from any working folder."""
    config.pluginmanager.register(CourseNotebooksPlugin(), "course-notebooks")
    sanitize = getattr(config.option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute():
        config.option.nbval_sanitize_with = str(config.rootpath / sanitize)


@pytest.fixture(scope="session")
def notebook_executor():
    """`course_tools.execute_notebooks` (execute, offline_environment...)."""
    return executor


@pytest.fixture
def layout(tmp_path):
    """A Sandbox on a project folder and, beside it, an 'outside' folder with a file that must
    not change (the security tests: tests/test_security.py, tests/test_hostile_corpus.py)."""
    from course_helpers.sandbox import Sandbox

    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("original\n")
    return Sandbox(project), project, outside
