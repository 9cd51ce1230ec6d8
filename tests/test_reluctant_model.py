"""Every notebook and solution must survive a model that answers in words instead of calling a tool.

Real models may answer from what they know when a lesson expected a tool call. Here each course
notebook (lessons and solutions) is run against the course model served on loopback in its
*reluctant* mode (`course_helpers/offline/reluctant.py`: it never calls a tool unless
`tool_choice` forces one), reached the way a compatible server is reached (`ANTHROPIC_BASE_URL`,
the real SDK over HTTP).

Every cell runs, even after an error, as a learner who keeps going would run them. A cell may
finish, or stop with the course's own message (`ModelWentAnotherWay`, one short line instead of
a traceback); nothing else: no raw Python error (StopIteration, IndexError, KeyError, TypeError,
NameError, AttributeError...) and no API error caused by the notebook's own history.

The notebooks run in `tests/notebook_runner.py`'s runner process, one fork per notebook.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_runner import NotebookRunner, problem
from test_live_path import compatible_environment

from course_helpers.expect import ModelWentAnotherWay
from course_helpers.offline.serve import start_server

COURSE_STOP = ModelWentAnotherWay.__name__


@pytest.fixture(scope="session")
def reluctant_server():
    with start_server(reluctant=True) as server:
        yield server


@pytest.fixture(scope="session")
def reluctant_runner(
    reluctant_server, notebook_executor, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NotebookRunner]:
    env = compatible_environment(notebook_executor, reluctant_server.url)
    env.pop("COURSE_MODEL")  # the default model: only the reluctance differs from nbval's run
    runner = NotebookRunner(env, tmp_path_factory.mktemp("reluctant"))
    yield runner
    runner.close()


def unexpected_errors(outcome: dict) -> list[str]:
    """Each error a cell showed that is not the course's own stop, with its cell and message."""
    found = []
    for cell in outcome["outputs"]:
        for error in cell["errors"]:
            if error["ename"] != COURSE_STOP:
                found.append(f"cell {cell['cell']}: {error['ename']}: {error['evalue']}")
    return found


@pytest.mark.slow
def test_notebook_runs_or_stops_with_the_course_message(
    notebook_path: Path, reluctant_runner: NotebookRunner
) -> None:
    outcome = reluctant_runner.run(notebook_path, keep_going=True)
    # With keep_going, only a runner that could not run the notebook reports a failure.
    assert outcome["outputs"] is not None, problem(outcome)
    assert outcome["cells"] > 0
    errors = unexpected_errors(outcome)
    assert not errors, f"{notebook_path.name} against the reluctant model:\n" + "\n".join(errors)
