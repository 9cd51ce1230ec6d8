"""Attacks on the git layout: a git folder built with the file tools, a git folder renamed into a
path while it is written, and host git led into a submodule or another repository's objects.

Every target is under a temporary folder; git runs with no global or system configuration.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from temporary_folders import chain, remove_tree

from course_helpers.plumbing import folder_walk, git_layout
from course_helpers.plumbing.file_sandbox import FileSandbox, PathRefused
from course_helpers.plumbing.host_git import UnsafeRepository, run_git

IDENTITY = {
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@example.org",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@example.org",
}


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The user's own plain git (no hooks or fsmonitor turned off), as after the agent ran."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(cwd),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(cwd.parent),
        **IDENTITY,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


# -- 1. a git folder built file by file ----------------------------------------------------------


def pieces(marker: Path, *, bare: bool) -> dict[str, str]:
    """The files that make a folder a repository whose settings run a program."""
    config = (
        "[core]\n\trepositoryformatversion = 0\n"
        + ("\tbare = true\n" if bare else "\tbare = false\n\tworktree = .\n")
        + f"\tfsmonitor = touch {marker}; true\n"
    )
    return {
        "config": config,
        "hooks/post-checkout": f"#!/bin/sh\ntouch {marker}\n",
        "objects/info/keep": "",
        "refs/heads/keep": "",
        "HEAD": "ref: refs/heads/main\n",
    }


def build(sandbox: FileSandbox, where: str, files: dict[str, str], order) -> list[str]:
    """Write the pieces in `order`; return the ones the file tools accepted."""
    accepted = []
    for name in order:
        try:
            sandbox.write_text(where + name, files[name])
        except PathRefused:
            continue
        accepted.append(name)
    return accepted


def assert_no_repository(folder: Path, marker: Path) -> None:
    assert not git_layout.is_git_folder(folder)
    found = git("rev-parse", "--git-dir", cwd=folder)
    assert found.returncode != 0, found.stdout  # git sees no repository here
    git("status", cwd=folder)
    git("diff", cwd=folder)
    assert not marker.exists()  # no fsmonitor, no hook ran


@pytest.mark.parametrize("bare", [False, True], ids=["worktree", "bare"])
def test_no_order_of_writes_builds_a_git_folder(tmp_path, bare):
    """Every order of the five pieces (120), each in a fresh project: the project never becomes
    a repository, and git status / git diff there run nothing."""
    marker = tmp_path / "PWNED"
    files = pieces(marker, bare=bare)
    for number, order in enumerate(itertools.permutations(files)):
        project = tmp_path / f"p{number}"
        project.mkdir()
        accepted = build(FileSandbox(project), "", files, order)
        assert "HEAD" not in accepted
        assert not {"objects/info/keep", "refs/heads/keep"} <= set(accepted)
        assert_no_repository(project, marker)


@pytest.mark.parametrize(
    "order",
    [
        ("config", "objects/info/keep", "refs/heads/keep", "HEAD"),
        ("config", "hooks/post-checkout", "objects/info/keep", "refs/heads/keep", "HEAD"),
    ],
    ids=["worktree-head-last", "bare-with-hook"],
)
@pytest.mark.parametrize("where", ["", "shop/"], ids=["root", "subfolder"])
def test_the_usual_orders_are_refused(tmp_path, order, where):
    marker = tmp_path / "PWNED"
    project = tmp_path / "project"
    (project / "shop").mkdir(parents=True)
    files = pieces(marker, bare="hooks/post-checkout" in order)
    with pytest.raises(PathRefused, match="a name git reads inside a git folder"):
        for name in order:
            FileSandbox(project).write_text(where + name, files[name])
    assert_no_repository(project / where, marker)


def test_the_shop_project_cannot_be_made_a_repository(tmp_path):
    """Notebook 08's project has no .git: config, objects/.keep, refs/.keep, HEAD."""
    from course_helpers.fixtures.shop_project import copy_shop_project

    marker = tmp_path / "PWNED"
    project = Path(copy_shop_project(tmp_path / "shop"))
    sandbox = FileSandbox(project)
    config = f"[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch {marker}; true\n"
    writes = [("config", config), ("objects/.keep", ""), ("refs/.keep", ""), ("HEAD", "ref: x\n")]
    refused = []
    for path, text in writes:
        try:
            sandbox.write_text(path, text)
        except PathRefused:
            refused.append(path)
    assert refused == ["refs/.keep", "HEAD"]
    assert_no_repository(project, marker)
    git("status", cwd=project / "shop")
    assert not marker.exists()


