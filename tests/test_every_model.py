"""Every notebook and every exercise solution runs top to bottom on each current model.

The course's models differ (see `course_helpers.offline.models.CATALOGUE`): the default
`claude-sonnet-5-5` thinks by default and refuses a forced `tool_choice`; `claude-haiku-5-5`
accepts it; `claude-opus-5-5` cannot turn thinking off. Three runs cover the three models:

- `claude-sonnet-5-5` (the default): nbval, which also compares every stored output;
- `claude-opus-5-5`: `tests/test_live_path.py`, against the served variant model;
- `claude-haiku-5-5`: here, against the offline course model with `COURSE_MODEL` set.

To stay cheap, this run does not start a Jupyter kernel per notebook: `tests/notebook_runner.py`
runs every code cell of each notebook, in order, in a fresh IPython shell (magics included), in
a fresh fork of one warmed-up process (so a fresh course model), in a temporary copy of
notebooks/. Outputs are not compared (nbval does that for the default model); any cell that
raises fails the test and is named.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_runner import NotebookRunner, problem

MODEL = "claude-haiku-5-5"


# Session scope: xdist hands these per-notebook tests out one by one, between other modules'
# tests, and a module-scoped runner would start again each time.
@pytest.fixture(scope="session")
def haiku_runner(
    notebook_executor, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NotebookRunner]:
    base = tmp_path_factory.mktemp("every-model")
    env = notebook_executor.offline_environment()
    env["COURSE_MODEL"] = MODEL
    runner = NotebookRunner(env, base)
    yield runner
    runner.close()


@pytest.mark.slow
def test_notebook_runs_on_another_model(notebook_path: Path, haiku_runner: NotebookRunner) -> None:
    failed = problem(haiku_runner.run(notebook_path))
    assert failed is None, f"{notebook_path.name} on {MODEL}, {failed}"
