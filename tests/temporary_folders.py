"""A test leaves under its `tmp_path` only what pytest can remove later.

pytest keeps the temporary folders of the last three runs (`pytest-of-<user>/pytest-<N>` in the
system's temporary folder, shared by every pytest run of that user) and removes the older ones
when a later run first asks for `tmp_path`, and again as that run exits. It removes them with
`shutil.rmtree`, which takes one Python frame per level of folders. A tree about a thousand
levels deep therefore ends that later run in a `RecursionError` whose traceback holds only
pytest's and shutil's frames: an error in the setup of whichever test first asked for a
temporary folder, or a crash after the summary. It happens once, in an unrelated run, a few
runs after the one that made the tree; pytest then leaves the tree aside, locked, for three
days, and fails on it again after that.

So a test that needs a deeper tree removes it itself with `remove_tree` (a loop, not a
recursion), and `tests/conftest.py` fails, at its teardown, any test that leaves a tree more
than `REMOVABLE_DEPTH` levels deep.
"""

from __future__ import annotations

import errno
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

# Levels of folders under a test's tmp_path that pytest's removal handles with room to spare:
# shutil.rmtree's frames, plus the stack pytest removes from (a fixture's set-up, or its exit),
# stay well under the recursion limit of 1,000. tests/test_temporary_folders.py checks it.
REMOVABLE_DEPTH = 600


def chain(top: Path, depth: int) -> None:
    """top/d/d/.../d, `depth` levels, made a level at a time (no path grows long)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def depth_of(top: Path, *, stop_at: int | None = None) -> int:
    """How many levels of folders are under `top` (0: none), counted by a loop, going no deeper
    than `stop_at`. Symbolic links are not followed; a folder that cannot be read counts, what
    is under it does not."""
    deepest = 0
    pending = [(os.fspath(top), 0)]
    while pending:
        folder, depth = pending.pop()
        deepest = max(deepest, depth)
        if depth == stop_at:
            continue
        try:
            with os.scandir(folder) as entries:
                pending.extend(
                    (entry.path, depth + 1)
                    for entry in entries
                    if entry.is_dir(follow_symlinks=False)
                )
        except OSError:
            continue
    return deepest


def remove_tree(top: Path) -> None:
    """Remove `top` and everything under it, in a loop, with two folders open at a time: each
    folder's subfolders are moved up into `top` (a rename), then the emptied folder is removed.
    No frame per level and no long path, so no depth is too much for it."""
    top_fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    names = itertools.count()
    try:
        while children := _entries(top_fd):
            for entry in children:
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.name, dir_fd=top_fd)
                    continue
                fd = os.open(
                    entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top_fd
                )
                try:
                    for child in _entries(fd):
                        if child.is_dir(follow_symlinks=False):
                            _move_up(child.name, fd, top_fd, names)
                        else:
                            os.unlink(child.name, dir_fd=fd)
                finally:
                    os.close(fd)
                os.rmdir(entry.name, dir_fd=top_fd)
    finally:
        os.close(top_fd)
    os.rmdir(top)


def _entries(fd: int) -> list[os.DirEntry]:
    with os.scandir(fd) as entries:
        return list(entries)


def _move_up(name: str, fd: int, top_fd: int, names: Iterator[int]) -> None:
    """Move the folder `name` of `fd` into `top_fd`, under a name not taken there by a file or
    a folder with something in it (an empty one is replaced: it was to be removed anyway)."""
    while True:
        try:
            os.rename(name, f".up-{next(names)}", src_dir_fd=fd, dst_dir_fd=top_fd)
            return
        except OSError as error:
            if error.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                raise
