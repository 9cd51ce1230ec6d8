"""Course machinery: run a shell command for the agent, and make sure it stops.

Notebook 07 explains each guard below and shows it at work; you use `run_command`, you do not
build it.

A command chosen by the model can run forever (a dev server, a watcher, `while true`), start
children that outlive it, flood its output, wait for input no one will type, or print the
secrets in its environment. `run_command()` handles each of these:

- it runs `bash -c` in a new session, so the command and everything it starts share one
  process group that can be killed as a whole, children and grandchildren included;
- standard input is /dev/null: a command that reads input sees end-of-file at once;
- output (stdout and stderr in the order written) is read by a thread that keeps only the
  head and the tail, as bytes, and escapes only what it kept (`command_output`), so 50 MB of
  output never sits in memory and costs the same whatever bytes it holds; control and
  line-separator characters are escaped (newlines and tabs kept), and the runner's own lines
  all come before "Output:", so nothing a command prints can pass for them;
- at the deadline the group gets SIGTERM, a short grace, then SIGKILL (`process_groups`); when
  the command ends on its own, whatever it left running in the background is stopped the same
  way, and the result says so (inside bubblewrap too, where the namespace's end stops them);
- the environment is `safe_environment()`: an allow-list (PATH, HOME, LANG and a few more), so
  API keys, tokens and passwords never reach the command, whatever they are called; PATH keeps
  only absolute folders, so no program of the project runs by a bare name.

All of that runs the command as your own user, which is not isolation: the command can read
your files, the environment of the process that started it (`/proc/$PPID/environ`), kill it,
use the network, or leave the group (`setsid`) and outlive its deadline. So by default
(`sandbox="auto"`) the command runs inside bubblewrap (`course_helpers.plumbing.command_sandbox`): only the
project folder writable, no network, its own process namespace. Where bubblewrap cannot run,
the plain runner is used and a warning says so once. It then also looks for processes that
left the group (they carry the run's AGENT_COMMAND_ID in their environment) and stops them
with a note; a process that also clears its environment escapes that search.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from course_helpers.plumbing import command_sandbox, set_id_bits
from course_helpers.plumbing.command_output import OutputReader
from course_helpers.plumbing.process_groups import (
    MARKER,
    group_alive,
    stop_escaped,
    stop_group,
    wait_for_exit,
)

__all__ = [
    "ALLOWED_VARIABLES",
    "EXIT_CODE",
    "TIMED_OUT",
    "CommandResult",
    "SandboxUnavailableWarning",
    "group_alive",  # from process_groups: notebook 07 shows it
    "run_command",
    "safe_environment",
    "sandbox_status",
]

READER_WAIT = 1.0  # seconds to wait for output from processes that escaped the group
# How a result starts, for the model and for the course model that reads it (one definition).
EXIT_CODE = "Exit code: "
TIMED_OUT = "Timed out"

# The only variables a command inherits. Everything else (ANTHROPIC_API_KEY, AWS_*, MYSQL_PWD,
# CI_JOB_JWT, a DATABASE_URL with a password in it) stays out, whatever its name.
ALLOWED_VARIABLES = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ"}
)
# The locale settings, by name: a prefix such as LC_* would also let LC_API_TOKEN through.
LOCALE_VARIABLES = frozenset(
    {"LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME"}
    | {"LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER"}
    | {"LC_TELEPHONE"}
)


def safe_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables a command may see: ALLOWED_VARIABLES and the locale settings, nothing else.

    An allow-list, not a list of names that look secret: a deny-list always misses one
    (`MYSQL_PWD`, `CI_JOB_JWT`, a password inside `DATABASE_URL`). Add what a tool really
    needs by name, on top of this.
    """
    source = os.environ if base is None else base
    kept = {
        name: value
        for name, value in source.items()
        if name in ALLOWED_VARIABLES or name in LOCALE_VARIABLES
    }
    if "PATH" in kept:
        kept["PATH"] = absolute_path_list(kept["PATH"])
    return kept


