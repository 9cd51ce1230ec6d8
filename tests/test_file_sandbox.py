"""The file sandbox (`FileSandbox`) under attack: every hostile path is refused, every honest one works.

The project lives in tmp/project; tmp/outside holds a secret next to it. Symbolic links are
planted inside the project to lead out in every way we know.
"""

import os
from pathlib import Path

import pytest
from time_limit import time_limit

from course_helpers.plumbing.file_sandbox import FileSandbox, PathRefused


@pytest.fixture(autouse=True)
def no_test_may_hang():
    """Fail any test that takes more than 5 s (a blocking read of a pipe, for instance)."""
    with time_limit(5):
        yield


@pytest.fixture
def tree(tmp_path):
    """A small project with links planted inside, and a secret outside it."""
    root = tmp_path / "project"
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text("TOP SECRET")
    # Links aim at a stand-in /etc inside tmp: a broken sandbox must never be able to write
    # to the machine's real system files while this suite runs (often as root).
    fake_etc = outside / "etc"
    fake_etc.mkdir()
    (fake_etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (tmp_path / "project2").mkdir()
    (tmp_path / "project2" / "secret.txt").write_text("sibling secret")
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# Shop\n")
    (root / "%2e%2e").write_text("a file with an odd name")
    links = {
        "etc_link": fake_etc,
        "passwd_link": fake_etc / "passwd",
        "out_file": outside / "secret.txt",
        "outdir_link": outside / "sub",
        "linked_parent": outside,
        "dangling": outside / "not-yet.txt",
        "sibling_link": tmp_path / "project2",
        "hop1": "hop2",
        "hop2": "src/hop3",
        "src/hop3": outside,
        "loop": "loop",
        "inner_link": root / "src",
        "rel_link": "src/app.py",
        "src/up_link": "..",
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    return root


@pytest.fixture
def sandbox(tree):
    return FileSandbox(tree)


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under folder and its bytes, to prove nothing outside was touched."""
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


TRAVERSAL = [
    "..",
    "../",
    "../x",
    "../../etc/passwd",
    "a/../../x",
    "./../x",
    "src/../../x",
    "src/./../../x",
    "src/..//../x",
    ".././.././etc/passwd",
    "src/../../../../../../../../etc/passwd",
    "a/b/c/../../../../x",
    "../project/README.md",  # leaves, then comes back: still refused
    "src/../../project/src/app.py",
    ".." + "/" * 5,
    "../../",
]
ABSOLUTE_AND_HOME = [
    "/etc/passwd",
    "/",
    "//etc/passwd",
    "/etc/",
    "/tmp",
    "/proc/self/root/etc/passwd",
    "~",
    "~/",
    "~/.ssh/id_rsa",
    "~root",
    "~root/.bashrc",
]
MALFORMED = [
    "",
    "   ",
    "\x00",
    "README.md\x00.png",
    "src/\x00/app.py",
    "a" * 256,
    "src/" + "b" * 256,
    "é" * 128,  # 128 characters but 256 bytes
    "/".join(["a" * 200] * 21),  # every name fits, the whole path does not
    "\ud800",  # a lone surrogate cannot be encoded as a file name
]
SYMLINK_ESCAPES = [
    "etc_link",
    "etc_link/",
    "etc_link/passwd",
    "etc_link/../etc/passwd",
    "passwd_link",
    "out_file",
    "hop1",  # hop1 -> hop2 -> src/hop3 -> outside: escapes on the third hop
    "hop1/secret.txt",
    "hop2/secret.txt",
    "outdir_link",
    "outdir_link/..",
    "outdir_link/../..",
    "outdir_link/../secret.txt",
    "outdir_link/../project/README.md",  # looks inside when read as text; it is not
    "linked_parent/secret.txt",
    "linked_parent/new_file.txt",
    "dangling",
    "sibling_link/secret.txt",  # /tmp/x/project2 shares a prefix with /tmp/x/project
    "src/up_link/../x",
    "src/up_link/src/up_link/../outside/secret.txt",
    "loop",
    "loop/x",
]
HOSTILE = TRAVERSAL + ABSOLUTE_AND_HOME + MALFORMED + SYMLINK_ESCAPES


def test_there_are_at_least_forty_hostile_paths():
    assert len(set(HOSTILE)) == len(HOSTILE) >= 40


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_path_is_refused(sandbox, path):
    with pytest.raises(PathRefused) as refused:
        sandbox.resolve(path)
    message = str(refused.value)
    assert message.startswith("Refused:")
    assert "relative to the project root" in message
    assert len(message) < 300  # a clear sentence, not a dump of a 4 KB path


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_path_cannot_be_read(sandbox, path):
    with pytest.raises(PathRefused):
        sandbox.read_text(path)


# Writing is only tried where a broken sandbox would land in tmp, never in the real /etc.
WRITE_TARGETS = [
    p for p in HOSTILE if "etc" not in p and "~" not in p and not p.startswith("/") and p.strip()
]


def lands_in(folder: Path, path: str, root: Path) -> bool:
    """Where a naive `open(root / path, "w")` would write: inside `folder` or not."""
    try:
        naive = Path(os.path.realpath(os.path.expanduser(str(root / path))))
    except (ValueError, UnicodeEncodeError):
        return True  # NUL bytes and lone surrogates cannot be opened at all
    # An existing folder cannot be opened for writing as a file either.
    return naive.is_relative_to(folder) or naive.is_dir()


def test_write_targets_can_only_ever_reach_the_temporary_folder(tree, tmp_path):
    # Even with a broken sandbox, the write tests below must not touch a real file.
    escaping = [p for p in WRITE_TARGETS if not lands_in(tmp_path, p, tree)]
    assert escaping == []


@pytest.mark.parametrize("path", WRITE_TARGETS)
def test_hostile_path_cannot_be_written(sandbox, tree, tmp_path, path):
    assert lands_in(tmp_path, path, tree), "refusing to aim a write outside the test folder"
    before = contents(tree.parent)
    with pytest.raises(PathRefused):
        sandbox.write_text(path, "pwned")
    assert contents(tree.parent) == before
    assert not (tree.parent / "outside" / "not-yet.txt").exists()


def test_refusal_explains_the_problem_to_the_model(sandbox):
    cases = {
        "../x": "Refused: '../x' leaves the project folder. Use a path relative to the project "
        "root, like 'src/app.py'.",
        "/etc/passwd": "Refused: '/etc/passwd' is an absolute path.",
        "~/.ssh/id_rsa": "home folder",
        "etc_link/passwd": "symbolic link",
        "loop": "loop",
        "a\x00b": "NUL byte",
        "": "empty",
        "a" * 300: "300 bytes long",
    }
    for path, expected in cases.items():
        with pytest.raises(PathRefused, match="Refused") as refused:
            sandbox.resolve(path)
        assert expected in str(refused.value), path


@pytest.mark.parametrize(
    ("value", "type_name"),
    [
        (5, "int"),
        (None, "NoneType"),
        (b"README.md", "bytes"),
        (["README.md"], "list"),
        (1.5, "float"),
    ],
)
def test_wrong_types_get_a_clear_refusal(sandbox, value, type_name):
    with pytest.raises(PathRefused, match=f"must be text.*got {type_name}"):
        sandbox.resolve(value)


def test_refused_is_a_value_error(sandbox):
    with pytest.raises(ValueError):
        sandbox.resolve("../x")


ALLOWED = {
    "README.md": "README.md",
    "./README.md": "README.md",
    "src/app.py": "src/app.py",
    "src//app.py": "src/app.py",
    "src/./app.py": "src/app.py",
    "src/../README.md": "README.md",
    "src/": "src",
    ".": ".",
    "./": ".",
    "new/dir/file.txt": "new/dir/file.txt",
    "%2e%2e": "%2e%2e",
    "%2e%2e/%2e%2e/etc/passwd": "%2e%2e/%2e%2e/etc/passwd",
    "..%2f..%2fetc%2fpasswd": "..%2f..%2fetc%2fpasswd",
    "..\\..\\windows\\system32": "..\\..\\windows\\system32",  # a backslash is a letter here
    "\uff0e\uff0e/x": "\uff0e\uff0e/x",  # fullwidth dots are not dots
    "...": "...",
    "..../x": "..../x",
    "..x": "..x",
    ".hidden": ".hidden",
    "notes/~draft": "notes/~draft",
    "a b/c d.txt": "a b/c d.txt",
    "-rf": "-rf",
    "inner_link": "src",
    "inner_link/app.py": "src/app.py",
    "rel_link": "src/app.py",
    "src/up_link/README.md": "README.md",
    "src/up_link/src/app.py": "src/app.py",
    "a" * 255: "a" * 255,
    "é" * 127: "é" * 127,
}


@pytest.mark.parametrize(("path", "expected"), ALLOWED.items())
def test_honest_path_resolves_inside(sandbox, tree, path, expected):
    assert sandbox.resolve(path) == (tree / expected).resolve()
    assert sandbox.resolve(path).is_relative_to(tree.resolve())


def test_path_objects_are_accepted(sandbox, tree):
    assert sandbox.resolve(Path("src/app.py")) == tree / "src" / "app.py"
    with pytest.raises(PathRefused):
        sandbox.resolve(Path("/etc/passwd"))


def test_root_given_through_a_symlink_is_resolved_first(tree, tmp_path):
    os.symlink(tree, tmp_path / "alias")
    sandbox = FileSandbox(tmp_path / "alias")
    assert sandbox.root == tree.resolve()
    assert sandbox.read_text("src/app.py") == "print('hi')\n"
    with pytest.raises(PathRefused):
        sandbox.resolve("out_file")


def test_root_must_be_an_existing_folder(tmp_path):
    with pytest.raises(NotADirectoryError):
        FileSandbox(tmp_path / "missing")


def test_a_file_named_like_an_escape_is_just_a_file(sandbox):
    assert sandbox.read_text("%2e%2e") == "a file with an odd name"


# --- read_text ---------------------------------------------------------------------------


def test_read_text_reads_and_truncates(sandbox, tree):
    (tree / "big.txt").write_text("x" * 5000 + "END")
    assert sandbox.read_text("README.md") == "# Shop\n"
    text = sandbox.read_text("big.txt", max_chars=100)
    assert text.startswith("x" * 50) and text.endswith("x" * 47 + "END")
    assert "4,903 characters cut" in text


def test_read_text_through_an_inside_link(sandbox):
    assert sandbox.read_text("rel_link") == "print('hi')\n"


def test_read_text_replaces_bytes_that_are_not_utf8(sandbox, tree):
    (tree / "blob.bin").write_bytes(b"ok \xff\xfe end")
    assert sandbox.read_text("blob.bin") == "ok \ufffd\ufffd end"


def test_read_text_of_a_missing_file_says_what_to_do(sandbox):
    with pytest.raises(FileNotFoundError, match="list_files"):
        sandbox.read_text("nope.txt")


def test_read_text_of_a_folder_says_so(sandbox):
    with pytest.raises(IsADirectoryError, match="folder"):
        sandbox.read_text("src")


def test_read_text_refuses_a_named_pipe_instead_of_blocking(sandbox, tree):
    os.mkfifo(tree / "pipe")
    with pytest.raises(PathRefused, match="not a regular file"):
        sandbox.read_text("pipe")


def test_read_text_refuses_huge_files(sandbox, tree):
    with open(tree / "huge.log", "wb") as file:
        file.truncate(20_000_000)  # sparse: costs no disk
    with pytest.raises(PathRefused, match="too large"):
        sandbox.read_text("huge.log")


# --- write_text --------------------------------------------------------------------------


def test_write_text_creates_folders_inside(sandbox, tree):
    message = sandbox.write_text("tests/unit/test_cart.py", "def test(): pass\n")
    assert (tree / "tests" / "unit" / "test_cart.py").read_text() == "def test(): pass\n"
    assert message == "Wrote 17 characters to 'tests/unit/test_cart.py'."


def test_write_text_replaces_existing_content(sandbox, tree):
    sandbox.write_text("README.md", "new")
    assert (tree / "README.md").read_text() == "new"


def test_write_text_keeps_newlines_as_given(sandbox, tree):
    sandbox.write_text("crlf.txt", "a\r\nb\n")
    assert (tree / "crlf.txt").read_bytes() == b"a\r\nb\n"


def test_write_text_through_an_inside_link_writes_the_target(sandbox, tree):
    sandbox.write_text("rel_link", "print('changed')\n")
    assert (tree / "src" / "app.py").read_text() == "print('changed')\n"
    assert (tree / "rel_link").is_symlink()


def test_write_text_refuses_a_dangling_link_that_points_outside(sandbox, tree):
    with pytest.raises(PathRefused, match="symbolic link"):
        sandbox.write_text("dangling", "pwned")
    assert not (tree.parent / "outside" / "not-yet.txt").exists()


def test_write_text_into_a_folder_name_fails_clearly(sandbox):
    with pytest.raises(IsADirectoryError, match="folder"):
        sandbox.write_text("src", "text")


@pytest.mark.parametrize("text", [None, 42, b"bytes"])
def test_write_text_needs_a_string(sandbox, text):
    with pytest.raises(TypeError, match="must be a string"):
        sandbox.write_text("notes.txt", text)


# --- list_files --------------------------------------------------------------------------


@pytest.fixture
def small(tmp_path):
    root = tmp_path / "shop"
    for name in ["src/cart.py", "src/__pycache__/cart.pyc", ".git/HEAD", ".venv/bin/python",
                 "tests/test_cart.py", "README.md", "src/models/item.py"]:  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    (root / "empty").mkdir()
    stand_in = tmp_path / "etc"  # a link to a folder outside, never to the real /etc
    (stand_in / "ssl").mkdir(parents=True)
    os.symlink(stand_in, root / "etc_link")
    return FileSandbox(root)


def test_list_files_is_sorted_relative_and_skips_tool_folders(small):
    assert small.list_files().splitlines() == [
        "README.md",
        "empty/",
        "etc_link",
        "src/",
        "src/cart.py",
        "src/models/",
        "src/models/item.py",
        "tests/",
        "tests/test_cart.py",
    ]


def test_list_files_of_a_subfolder_shows_paths_from_the_root(small):
    assert small.list_files("src/models") == "src/models/item.py"


def test_list_files_stops_at_max_entries_and_says_so(small):
    lines = small.list_files(max_entries=3).splitlines()
    assert lines[:3] == ["README.md", "empty/", "etc_link"]
    assert "stopped after 3 entries" in lines[3]
    assert len(lines) == 4


def test_list_files_of_an_empty_folder_says_it_is_empty(small):
    assert small.list_files("empty") == "(the folder 'empty' is empty)"


@pytest.mark.parametrize("path", ["..", "/etc", "etc_link", "~", "etc_link/ssl"])
def test_list_files_refuses_hostile_paths(small, path):
    with pytest.raises(PathRefused):
        small.list_files(path)


def test_list_files_of_a_file_or_missing_folder_fails_clearly(small):
    with pytest.raises(NotADirectoryError, match="is a file"):
        small.list_files("README.md")
    with pytest.raises(FileNotFoundError, match="no folder"):
        small.list_files("nowhere")


@pytest.mark.parametrize("bad", [0, -1, "10", 2.5, True])
def test_list_files_needs_a_positive_max_entries(small, bad):
    with pytest.raises(ValueError, match="max_entries"):
        small.list_files(max_entries=bad)


# --- the repository's real git folder, whatever its layout -------------------------------------
# `git init --separate-git-dir` and `git worktree add` leave `.git` as a file (`gitdir: ...`);
# `.git` may also be a link. Writes into the folder git really uses (and its commondir) must be
# refused by the path as written and as resolved, whatever that folder is called.


def _git(*args: str, cwd: Path) -> None:
    import subprocess

    environment = {"PATH": os.defpath, "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env=environment, timeout=30
    )


def _hooks_untouched(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "hooks").iterdir() if not p.name.endswith(".sample"))


@pytest.fixture
def separate_git_dir(tmp_path):
    """`.git` is the file 'gitdir: .meta', as `git init --separate-git-dir .meta` leaves it."""
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", "--separate-git-dir", str(project / ".meta"), str(project), cwd=tmp_path)
    (project / ".git").write_text("gitdir: .meta\n")  # written relative, as a person may
    return project


@pytest.mark.parametrize("path", [".meta/hooks/post-merge", ".meta/config", "./.meta/HEAD"])
def test_a_gitdir_file_does_not_open_the_real_git_folder_to_writes(separate_git_dir, path):
    box = FileSandbox(separate_git_dir)
    before = (separate_git_dir / ".meta" / "config").read_bytes()
    with pytest.raises(PathRefused, match="git"):
        box.write_text(path, "[core]\n\tfsmonitor = touch pwned\n")
    assert (separate_git_dir / ".meta" / "config").read_bytes() == before
    assert _hooks_untouched(separate_git_dir / ".meta") == []


@pytest.mark.parametrize("name", [".meta ", " .meta", ".meta\t"])
def test_a_gitdir_file_is_read_as_git_reads_it_blanks_included(tmp_path, name):
    """git keeps blanks in a `gitdir:` path (it strips only the line ends): `gitdir: .meta `
    names `.meta `. A HEAD that is a link to `refs/...` (which git accepts) changes nothing."""
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", str(project), cwd=tmp_path)
    (project / ".git").rename(project / name)
    (project / ".git").write_text(f"gitdir: {name}\n")
    head = project / name / "HEAD"
    head.unlink()
    head.symlink_to("refs/heads/master")
    box = FileSandbox(project)
    for path in [f"{name}/config", f"{name}/hooks/pre-commit"]:
        with pytest.raises(PathRefused, match="git"):
            box.write_text(path, "[core]\n\tfsmonitor = touch pwned\n")
    assert _hooks_untouched(project / name) == []


@pytest.mark.parametrize("where", [".", "bare.git"])
def test_a_bare_repository_with_a_linked_head_is_a_git_folder(tmp_path, where):
    project = tmp_path / "project"
    project.mkdir()
    bare = project / where
    _git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    (bare / "HEAD").unlink()
    (bare / "HEAD").symlink_to("refs/heads/main")
    box = FileSandbox(project)
    prefix = "" if where == "." else f"{where}/"
    for path in [f"{prefix}config", f"{prefix}hooks/pre-receive"]:
        with pytest.raises(PathRefused, match="git"):
            box.write_text(path, "#!/bin/sh\ntouch pwned\n")
    assert _hooks_untouched(bare) == []


def test_a_git_link_is_refused_by_the_path_as_written(tmp_path):
    project = tmp_path / "project"
    (project / ".meta" / "hooks").mkdir(parents=True)
    (project / ".git").symlink_to(".meta")
    box = FileSandbox(project)
    for path in [".git/hooks/pre-commit", ".meta/hooks/pre-commit", ".meta/config"]:
        with pytest.raises(PathRefused, match="git"):
            box.write_text(path, "#!/bin/sh\ntouch pwned\n")
    assert list((project / ".meta" / "hooks").iterdir()) == []


def test_a_link_to_the_git_folder_elsewhere_in_the_project_is_refused_too(separate_git_dir):
    (separate_git_dir / "docs").symlink_to(".meta")
    with pytest.raises(PathRefused, match="git"):
        FileSandbox(separate_git_dir).write_text("docs/hooks/post-checkout", "touch pwned\n")
    assert _hooks_untouched(separate_git_dir / ".meta") == []


def test_a_worktree_s_gitdir_and_commondir_are_refused(tmp_path):
    """A project holding a repository whose git folder is `.vault`, and a worktree of it."""
    project = tmp_path / "project"
    project.mkdir()
    main = project / "main"
    _git("init", "-q", "--separate-git-dir", str(project / ".vault"), str(main), cwd=tmp_path)
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty"]
    _git(*commit, "-m", "x", cwd=main)
    _git("worktree", "add", "-q", str(project / "work"), cwd=main)
    work = project / "work"
    assert (work / ".git").read_text().startswith("gitdir: ")
    assert (project / ".vault" / "worktrees" / "work" / "commondir").exists()
    box = FileSandbox(project)
    for path in [
        ".vault/worktrees/work/config.worktree",  # the worktree's own git folder
        "work/../.vault/hooks/pre-commit",  # its commondir: the main repository's
        ".vault/hooks/post-merge",
        "work/.git",  # the gitdir: file itself
    ]:
        with pytest.raises(PathRefused, match="git"):
            box.write_text(path, "x")
    assert _hooks_untouched(project / ".vault") == []
    # From the worktree as the project root, the gitdir (outside it) cannot be reached at all.
    assert FileSandbox(work).write_text("notes.txt", "fine").startswith("Wrote")


def test_an_ordinary_file_beside_a_gitdir_file_is_still_written(separate_git_dir):
    box = FileSandbox(separate_git_dir)
    assert box.write_text("src/metadata.py", "x = 1\n").startswith("Wrote")
    assert box.read_text(".meta/HEAD").startswith("ref: ")  # reading stays allowed
