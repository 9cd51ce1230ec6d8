"""Run a shell command for the agent, and make sure it stops.

A command chosen by the model can run forever (a dev server, a watcher, `while true`), start
children that outlive it, flood its output, wait for input no one will type, or print the
secrets in its environment. `run_command()` handles each of these:

- it runs `bash -c` in a new session, so the command and everything it starts share one
  process group that can be killed as a whole, children and grandchildren included;
- standard input is /dev/null: a command that reads input sees end-of-file at once;
- output (stdout and stderr in the order written) is read by a thread that keeps only the
  head and the tail, so 50 MB of output never sits in memory;
- at the deadline the group gets SIGTERM, a short grace, then SIGKILL; when the command ends
  on its own, whatever it left running in the background is stopped the same way;
- the environment is `safe_environment()`: API keys, tokens and passwords are removed.

One thing it cannot catch: a process that leaves the group on purpose (`setsid`, a daemon).
We then stop waiting for its output after a short time rather than hang.
"""

from __future__ import annotations

import codecs
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from course_helpers.truncate import HeadTail

KILL_GRACE = 0.2  # seconds between SIGTERM and SIGKILL
DEATH_WAIT = 2.0  # seconds to wait for the group to vanish after SIGKILL
READER_WAIT = 1.0  # seconds to wait for output from processes that escaped the group
CHUNK = 65536

SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|PRIVATE", re.IGNORECASE
)


def safe_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of the environment with anything that looks like a secret removed.

    The agent's commands are chosen by the model, and `env` or `printenv` would put every
    secret into the conversation (and into whatever log keeps it). We drop ANTHROPIC_*
    and every name containing KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH and the like,
    in any case. Matching by name errs on the safe side (GIT_AUTHOR_NAME goes too) and cannot
    see a secret hidden in an innocent name (a DATABASE_URL with a password in it).
    """
    source = os.environ if base is None else base
    return {
        name: value
        for name, value in source.items()
        if not name.upper().startswith("ANTHROPIC_") and not SECRET_NAME.search(name)
    }


@dataclass(frozen=True)
class CommandResult:
    """What happened when a command ran.

    exit_code is None when we stopped the command at its deadline; a negative number -N means
    a signal N ended it. pid is the bash process, whose id is also its process group's id.
    background_stopped says the command ended but left processes running, which we stopped.
    """

    command: str
    exit_code: int | None
    output: str
    timed_out: bool
    duration: float
    pid: int
    timeout: float
    background_stopped: bool = False

    def as_tool_text(self) -> str:
        """The text the model reads: how it ended, then the output."""
        lines = []
        if self.timed_out:
            lines.append(
                f"Timed out: the command was still running at its {self.timeout:g}-second limit, "
                "so it was stopped together with every process it started. A command that never "
                "exits on its own (a server, a watcher, a prompt waiting for input) cannot be "
                "run this way."
            )
        else:
            lines.append(f"Exit code: {self.exit_code}{_signal_note(self.exit_code)}")
        if self.background_stopped:
            lines.append(
                "Note: the command left processes running in the background; they were stopped."
            )
        lines.append("Output:" if self.output else "Output: (none)")
        if self.output:
            lines.append(self.output)
        return "\n".join(lines)


def _signal_note(exit_code: int | None) -> str:
    """' (killed by signal SIGKILL)' for a negative exit code, else nothing."""
    if exit_code is None or exit_code >= 0:
        return ""
    try:
        name = signal.Signals(-exit_code).name
    except ValueError:
        name = f"signal {-exit_code}"
    return f" (killed by signal {name})"


def _check_arguments(command: object, cwd: object, timeout: object, max_output: object) -> None:
    """Refuse malformed arguments with a message that says what was expected."""
    if not isinstance(command, str):
        raise TypeError(f"command must be a string, got {type(command).__name__}")
    if not command.strip():
        raise ValueError("command is empty")
    if "\x00" in command:
        raise ValueError("command contains a NUL byte")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise TypeError(f"timeout must be a number of seconds, got {type(timeout).__name__}")
    if not 0 < timeout < float("inf"):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout}")
    if isinstance(max_output, bool) or not isinstance(max_output, int) or max_output < 0:
        raise ValueError(f"max_output must be a whole number of 0 or more, got {max_output!r}")
    if not isinstance(cwd, str | os.PathLike):
        raise TypeError(f"cwd must be a folder path, got {type(cwd).__name__}")
    if not os.path.isdir(cwd):
        raise NotADirectoryError(f"cwd {os.fspath(cwd)!r} is not an existing folder")


class _OutputReader:
    """Drains the pipe in a thread, keeping only a bounded head and tail of the text."""

    def __init__(self, pipe, max_output: int) -> None:
        self._pipe = pipe
        self._kept = HeadTail(max_output)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="command-output", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        fd = self._pipe.fileno()
        while chunk := os.read(fd, CHUNK):
            with self._lock:
                self._kept.add(self._decoder.decode(chunk))
        with self._lock:
            self._kept.add(self._decoder.decode(b"", final=True))

    def finish(self, wait: float) -> bool:
        """Wait up to `wait` seconds for end-of-file; True if all output was read."""
        self._thread.join(wait)
        return not self._thread.is_alive()

    def text(self) -> str:
        with self._lock:
            return self._kept.text()


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


def _wait_for_group(pgid: int, seconds: float) -> bool:
    """Poll until the group has no running process; True if that happened in time."""
    deadline = time.monotonic() + seconds
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def _stop_group(pgid: int) -> None:
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


def _wait_for_exit(process: subprocess.Popen, timeout: float) -> bool:
    """Wait until bash exits, without collecting it; True if it exited in time.

    While bash is exited but not collected, its process id cannot be given to a new process,
    so killing its group afterwards cannot hit a stranger that happened to get the same id.
    """
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


def run_command(
    command: str,
    *,
    cwd: str | os.PathLike[str],
    timeout: float = 10,
    max_output: int = 4000,
    env: Mapping[str, str] | None = None,
) -> CommandResult:
    """Run `command` with bash in `cwd` and return its exit code and shortened output.

    When env is None the command gets safe_environment(); pass env to choose exactly.
    Returns only after the command and everything it started have stopped.
    """
    _check_arguments(command, cwd, timeout, max_output)
    started = time.monotonic()
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=dict(safe_environment() if env is None else env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    reader = _OutputReader(process.stdout, max_output)
    timed_out = not _wait_for_exit(process, timeout)
    # At the deadline this stops the command; after a normal exit, what it left behind.
    left_behind = not timed_out and group_alive(process.pid)
    _stop_group(process.pid)
    process.wait()
    complete = reader.finish(READER_WAIT)
    duration = time.monotonic() - started
    output = reader.text()
    if complete:
        process.stdout.close()
    else:
        output += "\n[output may be incomplete: a process outside the command's group kept it open]"
    return CommandResult(
        command=command,
        exit_code=None if timed_out else process.returncode,
        output=output,
        timed_out=timed_out,
        duration=duration,
        pid=process.pid,
        timeout=timeout,
        background_stopped=left_behind,
    )
