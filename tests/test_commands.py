"""run_command() against runaway, forking, flooding, input-reading and secret-printing commands.

These tests exercise the plain runner (`sandbox="none"`): process groups, timeouts, output and
the environment allow-list, which also apply inside bubblewrap. What bubblewrap adds is tested
in test_command_sandbox.py. "Dead" is checked by reading /proc ourselves, independently of the module: a process counts as
alive unless it is gone or a zombie (exited, waiting to be collected by its parent).
"""

import os
import shlex
import signal
import sys
import tracemalloc
import warnings
from pathlib import Path

import pytest
from time_limit import time_limit

from course_helpers.plumbing import command_sandbox, commands, process_groups
from course_helpers.plumbing.commands import CommandResult, run_command, safe_environment
from course_helpers.plumbing.truncate import cut_marker

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@pytest.fixture(autouse=True)
def no_test_may_hang():
    """Fail any test that takes more than 10 s instead of hanging the whole suite."""
    with time_limit(10):
        yield


def living_processes():
    """(pid, process group, command line) of every process that is neither gone nor a zombie."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(b")", 1)[1].split()
        if fields[0] not in (b"Z", b"X"):
            yield int(entry.name), int(fields[2]), cmdline


def group_members(pgid):
    return [pid for pid, group, _ in living_processes() if group == pgid]


def running(marker):
    """Processes whose command line contains marker, e.g. a unique 'sleep 100.4242'."""
    return [pid for pid, _, cmdline in living_processes() if marker in cmdline]


# Timing bounds here only tell "stopped" from "hung": they are generous so that a loaded
# machine cannot fail them. How fast a runaway group dies is measured by
# benchmarks/command_timeout.py, not asserted.
HANG_MARGIN = 3.0
RETURNS_AT_ONCE = 5.0  # far below the 10 s timeout these commands would otherwise wait for


def run(command, tmp_path, **options):
    options.setdefault("timeout", 10)
    options.setdefault("sandbox", "none")
    return run_command(command, cwd=tmp_path, **options)


# --- ordinary commands ------------------------------------------------------------------


def test_exit_code_and_output(tmp_path):
    result = run("echo hello; exit 3", tmp_path)
    assert (result.exit_code, result.output, result.timed_out) == (3, "hello\n", False)
    assert result.duration < RETURNS_AT_ONCE


def test_stdout_and_stderr_are_interleaved_in_order(tmp_path):
    result = run("echo one; echo two >&2; echo three", tmp_path)
    assert result.output == "one\ntwo\nthree\n"


def test_runs_in_cwd(tmp_path):
    assert run("pwd", tmp_path).output == f"{tmp_path}\n"


def test_output_is_truncated_with_an_exact_count(tmp_path):
    result = run("seq 1 100000", tmp_path, max_output=100)
    full = "".join(f"{n}\n" for n in range(1, 100001))
    assert result.output == full[:50] + cut_marker(len(full) - 100) + full[-50:]


def test_bytes_that_are_not_utf8_become_replacement_characters(tmp_path):
    assert run(r"printf 'a\xffb'", tmp_path).output == "a\ufffdb"


def test_characters_split_across_reads_stay_whole(tmp_path):
    script = "import sys; sys.stdout.write('é' * 300000)"
    result = run(f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}", tmp_path)
    assert result.output == "é" * 2000 + cut_marker(296000) + "é" * 2000


def test_signal_death_is_reported(tmp_path):
    result = run("kill -9 $$", tmp_path)
    assert result.exit_code == -9
    assert "Exit code: -9 (killed by signal SIGKILL)" in result.as_tool_text()


# --- standard input ---------------------------------------------------------------------


@pytest.fixture
def open_stdin():
    """Give this process a standard input that never ends, like a CI runner or a kernel may."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    yield
    os.dup2(saved, 0)
    for fd in (saved, read_end, write_end):
        os.close(fd)


def test_cat_reading_stdin_returns_at_once(tmp_path, open_stdin):
    result = run("cat", tmp_path)
    assert (result.exit_code, result.output, result.timed_out) == (0, "", False)
    assert result.duration < RETURNS_AT_ONCE


