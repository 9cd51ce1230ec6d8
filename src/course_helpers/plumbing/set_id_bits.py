"""Course machinery: clear the set-uid and set-gid bits a command left in the project (as root).

As root, `chmod u+s` of a file of one's own needs no capability, so a command could leave a
program in the project that runs as root outside the sandbox (inside, every mount is nosuid).
`run_command` calls `clear_set_id_bits` after each command, once the namespace has ended (no
process of the command is left to race the walk), when the course runs as root.

The walk goes one folder at a time through directory descriptors (`openat`), never through a
whole path, so a folder nested deeper than the system's longest path (PATH_MAX, 4096 bytes)
is entered like any other; no link is followed. It is iterative, and at most `OPEN_FOLDERS`
folders are held open: deeper ones are opened again, one step at a time from the deepest
folder still open, when the walk comes back to them. What cannot be walked is not skipped in
silence: it is counted in `SetIdReport.missed`, and `run_command` says so in its output.

Only regular files are changed. A set-gid *folder* is left as it is: it makes new files take
the folder's group, and runs nothing with anyone's rights.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

OPEN_FOLDERS = 64  # folder descriptors held open at once, besides the project's own
SET_ID = stat.S_ISUID | stat.S_ISGID
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class SetIdReport:
    """What one walk cleared (paths) and how many folders or files it could not check."""

    cleared: list[str] = field(default_factory=list)
    missed: int = 0

    def note(self) -> str:
        """A line for the command's output, or "" when everything was checked."""
        if not self.missed:
            return ""
        return (
            f"[could not check {self.missed} folder(s) or file(s) of the project for set-uid "
            "bits; look before running anything from it as root]"
        )


@dataclass
class _Folder:
    fd: int | None
    name: str
    path: str
    folders: list[str] = field(default_factory=list)  # sub-folders not entered yet


def clear_set_id_bits(project: str | os.PathLike[str]) -> SetIdReport:
    """Clear the set-uid and set-gid bits of every regular file in `project`; what was done."""
    report = SetIdReport()
    top = os.fspath(project)
    try:
        root = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        report.missed += 1
        return report
    stack = [_Folder(root, "", top)]
    held = 0  # folder descriptors held open besides the project's own
    try:
        _scan(stack[0], report)
        while stack:
            folder = stack[-1]
            if not folder.folders:
                stack.pop()
                if stack and folder.fd is not None:  # the project's own is closed below
                    os.close(folder.fd)
                    held -= 1
                continue
            name = folder.folders.pop()
            if folder.fd is None:
                if _reopen(stack) is None:  # the walk cannot come back here: the rest is missed
                    report.missed += 1 + len(folder.folders)
                    folder.folders.clear()
                    continue
                held += 1
            try:
                child = os.open(name, _FOLDER, dir_fd=folder.fd)
            except OSError:
                report.missed += 1
                continue
            entered = _Folder(child, name, os.path.join(folder.path, name))
            stack.append(entered)
            held += 1
            if held > OPEN_FOLDERS:  # close the shallowest one held open, the project's apart
                shallowest = next(old for old in stack[1:] if old.fd is not None)
                os.close(shallowest.fd)
                shallowest.fd = None
                held -= 1
            _scan(entered, report)
    finally:
        for folder in stack[1:]:
            if folder.fd is not None:
                os.close(folder.fd)
        os.close(root)
    return report


def _reopen(stack: list[_Folder]) -> int | None:
    """The descriptor of the deepest folder on `stack`, opened again if it was closed."""
    last = len(stack) - 1
    if stack[last].fd is not None:
        return stack[last].fd
    start = max(i for i, folder in enumerate(stack) if folder.fd is not None)
    fd = stack[start].fd
    for folder in stack[start + 1 :]:
        try:
            opened = os.open(folder.name, _FOLDER, dir_fd=fd)
        except OSError:
            return None
        finally:
            if fd != stack[start].fd:
                os.close(fd)
        fd = opened
    stack[last].fd = fd
    return fd


def _scan(folder: _Folder, report: SetIdReport) -> None:
    """Clear the bits of `folder`'s regular files; note its sub-folders for the walk."""
    assert folder.fd is not None
    try:
        with os.scandir(folder.fd) as entries:
            names = [entry.name for entry in entries]
    except OSError:
        report.missed += 1
        return
    for name in names:
        try:
            info = os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
        except OSError:
            report.missed += 1
            continue
        if stat.S_ISDIR(info.st_mode):
            folder.folders.append(name)
        elif stat.S_ISREG(info.st_mode) and info.st_mode & SET_ID:
            _clear(folder, name, report)


def _clear(folder: _Folder, name: str, report: SetIdReport) -> None:
    try:
        handle = os.open(name, _FILE, dir_fd=folder.fd)
    except OSError:
        report.missed += 1
        return
    try:
        mode = os.fstat(handle).st_mode
        if stat.S_ISREG(mode) and mode & SET_ID:
            os.fchmod(handle, stat.S_IMODE(mode) & ~SET_ID)
            report.cleared.append(os.path.join(folder.path, name))
    except OSError:
        report.missed += 1
    finally:
        os.close(handle)
