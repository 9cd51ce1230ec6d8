"""What bubblewrap adds to run_command, shown against the plain runner (defect class 8).

The plain runner runs a command as our own user: it reads the parent's secrets from
/proc/$PPID/environ, kills the parent, reaches the network and survives its timeout by leaving
the process group. Inside bubblewrap each of these fails. The "parent" here is a small Python
process started by the test with a made-up secret in its environment, so the real test process
and the machine's own secrets are never involved.

Safety of the suite itself: every file a command tries to write lives under the test's
temporary folder, so even a broken sandbox running as root writes nowhere else. Checks that the
system is read-only use `test -w` (access(2)), which writes nothing.

bubblewrap missing or unable to create namespaces: the module is skipped with one line, except
with CI=true (`.ci/run`), where these tests are mandatory and fail instead.
"""

import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import planted
import pytest
from processes import gone_within, kill_all, living
from time_limit import time_limit

from course_helpers.plumbing import command_sandbox, commands
from course_helpers.plumbing.commands import run_command


def _on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


PROBLEM = command_sandbox.problem() if Path("/proc/self/stat").exists() else "needs Linux"
if PROBLEM is not None and not _on_ci():
    pytest.skip(f"bubblewrap not usable here: {PROBLEM}", allow_module_level=True)


@pytest.fixture(autouse=True)
def bubblewrap_is_mandatory_on_ci():
    """On CI a missing bubblewrap fails every test here; locally the module was skipped."""
    if PROBLEM is not None:
        pytest.fail(f"{PROBLEM} (CI=true: the OS sandbox tests are mandatory)", pytrace=False)
    with time_limit(30):
        yield


# The child processes below import only course_helpers.plumbing.commands and what it needs, not the
# package's __init__ (which loads the SDK and takes seconds).
LIGHT_IMPORT = (
    "import sys, types\n"
    "package = types.ModuleType('course_helpers')\n"
    f"package.__path__ = [{str(Path(commands.__file__).parents[1])!r}]\n"
    "sys.modules['course_helpers'] = package\n"
)
SECRET = "course-test-secret-7f3a"  # made up; lives only in the environment of `parent`


def parent(tmp_path: Path, command: str, sandbox: str, timeout: float = 10):
    """Run `command` through run_command from a fresh Python process holding SECRET.

    Returns the finished parent process: its stdout is the command's tool text, its exit
    code says whether the parent itself survived.
    """
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    script = LIGHT_IMPORT + textwrap.dedent(
        f"""
        from course_helpers.plumbing.commands import run_command
        result = run_command({command!r}, cwd={str(project)!r}, timeout={timeout!r},
                             sandbox={sandbox!r})
        print(result.as_tool_text())
        print("parent still alive")
        """
    )
    env = {"PATH": os.environ["PATH"], "PAYMENTS_API_TOKEN": SECRET}
    return subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


# --- the parent's secrets and the parent itself -------------------------------------------

READ_PARENT = (
    "tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'"
)


def test_plain_runner_reads_the_parents_secret_from_proc(tmp_path):
    """The limit notebook 07 states: scrubbing the command's environment is not isolation."""
    done = parent(tmp_path, READ_PARENT, "none")
    assert SECRET in done.stdout


def test_bubblewrap_hides_the_parents_environment(tmp_path):
    done = parent(tmp_path, READ_PARENT, "bubblewrap")
    assert done.returncode == 0, done.stderr
    assert "parent still alive" in done.stdout
    assert SECRET not in done.stdout


def test_plain_runner_can_kill_its_parent(tmp_path):
    done = parent(tmp_path, "kill -9 $PPID; sleep 1", "none")
    assert done.returncode == -signal.SIGKILL
    assert "parent still alive" not in done.stdout


def test_bubblewrap_cannot_see_or_kill_the_parent(tmp_path):
    command = "echo ppid=$PPID; kill -9 $PPID; ls /proc | grep -c '^[0-9]'"
    done = parent(tmp_path, command, "bubblewrap")
    assert done.returncode == 0, done.stderr
    assert "parent still alive" in done.stdout
    # The namespace's own processes (bwrap's first one, or the shell watching the command),
    # never the agent.
    assert "ppid=1\n" in done.stdout or "ppid=2\n" in done.stdout


def test_only_the_sandboxs_own_processes_are_visible(tmp_path):
    result = run_command(
        f"test -e /proc/{os.getpid()} && echo visible || echo hidden; ls /proc | grep -c '^[0-9]'",
        cwd=tmp_path,
        sandbox="bubblewrap",
    )
    lines = result.output.split()
    assert lines[0] == "hidden"
    assert int(lines[1]) < 10