def test_a_partial_layout_made_elsewhere_gets_no_settings(tmp_path):
    """objects/ and refs/ made by a command: config, hooks/ and HEAD are then refused there."""
    (tmp_path / "objects").mkdir()
    (tmp_path / "refs").mkdir()
    sandbox = FileSandbox(tmp_path)
    for name in ("config", "hooks/post-checkout", "HEAD", "Head", "commondir", "info/attributes"):
        with pytest.raises(PathRefused, match="a name git reads inside a git folder"):
            sandbox.write_text(name, "x\n")
    assert sorted(os.listdir(tmp_path)) == ["objects", "refs"]


def test_ordinary_projects_keep_their_names(tmp_path):
    """A project may hold config files, an objects/ folder or a refs/ folder (not both)."""
    sandbox = FileSandbox(tmp_path)
    names = ("config", "conf/config", "objects/player.py", "info/readme.md", "hooks/useful.py")
    for path in (*names, "docs/refs/index.md", "docs/refs/config"):
        assert sandbox.write_text(path, "x = 1\n").startswith("Wrote")
    assert sandbox.read_text("objects/player.py") == "x = 1\n"


# -- 2. a git folder renamed into the path between the check and the open --------------------

RENAME_EXCHANGE = 2


def exchange(first: Path, second: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, os.fsencode(first), -100, os.fsencode(second), RENAME_EXCHANGE):
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def repository_with_decoy(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / "x" / "hooks").mkdir(parents=True)
    assert git("init", "-q", str(project), cwd=tmp_path).returncode == 0
    return project, project / ".git"


def real_git_folder(project: Path, inode: int) -> Path:
    """Whichever name the repository's git folder has now (the swap moves it)."""
    for name in (".git", "x"):
        if (project / name).stat().st_ino == inode:
            return project / name
    raise AssertionError("the git folder is gone")


def test_a_git_folder_swapped_in_after_the_check_is_not_written(tmp_path, monkeypatch):
    """The swap happens exactly between the check and the open: always refused."""
    project, dot_git = repository_with_decoy(tmp_path)
    inode = dot_git.stat().st_ino
    sandbox = FileSandbox(project)
    checked = FileSandbox._check_not_metadata

    def check_then_swap(self, path, real):
        checked(self, path, real)
        exchange(project / "x", project / ".git")  # 'x' is now the repository's git folder

    monkeypatch.setattr(FileSandbox, "_check_not_metadata", check_then_swap)
    with pytest.raises(PathRefused, match="version-control metadata"):
        sandbox.write_text("x/hooks/post-merge", "#!/bin/sh\ntouch PWNED\n")
    assert not (real_git_folder(project, inode) / "hooks" / "post-merge").exists()


SWAPPER = """
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
first, second, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + seconds
while time.monotonic() < end:
    libc.renameat2(-100, first, -100, second, 2)
"""


def test_a_concurrent_swap_never_lands_a_hook(tmp_path):
    """A second process swaps 'x' and '.git' for 2 s while the file tool writes x/hooks/...:
    however the writes and swaps interleave, none lands in the real git folder."""
    project, dot_git = repository_with_decoy(tmp_path)
    inode = dot_git.stat().st_ino
    sandbox = FileSandbox(project)
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(project / "x"), str(dot_git), "2"]
    )
    try:
        while swapper.poll() is None:
            try:
                sandbox.write_text("x/hooks/post-merge", "#!/bin/sh\ntouch PWNED\n")
            except (PathRefused, OSError):
                pass
            time.sleep(0)
    finally:
        swapper.wait()
    assert not (real_git_folder(project, inode) / "hooks" / "post-merge").exists()


# -- 3 and 13. a socket, and a very deep tree --------------------------------------------------


def test_reading_a_socket_is_refused_like_a_pipe(tmp_path):
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(PathRefused, match=r"'sock' is not a regular file"):
            FileSandbox(tmp_path).read_text("sock")
    finally:
        server.close()


def test_a_very_deep_tree_is_listed_without_recursion(tmp_path):
    depth = 1500  # past the recursion limit; too deep for pytest to remove: removed here
    chain(tmp_path, depth)
    try:
        open_before = len(os.listdir("/proc/self/fd"))
        listing = FileSandbox(tmp_path).list_files(".", max_entries=5000).splitlines()
        assert len(os.listdir("/proc/self/fd")) == open_before  # every folder closed again
        levels = folder_walk.MAX_LIST_DEPTH + 1
        assert listing[:-1] == ["d/" * level for level in range(1, levels + 1)]
        assert listing[-1] == folder_walk.TOO_DEEP
        deeper = FileSandbox(tmp_path).list_files("d/" * 1000, max_entries=3)
        assert deeper.splitlines()[0] == "d/" * 1001
    finally:
        remove_tree(tmp_path / "d")  # tests/temporary_folders.py: why pytest cannot


