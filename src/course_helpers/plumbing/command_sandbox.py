"""Course machinery: an operating-system sandbox for shell commands, with bubblewrap (Linux).

Notebook 07 explains and demonstrates it; you use it, you do not build it.

Everything in `commands.py` runs a command as your own user: it can read any file you can,
read the environment of the process that started it (`/proc/$PPID/environ`), kill that
process, reach the network, and leave its process group (`setsid`) to outlive its timeout.
Scrubbing the environment and killing the group are not isolation.

`bwrap` (Debian package `bubblewrap`; coding agents use it for exactly this) starts the
command in new Linux namespaces. `wrap()` builds its command line:

- the project folder is the only writable place. Of the rest of the system only the programs
  and their settings are there, read-only (`/usr`, `/bin`, `/lib*`, `/etc`, minus every file
  and folder in it that others may not read, password hashes and their backups included), with the Python that runs the course so that `python -m pytest` works. Everything
  else is absent: other projects, the course's own folder, `/srv`, `/mnt`, `/var`, `/run`; `/tmp`,
  `/dev/shm` and the home folders are empty folders in memory of at most SCRATCH_LIMIT
  (256 MiB) each, and the rest (`/`, `/dev`) is read-only, so a command cannot fill the
  machine's memory; the project folder itself is on disk, with no limit of its own;
- no network: a network namespace with only a loopback interface;
- its own process namespace and its own `/proc`: no process of yours is visible, so there is
  no parent environment to read and no parent to kill; when the namespace's first process (the
  watcher below) ends, the namespace ends and everything left in it is killed, `setsid` or not;
- `--die-with-parent`: killed if the process running it dies;
- no capabilities (`--cap-drop ALL`), even when you run as root, so it cannot remount the
  read-only system as writable; the kernel's settings (`/proc/sys`, `/proc/sysrq-trigger`)
  are read-only too, since root may write some of them without any capability;
- only the environment `run_command` passes (an allow-list), which is also all that the
  namespace's first process holds;
- the project's git metadata read-only and in place, whatever its layout (`git_layout`): `.git`,
  the folder a `gitdir:` file names and its `commondir`, with every folder on the way kept from
  being moved. Commands can read the history and change the files, but not plant a hook or a
  setting that git on your machine would run later (`host_git`), nor swap in a forged history.
  A project that is itself a git folder (a bare repository) is read-only as a whole. What no
  mount can hold makes the sandbox refuse to start, saying why (`SandboxRefused`): a `.git`
  that is a symbolic link (or a link on the way), a git folder named but not there yet (a
  command could create it), and a project inside a repository above it with no `.git` of its
  own (a command could `git init` one for the host's git to read).

The command runs under a small Python program, `WATCH`, which is the namespace's first
process (pid 1). It waits for the command, then looks for anything the command left running:
that is the only moment to look, since when pid 1 ends the kernel kills the rest without a
word. It asks the kernel whether any other process is left in the namespace (`kill(-1, 0)`
from pid 1, after reaping those that ended), and reads the sandbox's own `/proc` to tell a
running one from one that is ending; a process that keeps changing its pid (fork, exit, fork)
can slip past a scan of `/proc`, never past the kernel's answer. It writes what it saw ("clean" or "left-behind") to a pipe, so
`run_command` can say "left processes running in the background; they were stopped", as the
plain runner does. The command cannot silence or forge that report:

- it cannot kill the watcher: the kernel delivers no signal to a namespace's pid 1 from inside
  the namespace unless pid 1 handles it, and the watcher handles none (SIGKILL included). The
  command's parent is a plain bash in between: killing it ends the command's run, and whatever
  is still running is reported and stopped;
- it cannot reach the pipe: the command starts with it closed, and the watcher makes itself
  non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`), which closes `/proc/1/fd`, `/proc/1/mem` and
  ptrace to processes of the same user;
- the state of a process is read after the last ')' of `/proc/N/stat`, so a process name
  holding ')' or a newline cannot pass for a finished one.

No word on the pipe (the watcher itself could not finish) is reported the same way: whatever
was running was stopped when the namespace ended.

Where `bwrap` is missing or cannot create namespaces (macOS, a container without user
namespaces), `problem()` says why, and `run_command` falls back to the plain runner.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from course_helpers.plumbing import git_layout

# What the command sees of the system, read-only: programs, libraries and their settings.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Hidden whatever their mode: the password hashes and the copies passwd and useradd keep of
# them. Every other file or folder under /etc that others may not read is hidden too
# (`hidden_under`), since root (the course's user on some machines) owns them all.
HIDDEN_FILES = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/security/opasswd",
)
EMPTY = ("/tmp", "/root", "/home", "/dev/shm")  # present, but empty and in memory
# Each of those in-memory folders holds at most this much (bubblewrap's --size), so a command
# cannot fill the machine's memory through them; the root folder and /dev are read-only. The
# project folder is on disk and is not limited.
SCRATCH_LIMIT = 256 * 1024 * 1024
# Kernel settings under /proc that root could change (/proc/sys/kernel/core_pattern runs a
# program of its choice as the machine's root); bwrap does not always cover them.
PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger")
INSTALL_HINT = "install it with `sudo apt-get install bubblewrap`"
LEFT_BEHIND = "left-behind"  # what WATCH writes when the command left processes running
CLEAN = "clean"  # what WATCH writes when nothing was left

# Runs as the namespace's pid 1 with the report pipe on descriptor argv[1] and the command in
# argv[2]. Python's own SIGINT handler is removed first: pid 1 with no handler is deaf to every
# signal sent from inside its namespace. It imports nothing but built-in modules (`subprocess`
# alone costs more than bubblewrap's own start), and starts the command with posix_spawn. The command gets no descriptor but 0, 1 and 2, and its
# parent ($PPID) is a plain bash between the two, with only the allow-listed environment, whose
# own messages ("Killed" when a signal ends the command) go nowhere.
WATCH = (
    """