# --- leaving the group, dying with the parent ---------------------------------------------


def unique_sleep() -> str:
    """A sleep command line no other process has, even with this file run twice at once."""
    return f"sleep 100.{secrets.randbelow(10**8):08d}"


@pytest.mark.parametrize("escape", ["setsid", "setsid env -i", "set -m;"])
def test_leaving_the_group_does_not_survive_the_timeout(tmp_path, escape):
    marker = unique_sleep()
    try:
        command = f"{escape} {marker} & sleep 100"
        result = run_command(command, cwd=tmp_path, timeout=0.5, sandbox="bubblewrap")
        assert result.timed_out
        assert gone_within(marker, 5)
    finally:
        kill_all(marker)


def test_background_escapee_dies_when_the_command_ends(tmp_path):
    marker = unique_sleep()
    try:
        result = run_command(
            f"setsid env -i {marker} & echo done", cwd=tmp_path, sandbox="bubblewrap"
        )
        assert result.exit_code == 0 and result.output == "done\n"
        assert gone_within(marker, 5)
    finally:
        kill_all(marker)


def test_command_dies_with_the_process_that_runs_it(tmp_path):
    marker = unique_sleep()
    project = tmp_path / "project"
    project.mkdir()
    script = LIGHT_IMPORT + (
        "from course_helpers.plumbing.commands import run_command\n"
        f"run_command({marker!r}, cwd={str(project)!r}, timeout=60, sandbox='bubblewrap')\n"
    )
    runner = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not living(marker):
            assert time.monotonic() < deadline, "the sandboxed command never started"
            time.sleep(0.05)
        runner.kill()  # SIGKILL: the runner gets no chance to clean up
        runner.wait()
        assert gone_within(marker, 5)
    finally:
        runner.kill()
        runner.wait()
        kill_all(marker)


# --- files and network --------------------------------------------------------------------


def test_only_the_project_is_writable_and_files_beside_it_are_absent(tmp_path):
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.env").write_text(f"TOKEN={SECRET}\n")
    command = (
        "echo made > inside.txt; "
        f"cat {shlex.quote(str(outside / 'secret.env'))}; "
        f"echo pwned > {shlex.quote(str(outside / 'planted.txt'))}; "
        "for folder in /etc /usr /bin /var; do test -w $folder && echo writable $folder; done; "
        "echo checked"
    )
    result = run_command(command, cwd=project, sandbox="bubblewrap")
    assert (project / "inside.txt").read_text() == "made\n"
    assert SECRET not in result.output
    assert not (outside / "planted.txt").exists()
    assert "writable" not in result.output
    assert result.output.rstrip().endswith("checked")


