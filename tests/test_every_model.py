"""Every notebook and every exercise solution runs top to bottom on each current model.

The course's models differ (see `course_helpers.offline.models.CATALOGUE`): the default
`claude-sonnet-5-5` thinks by default and refuses a forced `tool_choice`; `claude-haiku-5-5`
accepts it; `claude-opus-5-5` cannot turn thinking off. Three runs cover the three models:

- `claude-sonnet-5-5` (the default): nbval, which also compares every stored output;
- `claude-opus-5-5`: `tests/test_live_path.py`, against the served variant model;
- `claude-haiku-5-5`: here, against the offline course model with `COURSE_MODEL` set.

To stay cheap, this run does not start a Jupyter kernel per notebook: one Python process per
group of notebooks runs every code cell of each notebook, in order, in a fresh IPython shell
(magics included), in a temporary copy of notebooks/, with a fresh course model. Outputs are
not compared (nbval does that for the default model); any cell that raises fails the test and
is named.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODEL = "claude-haiku-5-5"


def _groups() -> dict[str, list[Path]]:
    """Two groups of about the same run time (one process each), so that xdist's two workers
    share the load: the slow notebooks 07 and 08 go one to each group.
    """
    from course_tools.execute_notebooks import course_notebooks

    paths = course_notebooks()
    lessons = [p for p in paths if "exercises" not in p.parts]
    solutions = [p for p in paths if "exercises" in p.parts]
    first = [p for p in lessons if p.name < "07" or p.name.startswith("08")]
    first += [p for p in solutions if p.name >= "06"]
    second = [p for p in paths if p not in first]
    return {"first": first, "second": second}


GROUPS = _groups()


@pytest.mark.slow
@pytest.mark.parametrize("group", list(GROUPS))
def test_notebooks_run_on_another_model(group: str, tmp_path: Path, notebook_executor) -> None:
    env = notebook_executor.offline_environment()
    env["COURSE_MODEL"] = MODEL
    # IPython and matplotlib keep their state in the temporary folder, never in $HOME.
    env["IPYTHONDIR"] = str(tmp_path / "ipython")
    env["MPLCONFIGDIR"] = str(tmp_path / "matplotlib")
    paths = [str(p) for p in GROUPS[group]]
    run = subprocess.run(
        [sys.executable, __file__, str(tmp_path), *paths],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["ran"] == [Path(p).name for p in paths]
    failures = "\n".join(
        f"{f['notebook']} cell {f['cell']}: {f['error']}" for f in report["failures"]
    )
    assert not failures, f"on {MODEL}:\n{failures}"


# --------------------------------------------------------------------------- the runner


def _run_notebooks(base: Path, paths: list[Path]) -> dict:
    """Run each notebook's code cells in a fresh IPython shell; report the first failing cell."""
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    import course_helpers.offline as offline

    config = Config()
    config.HistoryManager.enabled = False
    failures, ran = [], []
    for number, path in enumerate(paths):
        folder = base / f"run-{number}" / "notebooks"
        shutil.copytree(path.parent, folder, ignore=shutil.ignore_patterns("*.ipynb"))
        os.chdir(folder)
        offline.reset()  # a fresh course model: empty prompt cache, no queued faults
        InteractiveShell.clear_instance()
        shell = InteractiveShell.instance(config=config)
        notebook = nbformat.read(path, as_version=4)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            shown = io.StringIO()
            with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown):
                result = shell.run_cell(cell.source, store_history=True)
            if not result.success:
                error = result.error_in_exec or result.error_before_exec
                failures.append(
                    {
                        "notebook": str(path.relative_to(ROOT / "notebooks")),
                        "cell": index,
                        "error": f"{type(error).__name__}: {error}"[:1500],
                    }
                )
                break
        ran.append(path.name)
        os.chdir(base)
    return {"ran": ran, "failures": failures}


if __name__ == "__main__":
    base_folder = Path(sys.argv[1])
    with tempfile.TemporaryDirectory(dir=base_folder) as scratch:
        outcome = _run_notebooks(Path(scratch), [Path(p) for p in sys.argv[2:]])
    print(json.dumps(outcome))
