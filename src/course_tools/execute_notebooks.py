"""Re-execute the course notebooks in place, reproducibly, against the offline course model.

Usage (from the project root; `make notebooks` runs it on every notebook):

    python -m course_tools.execute_notebooks [NOTEBOOK ...]

Every kernel gets the same environment: the offline backend forced, no API credentials,
`PYTHONHASHSEED=0`, the notebook's own folder as working directory and the `python3` kernel of
the interpreter running this script. Stored outputs therefore match what nbval sees in
`make test`. A notebook whose run raises in any cell is reported and left untouched; the script
then exits with status 1.

The functions here are also used by `tests/conftest.py` (which notebooks exist, the offline
environment) and by `benchmarks/course_runtime.py`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import ipykernel.kernelspec
import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
EXERCISES = NOTEBOOKS / "exercises"
SOLUTIONS = EXERCISES / "solutions"
RUSSIAN = NOTEBOOKS / "ru"

KERNEL_NAME = "python3"
# Removed from every kernel's environment: any of them would switch away from the course model
# (or, for COURSE_MODEL, change the model id printed in stored outputs).
REMOVED_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "COURSE_MODEL",
)
FORCED_VARIABLES = {"COURSE_BACKEND": "offline", "PYTHONHASHSEED": "0"}
STABLE_KERNELSPEC = {
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
    "name": KERNEL_NAME,
}
# What of the kernel's language_info is not stored. Nothing: JupyterLab writes the kernel's
# language_info into a notebook it opens, so a stored one without the version is marked unsaved
# at once. The stored one keeps the Python version of the kernel that ran it (the course pins
# 3.11, runtime.txt; a run under another patch version rewrites that one line).
VOLATILE_LANGUAGE_INFO: tuple[str, ...] = ()
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DEFAULT_JOBS = 2
DEFAULT_CELL_TIMEOUT = 300


def is_course_notebook(path: Path) -> bool:
    """Tell whether `path` (under notebooks/) is executed and tested.

    Blank exercise notebooks are generated and stored unexecuted on purpose, so everything under
    `notebooks/exercises/` is left out except the solutions. The Russian edition (`notebooks/ru/`)
    is left out too: its code cells and outputs are copies of the English ones, which
    `tests/test_translations.py` checks, so running it would only run the same code twice.
    """
    path = path.resolve()
    if path.suffix != ".ipynb" or ".ipynb_checkpoints" in path.parts:
        return False
    if not path.is_relative_to(NOTEBOOKS) or path.is_relative_to(RUSSIAN):
        return False
    return not path.is_relative_to(EXERCISES) or path.is_relative_to(SOLUTIONS)


def course_notebooks() -> list[Path]:
    """All course notebooks, sorted by their path relative to notebooks/."""
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if is_course_notebook(p))


def offline_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return a copy of `base` (default: os.environ) set up for the offline course model."""
    env = dict(os.environ if base is None else base)
    for name in REMOVED_VARIABLES:
        env.pop(name, None)
    env.update(FORCED_VARIABLES)
    return env


class CurrentPythonKernelSpecs(KernelSpecManager):
    """Resolve `python3` to ipykernel in this interpreter, whatever kernelspecs are installed."""

    def get_kernel_spec(self, kernel_name: str):
        if kernel_name != KERNEL_NAME:
            return super().get_kernel_spec(kernel_name)
        return self.kernel_spec_class(
            resource_dir=ipykernel.kernelspec.RESOURCES, **ipykernel.kernelspec.get_kernel_dict()
        )


