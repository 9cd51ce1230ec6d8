"""Course machinery: the walk behind `FileSandbox.list_files` (`file_sandbox`).

Folders are opened one at a time through descriptors without following links, and walked with a
loop and a stack rather than a recursion, so a tree of any depth is listed up to the cap.
"""

from __future__ import annotations

import os

from course_helpers.plumbing.truncate import visible

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
MAX_LIST_DEPTH = 256  # deeper folders are listed but not entered (one open descriptor a level)
TOO_DEEP = f"[folders more than {MAX_LIST_DEPTH} levels down are listed, not entered; list one to see inside]"


def listed(relative: str) -> str:
    """A path as one line of a listing: control characters escaped, never mistaken for a note.

    The listing's own notes start with '[' or '('; a name starting with either is shown as
    './name', which is the same file.
    """
    shown = visible(relative)
    return "./" + shown if shown.startswith(("[", "(")) else shown


def entries(fd: int) -> list[os.DirEntry]:
    """The folder's entries, sorted by name."""
    with os.scandir(fd) as found:
        return sorted(found, key=lambda entry: entry.name)


def walk(fd: int, prefix: str, lines: list[str], max_entries: int, skip: frozenset[str]) -> bool:
    """Add the entries under the folder open as `fd` to `lines`, depth first, each folder
    followed by its contents; return False once max_entries is reached.

    Folders named in `skip` are left out; links are listed, never followed; a folder replaced
    or removed while we look is listed, not entered.
    """
    stack = [(fd, prefix, iter(entries(fd)))]
    too_deep = False
    try:
        while stack:
            folder, inside, pending = stack[-1]
            entry = next(pending, None)
            if entry is None:
                stack.pop()
                if folder != fd:
                    os.close(folder)
                continue
            is_folder = entry.is_dir(follow_symlinks=False)
            if is_folder and entry.name in skip:
                continue
            if len(lines) >= max_entries:
                return False
            lines.append(listed(inside + entry.name + ("/" if is_folder else "")))
            if is_folder and len(stack) > MAX_LIST_DEPTH:
                too_deep = True
            if not is_folder or len(stack) > MAX_LIST_DEPTH:
                continue
            try:
                inner = os.open(entry.name, FOLDER_FLAGS, dir_fd=folder)
            except OSError:
                continue  # replaced or removed while we looked: listed, not entered
            try:
                found = entries(inner)
            except OSError:
                os.close(inner)
                continue
            stack.append((inner, inside + entry.name + "/", iter(found)))
        if too_deep:
            lines.append(TOO_DEEP)
        return True
    finally:
        for folder, _, _ in stack:
            if folder != fd:
                os.close(folder)
