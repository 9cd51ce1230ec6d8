"""How fast does run_command() stop a runaway command, children included?

For each shape of runaway command we run it with a 1 s timeout, then measure when its whole
process group is really dead, counted from the deadline. os.killpg(pgid, 0) tells us whether
the group still exists; a zombie (exited, not yet collected by its parent) still counts for
kill(), so when the group exists we read /proc to see whether anything in it is still running.

Each shape runs with the plain runner and, where it works, inside bubblewrap (where everything
also dies with the command's namespace); then the cost of starting a command either way.

One run, printed, no assertions: the tests check behaviour, this shows the numbers.
Run with: .venv/bin/python benchmarks/command_timeout.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from course_helpers.plumbing import command_sandbox
from course_helpers.plumbing.command_output import KeptOutput
from course_helpers.plumbing.commands import run_command

TIMEOUT = 1.0
SHAPES = {
    "busy loop": "while true; do :; done",
    "forked child sleeping": "(sleep 100 &) ; sleep 100",
    "ignores SIGTERM": "trap '' TERM; (trap '' TERM; sleep 100) & while true; do :; done",
    "output flood": "yes flood",
    "flood from a child": "(yes child &) ; sleep 100",
    "leaves the group": "setsid sleep 100 & sleep 100",
}
STARTS = 40  # quick commands timed to measure the cost of starting one
# 50 MB of output kept at a million characters: binary (every byte value) and ASCII text,
# each written to a 5 MB file first and printed ten times, so only the reading differs.
READS = {
    "binary": bytes(range(256)) * 20_480,
    "ASCII": b"plain text output, line after line\n" * 149_797,
}
KEPT = 1_000_000


def running_in_group(pgid: int) -> bool:
    """True while some process of the group exists and is not a zombie."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def measure(command: str, cwd: str, sandbox: str) -> tuple[float, float]:
    """Run once; return (seconds from deadline to group dead, seconds the call took)."""
    started = time.monotonic()
    result = run_command(command, cwd=cwd, timeout=TIMEOUT, sandbox=sandbox)
    returned = time.monotonic()
    while running_in_group(result.pid):
        time.sleep(0.001)
    dead = time.monotonic()
    return dead - (started + TIMEOUT), returned - started


def start_costs(cwd: str, sandboxes: list[str]) -> dict[str, float]:
    """Median seconds for `true`, start to finish, per sandbox.

    The runners take turns (one `true` each, STARTS times), so a burst of load from elsewhere
    on the machine falls on both alike; the median leaves out the runs such a burst hit.
    """
    times: dict[str, list[float]] = {sandbox: [] for sandbox in sandboxes}
    for sandbox in sandboxes:  # once each first: nothing of the first call is counted
        run_command("true", cwd=cwd, sandbox=sandbox)
    for _ in range(STARTS):
        for sandbox in sandboxes:
            started = time.monotonic()
            run_command("true", cwd=cwd, sandbox=sandbox)
            times[sandbox].append(time.monotonic() - started)
    return {sandbox: statistics.median(runs) for sandbox, runs in times.items()}


def read_cost(cwd: str) -> dict[str, float]:
    """Seconds to run each of READS and return its kept output (the best of three)."""
    costs = {}
    for name, data in READS.items():
        Path(cwd, name).write_bytes(data[: 5 * 1024 * 1024])
        command = f"for i in 1 2 3 4 5 6 7 8 9 10; do cat {name}; done"
        runs = []
        for _ in range(3):
            started = time.monotonic()
            run_command(command, cwd=cwd, timeout=60, max_output=KEPT, sandbox="none")
            runs.append(time.monotonic() - started)
        costs[name] = min(runs)
    return costs


def escape_cost() -> dict[str, float]:
    """Seconds to escape what is kept of 50 MB (KeptOutput.text()), the best of three."""
    costs = {}
    for name, data in READS.items():
        runs = []
        for _ in range(3):
            kept = KeptOutput(KEPT)
            for _ in range(10):
                kept.add(data)
            started = time.perf_counter()
            kept.text()
            runs.append(time.perf_counter() - started)
        costs[name] = min(runs)
    return costs


def main() -> None:
    sandboxes = ["none"] + (["bubblewrap"] if command_sandbox.available() else [])
    if len(sandboxes) == 1:
        print(f"(bubblewrap not measured: {command_sandbox.problem()})")
    with tempfile.TemporaryDirectory() as cwd:
        for sandbox in sandboxes:
            worst = 0.0
            for name, command in SHAPES.items():
                past_deadline, call = measure(command, cwd, sandbox)
                worst = max(worst, past_deadline)
                print(f"{sandbox:<10} {name:<22} group dead {past_deadline:6.3f} s after the "
                      f"deadline (run_command returned after {call:.3f} s)")  # fmt: skip
            print(f"{sandbox:<10} max seconds past deadline until group dead: {worst:.3f} "
                  "(target < 0.5)")  # fmt: skip
        costs = start_costs(cwd, sandboxes)
        reads = read_cost(cwd)
    for sandbox, cost in costs.items():
        print(f"starting a command ({sandbox}): {cost * 1000:.1f} ms (median)")
    if "bubblewrap" in costs:
        ratio = costs["bubblewrap"] / costs["none"]
        print(f"bubblewrap / plain start cost: {ratio:.1f}x (load {os.getloadavg()[0]:.1f})")
    for name, cost in reads.items():
        print(f"reading 50 MB of {name} output, {KEPT:,} characters kept: {cost:.2f} s")
    print(f"binary / ASCII read cost: {reads['binary'] / reads['ASCII']:.2f}x (target about 1)")
    escapes = escape_cost()
    for name, cost in escapes.items():
        print(f"escaping the {KEPT:,} characters kept of {name} output: {cost:.3f} s")
    print(f"binary / ASCII escaping cost: {escapes['binary'] / escapes['ASCII']:.2f}x")


if __name__ == "__main__":
    main()