import os, sys, _signal
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)
report = int(sys.argv[1])
os.set_inheritable(report, False)  # closed in the command (close-on-exec)
def undumpable():
    try:  # ctypes' own core, without the package: a watcher that starts fast
        import _ctypes
        prctl = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")
        return _ctypes.call_function(prctl, (4, 0, 0, 0, 0)) == 0  # PR_SET_DUMPABLE, 0
    except (ImportError, AttributeError, OSError):
        import ctypes
        return ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0
if not undumpable():
    sys.exit("the sandbox watcher could not protect its report (prctl failed)")
between = 'exec {e}>&2 2>/dev/null; bash -c "$1" 2>&"$e" {e}>&-; exit "$?"'
child = os.posix_spawnp("bash", ["bash", "-c", between, "bash", sys.argv[2]], os.environ)
status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
def others():  # is any process but this one in the namespace? Zombies of ours are reaped first
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    try:
        os.kill(-1, 0)  # the kernel's own answer, atomic: ESRCH when no other process exists
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True
def running():  # does a scan of /proc find a task that is not a zombie?
    for name in os.listdir("/proc"):
        if not name.isdigit() or name == "1":
            continue
        # Every thread counts: a process whose main thread exited alone reads as a zombie
        # while its other threads still run.
        try:
            tasks = os.listdir("/proc/" + name + "/task")
        except OSError:
            continue  # ended while we looked
        for task in tasks:
            try:
                with open("/proc/" + name + "/task/" + task + "/stat", "rb") as file:
                    state = file.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in (b"Z", b"X"):
                return True
    return False
# A scan can miss a process that keeps changing its pid (forks, then exits); the kernel's answer
# cannot. Something still there after ROUNDS scans that saw nothing running is a process that
# hops: left behind all the same.
said = "LEFT"
for _ in range(ROUNDS):
    if not others():
        said = "CLEAN"
        break
    if running():
        break
