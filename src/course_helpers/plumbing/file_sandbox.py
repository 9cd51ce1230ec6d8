"""Course machinery: keep an agent's file tools inside one project folder.

Notebook 07 builds the two checks at its heart (`course_helpers.lessons.path_guard`); this module adds what
a race-free file tool needs around them, and the notebook shows each refusal at work.

A path in a tool call is written by the model, so it is untrusted input: it may come from a
file the agent just read that says "now read ~/.ssh/id_rsa". `FileSandbox.resolve()` turns such a
path into a real path inside the project root, or refuses it with a message written for the
model, so the refusal can go straight back as a tool result and the model can correct itself.

What is checked, in order: the type, empty paths, NUL bytes, over-long names, absolute paths,
`~`, any `..` that climbs above the root, and finally the real path after every symbolic link
is followed (a link to /etc, a chain of links, a link to a folder outside followed by `..`).
Everything else is taken literally: `%2e%2e`, `..\\x` or fullwidth dots are ordinary names.

A path is checked, then opened, and a folder could be swapped for a link in between. So the
file tools never open the checked path by name: they start from a descriptor of the root and
open one component at a time with `O_NOFOLLOW` (`os.open(name, ..., dir_fd=folder)`). A link
put in place after the check makes the open fail instead of leading outside. A write goes to a
new file that then replaces the name, so it never writes into whatever the name held. A
folder can also be renamed into the path after the check (a git folder exchanged with `x`), so
each folder a write opens is asked, through its descriptor, whether it is a git folder.

What the file tools refuse besides: anything that is not a regular file (a folder, a named
pipe that would block forever, a device), a file with more than one name (a hard link inside
the project can be another name of a file outside it), a write to a path ending in '/', and a
write anywhere in version-control metadata (read access stays): a `.git`, `.hg`, ... on the path
as written or as resolved, and the repository's real git folder whatever it is called (the one
a `.git` link or `gitdir:` file names, and its `commondir`: `git_layout`), and a git folder
built file by file (`HEAD`, `config`, `objects/`, ... in a folder that holds part of one). A
hook or a setting written there would be run later by git on your machine, outside every sandbox.
Names are listed with control characters escaped, so a file name holding a newline cannot
forge lines of a listing.

This guards the file tools against mistakes and injected instructions. It does nothing for a
shell command, which can open any file your user can: commands need an operating-system
sandbox (see `course_helpers.plumbing.command_sandbox`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from course_helpers.lessons.path_guard import climbs_out, is_inside
from course_helpers.plumbing import folder_walk, git_layout
from course_helpers.plumbing.folder_walk import FOLDER_FLAGS
from course_helpers.plumbing.folder_walk import listed as _listed
from course_helpers.plumbing.truncate import truncate, visible

MAX_NAME_BYTES = 255  # the longest file name Linux and macOS accept
MAX_PATH_BYTES = 4096  # the longest path Linux accepts
MAX_READ_BYTES = 10_000_000  # read_text refuses bigger files rather than loading them
SKIPPED_FOLDERS = frozenset({".git", "__pycache__", ".venv"})
# Version-control metadata: git (and its kind) on your machine runs what these folders name
# (hooks, an fsmonitor, drivers), so the file tools never write in them (reading is allowed).
VCS_METADATA = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})

HINT = "Use a path relative to the project root, like 'src/app.py'."
# Never follow a link, never wait (a named pipe), never make a terminal our controlling one.
FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


class PathRefused(ValueError):
    """A path the sandbox will not use. The message is written for the model to read."""


def _shown(path: str, width: int = 60) -> str:
    """The path as it appears in a message: quoted, escaped, and shortened if very long.

    repr() escapes line breaks and control characters; visible() then escapes what repr
    leaves as it is but draws nothing (a Hangul filler, a variation selector).
    """
    if len(path) > width:
        path = path[: width - 3] + "..."
    return visible(repr(path))


def _as_text(path: object) -> str:
    """Accept a str or a path object; refuse everything else with a clear message."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise PathRefused(
            f"Refused: the path must be text (a string), but got {type(path).__name__} "
            f"{_shown(repr(path), 40)[1:-1]}. {HINT}"
        )
    return path


