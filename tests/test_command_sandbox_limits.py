"""What a command inside bubblewrap cannot reach or exhaust: root-only files under /etc, the
machine's memory through the in-memory folders, and a silent exit for a process that hops pids.

Every file written lives in the sandbox's own in-memory folders or under the test's temporary
folder; the real /etc is only read (by this test, and by commands that must fail to read it).

bubblewrap missing or unable to create namespaces: the module is skipped with one line, except
with CI=true (`.ci/run`), where these tests are mandatory and fail instead.
"""

import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from time_limit import time_limit

from course_helpers.plumbing import command_sandbox, set_id_bits
from course_helpers.plumbing.commands import run_command

ON_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
PROBLEM = command_sandbox.problem() if Path("/proc/self/stat").exists() else "needs Linux"
if PROBLEM is not None and not ON_CI:
    pytest.skip(f"bubblewrap not usable here: {PROBLEM}", allow_module_level=True)


@pytest.fixture(autouse=True)
def bubblewrap_is_mandatory_on_ci():
    if PROBLEM is not None:
        pytest.fail(f"{PROBLEM} (CI=true: the OS sandbox tests are mandatory)", pytrace=False)
    with time_limit(60):
        yield


def not_world_readable(etc: str) -> tuple[list[str], list[str]]:
    """Computed here on its own (os.walk, lstat): files and top folders others may not read."""
    files, folders = [], []
    for top, names, file_names in os.walk(etc):
        for name in list(names):
            path = os.path.join(top, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IROTH:
                folders.append(path)
                names.remove(name)  # hidden as a whole
        for name in file_names:
            path = os.path.join(top, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode) and not mode & stat.S_IROTH:
                files.append(path)
    return sorted(files), sorted(folders)


def test_every_file_under_etc_that_others_may_not_read_is_unreadable_inside(tmp_path):
    """/etc/shadow- (the copy passwd keeps), /etc/security/opasswd and the rest: as root, the
    owner of them all, a command could read them when only /etc/shadow was hidden."""
    files, folders = not_world_readable("/etc")
    hidden_files, hidden_folders = command_sandbox.hidden_under("/etc")
    assert set(files) <= set(hidden_files)
    assert set(folders) <= set(hidden_folders)
    for named in command_sandbox.HIDDEN_FILES:
        if os.path.lexists(named):
            files.append(named)
    command = "; ".join(
        f"head -c 1 {shlex.quote(path)} 2>/dev/null | wc -c" for path in sorted(set(files))
    ) + "".join(f"; ls -A {shlex.quote(path)} | wc -l" for path in folders)
    result = run_command(command or "true", cwd=tmp_path, sandbox="bubblewrap")
    assert result.output.split() == ["0"] * (len(set(files)) + len(folders))


def test_the_hiding_rule_on_a_made_up_etc(tmp_path):
    """The same rule on a tree of our own, so that it is checked on any machine."""
    etc = tmp_path / "etc"
    (etc / "security").mkdir(parents=True)
    (etc / "private").mkdir()
    (etc / "open" / "deeper").mkdir(parents=True)
    modes = {
        "shadow-": 0o644,  # a named backup: hidden whatever its mode
        "security/opasswd": 0o600,
        "hosts": 0o644,
        "app.conf": 0o640,
        "private/key.pem": 0o644,  # inside a hidden folder: the folder is hidden
        "open/deeper/token": 0o600,
        "open/deeper/readme": 0o604,
    }
    for name, mode in modes.items():
        (etc / name).write_text("x")
        (etc / name).chmod(mode)
    (etc / "private").chmod(0o700)
    (etc / "link").symlink_to(etc / "app.conf")  # the link is not a file: its target is hidden
    files, folders = command_sandbox.hidden_under(str(etc))
    names = [os.path.relpath(path, etc) for path in files]
    assert names == ["app.conf", "open/deeper/token", "security/opasswd", "shadow-"]
    assert folders == [str(etc / "private")]
    options = command_sandbox.hiding_options(str(etc))
    for path in files:
        at = options.index(path)
        assert options[at - 2 : at + 1] == ["--ro-bind", "/dev/null", path]
    private = str(etc / "private")
    at = options.index(private)
    assert options[at - 1 : at + 3] == ["--tmpfs", private, "--remount-ro", private]


@pytest.mark.parametrize("folder", command_sandbox.EMPTY)
def test_an_in_memory_folder_cannot_take_more_than_its_limit(tmp_path, folder):
    """Each one was as large as half the machine's memory; now a write past the limit fails."""
    megabytes = command_sandbox.SCRATCH_LIMIT // 2**20 + 8
    command = (
        f"dd if=/dev/zero of={folder}/fill bs=1M count={megabytes} 2>&1 | grep -c 'No space left'; "
        f"rm -f {folder}/fill"
    )
    result = run_command(command, cwd=tmp_path, sandbox="bubblewrap", timeout=30)
    assert result.output == "1\n"


def test_the_root_folder_and_dev_are_read_only(tmp_path):
    command = "touch /fill 2>&1 | grep -c Read-only; touch /dev/fill 2>&1 | grep -c Read-only"
    result = run_command(command, cwd=tmp_path, sandbox="bubblewrap")
    assert result.output == "1\n1\n"


def test_a_process_that_keeps_changing_its_pid_is_reported_every_time(tmp_path):
    """Each generation forks and exits: one scan of /proc missed it in about 4 runs of 10."""
    hopper = "import os\nwhile True:\n    if os.fork(): os._exit(0)"
    python = shlex.quote(sys.executable)
    command = f"{python} -c {shlex.quote(hopper)} >/dev/null 2>&1 & sleep 0.2; echo done"
    for _ in range(10):
        result = run_command(command, cwd=tmp_path, sandbox="bubblewrap", timeout=10)
        assert result.background_stopped
        assert "left processes running in the background" in result.as_tool_text()


def test_a_set_uid_program_left_in_the_project_loses_the_bit(tmp_path):
    """As root, `chmod u+s` of a file of one's own needs no capability: the program would run as
    root outside the sandbox. run_command clears the bits once the namespace has ended."""
    project = tmp_path / "project"
    project.mkdir()
    command = (
        "cp /bin/sh ./suidsh && chmod 4755 ./suidsh && mkdir -p deep/er && "
        "cp /bin/true deep/er/t && chmod 2755 deep/er/t && ls -l suidsh deep/er/t | cut -c1-10"
    )
    result = run_command(command, cwd=project, sandbox="bubblewrap")
    assert result.output.split() == ["-rwxr-sr-x", "-rwsr-xr-x"], "the bits were set inside"
    modes = [(project / name).stat().st_mode & 0o6000 for name in ("suidsh", "deep/er/t")]
    # As another user a set-uid file of one's own runs as oneself: the bits are left alone.
    assert modes == ([0, 0] if os.geteuid() == 0 else [0o4000, 0o2000])


def test_clearing_the_set_id_bits_follows_no_link(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("#!/bin/sh\n")
    outside.chmod(0o4755)
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "sub" / "tool").write_text("#!/bin/sh\n")
    (project / "sub" / "tool").chmod(0o6755)
    (project / "link").symlink_to(outside)
    (project / "folder-link").symlink_to(tmp_path)
    report = set_id_bits.clear_set_id_bits(project)
    assert report.cleared == [str(project / "sub" / "tool")] and report.missed == 0
    assert (project / "sub" / "tool").stat().st_mode & 0o7777 == 0o755
    assert outside.stat().st_mode & 0o7777 == 0o4755


def test_what_the_set_id_walk_could_not_check_is_said_in_the_output(tmp_path, monkeypatch):
    """As root, a folder the walk cannot enter is not passed over in silence."""
    project = tmp_path / "project"
    (project / "shut").mkdir(parents=True)
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if path == "shut" and kwargs.get("dir_fd") is not None:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "geteuid", lambda: 0)  # the walk runs only as root
    monkeypatch.setattr(set_id_bits.os, "open", refusing_open)
    result = run_command("true", cwd=project, sandbox="bubblewrap")
    monkeypatch.undo()
    assert result.exit_code == 0
    assert result.output.endswith(
        "[could not check 1 folder(s) or file(s) of the project for "
        "set-uid bits; look before running anything from it as root]"
    )
    assert "could not check 1 folder(s)" in result.as_tool_text()