os.write(report, said.encode())
os._exit(128 - status if status < 0 else status)
""".replace("LEFT", LEFT_BEHIND)
    .replace("CLEAN", CLEAN)
    .replace("ROUNDS", "20")
)


def bwrap_path() -> str | None:
    """Where the bwrap program is, or None."""
    return shutil.which("bwrap")


def _python_folders() -> list[str]:
    """The folders of the running Python (a virtual environment and its base installation)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    folders.add(str(Path(os.path.realpath(sys.executable)).parent.parent))
    return sorted(os.path.realpath(folder) for folder in folders)


def _in_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM)


def watched(command: str, report_fd: int) -> list[str]:
    """The argv that runs `command` under WATCH, which reports on descriptor `report_fd`."""
    return [sys.executable, "-I", "-S", "-c", WATCH, str(report_fd), command]


class SandboxRefused(RuntimeError):
    """The sandbox will not start over this project: its git layout cannot be protected."""


def _links_on_the_way(project: str, written: str) -> str | None:
    """The first symbolic link on `written` (a path as git reads it) inside `project`, or None."""
    if not git_layout.within(written, project) or written == project:
        return None
    folder = project
    for part in os.path.relpath(written, project).split(os.sep):
        folder = os.path.join(folder, part)
        if os.path.islink(folder):
            return folder
    return None


def _repository_above(project: str) -> str | None:
    """The folder above `project` that git would take for its repository, or None."""
    folder = os.path.dirname(project)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")) or git_layout.is_git_folder(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _refuse(why: str, fix: str) -> SandboxRefused:
    return SandboxRefused(f"{why}, so commands are not run in this folder. {fix}.")


def _read_only_git(project: str) -> list[str]:
    """bwrap options that keep the project's git metadata read-only and in place.

    `.git` may be a folder, a `gitdir:` file naming a folder, and that folder may name the main
    repository's (`commondir`): every one of them inside the project is bound read-only over
    itself, and every folder on the way to them is bound over itself (still writable), since
    a mount point cannot be moved, removed or replaced. A project that is itself a git folder
    (a bare repository) is read-only as a whole. What no mount can protect makes the sandbox
    refuse to start (SandboxRefused), saying why:

    - a symbolic link on the way (a command could point it at a forged history);
    - a git folder named but not there yet (a command could create it, hooks and all);
    - a project inside a repository above it with no `.git` of its own (a command could
      `git init` one, and git on your machine would read it instead).

    What lies outside the project is not in the sandbox at all.
    """
    if git_layout.is_git_folder(project):
        return ["--ro-bind", project, project]
    steps = git_layout.pointed_at(project)
    if not steps:
        above = _repository_above(project)
        if above is not None:
            raise _refuse(
                f"the project is a folder inside the git repository at {above!r} and has no "
                "'.git' of its own: a command could create one (git init), and git on your "
                "machine would then read that repository instead",
                "Run the agent on the repository's top folder, or give the project a "
                "repository of its own",
            )
        return []
    line: list[str] = []
    for step in steps:
        link = _links_on_the_way(project, step.written)
        if link is not None:
            shown = os.path.relpath(link, project)
            raise _refuse(
                f"the project's {'.git' if shown == '.git' else shown} is a symbolic link "
                f"(to {os.readlink(link)!r}) on the way to its git folder: a command could "
                "replace it and the host's git would read a forged history",
                "Make it a real folder (or a 'gitdir:' file naming the folder), then run the "
                "command again",
            )
        if not git_layout.within(step.real, project):
            continue
        if not os.path.exists(step.real):
            shown = os.path.relpath(step.written, project)
            raise _refuse(
                f"the project's git metadata names {shown!r} ({step.kind}), which does not "
                "exist: a command could create it, with hooks and settings that git on your "
                "machine would run",
                "Create that git folder, or remove the '.git' that names it",
            )
        folder = project
        for part in os.path.relpath(step.real, project).split(os.sep)[:-1]:
            folder = os.path.join(folder, part)
            line += ["--bind", folder, folder]  # stays in place: a mount point cannot move
        line += ["--ro-bind", step.real, step.real]
    return line