def error_outputs(nb: nbformat.NotebookNode) -> Iterator[str]:
    """Describe every error output of the notebook, one string per failing cell."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                yield f"cell {index}: {output.get('ename')}: {output.get('evalue')}"


def execute(
    nb: nbformat.NotebookNode,
    cwd: Path,
    timeout: int = DEFAULT_CELL_TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> None:
    """Execute `nb` in place in a fresh kernel (offline unless `env` says otherwise).

    Raise if any cell raises.
    """
    client = NotebookClient(
        nb,
        km=AsyncKernelManager(
            kernel_name=KERNEL_NAME, kernel_spec_manager=CurrentPythonKernelSpecs()
        ),
        timeout=timeout,
        allow_errors=False,
        # Even a cell tagged `raises-exception` must not store a traceback (see the hygiene test).
        force_raise_errors=True,
        store_widget_state=False,
        record_timing=False,
        resources={"metadata": {"path": str(cwd)}},
    )
    # The kernel process's own stderr only carries start-up chatter; cell output comes via IOPub.
    environment = offline_environment() if env is None else dict(env)
    client.execute(env=environment, stderr=subprocess.DEVNULL)
    problems = list(error_outputs(nb))
    if problems:
        raise RuntimeError("; ".join(problems))


def coalesce_streams(outputs: list) -> list:
    """Merge consecutive stdout (or stderr) outputs into one.

    How a cell's prints are split into messages depends on timing; merged, the stored file is
    the same on every run (nbval merges them too before comparing).
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and output.get("output_type") == "stream"
            and previous.get("output_type") == "stream"
            and output.get("name") == previous.get("name")
        ):
            previous["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def stabilise_widget_views(cell: nbformat.NotebookNode) -> None:
    """Give widget views a model id derived from the cell, instead of a random one.

    Widget state is not stored, so the id points at nothing either way; a stable one keeps the
    file from changing on every run (nbval never compares it).
    """
    for index, output in enumerate(cell.get("outputs", [])):
        view = output.get("data", {}).get(WIDGET_VIEW)
        if isinstance(view, dict) and "model_id" in view:
            seed = f"{cell.get('id', '')}:{index}".encode()
            view["model_id"] = hashlib.sha256(seed).hexdigest()[:32]


def stabilise(nb: nbformat.NotebookNode) -> None:
    """Remove what changes from run to run or machine to machine."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = dict(STABLE_KERNELSPEC)
    language_info = nb.metadata.get("language_info", {})
    for key in VOLATILE_LANGUAGE_INFO:
        language_info.pop(key, None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
            stabilise_widget_views(cell)


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write `path` atomically in nbformat's layout (indent 1, sorted keys, final newline)."""
    text = nbformat.writes(nb, version=4)
    if not text.endswith("\n"):
        text += "\n"
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class Outcome:
    """What happened to one notebook."""

    path: Path
    seconds: float
    error: str | None = None


def run_notebook(path: Path, timeout: int = DEFAULT_CELL_TIMEOUT, save: bool = True) -> Outcome:
    """Execute one notebook file; rewrite it only when every cell ran without error."""
    start = time.perf_counter()
    try:
        nb = nbformat.read(path, as_version=4)
        execute(nb, cwd=path.parent, timeout=timeout)
    except Exception as exc:  # reported per notebook; the others still run
        return Outcome(path, time.perf_counter() - start, f"{type(exc).__name__}: {exc}")
    stabilise(nb)
    if save:
        write(nb, path)
    return Outcome(path, time.perf_counter() - start)


def display_name(path: Path) -> str:
    """The path as the user knows it: relative to the project root when possible."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def report(outcome: Outcome) -> str:
    """One line per notebook: status, seconds, name and, on failure, the first error line."""
    status = "ok  " if outcome.error is None else "FAIL"
    line = f"{status} {outcome.seconds:6.1f} s  {display_name(outcome.path)}"
    if outcome.error is not None:
        first_line = outcome.error.strip().splitlines()[0] if outcome.error.strip() else ""
        line += f"\n       {first_line}"
    return line


def run_all(paths: Iterable[Path], jobs: int, timeout: int) -> list[Outcome]:
    """Execute notebooks `jobs` at a time, printing a line as each one finishes."""
    outcomes = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_notebook, path, timeout) for path in paths]
        for future in as_completed(futures):
            outcome = future.result()
            print(report(outcome), flush=True)
            outcomes.append(outcome)
    return outcomes


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line: notebooks to run (default: all course notebooks), jobs, cell timeout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every course notebook")
    parser.add_argument("-j", "--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--timeout", type=int, default=DEFAULT_CELL_TIMEOUT, help="seconds/cell")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or course_notebooks()
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"no such notebook: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    if not paths:
        print("no notebooks to execute")
        return 0
    start = time.perf_counter()
    outcomes = run_all(paths, max(1, args.jobs), args.timeout)
    failed = [o for o in outcomes if o.error is not None]
    elapsed = time.perf_counter() - start
    print(f"{len(outcomes) - len(failed)} executed, {len(failed)} failed in {elapsed:.1f} s")
    for outcome in failed:
        print(f"\n--- {display_name(outcome.path)} (left unchanged)\n{outcome.error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
