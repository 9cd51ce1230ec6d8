"""Every notebook must survive a model that behaves differently from the course model.

Stored outputs are made with the offline course model. Learners with a key, or with a local
server, get a different model: more text, other wordings, extra turns. Here each notebook is run
(not compared) against the course model served on loopback in its *variant* mode, reached the
way a compatible server is reached (`ANTHROPIC_BASE_URL`), and no cell may raise.

It runs with `COURSE_MODEL` set to a current model other than the default, played by its own
rules (`claude-opus-5-5`: refuses a forced `tool_choice`, cannot turn thinking off). The default
model is covered by nbval, `claude-haiku-5-5` by `tests/test_every_model.py`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from course_helpers.offline.serve import start_server


@pytest.fixture(scope="module")
def variant_server():
    with start_server(variant=True) as server:
        yield server


MODEL = "claude-opus-5-5"


def compatible_environment(executor, base_url: str) -> dict[str, str]:
    env = executor.offline_environment()
    env.pop("COURSE_BACKEND", None)
    env["ANTHROPIC_BASE_URL"] = base_url
    env["COURSE_MODEL"] = MODEL  # execute_notebooks removes it; set on purpose
    return env


@pytest.mark.slow
def test_notebook_runs_against_a_different_model(
    notebook_path: Path, variant_server, tmp_path: Path, notebook_executor
) -> None:
    # Run a copy, next to copies of its neighbours, so the repository's files stay untouched.
    folder = tmp_path / "notebooks"
    shutil.copytree(notebook_path.parent, folder, ignore=shutil.ignore_patterns("*.ipynb"))
    nb = nbformat.read(notebook_path, as_version=4)
    try:
        env = compatible_environment(notebook_executor, variant_server.url)
        notebook_executor.execute(nb, folder, env=env)
    except Exception as error:  # nbclient raises CellExecutionError with the traceback
        pytest.fail(f"{notebook_path.name} failed against the variant model ({MODEL}):\n{error}")
