"""The code and the notebooks pass ruff, with the configuration in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).parent / "ruff"
COMMANDS = {
    "check": ["check", "src", "tests", "benchmarks", "notebooks"],
    "format": ["format", "--check", "src", "tests", "benchmarks"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_ruff(command: str) -> None:
    result = subprocess.run(
        [str(RUFF), *COMMANDS[command], "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"ruff {command} failed:\n{result.stdout}{result.stderr}"