def absolute_path_list(path: str) -> str:
    """PATH without its relative folders ('.', an empty entry, 'bin').

    A command runs in the project, so a relative folder on PATH is a folder of the project:
    a program planted there (`./ls`, `./git`) would run instead of the real one.
    """
    return os.pathsep.join(folder for folder in path.split(os.pathsep) if os.path.isabs(folder))


class SandboxUnavailableWarning(UserWarning):
    """Commands run without an operating-system sandbox on this machine (said once)."""


_warned = False


def _use_bubblewrap(sandbox: str) -> bool:
    """Whether this run goes inside bubblewrap; warn once when "auto" has to fall back."""
    global _warned
    if sandbox == "none":
        return False
    reason = command_sandbox.problem()
    if reason is None:
        return True
    if sandbox == "bubblewrap":
        raise RuntimeError(f"sandbox='bubblewrap' was asked for, but {reason}")
    if not _warned:
        _warned = True
        said = f"Agent commands run WITHOUT an operating-system sandbox here: {reason}."
        warnings.warn(said, SandboxUnavailableWarning, stacklevel=3)
    return False


def sandbox_status() -> str:
    """The plain sentence about this machine's command sandbox; once shown, no warning repeats it."""
    global _warned
    _warned = True
    return command_sandbox.status()


@dataclass(frozen=True)
class CommandResult:
    """What happened when a command ran.

    exit_code is None when we stopped the command at its deadline; a negative number -N means
    a signal N ended it. pid is the process we started (bash, or bwrap around it), whose id is
    also its process group's id. background_stopped says the command ended but left processes
    running, which we stopped. sandbox is "bubblewrap" or "none".
    """

    command: str
    exit_code: int | None
    output: str
    timed_out: bool
    duration: float
    pid: int
    timeout: float
    background_stopped: bool = False
    sandbox: str = "none"
    escaped_stopped: int = 0

    def as_tool_text(self) -> str:
        """The text the model reads: how it ended, the runner's notes, then the output.

        Every line of the runner's own comes before the "Output:" line, and everything after
        it is the command's: a command that prints "Exit code: 0" or "Note: ..." can only put
        it after "Output:", where it reads as output.
        """
        lines = []
        if self.timed_out:
            lines.append(
                f"{TIMED_OUT}: the command was still running at its {self.timeout:g}-second limit, "
                "so it was stopped together with every process it started. A command that never "
                "exits on its own (a server, a watcher, a prompt waiting for input) cannot be "
                "run this way."
            )
        else:
            note = _signal_note(self.exit_code, shell_style=self.sandbox == "bubblewrap")
            lines.append(f"{EXIT_CODE}{self.exit_code}{note}")
        if self.background_stopped or self.escaped_stopped:
            escaped = (
                f" ({self.escaped_stopped} of them had left the command's process group with "
                "setsid or similar)"
                if self.escaped_stopped
                else ""
            )
            lines.append(
                f"Note: the command left processes running in the background{escaped}; "
                "they were stopped."
            )
        lines.append("Output:" if self.output else "Output: (none)")
        if self.output:
            lines.append(self.output)
        return "\n".join(lines)


def _signal_note(exit_code: int | None, *, shell_style: bool = False) -> str:
    """' (killed by signal SIGKILL)' for a signal's exit code, else nothing.

    The plain runner sees a signal as -N. Inside bubblewrap the code comes back the way a
    shell reports it, 128 + N, which a command could also choose with `exit`: say both.
    """
    if exit_code is None:
        return ""
    if shell_style and 128 < exit_code <= 128 + 64:
        number, maybe = exit_code - 128, True
    elif exit_code < 0:
        number, maybe = -exit_code, False
    else:
        return ""
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    if maybe:
        return f" (128 + {number}: killed by signal {name}, or it exited with that code)"
    return f" (killed by signal {name})"