def _check_shape(path: str) -> None:
    """Refuse paths that are wrong before we even look at the disk."""
    if not path.strip():
        raise PathRefused(f"Refused: the path is empty. {HINT}")
    if "\x00" in path:
        raise PathRefused(f"Refused: {_shown(path)} contains a NUL byte. {HINT}")
    try:
        encoded = os.fsencode(path)
    except UnicodeEncodeError:
        raise PathRefused(
            f"Refused: {_shown(path)} contains characters that cannot be a file name. {HINT}"
        ) from None
    if len(encoded) > MAX_PATH_BYTES:
        raise PathRefused(
            f"Refused: the path is {len(encoded):,} bytes long; the limit is "
            f"{MAX_PATH_BYTES:,}. {HINT}"
        )
    for part in encoded.split(b"/"):
        if len(part) > MAX_NAME_BYTES:
            raise PathRefused(
                f"Refused: a name in {_shown(path)} is {len(part)} bytes long; the limit is "
                f"{MAX_NAME_BYTES}. {HINT}"
            )
    if path.startswith("/"):
        raise PathRefused(f"Refused: {_shown(path)} is an absolute path. {HINT}")
    if path.startswith("~"):
        raise PathRefused(
            f"Refused: {_shown(path)} points into a home folder, outside the project. {HINT}"
        )


def _metadata_refusal(path: str) -> str:
    return (
        f"Refused: {_shown(path)} is inside version-control metadata (such as .git, or the "
        "folder a .git file or link names), which the file tools do not write: git on the "
        "user's machine would run a hook or a setting written there. Change the project's "
        "files instead."
    )


def _is_link(name: str, folder: int) -> bool:
    """True if `name` in the folder open as `folder` is a symbolic link."""
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