def test_read_gets_end_of_file(tmp_path, open_stdin):
    result = run('read line; echo "status $? [$line]"', tmp_path)
    assert result.output == "status 1 []\n"


# --- runaway commands -------------------------------------------------------------------


def test_busy_loop_is_dead_soon_after_its_deadline(tmp_path):
    result = run("while true; do :; done", tmp_path, timeout=1)
    assert result.timed_out and result.exit_code is None
    assert 1 <= result.duration < 1 + HANG_MARGIN
    assert group_members(result.pid) == []


def test_forked_child_that_outlives_its_parent_is_killed_too(tmp_path):
    result = run("(sleep 100.4242 &) ; sleep 100", tmp_path, timeout=1)
    assert result.timed_out
    assert result.duration < 1 + HANG_MARGIN
    assert running("sleep 100.4242") == []
    assert group_members(result.pid) == []


def test_processes_ignoring_sigterm_get_sigkill(tmp_path):
    command = "trap '' TERM; (trap '' TERM; sleep 100.5151) & while true; do :; done"
    result = run(command, tmp_path, timeout=1)
    assert result.timed_out
    assert result.duration < 1 + HANG_MARGIN
    assert running("sleep 100.5151") == []
    assert group_members(result.pid) == []


def test_background_process_left_behind_is_stopped_when_the_command_ends(tmp_path):
    result = run("sleep 100.6262 & echo started", tmp_path)
    assert (result.exit_code, result.output, result.timed_out) == (0, "started\n", False)
    assert result.duration < RETURNS_AT_ONCE
    assert result.background_stopped
    assert "left processes running in the background" in result.as_tool_text()
    assert running("sleep 100.6262") == []


def test_nothing_left_behind_means_no_note(tmp_path):
    result = run("sleep 0.01 & wait", tmp_path)
    assert not result.background_stopped
    assert "background" not in result.as_tool_text()


def test_process_escaping_the_group_is_found_and_stopped(tmp_path):
    """setsid puts the sleeper in its own session: the group kill misses it, the marker does not."""
    try:
        # The fifo makes bash wait until the sleeper has left the group, so the test is exact.
        command = "mkfifo ready; setsid bash -c 'echo > ready; exec sleep 9.7373' & read < ready"
        result = run(command + "; echo hi", tmp_path, timeout=15)
        assert result.duration < RETURNS_AT_ONCE  # not the sleeper's 9.7 s
        assert result.output.startswith("hi\n")
        assert result.escaped_stopped == 1
        assert "left the command's process group" in result.as_tool_text()
        assert running("sleep 9.7373") == []
    finally:
        for pid in running("sleep 9.7373"):
            os.kill(pid, signal.SIGKILL)


def test_process_escaping_the_group_and_its_marker_cannot_hang_us(tmp_path):
    """A process that also clears its environment escapes the search (a limit of the plain
    runner, stated in notebook 07): we stop waiting for its output instead of hanging."""
    try:
        command = (
            "mkfifo ready; setsid env -i bash -c 'echo > ready; exec sleep 9.7474' & read < ready"
        )
        result = run(command + "; echo hi", tmp_path, timeout=15)
        assert result.duration < RETURNS_AT_ONCE
        assert result.output.startswith("hi\n")
        assert "output may be incomplete" in result.output
    finally:
        for pid in running("sleep 9.7474"):
            os.kill(pid, signal.SIGKILL)


# --- output floods ------------------------------------------------------------------------


