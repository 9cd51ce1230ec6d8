"""The walk that clears set-uid and set-gid bits after a sandboxed command (plumbing/set_id_bits).

Everything here is built under a temporary folder. Folders nested deeper than PATH_MAX are
built and read one level at a time through directory descriptors, as the walk itself does.
"""

from __future__ import annotations

import os
import stat

import pytest

from course_helpers.plumbing import set_id_bits

LONG = "d" * 200  # 25 of them: about 5,000 bytes of path, more than PATH_MAX (4096)


def deep_folder(top, levels: int) -> int:
    """A descriptor of the folder `levels` folders of LONG names below `top` (created)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir(LONG, dir_fd=fd)
        child = os.open(LONG, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    return fd


def set_id_file(fd: int, name: str, mode: int = 0o4755) -> None:
    handle = os.open(name, os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=fd)
    try:
        os.write(handle, b"#!/bin/sh\n")
        os.fchmod(handle, mode)
    finally:
        os.close(handle)


def mode_of(fd: int, name: str) -> int:
    return stat.S_IMODE(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)


def test_a_program_deeper_than_path_max_loses_its_bits(tmp_path):
    """Walked by whole paths, this folder was never entered and the set-uid file stayed."""
    (tmp_path / "top").write_text("#!/bin/sh\n")
    (tmp_path / "top").chmod(0o4755)
    deep = deep_folder(tmp_path, 25)
    try:
        set_id_file(deep, "suidsh", 0o6755)
        report = set_id_bits.clear_set_id_bits(tmp_path)
        assert mode_of(deep, "suidsh") == 0o755
        assert (tmp_path / "top").stat().st_mode & 0o7777 == 0o755
        assert report.missed == 0 and report.note() == ""
        assert len(report.cleared) == 2
        assert report.cleared[-1].endswith("/" + LONG + "/suidsh")
        assert len(report.cleared[-1]) > 4096
    finally:
        os.close(deep)


def test_a_deep_and_wide_tree_is_walked_with_few_folders_open(tmp_path, monkeypatch):
    """With 3 folders held open, deeper ones are opened again on the way back: all is seen."""
    monkeypatch.setattr(set_id_bits, "OPEN_FOLDERS", 3)
    expected = []
    for branch in "abc":
        path = tmp_path / branch
        for level in range(30):
            path = path / f"{branch}{level}"
            path.mkdir(parents=True)
            (path / "tool").write_text("#!/bin/sh\n")
            (path / "tool").chmod(0o4755)
            expected.append(str(path / "tool"))
    live, most = set(), [0]
    real_open, real_close = os.open, os.close

    def counting_open(*args, **kwargs):
        fd = real_open(*args, **kwargs)
        live.add(fd)
        most[0] = max(most[0], len(live))
        return fd

    def counting_close(fd):
        live.discard(fd)
        real_close(fd)

    monkeypatch.setattr(set_id_bits.os, "open", counting_open)
    monkeypatch.setattr(set_id_bits.os, "close", counting_close)
    report = set_id_bits.clear_set_id_bits(tmp_path)
    monkeypatch.undo()
    assert not live, "every descriptor is closed"
    assert sorted(report.cleared) == sorted(expected) and report.missed == 0
    assert all((tmp_path / p).stat().st_mode & 0o7777 == 0o755 for p in expected)
    assert most[0] <= 3 + 3, "the project's, 3 folders, one re-opened and one file at most"


def test_what_cannot_be_walked_is_reported_not_skipped(tmp_path, monkeypatch):
    (tmp_path / "shut" / "in").mkdir(parents=True)
    (tmp_path / "open").mkdir()
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if path == "shut":
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(set_id_bits.os, "open", refusing_open)
    report = set_id_bits.clear_set_id_bits(tmp_path)
    monkeypatch.undo()
    assert report.missed == 1
    assert "could not check 1 folder(s) or file(s)" in report.note()


def test_a_set_gid_folder_is_left_as_it_is(tmp_path):
    """Documented: only regular files are changed; a set-gid folder runs nothing."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g").chmod(0o2777)
    report = set_id_bits.clear_set_id_bits(tmp_path)
    assert report.cleared == [] and report.missed == 0
    assert (tmp_path / "g").stat().st_mode & 0o7777 == 0o2777


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_no_fifo_or_link_is_opened(tmp_path, kind):
    target = tmp_path.parent / f"{tmp_path.name}-outside"
    target.write_text("#!/bin/sh\n")
    target.chmod(0o4755)
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe")
    else:
        (tmp_path / "link").symlink_to(target)
    report = set_id_bits.clear_set_id_bits(tmp_path)  # a fifo opened blocking would hang here
    assert report.cleared == [] and report.missed == 0
    assert target.stat().st_mode & 0o7777 == 0o4755
    target.unlink()
