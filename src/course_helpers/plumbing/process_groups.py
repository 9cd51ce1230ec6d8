"""Course machinery: stop a command's process group, children, grandchildren and escapees.

`commands.run_command` starts each command in a new session, so the command and everything it
starts share one process group, whose id is the id of the first process. This module waits for
that first process, tells a living group from one of zombies, stops the group (SIGTERM, a short
grace, SIGKILL), and finds the processes that left the group but still carry the run's marker
in their environment (the plain runner only; inside bubblewrap the namespace's end stops them).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time

KILL_GRACE = 0.2  # seconds between SIGTERM and SIGKILL
DEATH_WAIT = 2.0  # seconds to wait for the group to vanish after SIGKILL
MARKER = "AGENT_COMMAND_ID"  # set by the plain runner to find processes that left the group


def _live_members(pgid: int) -> bool:
    """True if a process of the group is still running, not counting zombies.

    A process that has exited but not been collected by its parent (a zombie) still answers
    kill(), and an orphan's new parent may take its time to collect it. On Linux we read
    /proc to tell the living from the dead; elsewhere we trust kill().
    """
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        state, group = fields[0], int(fields[2])
        if group == pgid and state not in (b"Z", b"X"):
            return True
    return False


def group_alive(pgid: int) -> bool:
    """True while any process of the group is still running."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _live_members(pgid)


def _escaped(marker: str) -> list[int]:
    """Processes that carry this run's marker in their environment but are not in its group."""
    wanted = f"{MARKER}={marker}".encode()
    found = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as file:
                if wanted in file.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue  # ended while we looked, or not ours to read
    return found


def stop_escaped(marker: str) -> int:
    """SIGKILL every process that left the group but still carries the marker; how many.

    A killed process can take a while to die on a busy machine and is then found again on the
    next look: it is counted once, by its pid.
    """
    stopped: set[int] = set()
    for _ in range(5):  # a process may fork while we kill: look again until none is left
        found = [pid for pid in _escaped(marker) if pid != os.getpid()]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                stopped.add(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    return len(stopped)


def _wait_for_group(pgid: int, seconds: float) -> bool:
    """Poll until the group has no running process; True if that happened in time."""
    deadline = time.monotonic() + seconds
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def stop_group(pgid: int) -> None:
    """SIGTERM the whole group, give it KILL_GRACE to exit cleanly, then SIGKILL it."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, DEATH_WAIT)):
        if not group_alive(pgid):
            return
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        if _wait_for_group(pgid, wait):
            return


def wait_for_exit(process: subprocess.Popen, timeout: float) -> bool:
    """Wait until the first process exits, without collecting it; True if it exited in time.

    While it is exited but not collected, its process id cannot be given to a new process, so
    killing its group afterwards cannot hit a stranger that happened to get the same id. On
    Linux a pidfd says the moment it exits; elsewhere waitid is polled.
    """
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(process.pid)
        except OSError:
            pass  # an old kernel: poll instead
        else:
            try:
                poller = select.poll()  # not select(): a descriptor may be above 1023
                poller.register(pidfd, select.POLLIN)
                deadline = time.monotonic() + timeout
                while (left := deadline - time.monotonic()) > 0:
                    if poller.poll(min(left, 3600) * 1000):  # an hour at a time: no overflow
                        return True
                return False
            finally:
                os.close(pidfd)
    if not hasattr(os, "waitid"):  # not every Unix has it; then accept the tiny risk
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    deadline = time.monotonic() + timeout
    pause = 0.001
    while os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, 0.01)
    return True
