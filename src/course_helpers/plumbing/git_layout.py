"""Course machinery: where a repository's real git folder is, whatever its layout.

Notebook 07 shows why it matters; the file tools (`file_sandbox`) and the command sandbox
(`command_sandbox`) use it, you do not call it yourself.

`.git` is not always a folder called `.git`. It may be a symbolic link to a folder of any
name; or a file holding one line, `gitdir: <path>`, which `git init --separate-git-dir` and
`git worktree add` write; and a worktree's git folder holds a file `commondir` that names the
main repository's git folder, where the hooks and the settings are. A hook or a setting written
in any of those folders is run later by git on your machine, outside every sandbox, so none of
them may be written by the agent, whatever it is called.

`pointed_at(folder)` follows `folder/.git` the way git does and returns every path on the way:
the `.git` entry itself, the git folder it names, and that folder's `commondir`, each as
written (joined, `..` removed, links not followed) and resolved. `is_git_folder(path)` is
git's own test of a git folder (a `HEAD` file, and `objects/` and `refs/` folders, in it or in
its `commondir`), which finds a git folder by what it holds rather than by its name.

A git folder can also be built, one file at a time, in a folder that has none: `config` (with
a `core.fsmonitor`) first, then `objects/`, `refs/`, and `HEAD` last. `builds_git_folder()`
tells the file tools which writes could do that: a folder is *git-shaped* once it holds a
`HEAD` or a `commondir`, or both `objects` and `refs` (git needs `HEAD`, `objects` and `refs`),
and a git folder's own names (`config`, `hooks/...`, `objects/...`, `HEAD`, ...) are never
written into a folder that is git-shaped or would be after the write. A `HEAD` or `commondir`
makes its folder git-shaped, so the file tools never write one at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

GITFILE_LIMIT = 4096  # git reads a `gitdir:` file of a line; a longer file is not one


@dataclass(frozen=True)
class Step:
    """One path on the way from a `.git` entry to the folder git uses."""

    written: str  # joined and normalised, links not followed
    real: str  # every link followed
    kind: str  # "entry" (`.git` itself), "gitdir" or "commondir"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read(GITFILE_LIMIT)
    except OSError:
        return None


def _first_line(path: str) -> str | None:
    data = _read(path)
    line = data.split(b"\n", 1)[0].strip() if data is not None else b""
    return os.fsdecode(line) if line else None


def named_gitdirs(entry: str) -> set[str]:
    """The folders a `gitdir:` file may name, joined to the file's own folder (none if not one).

    git reads the whole file, wants `gitdir: ` and strips only the line ends at its end, so
    spaces and tabs are part of the path (`gitdir: .meta ` names `.meta `). That reading comes
    first; a looser one (the first line, blanks stripped) is protected as well, so a file that
    two readers would read two ways leaves both folders guarded.
    """
    data = _read(entry)
    if data is None or not data.startswith(b"gitdir:"):
        return set()
    readings = [data.split(b"\n", 1)[0].removeprefix(b"gitdir:").strip()]
    if data.startswith(b"gitdir: "):
        readings.append(data.removeprefix(b"gitdir: ").rstrip(b"\r\n"))  # git's own reading
    folder = os.path.dirname(entry)
    return {os.path.normpath(os.path.join(folder, os.fsdecode(t))) for t in readings if t}


def named_commondir(gitdir: str) -> str | None:
    """The main repository's git folder, named by a worktree's `commondir` file; None if none."""
    target = _first_line(os.path.join(gitdir, "commondir"))
    return os.path.normpath(os.path.join(gitdir, target)) if target else None


def pointed_at(folder: str | os.PathLike[str]) -> list[Step]:
    """Every path on the way from `folder/.git` to the git folder it means (none if absent)."""
    entry = os.path.join(os.fspath(folder), ".git")
    if not os.path.lexists(entry):
        return []
    steps = [Step(entry, os.path.realpath(entry), "entry")]
    gitdirs: list[str] = []
    if os.path.isdir(entry):  # a folder, or a link to one
        gitdirs.append(entry)
    elif os.path.isfile(entry):  # a `gitdir:` file, or a link to one: read where git would
        for named in sorted(named_gitdirs(entry) | named_gitdirs(os.path.realpath(entry))):
            steps.append(Step(named, os.path.realpath(named), "gitdir"))
            gitdirs.append(named)
    for gitdir in gitdirs:
        common = named_commondir(gitdir)
        if common is not None:
            steps.append(Step(common, os.path.realpath(common), "commondir"))
    return steps


def is_git_folder(path: str | os.PathLike[str]) -> bool:
    """git's own test: a `HEAD` file (or a link, which git accepts when it names `refs/...`,
    even dangling), with `objects/` and `refs/` here or in its commondir."""
    path = os.fspath(path)
    head = os.path.join(path, "HEAD")
    if not (os.path.isfile(head) or os.path.islink(head)):
        return False
    common = named_commondir(path) or path
    return all(os.path.isdir(os.path.join(common, name)) for name in ("objects", "refs"))


# The names git reads inside a git folder; HEAD and commondir alone make a folder git-shaped.
GIT_FOLDER_NAMES = frozenset(
    {
        "head",
        "commondir",
        "config",
        "config.worktree",
        "gitdir",
        "index",
        "packed-refs",
        "shallow",
        "hooks",
        "objects",
        "refs",
        "info",
        "logs",
        "modules",
        "worktrees",
    }
)


def git_shaped(present: set[str]) -> bool:
    """A folder holding these names (casefolded) is, or is one step from, a git folder."""
    return bool({"head", "commondir"} & present) or {"objects", "refs"} <= present


def _present(folder: str | int) -> set[str]:
    """Which of HEAD, commondir, objects and refs the folder (a path or a descriptor) holds.

    Any kind of entry counts: git tests `objects` and `refs` with access(), which a file with
    an execute bit passes, and a `HEAD` may be a link.
    """
    found = set()
    for name in ("HEAD", "commondir", "objects", "refs"):
        try:
            if isinstance(folder, int):
                os.stat(name, dir_fd=folder, follow_symlinks=False)
            else:
                os.lstat(os.path.join(folder, name))
        except OSError:
            continue
        found.add(name.lower())
    return found


def holds_git_folder(fd: int) -> bool:
    """Whether the folder open as `fd` looks like a git folder: a `HEAD`, with a `commondir` or
    with `objects` and `refs`. Asked of a descriptor, so it is about the folder really opened,
    whatever it is called now."""
    present = _present(fd)
    return "head" in present and ("commondir" in present or {"objects", "refs"} <= present)


def builds_git_folder(root: str | os.PathLike[str], parts: list[str]) -> bool:
    """Whether writing root/parts (a file, missing folders made on the way) writes a git
    folder's own name into a folder that is git-shaped, or that the write makes git-shaped.

    Asked of the root and of every folder below it on the way to the file, with the name the
    write adds or changes there (its first component below that folder).
    """
    folder = os.fspath(root)
    for index, part in enumerate(parts):
        name = part.casefold()
        if name in GIT_FOLDER_NAMES:
            after = _present(folder) | ({name} & {"head", "commondir", "objects", "refs"})
            if git_shaped(after):
                return True
        if index < len(parts) - 1:
            folder = os.path.join(folder, part)
    return False


def within(path: str, folder: str) -> bool:
    """`path` is `folder` or below it, compared on whole components."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def inside_a_git_folder(root: str | os.PathLike[str], *paths: str) -> bool:
    """Whether any of `paths` (absolute, under `root`) is in a git folder or on the way to one.

    Looked for in the root, the folders above it and each folder from the root down to a
    path: a folder git would take for a git folder, and every step of a `.git` found there.
    """
    root = os.fspath(root)
    folders = [root]
    parent = os.path.dirname(root)
    while parent not in folders:
        folders.append(parent)
        parent = os.path.dirname(parent)
    for path in paths:
        below = os.path.relpath(os.path.dirname(path), root)
        folder = root
        for part in [] if below == "." or below.startswith("..") else below.split(os.sep):
            folder = os.path.join(folder, part)
            folders.append(folder)
    for folder in dict.fromkeys(folders):
        if is_git_folder(folder) and any(within(path, folder) for path in paths):
            return True
        for step in pointed_at(folder):
            if any(within(path, kept) for path in paths for kept in (step.written, step.real)):
                return True
    return False
