"""Keep an agent's file tools inside one project folder.

A path in a tool call is written by the model, so it is untrusted input: it may come from a
file the agent just read that says "now read ~/.ssh/id_rsa". `Sandbox.resolve()` turns such a
path into a real path inside the project root, or refuses it with a message written for the
model, so the refusal can go straight back as a tool result and the model can correct itself.

What is checked, in order: the type, empty paths, NUL bytes, over-long names, absolute paths,
`~`, any `..` that climbs above the root, and finally the real path after every symbolic link
is followed (a link to /etc, a chain of links, a link to a folder outside followed by `..`).
Everything else is taken literally: `%2e%2e`, `..\\x` or fullwidth dots are ordinary names.

The limit of this design: a path is checked, then opened. Something that changes the folder in
between (swapping a file for a symbolic link) can still win that race. This is a guard against
mistakes and injected instructions, not a jail; a real agent that also runs shell commands
needs an operating-system sandbox (a container, a separate user) as well.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from course_helpers.truncate import truncate

MAX_NAME_BYTES = 255  # the longest file name Linux and macOS accept
MAX_PATH_BYTES = 4096  # the longest path Linux accepts
MAX_READ_BYTES = 10_000_000  # read_text refuses bigger files rather than loading them
SKIPPED_FOLDERS = frozenset({".git", "__pycache__", ".venv"})

HINT = "Use a path relative to the project root, like 'src/app.py'."


class PathRefused(ValueError):
    """A path the sandbox will not use. The message is written for the model to read."""


def _shown(path: str, width: int = 60) -> str:
    """The path as it appears in a message: quoted, and shortened if it is very long."""
    if len(path) > width:
        path = path[: width - 3] + "..."
    return repr(path)


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


def _climbs_out(path: str) -> bool:
    """True if the `..` parts of the path, read as written, go above the starting folder.

    This catches `a/../../x` even when it would land back inside (`../project/x`): a path
    that leaves the folder is refused however it continues, which keeps the rule simple.
    """
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _is_inside(real: str, root: str) -> bool:
    """Containment on whole path components: /srv/app2 is not inside /srv/app."""
    return os.path.commonpath([real, root]) == root


class Sandbox:
    """One project folder that the agent's file tools may read and write, and nothing else."""

    def __init__(self, root: str | os.PathLike[str], *, skip: frozenset[str] = SKIPPED_FOLDERS):
        real_root = os.path.realpath(root)
        if not os.path.isdir(real_root):
            raise NotADirectoryError(f"Sandbox root {os.fspath(root)!r} is not a folder")
        self.root = Path(real_root)
        self.skip = frozenset(skip)

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"

    def resolve(self, path: str) -> Path:
        """Return the real path for `path` inside the root, or raise PathRefused.

        The result has every symbolic link followed, so it is the file the system would
        really open. A path that does not exist yet is fine if it would be created inside.
        """
        text = _as_text(path)
        _check_shape(text)
        if _climbs_out(text):
            raise PathRefused(f"Refused: {_shown(text)} leaves the project folder. {HINT}")
        real = os.path.realpath(os.path.join(self.root, text))
        if not _is_inside(real, str(self.root)):
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
        """How a resolved path is shown to the model: relative to the root, with '/'."""
        return real.relative_to(self.root).as_posix()

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
        if not folder.exists():
            raise FileNotFoundError(f"There is no folder {_shown(path)}. Try list_files('.').")
        if not folder.is_dir():
            raise NotADirectoryError(f"{_shown(path)} is a file, not a folder; read it instead.")
        lines: list[str] = []
        complete = self._walk(folder, lines, max_entries)
        if not lines:
            return f"(the folder {_shown(self.relative(folder))} is empty)"
        if not complete:
            lines.append(
                f"[listing stopped after {max_entries} entries; list a subfolder to see more]"
            )
        return "\n".join(lines)

    def _walk(self, folder: Path, lines: list[str], max_entries: int) -> bool:
        """Add entries depth first; return False once max_entries is reached."""
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda entry: entry.name)
        for entry in entries:
            is_folder = entry.is_dir(follow_symlinks=False)
            if is_folder and entry.name in self.skip:
                continue
            if len(lines) >= max_entries:
                return False
            shown = self.relative(Path(entry.path))
            lines.append(shown + "/" if is_folder else shown)
            if is_folder and not self._walk(Path(entry.path), lines, max_entries):
                return False
        return True

    def read_text(self, path: str, max_chars: int = 20_000) -> str:
        """Return the file's text, shortened with truncate() if longer than max_chars.

        Bytes that are not UTF-8 become the replacement character rather than an error, so a
        stray binary file does not break the loop. Only regular files are read: a named pipe
        would block forever and a device could be endless.
        """
        real = self.resolve(path)
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"There is no file {_shown(path)}. Call list_files to see what exists."
            ) from None
        try:
            self._check_readable(path, os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
        with open(fd, "rb") as file:
            data = file.read(MAX_READ_BYTES + 1)
        return truncate(data.decode("utf-8", errors="replace"), max_chars)

    @staticmethod
    def _check_readable(path: str, info: os.stat_result) -> None:
        """Refuse what read_text must not read: folders, pipes, devices, huge files."""
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{_shown(path)} is a folder; call list_files on it.")
        if not stat.S_ISREG(info.st_mode):
            raise PathRefused(f"Refused: {_shown(path)} is not a regular file.")
        if info.st_size > MAX_READ_BYTES:
            raise PathRefused(
                f"Refused: {_shown(path)} is {info.st_size:,} bytes, too large to read "
                "whole. Look at part of it with a command such as head or grep."
            )

    def write_text(self, path: str, text: str) -> str:
        """Write `text` to the file (replacing it), creating missing folders inside the root.

        resolve() has already followed every link, so a link that leads outside is refused
        before anything is created. The file is opened with O_NOFOLLOW so a link put in its
        place after the check is not followed either. Returns a one-line confirmation.
        """
        if not isinstance(text, str):
            raise TypeError(f"The text to write must be a string, got {type(text).__name__}.")
        real = self.resolve(path)
        real.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        try:
            fd = os.open(real, flags, 0o644)
        except IsADirectoryError:
            raise IsADirectoryError(f"{_shown(path)} is a folder; choose a file name.") from None
        with open(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        return f"Wrote {len(text):,} characters to {self.relative(real)!r}."