def _check_arguments(
    command: object, cwd: object, timeout: object, max_output: object, sandbox: object
) -> None:
    """Refuse malformed arguments with a message that says what was expected."""
    if sandbox not in ("auto", "bubblewrap", "none"):
        raise ValueError(f"sandbox must be 'auto', 'bubblewrap' or 'none', got {sandbox!r}")
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


def _reported_left_behind(report: int) -> bool:
    """Read (and close) the report pipe of command_sandbox.WATCH: did the command leave processes?

    Only the watcher holds the pipe, and it writes once, at the end. No word at all means it
    could not finish (it was stopped with the namespace): then whatever was still running was
    stopped too, and the result says so rather than nothing.
    """
    os.set_blocking(report, False)
    said = b""
    try:
        while chunk := os.read(report, 256):
            said += chunk
    except BlockingIOError:
        pass  # a writer is still there (it is being killed): what was written is enough
    finally:
        os.close(report)
    return said.strip() != command_sandbox.CLEAN.encode()


def run_command(
    command: str,
    *,
    cwd: str | os.PathLike[str],
    timeout: float = 10,
    max_output: int = 4000,
    env: Mapping[str, str] | None = None,
    sandbox: Literal["auto", "bubblewrap", "none"] = "auto",
) -> CommandResult:
    """Run `command` with bash in `cwd` and return its exit code and shortened output.

    When env is None the command gets safe_environment(); pass env to choose exactly.
    sandbox: "auto" uses bubblewrap where it works (only `cwd` writable, no network, its own
    processes) and falls back to the plain runner with a warning; "bubblewrap" requires it;
    "none" is the plain runner. Returns only after everything the command started has stopped.
    """
    _check_arguments(command, cwd, timeout, max_output, sandbox)
    confined = _use_bubblewrap(sandbox)
    environment = dict(safe_environment() if env is None else env)
    argv = ["bash", "-c", command]
    marker = secrets.token_hex(8)
    report_read, report_write = os.pipe() if confined else (-1, -1)
    if confined:
        try:
            argv = command_sandbox.wrap(
                command_sandbox.watched(command, report_write),
                cwd,
                command_sandbox.bwrap_path() or "bwrap",
            )
        except BaseException:  # a layout the sandbox refuses: no descriptor left open
            os.close(report_read)
            os.close(report_write)
            raise
    else:
        environment[MARKER] = marker
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(report_write,) if confined else (),
        )
    except BaseException:
        if confined:
            os.close(report_read)
        raise
    finally:
        if confined:
            os.close(report_write)
    reader = OutputReader(process.stdout, max_output)
    timed_out = not wait_for_exit(process, timeout)
    # At the deadline this stops the command; after a normal exit, what it left behind. Inside
    # bubblewrap, whatever is left ends with the namespace; command_sandbox.WATCH looked before
    # that happened and says so on the report pipe. The reader pauses meanwhile: a flood then
    # waits on its full pipe instead of competing with the stopping.
    reader.pause()
    left_behind = not timed_out and not confined and group_alive(process.pid)
    if confined and not timed_out:
        # bwrap returns only once the namespace's pid 1 is gone, and the kernel lets pid 1 go
        # only once every other process in its namespace is: nothing is left to look for.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
    else:
        stop_group(process.pid)
    process.wait()
    set_id_note = ""
    if confined:
        left_behind = _reported_left_behind(report_read) and not timed_out
        if os.geteuid() == 0:  # a set-uid-root program left in the project would run as root
            set_id_note = set_id_bits.clear_set_id_bits(os.path.realpath(cwd)).note()
    escaped = 0 if confined else stop_escaped(marker)
    complete = reader.finish(READER_WAIT)
    duration = time.monotonic() - started
    output = reader.text()
    if set_id_note:
        output += "\n" + set_id_note
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
        sandbox="bubblewrap" if confined else "none",
        escaped_stopped=escaped,
    )
