"""Find, wait for and kill the processes a command test started, by a marker in their command line."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def living(marker: str) -> list[int]:
    """Ids of running (not zombie) processes whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


def gone_within(marker: str, seconds: float) -> bool:
    """True once no process carries `marker`; False if some still do after `seconds`."""
    deadline = time.monotonic() + seconds
    while living(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_all(marker: str) -> None:
    for pid in living(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