def test_fifty_megabytes_of_output_are_never_held_in_memory(tmp_path):
    tracemalloc.start()
    try:
        result = run("yes | head -c 50000000", tmp_path, timeout=10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0 and not result.timed_out
    assert peak < 5_000_000
    assert result.output == "y\n" * 1000 + cut_marker(50_000_000 - 4000) + "y\n" * 1000


def test_endless_flood_is_stopped_and_bounded(tmp_path):
    tracemalloc.start()
    try:
        result = run("yes flood", tmp_path, timeout=1, max_output=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.timed_out and result.duration < 1 + HANG_MARGIN
    assert peak < 5_000_000
    assert result.output.startswith("flood\n" * 83)
    assert "characters cut from the middle" in result.output
    assert len(result.output) < 1100


# --- secrets ------------------------------------------------------------------------------


def test_secrets_in_the_parent_environment_do_not_reach_the_command(tmp_path, monkeypatch):
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-test-0001",
        "ANTHROPIC_BASE_URL": "https://example.invalid/secret-proxy-0002",
        "GITHUB_TOKEN": "ghp_test0003",
        "AWS_SECRET_ACCESS_KEY": "aws-test-0004",
        "db_password": "hunter2-0005",
        "MYSQL_PWD": "mysql-test-0006",
        "CI_JOB_JWT": "jwt-test-0007",
        "DATABASE_URL": "postgres://app:pw-test-0008@db/app",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    output = run("env", tmp_path).output
    for name, value in secrets.items():
        assert value not in output
        assert f"{name}=" not in output
    assert "LANG=C.UTF-8" in output
    assert f"PATH={os.environ['PATH']}" in output


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "SSH_AUTH_SOCK",
        "MYSQL_PWD",
        "CI_JOB_JWT",
        "DATABASE_URL",
        "REDIS_URL",
        "PGSERVICEFILE",
        "KUBECONFIG",
        "DOCKER_HOST",
        "LD_PRELOAD",
        "BASH_ENV",
        "PYTHONPATH",
        "COURSE_MODE",
    ],
)
def test_only_allowed_names_pass(name):
    assert safe_environment({name: "x", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_allowed_variables_are_kept():
    ordinary = {"PATH": "/bin", "HOME": "/home/a", "LANG": "C.UTF-8", "TERM": "xterm"}
    ordinary |= {"LC_ALL": "C.UTF-8", "TZ": "UTC", "USER": "a"}
    assert safe_environment(ordinary) == ordinary


def test_safe_environment_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("SOME_TOKEN", "t")
    monkeypatch.setenv("LC_MESSAGES", "C")
    env = safe_environment()
    assert "SOME_TOKEN" not in env and env["LC_MESSAGES"] == "C"


def test_an_explicit_env_is_used_exactly_plus_the_marker(tmp_path):
    output = run("env", tmp_path, env={"PATH": os.environ["PATH"], "ONLY_THIS": "1"}).output
    names = sorted(line.split("=", 1)[0] for line in output.splitlines())
    assert {"ONLY_THIS", "PATH", "AGENT_COMMAND_ID"} <= set(names)
    assert "HOME" not in names


# --- malformed input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "options", "error", "words"),
    [
        (None, {}, TypeError, "command must be a string"),
        (123, {}, TypeError, "command must be a string"),
        (b"echo", {}, TypeError, "command must be a string"),
        ("", {}, ValueError, "empty"),
        ("  ", {}, ValueError, "empty"),
        ("echo \x00", {}, ValueError, "NUL"),
        ("echo", {"timeout": 0}, ValueError, "positive"),
        ("echo", {"timeout": -1}, ValueError, "positive"),
        ("echo", {"timeout": float("inf")}, ValueError, "positive"),
        ("echo", {"timeout": float("nan")}, ValueError, "positive"),
        ("echo", {"timeout": "5"}, TypeError, "number of seconds"),
        ("echo", {"timeout": None}, TypeError, "number of seconds"),
        ("echo", {"max_output": -1}, ValueError, "max_output"),
        ("echo", {"max_output": "10"}, ValueError, "max_output"),
        ("echo", {"sandbox": "docker"}, ValueError, "sandbox must be"),
        ("echo", {"sandbox": None}, ValueError, "sandbox must be"),
    ],
)
def test_malformed_arguments_fail_clearly(tmp_path, command, options, error, words):
    with pytest.raises(error, match=words):
        run_command(command, cwd=tmp_path, **options)


def test_missing_cwd_fails_clearly(tmp_path):
    with pytest.raises(NotADirectoryError, match="not an existing folder"):
        run_command("echo", cwd=tmp_path / "missing")
    with pytest.raises(TypeError, match="cwd must be a folder path"):
        run_command("echo", cwd=None)


# --- what the model reads -----------------------------------------------------------------


def test_tool_text_for_a_normal_run():
    result = CommandResult("false", 1, "", False, 0.01, pid=1, timeout=10)
    assert result.as_tool_text() == "Exit code: 1\nOutput: (none)"


def test_tool_text_for_a_timeout(tmp_path):
    text = run("echo partial; sleep 100", tmp_path, timeout=0.5).as_tool_text()
    assert text.startswith("Timed out: the command was still running at its 0.5-second limit")
    assert text.endswith("Output:\npartial\n")
    assert "Exit code" not in text


# --- falling back where bubblewrap cannot run ---------------------------------------------


def test_fallback_warns_once_and_runs_plainly(tmp_path, monkeypatch):
    monkeypatch.setattr(command_sandbox, "problem", lambda: "bubblewrap (bwrap) is not installed")
    monkeypatch.setattr(commands, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = run_command("echo one", cwd=tmp_path)
        second = run_command("echo two", cwd=tmp_path)
    assert (first.sandbox, second.sandbox) == ("none", "none")
    assert [w.category for w in caught] == [commands.SandboxUnavailableWarning]
    assert "WITHOUT an operating-system sandbox" in str(caught[0].message)
    with pytest.raises(RuntimeError, match="not installed"):
        run_command("echo three", cwd=tmp_path, sandbox="bubblewrap")


def test_a_process_slow_to_die_is_counted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a busy machine a killed process is still listed on the next look: one process, one count."""
    looks = iter([[4242], [4242], [4242], []])
    monkeypatch.setattr(process_groups, "_escaped", lambda marker: next(looks))
    killed: list[int] = []
    monkeypatch.setattr(process_groups.os, "kill", lambda pid, sig: killed.append(pid))
    assert process_groups.stop_escaped("marker") == 1
    assert killed == [4242, 4242, 4242]


# --- the cost of reading does not depend on which bytes a command prints -----------------------

EVERY_BYTE = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 20000)"  # 5 MB, every value


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_binary_output_is_escaped_only_where_it_is_kept(tmp_path, monkeypatch, sandbox):
    """Escaping is the costly part of reading: only the kept head and tail may go through it,
    not every chunk of the stream (50 MB of binary once took 9 s to read, text 1.4 s)."""
    from course_helpers.plumbing import command_output

    escaped: list[int] = []
    real = command_output._shown

    def counting(text):
        escaped.append(len(text))
        return real(text)

    monkeypatch.setattr(command_output, "_shown", counting)
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(EVERY_BYTE)}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", commands.SandboxUnavailableWarning)
        result = run(command, tmp_path, max_output=4000, sandbox=sandbox)
    assert result.exit_code == 0 and "characters cut from the middle" in result.output
    most = 4000 + command_output.CONTEXT  # the kept characters, and the tail's context
    assert 0 < sum(escaped) <= most, f"{sum(escaped):,} characters escaped to keep 4,000"
    assert len(result.output) <= 4000 + len(cut_marker(10**9))
    assert result.output.startswith("\\x00\\x01\\x02")


def test_escaping_what_is_kept_does_no_python_work_per_character(monkeypatch):
    """With a large max_output the kept part itself is large: 2 MB of every byte value, kept
    at a million characters, once took seconds more than text (a Python call per character).
    The escaping is a table look-up done in C; Python runs only per run of combining marks and
    per distinct character beyond the first 65,536 code points, so it is not called here."""
    from course_helpers.plumbing import command_output, truncate

    truncate.visible_pieces("warm the tables: \u0301\U0001f600")
    calls = []
    for name in ("_needs_escape", "_on_a_base", "_draws", "_escape"):
        real = getattr(truncate, name)
        monkeypatch.setattr(
            truncate, name, lambda *a, _real=real, _n=name: calls.append(_n) or _real(*a)
        )
    kept = command_output.KeptOutput(1_000_000)
    for _ in range(16):
        kept.add(bytes(range(256)) * 512)  # 128 KiB a chunk, 2 MiB in all
    text = kept.text()
    assert text.startswith("\\x00\\x01") and "characters cut from the middle" in text
    assert len(calls) < 100, f"{len(calls):,} Python calls to escape 1,000,000 characters"