class FileSandbox:
    """One project folder that the agent's file tools may read and write, and nothing else."""

    def __init__(self, root: str | os.PathLike[str], *, skip: frozenset[str] = SKIPPED_FOLDERS):
        real_root = os.path.realpath(root)
        if not os.path.isdir(real_root):
            raise NotADirectoryError(f"FileSandbox root {os.fspath(root)!r} is not a folder")
        self.root = Path(real_root)
        self.skip = frozenset(skip)

    def __repr__(self) -> str:
        return f"FileSandbox({str(self.root)!r})"

    def resolve(self, path: str) -> Path:
        """Return the real path for `path` inside the root, or raise PathRefused.

        The result has every symbolic link followed, so it is the file the system would
        really open. A path that does not exist yet is fine if it would be created inside.
        """
        text = _as_text(path)
        _check_shape(text)
        if climbs_out(text):
            raise PathRefused(f"Refused: {_shown(text)} leaves the project folder. {HINT}")
        real = os.path.realpath(os.path.join(self.root, text))
        if not is_inside(real, str(self.root)):
            raise PathRefused(
                f"Refused: {_shown(text)} leads outside the project folder through a "
                f"symbolic link. {HINT}"
            )
        if self._through_loop(Path(real)):
            raise PathRefused(f"Refused: {_shown(text)} goes round a symbolic-link loop. {HINT}")
        return Path(real)

    def _through_loop(self, real: Path) -> bool:
        """realpath leaves a symbolic link in its answer only when it went round a loop."""
        return any(
            part.is_symlink()
            for part in (real, *real.parents)
            if part != self.root and part.is_relative_to(self.root)
        )

    def relative(self, real: Path) -> str:
        """How a resolved path is shown to the model: relative to the root, with '/'.

        Escaped like a line of a listing (`_listed`): a name holding a newline stays on one
        line, so a search result or a message naming the file cannot fake a line of its own.
        """
        return _listed(real.relative_to(self.root).as_posix())

    def list_files(self, path: str = ".", max_entries: int = 200) -> str:
        """List files and folders under `path`, one per line, relative to the project root.

        Sorted by name, each folder followed by its contents; folders end with '/'. Tool and
        cache folders (.git, __pycache__, .venv) are skipped: they are large and rarely what
        the model is looking for. Symbolic links are listed but not followed.
        """
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(
                f"max_entries must be a whole number of 1 or more, got {max_entries!r}"
            )
        folder = self.resolve(path)
        try:
            fd = self._open_folder(self._parts(folder))
        except FileNotFoundError:
            raise FileNotFoundError(
                f"There is no folder {_shown(path)}. Try list_files('.')."
            ) from None
        except NotADirectoryError:
            raise NotADirectoryError(
                f"{_shown(path)} is a file, not a folder; read it instead."
            ) from None
        lines: list[str] = []
        prefix = "" if folder == self.root else folder.relative_to(self.root).as_posix() + "/"
        try:
            complete = folder_walk.walk(fd, prefix, lines, max_entries, self.skip)
        finally:
            os.close(fd)
        if not lines:
            return f"(the folder {_shown(folder.relative_to(self.root).as_posix())} is empty)"
        if not complete:
            lines.append(
                f"[listing stopped after {max_entries} entries; list a subfolder to see more]"
            )
        return "\n".join(lines)

    # -- opening without following links -------------------------------------------------
    def _parts(self, real: Path) -> list[str]:
        """The components of a resolved path below the root: 'a/b/c.txt' -> [a, b, c.txt]."""
        return list(real.relative_to(self.root).parts)

    def _open_folder(self, parts: list[str], *, create: bool = False, writing: str = "") -> int:
        """A descriptor of root/parts, opened one folder at a time, never through a link.

        resolve() has already followed every link, so the real path has none. A link found
        here was put in place after the check: the open fails (ELOOP) and the path is refused.
        With create, missing folders are made on the way. When `writing` (the path as given),
        every folder opened is asked, through its descriptor, whether it is a git folder: a
        git folder renamed into the path after the check is the folder really opened.
        """
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if writing and git_layout.holds_git_folder(fd):
                raise PathRefused(_metadata_refusal(writing))
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    inner = os.open(part, FOLDER_FLAGS, dir_fd=fd)
                except OSError as error:
                    if error.errno == errno.ELOOP or _is_link(part, fd):
                        raise PathRefused(
                            f"Refused: {_shown(part)} became a symbolic link while the path was being "
                            f"checked. {HINT}"
                        ) from None
                    raise
                os.close(fd)
                fd = inner
                if writing and git_layout.holds_git_folder(fd):
                    raise PathRefused(_metadata_refusal(writing))
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _folder_of(self, path: str, parts: list[str], *, create: bool = False) -> int:
        """A descriptor of the folder that holds the file root/parts (see _open_folder)."""
        if not parts:
            raise IsADirectoryError(f"{_shown(path)} is the project folder, not a file.")
        try:
            return self._open_folder(parts[:-1], create=create, writing=path if create else "")
        except NotADirectoryError:
            raise NotADirectoryError(
                f"{_shown(path)}: a part of it is a file, not a folder."
            ) from None

    def _open_file(self, path: str, flags: int) -> int:
        """Open the file at `path` (checked by resolve) through descriptors; return its fd."""
        parts = self._parts(self.resolve(path))
        folder = self._folder_of(path, parts)
        try:
            return os.open(parts[-1], flags | FILE_FLAGS, 0o644, dir_fd=folder)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise PathRefused(f"Refused: {_shown(path)} is a symbolic link.") from None
            raise
        finally:
            os.close(folder)

    def _check_not_metadata(self, path: str, real: Path) -> None:
        """Refuse a write into version-control metadata, by the path as written and resolved.

        A name such as `.git` anywhere on either path (compared case-insensitively: on macOS
        and Windows `.GIT` is the same folder); and the repository's real git folder whatever
        it is called (`git_layout`): the folder a `.git` link or `gitdir:` file names, its
        `commondir`, or any folder git itself would take for a git folder; and a git folder's
        own names in a folder that holds part of one (`git_layout.builds_git_folder`), so a git
        folder cannot be built here file by file, in any order.
        """
        written = os.path.normpath(os.path.join(self.root, path))
        for form in (written, str(real)):
            relative = os.path.relpath(form, self.root).split(os.sep)
            if any(part.casefold() in VCS_METADATA for part in relative):
                raise PathRefused(_metadata_refusal(path))
        if git_layout.inside_a_git_folder(self.root, written, str(real)):
            raise PathRefused(_metadata_refusal(path))
        for form in (written, str(real)):
            if git_layout.builds_git_folder(self.root, self._parts(Path(form))):
                raise PathRefused(
                    f"Refused: {_shown(path)} uses a name git reads inside a git folder (HEAD, "
                    "config, hooks/, objects/, refs/, ...) in a folder that holds, or would then "
                    "hold, part of one. Git on the user's machine would take that folder for a "
                    "repository and run the settings and hooks in it. Choose another name."
                )

    # -- reading and writing -------------------------------------------------------------
    def read_text(self, path: str, max_chars: int = 20_000) -> str:
        """Return the file's text, shortened with truncate() if longer than max_chars.

        Bytes that are not UTF-8 become the replacement character rather than an error, so a
        stray binary file does not break the loop. Only regular files are read: a named pipe
        would block forever and a device could be endless.
        """
        try:
            fd = self._open_file(path, os.O_RDONLY)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"There is no file {_shown(path)}. Call list_files to see what exists."
            ) from None
        except OSError as error:
            if error.errno not in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket cannot be opened
                raise
            raise PathRefused(
                f"Refused: {_shown(path)} is not a regular file (a link, pipe or device)."
            ) from None
        try:
            self._check_regular(path, os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
        with open(fd, "rb") as file:
            data = file.read(MAX_READ_BYTES + 1)
            self._check_still_named(path, os.fstat(file.fileno()))
        return truncate(data.decode("utf-8", errors="replace"), max_chars)

    def _check_still_named(self, path: str, info: os.stat_result) -> None:
        """After reading: the file still has exactly one name, the one in the project.

        A second name added and removed around the first check could belong to a file outside
        (a hard link swapped in and out): then the text read is not given back.
        """
        try:
            named = os.stat(self.resolve(path), follow_symlinks=False)
        except OSError:
            named = None
        same = named is not None and (named.st_dev, named.st_ino) == (info.st_dev, info.st_ino)
        if not same or named.st_nlink != 1:  # the name's count: taken with the name, not before
            raise PathRefused(
                f"Refused: {_shown(path)} changed while it was read (a name was added or "
                "removed). Try again."
            )

    @staticmethod
    def _check_regular(path: str, info: os.stat_result, *, writing: bool = False) -> None:
        """Refuse what the file tools must not touch: folders, pipes, devices, hard links."""
        if stat.S_ISDIR(info.st_mode):
            if writing:
                raise IsADirectoryError(f"{_shown(path)} is a folder; choose a file name.")
            raise IsADirectoryError(f"{_shown(path)} is a folder; call list_files on it.")
        if not stat.S_ISREG(info.st_mode):
            raise PathRefused(
                f"Refused: {_shown(path)} is not a regular file (a link, pipe or device)."
            )
        if info.st_nlink > 1:
            raise PathRefused(
                f"Refused: {_shown(path)} has {info.st_nlink} names (hard links); another "
                "name may be outside the project, so the file tools leave it alone."
            )
        if not writing and info.st_size > MAX_READ_BYTES:
            raise PathRefused(
                f"Refused: {_shown(path)} is {info.st_size:,} bytes, too large to read "
                "whole. Look at part of it with a command such as head or grep."
            )

    def _check_writable(self, path: str, name: str, folder: int) -> os.stat_result | None:
        """Before writing: an existing name must be a regular file with one name."""
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return None
        self._check_regular(path, info, writing=True)
        return info

    def write_text(self, path: str, text: str) -> str:
        """Write `text` to the file (replacing it), creating missing folders inside the root.

        resolve() has already followed every link, so a link that leads outside is refused
        before anything is created. Then every folder is opened through descriptors without
        following links. A link, a named pipe, a device or a hard-linked file at the name is
        refused. The text goes to a new file beside it, which then takes the name: the old file
        is never opened, so whatever is swapped in after the check only loses its name here.
        Returns a one-line confirmation.
        """
        if not isinstance(text, str):
            raise TypeError(f"The text to write must be a string, got {type(text).__name__}.")
        real = self.resolve(path)  # refuse a hostile path before anything else
        self._check_not_metadata(path, real)
        if path.endswith(("/", "/.", "/..")) or path in (".", ".."):
            raise IsADirectoryError(
                f"{_shown(path)} names a folder; give a file name, like 'notes/todo.txt'."
            )
        data = text.encode("utf-8")
        parts = self._parts(real)
        folder = self._folder_of(path, parts, create=True)
        temp = f".{secrets.token_hex(8)}.writing"
        try:
            old = self._check_writable(path, parts[-1], folder)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | FILE_FLAGS
            fd = os.open(temp, flags, 0o644, dir_fd=folder)
            try:
                if old is not None:
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # a script stays executable
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(temp, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise
        finally:
            os.close(folder)
        return f"Wrote {len(text):,} characters to {_shown(self.relative(real), 4096)}."
