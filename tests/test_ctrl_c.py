"""Tests that press Ctrl-C pass however pytest was started (tests/ctrl_c.py).

The failure first: a process that starts with SIGINT ignored (started in the background by a
shell) never gets a KeyboardInterrupt from `_thread.interrupt_main()`, so notebook 13's Ctrl-C
tests waited out their timeouts and failed in such a run, and passed in the next one started
from a terminal. Then the fix: inside `python_handles_ctrl_c()` Ctrl-C arrives.
"""

from __future__ import annotations

import _thread
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ctrl_c import python_handles_ctrl_c
from time_limit import time_limit

ROOT = Path(__file__).resolve().parents[1]
CTRL_C_TESTS = (
    "tests/test_subagents.py::test_ctrl_c_stops_every_running_subagent_and_leaves_valid_histories"
)


def press_ctrl_c_and_work() -> None:
    """Ctrl-C as a test presses it, then Python code that runs until it is interrupted."""
    _thread.interrupt_main()
    while True:
        pass


@pytest.fixture
def sigint_ignored():
    """SIGINT as a process started in the background by a shell has it: ignored."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGINT, previous)


def test_with_sigint_ignored_a_pressed_ctrl_c_never_arrives(sigint_ignored):
    with time_limit(1), pytest.raises(TimeoutError):  # not KeyboardInterrupt: nothing came
        press_ctrl_c_and_work()


def test_inside_python_handles_ctrl_c_it_arrives_and_the_handler_is_put_back(sigint_ignored):
    with time_limit(10), python_handles_ctrl_c(), pytest.raises(KeyboardInterrupt):
        press_ctrl_c_and_work()
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


@pytest.mark.slow
def test_the_subagents_ctrl_c_test_passes_in_a_run_started_with_sigint_ignored():
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", CTRL_C_TESTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 passed" in run.stdout