@functools.cache
def _system_options() -> tuple[str, ...]:
    """The part of every command line that depends only on this machine (built once)."""
    line: list[str] = []
    for folder in SYSTEM:
        if os.path.islink(folder):  # /bin -> usr/bin on most systems today
            line += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            line += ["--ro-bind", folder, folder]
    line += hiding_options("/etc")
    line += ["--dev", "/dev", "--remount-ro", "/dev", "--proc", "/proc"]
    for path in PROC_READ_ONLY:
        if os.path.exists(path):
            line += ["--ro-bind", path, path]
    for folder in EMPTY:
        line += ["--size", str(SCRATCH_LIMIT), "--tmpfs", folder]
    for folder in _python_folders():
        if not _in_system(folder):
            line += ["--ro-bind", folder, folder]
    return tuple(line + ["--remount-ro", "/"])  # bwrap's own root (a tmpfs) is not writable


def hidden_under(etc: str = "/etc") -> tuple[list[str], list[str]]:
    """The files and the folders under `etc` that the sandbox hides: (files, folders).

    Every file or folder that others may not read (mode & 0o004 == 0), found by one walk that
    does not follow links, plus HIDDEN_FILES (named relative to /etc) that exist. Inside a hidden
    folder nothing more is listed: the whole folder is hidden."""
    files: list[str] = []
    folders: list[str] = []
    pending = [etc]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            readable = info.st_mode & 0o004
            if stat.S_ISDIR(info.st_mode):
                (pending if readable else folders).append(entry.path)
            elif not readable and not stat.S_ISLNK(info.st_mode):
                files.append(entry.path)
    for named in HIDDEN_FILES:
        path = os.path.join(etc, os.path.relpath(named, "/etc"))
        if os.path.lexists(path) and not os.path.islink(path) and path not in files:
            files.append(path)
    return sorted(files), sorted(folders)


def hiding_options(etc: str = "/etc") -> list[str]:
    """bwrap options that hide `hidden_under(etc)`: /dev/null over each file, an empty read-only
    folder over each folder."""
    files, folders = hidden_under(etc)
    line: list[str] = []
    for path in files:
        line += ["--ro-bind", "/dev/null", path]
    for path in folders:
        line += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return line


def wrap(argv: list[str], project: str | os.PathLike[str], bwrap: str = "bwrap") -> list[str]:
    """The command line that runs `argv` inside bubblewrap, with `project` writable.

    The project's git layout is read for every command (a command may have changed it); what
    the rest of the system looks like is read once."""
    project = os.path.realpath(project)
    return _line(argv, project, _read_only_git(project), bwrap)


def _line(argv: list[str], project: str, git: list[str], bwrap: str) -> list[str]:
    line = [bwrap, *_system_options(), "--bind", project, project, *git, "--chdir", project]
    line += ["--unshare-all", "--as-pid-1", "--die-with-parent", "--cap-drop", "ALL", "--"]
    return line + list(argv)


@functools.cache
def problem() -> str | None:
    """None if bubblewrap works on this machine, else why it cannot be used (checked once)."""
    bwrap = bwrap_path()
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    with tempfile.TemporaryDirectory() as folder:
        try:
            probe = subprocess.run(
                _line(["true"], os.path.realpath(folder), [], bwrap),  # any git layout aside
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=20,
                env={"PATH": os.defpath},
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap could not be started ({type(error).__name__}: {error})"
    if probe.returncode != 0:
        said = probe.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot create its namespaces here ({said[-1] if said else 'no message'})"
    return None


def available() -> bool:
    """True if commands can run inside bubblewrap on this machine."""
    return problem() is None


def status() -> str:
    """One plain sentence about the agent's commands on this machine."""
    reason = problem()
    if reason is None:
        return "Commands run inside bubblewrap: only the project folder is writable, no network."
    return f"Commands run WITHOUT an operating-system sandbox: {reason}."
