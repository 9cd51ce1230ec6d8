"""Every notebook must survive a model that behaves differently from the course model.

Stored outputs are made with the offline course model. Learners with a key, or with a local
server, get a different model: more text, other wordings, extra turns. Here each notebook is run
(not compared) against the course model served on loopback in its *variant* mode, reached the
way a compatible server is reached (`ANTHROPIC_BASE_URL`, the real SDK over HTTP), and no cell
may raise.

It runs with `COURSE_MODEL` set to a current model other than the default, played by its own
rules (`claude-opus-5-5`: refuses a forced `tool_choice`, cannot turn thinking off). The default
model is covered by nbval, `claude-haiku-5-5` by `tests/test_every_model.py`.

The notebooks run in `tests/notebook_runner.py`'s runner process (one per pytest worker, a fresh
fork of it per notebook, in a temporary copy of the notebook's folder), not in a kernel each.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_runner import NotebookRunner, problem

from course_helpers.offline.serve import start_server

MODEL = "claude-opus-5-5"


def compatible_environment(executor, base_url: str) -> dict[str, str]:
    env = executor.offline_environment()
    env.pop("COURSE_BACKEND", None)
    env["ANTHROPIC_BASE_URL"] = base_url
    env["COURSE_MODEL"] = MODEL  # execute_notebooks removes it; set on purpose
    return env


# Session scope, for this server and the runner: xdist hands these per-notebook tests out one by
# one, between other modules' tests, and a module-scoped runner would start again each time.
@pytest.fixture(scope="session")
def variant_server():
    with start_server(variant=True) as server:
        yield server


@pytest.fixture(scope="session")
def variant_runner(
    variant_server, notebook_executor, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NotebookRunner]:
    base = tmp_path_factory.mktemp("live-path")
    env = compatible_environment(notebook_executor, variant_server.url)
    runner = NotebookRunner(env, base)
    yield runner
    runner.close()


@pytest.mark.slow
def test_notebook_runs_against_a_different_model(
    notebook_path: Path, variant_runner: NotebookRunner
) -> None:
    failed = problem(variant_runner.run(notebook_path))
    assert failed is None, f"{notebook_path.name} against the variant model ({MODEL}), {failed}"