def test_no_network(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    probe = f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo refused"
    try:
        plain = run_command(probe, cwd=tmp_path, sandbox="none")
        boxed = run_command(probe, cwd=tmp_path, sandbox="bubblewrap")
    finally:
        server.close()
    assert plain.output == "connected\n"  # the plain runner reaches a port on this machine
    assert boxed.output == "refused\n"


def test_no_capabilities_even_as_root(tmp_path):
    result = run_command("grep CapEff /proc/self/status", cwd=tmp_path, sandbox="bubblewrap")
    assert result.output.split()[-1] == "0000000000000000"


def test_environment_is_the_allow_list(tmp_path, monkeypatch):
    monkeypatch.setenv("MYSQL_PWD", SECRET)
    result = run_command("env", cwd=tmp_path, sandbox="bubblewrap")
    names = {line.split("=", 1)[0] for line in result.output.splitlines()}
    assert SECRET not in result.output
    assert names <= set(commands.ALLOWED_VARIABLES) | {"PWD", "SHLVL", "_", "OLDPWD"} | {
        n for n in names if n.startswith("LC_")
    }


def test_python_of_the_course_runs_inside(tmp_path):
    command = f"{shlex.quote(sys.executable)} -c 'print(6 * 7)'"
    result = run_command(command, cwd=tmp_path, sandbox="bubblewrap")
    assert (result.exit_code, result.output) == (0, "42\n")


def test_a_signal_death_is_reported_shell_style(tmp_path):
    result = run_command("kill -9 $$", cwd=tmp_path, sandbox="bubblewrap")
    assert result.exit_code == 128 + 9
    assert "killed by signal SIGKILL" in result.as_tool_text()


def test_auto_uses_bubblewrap_here(tmp_path):
    assert run_command("true", cwd=tmp_path).sandbox == "bubblewrap"


def test_an_ordinary_command_reports_nothing_left_behind(tmp_path):
    """bwrap's own first process may still be exiting when bash has: that is not a leftover."""
    for _ in range(10):
        result = run_command("echo ok", cwd=tmp_path, sandbox="bubblewrap")
        assert result.as_tool_text() == "Exit code: 0\nOutput:\nok\n"


def test_only_system_folders_are_visible(tmp_path):
    """Other projects, the course's own files and the rest of the machine are simply absent."""
    course_file = Path(__file__).resolve()  # a file outside the project, not in a system folder
    command = (
        f"test -e {shlex.quote(str(course_file))} && echo visible || echo absent; "
        "for folder in /srv /mnt /var /run /opt /media; do test -e $folder && echo $folder; done; "
        "cat /etc/shadow 2>/dev/null | head -c 20; echo end"
    )
    result = run_command(command, cwd=tmp_path, sandbox="bubblewrap")
    assert result.output == "absent\nend\n"


@pytest.mark.parametrize("command", ["echo done", "sleep 0.1 & wait; echo done", "exit 3"])
def test_a_command_that_leaves_nothing_running_reports_nothing(tmp_path, command):
    result = run_command(command, cwd=tmp_path, sandbox="bubblewrap")
    assert not result.background_stopped
    assert "background" not in result.as_tool_text()


def test_the_pipe_that_reports_leftovers_is_not_open_to_the_command(tmp_path):
    result = run_command("ls /proc/self/fd", cwd=tmp_path, sandbox="bubblewrap")
    assert result.output.split() == ["0", "1", "2", "3"]  # 3: ls reading the folder


# --- nothing a command writes runs on the host afterwards ----------------------------------
# The agent's commands work in the project; course code on the host then runs git in it
# (notebook 07's merge_pr, the reviewer's tools) or the agent's tests. Each plant below is an
# attack on that: a command leaves something for the host to run. Its payload appends to a
# marker beside the project; the marker must never appear.


@pytest.fixture
def pr_project(tmp_path):
    """Notebook 07's repository as the project, and where a payload would leave its proof."""
    from course_helpers.fixtures.pr_repo import build_pr_repo

    outside = tmp_path / "outside"
    outside.mkdir()
    return build_pr_repo(tmp_path / "project"), outside / planted.MARKER


def git_metadata(repo: Path) -> dict[str, bytes]:
    """Every file under .git with its content: what a command inside must not change."""
    return {
        str(path.relative_to(repo)): path.read_bytes()
        for path in sorted((repo / ".git").rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("door", sorted(planted.plants(Path("/unused"))))
def test_a_command_cannot_leave_git_anything_to_run_on_the_host(pr_project, door):
    repo, marker = pr_project
    before = git_metadata(repo.path)
    result = run_command(planted.plants(marker)[door], cwd=repo.path, sandbox="bubblewrap")
    assert result.exit_code != 0, result.output  # the plant failed inside ...
    assert git_metadata(repo.path) == before  # ... and .git is as it was
    assert planted.host_actions(repo) == "ran"  # the host's git calls then run, merge included
    assert repo.read_file("README.md", ref="main").count("## Development") == 1
    assert not marker.exists()


def test_commands_still_read_the_history_and_change_the_files(pr_project):
    repo, _ = pr_project
    command = (
        "git log --format=%s -1 main && git show pr-483 --stat --format= && echo x >> README.md"
    )
    result = run_command(command, cwd=repo.path, sandbox="bubblewrap")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Start the invoicing library\n README.md")
    assert (repo.path / "README.md").read_text().endswith("x\n")


def _git_init(*args: str, cwd: Path) -> None:
    environment = {"PATH": os.defpath, "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env=environment, timeout=30
    )


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_git_link_is_refused_before_the_command_starts_saying_why(tmp_path):
    """A link can be replaced from inside (`rm .git; ln -s forged .git`): the host's git would
    then read a forged history. No mount keeps a link in place, so the sandbox will not start."""
    project = tmp_path / "project"
    (project / "metadata" / "hooks").mkdir(parents=True)
    (project / ".git").symlink_to("metadata")
    forge = "rm .git && mkdir -p forged && ln -s forged .git; touch metadata/hooks/post-merge"
    with pytest.raises(command_sandbox.SandboxRefused, match=r"\.git is a symbolic link"):
        run_command(forge, cwd=project, sandbox="bubblewrap")
    assert os.readlink(project / ".git") == "metadata"
    assert not (project / "forged").exists()
    assert list((project / "metadata").rglob("*")) == [project / "metadata" / "hooks"]


@pytest.fixture
def gitdir_project(tmp_path):
    """`.git` is the file 'gitdir: .meta' (git init --separate-git-dir), as a person may keep it."""
    project = tmp_path / "project"
    project.mkdir()
    _git_init(
        "init", "-q", "--separate-git-dir", str(project / ".meta"), str(project), cwd=tmp_path
    )
    (project / ".git").write_text("gitdir: .meta\n")
    return project


def test_the_git_folder_a_gitdir_file_names_is_read_only(gitdir_project):
    before = _tree(gitdir_project / ".meta")
    plant = (
        "echo 'touch pwned' > .meta/hooks/post-merge; git config core.fsmonitor 'touch pwned'; "
        "printf 'gitdir: forged\\n' > .git; rm -f .git"
    )
    result = run_command(plant, cwd=gitdir_project, sandbox="bubblewrap")
    assert _tree(gitdir_project / ".meta") == before, result.output
    assert (gitdir_project / ".git").read_text() == "gitdir: .meta\n"


def test_a_folder_on_the_way_to_the_git_folder_cannot_be_moved_away(tmp_path):
    """`gitdir: keep/.meta`: moving `keep` aside and making a forged `keep/.meta` would give the
    host's git another history; every folder on the way stays in place (still writable)."""
    project = tmp_path / "project"
    (project / "keep").mkdir(parents=True)
    _git_init(
        "init",
        "-q",
        "--separate-git-dir",
        str(project / "keep" / ".meta"),
        str(project),
        cwd=tmp_path,
    )
    (project / ".git").write_text("gitdir: keep/.meta\n")
    forge = (
        "mv keep moved && mkdir -p keep/.meta && echo forged > keep/.meta/HEAD; touch keep/notes"
    )
    result = run_command(forge, cwd=project, sandbox="bubblewrap")
    assert (project / "keep" / ".meta" / "HEAD").read_text().startswith("ref: "), result.output
    assert not (project / "moved").exists()
    assert (project / "keep" / "notes").exists(), "the folder itself stays writable"


def test_a_worktree_s_commondir_inside_the_project_is_read_only(tmp_path):
    """The project is a worktree; its git folder and the main one (its commondir) are inside it,
    under `.vault`: `.git` says `gitdir: .vault/worktrees/work`, whose commondir is `../..`."""
    main, work = tmp_path / "main", tmp_path / "work"
    _git_init("init", "-q", str(main), cwd=tmp_path)
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty"]
    _git_init(*commit, "-m", "x", cwd=main)
    _git_init("worktree", "add", "-q", str(work), cwd=main)
    (main / ".git").rename(work / ".vault")
    (main / ".git").write_text("gitdir: ../work/.vault\n")
    (work / ".git").write_text("gitdir: .vault/worktrees/work\n")
    before = _tree(work / ".vault")
    plant = "echo 'touch pwned' > .vault/hooks/post-merge; git config core.fsmonitor 'touch pwned'"
    result = run_command(plant + "; git log --format=%s", cwd=work, sandbox="bubblewrap")
    assert _tree(work / ".vault") == before, result.output
    assert result.output.rstrip().endswith("x"), "git still reads the history inside"


WRITE_MARKER = "import pathlib\ntry:\n    pathlib.Path({marker!r}).write_text('ran')\nexcept OSError:\n    pass\n"
SELF_STARTERS = {
    "conftest.py": WRITE_MARKER,
    "sitecustomize.py": WRITE_MARKER,
    "usercustomize.py": WRITE_MARKER,
    "Makefile": "all:\n\techo ran > {marker}\n",
    ".bashrc": "echo ran > {marker}\n",
}


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap"])
def test_files_python_pytest_or_a_shell_would_run_run_only_inside_the_sandbox(tmp_path, sandbox):
    """The agent plants them; the course then runs the project's tests as notebook 08 does.

    With the plain runner (the control) the planted conftest.py writes the marker: the door
    is real. Inside bubblewrap it runs too, and the marker beside the project stays absent.
    """
    from course_helpers.fixtures.shop_project import copy_shop_project
    from course_helpers.lessons.coding_agent import agent_environment
    from course_helpers.plumbing.file_sandbox import FileSandbox

    outside = tmp_path / "outside"
    outside.mkdir()
    marker = outside / planted.MARKER
    box = FileSandbox(copy_shop_project(tmp_path / "project"))
    for name, text in SELF_STARTERS.items():
        box.write_text(name, text.format(marker=str(marker)))
    box.write_text("tests/conftest.py", "open('conftest-ran-here', 'w').close()\n")
    assert "conftest.py" in box.list_files(".") and "ran" in box.read_text("conftest.py")
    result = run_command(
        "python -m pytest -q; make; bash -ic true",
        cwd=box.root,
        env=agent_environment(),
        timeout=60,
        sandbox=sandbox,
    )
    assert "passed" in result.output  # the tests ran ...
    assert (box.root / "conftest-ran-here").exists()  # ... with the planted conftest.py
    assert marker.exists() == (sandbox == "none")


# --- layouts no mount can protect, and a bare repository (hostile round three) ---------------


def test_a_project_inside_a_repository_above_it_is_refused_saying_why(tmp_path):
    """The project is `repo/work`, with no .git of its own: `git init` inside would give the
    host's git (and `git -C repo`, which then sees a nested repository) another history."""
    repo = tmp_path / "repo"
    (repo / "work").mkdir(parents=True)
    _git_init("init", "-q", str(repo), cwd=tmp_path)
    forge = "git init -q . && echo forged > .git/description"
    with pytest.raises(command_sandbox.SandboxRefused, match=r"inside the git repository at"):
        run_command(forge, cwd=repo / "work", sandbox="bubblewrap")
    assert not (repo / "work" / ".git").exists()


@pytest.mark.parametrize("layout", ["gitdir", "commondir"])
def test_a_git_folder_named_but_not_there_yet_is_refused(tmp_path, layout):
    """`.git` says `gitdir: .meta` (or a worktree's commondir says `../../.common`) and that
    folder does not exist: a command could create it, hooks and all."""
    project = tmp_path / "project"
    project.mkdir()
    if layout == "gitdir":
        (project / ".git").write_text("gitdir: .meta\n")
        missing = project / ".meta"
    else:
        _git_init(
            "init", "-q", "--separate-git-dir", str(project / ".wt"), str(project), cwd=tmp_path
        )
        (project / ".git").write_text("gitdir: .wt\n")
        (project / ".wt" / "commondir").write_text("../.common\n")
        missing = project / ".common"
    plant = f"mkdir -p {missing.name}/hooks && echo 'touch pwned' > {missing.name}/hooks/post-merge"
    with pytest.raises(command_sandbox.SandboxRefused, match=r"which does not exist"):
        run_command(plant, cwd=project, sandbox="bubblewrap")
    assert not missing.exists()


def test_a_bare_repository_as_the_project_is_read_only(tmp_path):
    project = tmp_path / "project.git"
    _git_init("init", "-q", "--bare", str(project), cwd=tmp_path)
    before = _tree(project)
    plant = (
        "echo 'touch pwned' > hooks/post-merge; git config core.fsmonitor 'touch pwned'; "
        "echo forged > HEAD; mkdir -p refs/heads/forged"
    )
    result = run_command(plant + "; git rev-parse --git-dir", cwd=project, sandbox="bubblewrap")
    assert _tree(project) == before, result.output
    assert not (project / "refs" / "heads" / "forged").exists()
    assert result.output.rstrip().endswith("."), "git still reads the repository inside"


@pytest.mark.parametrize("setting", ["include.path", "core.hooksPath"])
def test_a_setting_that_points_into_the_project_is_never_followed_by_the_host(pr_project, setting):
    """The repository's own configuration (read-only inside) names a file in the project, which
    a command may write: the host's git refuses the repository instead of reading or running it."""
    from course_helpers.fixtures.pr_repo import git
    from course_helpers.plumbing.host_git import UnsafeRepository

    repo, marker = pr_project
    value = "extra.cfg" if setting == "include.path" else "hooks"
    _git_init("config", setting, str(repo.path / value), cwd=repo.path)
    script = f"#!/bin/sh\n{planted.payload(marker)} </dev/null\n"
    plant = (
        f"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/hooks/post-merge\" > extra.cfg; "
        f"mkdir -p hooks && printf %s {shlex.quote(script)} > hooks/post-merge && "
        "chmod +x hooks/post-merge"
    )
    result = run_command(plant, cwd=repo.path, sandbox="bubblewrap")
    assert result.exit_code == 0, result.output  # the project itself is writable
    with pytest.raises(UnsafeRepository, match=setting.lower()):
        git(repo.path, "status")
    with pytest.raises(UnsafeRepository):
        git(repo.path, "merge", "--no-edit", "pr-482")
    assert not marker.exists()