# -- 12 and 17. host git: another repository's objects, a submodule's configuration -----------


def repository(folder: Path) -> Path:
    assert git("init", "-q", "-b", "main", str(folder), cwd=folder.parent).returncode == 0
    (folder / "a.txt").write_text("a\n")
    git("add", ".", cwd=folder)
    assert git("commit", "-qm", "first", cwd=folder).returncode == 0
    return folder


def test_a_repository_with_alternates_is_refused(tmp_path):
    other = repository(tmp_path / "other")
    (other / "secret.txt").write_text("OUTSIDE SECRET\n")
    git("add", ".", cwd=other)
    git("commit", "-qm", "secret", cwd=other)
    blob = git("rev-parse", "HEAD:secret.txt", cwd=other).stdout.strip()
    mine = repository(tmp_path / "mine")
    assert "a.txt" in run_git(mine, "ls-files")
    (mine / ".git" / "objects" / "info" / "alternates").write_text(f"{other}/.git/objects\n")
    with pytest.raises(UnsafeRepository, match="object store names another one"):
        run_git(mine, "show", blob)


def test_a_repository_whose_objects_folder_is_a_link_is_refused(tmp_path):
    other = repository(tmp_path / "other")
    (other / "secret.txt").write_text("OUTSIDE SECRET\n")
    git("add", ".", cwd=other)
    git("commit", "-qm", "secret", cwd=other)
    blob = git("rev-parse", "HEAD:secret.txt", cwd=other).stdout.strip()
    mine = repository(tmp_path / "mine")
    remove_tree(mine / ".git" / "objects")
    (mine / ".git" / "objects").symlink_to(other / ".git" / "objects")
    assert git("show", blob, cwd=mine).stdout == "OUTSIDE SECRET\n", "git itself reads it"
    with pytest.raises(UnsafeRepository, match="object store is a link to another one"):
        run_git(mine, "show", blob)


def test_a_replace_ref_does_not_hide_a_change_from_the_reviewer(tmp_path):
    """`git replace` of the branch's commit by one with main's tree: a diff that showed nothing."""
    repo = repository(tmp_path / "repo")
    git("checkout", "-qb", "pr-1", cwd=repo)
    (repo / "a.txt").write_text("EVIL\n")
    git("commit", "-qam", "change", cwd=repo)
    evil = git("rev-parse", "HEAD", cwd=repo).stdout.strip()
    tree = git("rev-parse", "main^{tree}", cwd=repo).stdout.strip()
    decoy = git("commit-tree", tree, "-p", "main", "-m", "change", cwd=repo).stdout.strip()
    assert git("replace", evil, decoy, cwd=repo).returncode == 0
    assert git("diff", "main...pr-1", cwd=repo).stdout == "", "git itself shows nothing"
    assert "+EVIL" in run_git(repo, "diff", "main...pr-1")


@pytest.mark.parametrize("gitmodules", [False, True], ids=["plain", "gitmodules-ignore-none"])
def test_a_submodules_filter_never_runs_on_the_host(tmp_path, gitmodules):
    """A gitlink 'sub' whose own config names a clean filter."""
    marker = tmp_path / "MARK"
    outer = repository(tmp_path / "super")
    sub = repository(outer / "sub")
    assert git("add", "sub", cwd=outer).returncode == 0
    assert git("commit", "-qm", "gitlink", cwd=outer).returncode == 0
    with open(sub / ".git" / "config", "a") as config:
        config.write(f'[filter "x"]\n\tclean = "touch {marker}; cat"\n')
    (sub / ".gitattributes").write_text("* filter=x\n")
    (sub / "a.txt").write_text("b\n")  # same size: git must hash it, through the filter
    if gitmodules:  # a file in the working folder that undoes diff.ignoreSubmodules
        (outer / ".gitmodules").write_text('[submodule "sub"]\n\tpath = sub\n\tignore = none\n')
    git("status", cwd=outer)
    assert marker.exists()  # the control: plain git runs the submodule's filter
    marker.unlink()
    for args in (
        ("status",),
        ("status", "--porcelain"),
        ("diff",),
        ("diff", "HEAD"),
        ("diff", "--no-ext-diff", "--no-textconv", "--text", "HEAD"),
        ("log",),
    ):
        with pytest.raises(UnsafeRepository, match="its index holds a submodule"):
            run_git(outer, *args)
        assert not marker.exists(), args
