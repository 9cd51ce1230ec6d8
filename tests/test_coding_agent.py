"""The coding agent of notebook 08, end to end on a temporary copy of the shop project.

The course model plays the agent; approvals come from `Scripted` policies. Every check looks at
what really happened: the files on disk, pytest run again by the test itself, the `messages` the
loop kept, the gate's audit log. Nothing here depends on the model's wording beyond the one fact
a declined action must lead to: a question for the person.
"""

from __future__ import annotations

import builtins
import os
import sys
from pathlib import Path

import anthropic
import pytest
from sdk_messages import message

from course_helpers.approvers import Scripted
from course_helpers.fixtures.shop_project import (
    BUG_LINE,
    EMPTY_CART_ERROR,
    FIXED_LINE,
    SHOP_TEST_FILE,
    SHOP_TOTAL_FILE,
    copy_shop_project,
)
from course_helpers.lessons.coding_agent import (
    DANGEROUS,
    MAX_STEPS,
    add_user_line,
    agent_environment,
    chat,
    coding_tools,
    terminal_lines,
)
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.gate import Gate
from course_helpers.lessons.pairing import pairing_problems
from course_helpers.offline import CourseModelApp
from course_helpers.plumbing.commands import run_command
from course_helpers.plumbing.file_sandbox import FileSandbox

TASK = "Find where the cart total is computed and add a test for the empty cart."

pytestmark = pytest.mark.slow


@pytest.fixture
def client() -> anthropic.Anthropic:
    """A client on a fresh course model, whatever backend the environment would choose."""
    return CourseModelApp().client()


@pytest.fixture
def shop(tmp_path: Path) -> FileSandbox:
    return FileSandbox(copy_shop_project(tmp_path / "shop"))


def pytest_in(sandbox: FileSandbox):
    """Run the project's tests ourselves, the way the agent does."""
    return run_command(
        "python -m pytest -q", cwd=sandbox.root, timeout=120, env=agent_environment()
    )


def results_of(messages: list, name: str) -> list[dict]:
    """The tool_result blocks answering calls to `name`, in order."""
    ids = {
        block.id if hasattr(block, "id") else block["id"]
        for message in messages
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if (getattr(block, "type", None) or block.get("type")) == "tool_use"
        and (getattr(block, "name", None) or block.get("name")) == name
    }
    return [
        block
        for message in messages
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("tool_use_id") in ids
    ]


def test_the_whole_task_edits_and_tests_on_disk(client, shop, capsys) -> None:
    policy = Scripted([True, True, True, True])
    gate = Gate(policy, dangerous=DANGEROUS)
    runs = chat(client, shop, [TASK], approve=gate)

    assert [run.ending for run in runs] == ["end_turn"]
    messages = runs[0].messages
    assert pairing_problems(messages) == []
    # The test was written, and the fix.
    test_text = (shop.root / SHOP_TEST_FILE).read_text()
    assert "def test_empty_cart_total_is_zero" in test_text
    assert FIXED_LINE in (shop.root / SHOP_TOTAL_FILE).read_text()
    # The agent saw a real failure first, then a pass.
    runs_seen = [r["content"] for r in results_of(messages, "run_command")]
    assert len(runs_seen) == 2
    assert runs_seen[0].startswith("Exit code: 1") and EMPTY_CART_ERROR in runs_seen[0]
    assert runs_seen[1].startswith("Exit code: 0") and "4 passed" in runs_seen[1]
    # pytest, run by us, agrees; and the test is real: without the fix it fails again.
    assert pytest_in(shop).exit_code == 0
    cart = shop.root / SHOP_TOTAL_FILE
    cart.write_text(cart.read_text().replace(FIXED_LINE, BUG_LINE))
    again = pytest_in(shop)
    assert again.exit_code == 1 and EMPTY_CART_ERROR in again.output
    # Every dangerous call was asked about, and only those.
    asked = [e for e in gate.audit_log if e["who"] == "Scripted"]
    assert [e["tool"] for e in asked] == ["write_file", "run_command"] * 2
    assert policy.remaining == 0
    printed = capsys.readouterr().out
    assert "you> " + TASK in printed and "[end_turn: control is back with you]" in printed


def test_pytest_passing_at_once_means_nothing_to_fix(client, shop) -> None:
    cart = shop.root / SHOP_TOTAL_FILE
    cart.write_text(cart.read_text().replace(BUG_LINE, FIXED_LINE))
    before = cart.read_text()
    gate = Gate(Scripted({"write_file": True, "run_command": True}), dangerous=DANGEROUS)
    (run,) = chat(client, shop, [TASK], approve=gate)
    assert run.ending == "end_turn"
    assert cart.read_text() == before, "the agent changed code although the test passed"
    assert [e["tool"] for e in gate.audit_log if e["who"] == "Scripted"] == [
        "write_file",
        "run_command",
    ]
    assert "nothing to fix" in run.final_text


def test_declining_a_write_stops_the_turn_and_asks(client, shop) -> None:
    original = (shop.root / SHOP_TEST_FILE).read_text()
    gate = Gate(Scripted([False]), dangerous=DANGEROUS)
    (run,) = chat(client, shop, [TASK], approve=gate)
    assert run.ending == "end_turn"
    assert (shop.root / SHOP_TEST_FILE).read_text() == original
    declined = results_of(run.messages, "write_file")
    assert len(declined) == 1 and declined[0]["is_error"] is True
    assert "declined" in declined[0]["content"]
    assert results_of(run.messages, "run_command") == [], "it went on after the decline"
    assert run.final_text.rstrip().endswith("?"), "the agent should ask how to go on"


def test_after_a_decline_the_next_line_decides(client, shop) -> None:
    gate = Gate(Scripted([False, True, True, False]), dangerous=DANGEROUS)
    runs = chat(client, shop, [TASK, "OK, go ahead: write the test and run it."], approve=gate)
    assert [run.ending for run in runs] == ["end_turn", "end_turn"]
    assert "test_empty_cart_total_is_zero" in (shop.root / SHOP_TEST_FILE).read_text()
    assert BUG_LINE in (shop.root / SHOP_TOTAL_FILE).read_text(), "the declined fix was written"
    assert runs[-1].final_text.rstrip().endswith("?")
    assert pairing_problems(runs[-1].messages) == []


def test_step_limit_hands_back_and_the_next_line_carries_on(client, shop) -> None:
    gate = Gate(Scripted({"write_file": True, "run_command": True}), dangerous=DANGEROUS)
    messages: list = []
    (run,) = chat(client, shop, [TASK], approve=gate, messages=messages, max_steps=2)
    assert run.ending == "step_limit" and run.steps == 2
    assert pairing_problems(messages) == []
    (run,) = chat(client, shop, ["Carry on."], approve=gate, messages=messages)
    assert run.ending == "end_turn"
    assert pairing_problems(messages) == []
    assert pytest_in(shop).exit_code == 0
    assert MAX_STEPS == 30


@pytest.mark.parametrize(
    "path",
    ["../outside/secret.txt", "ABSOLUTE", "~/.ssh/id_rsa", "a\x00b", "link/secret.txt"],
)
def test_sandbox_refusals_are_error_results(shop, tmp_path, monkeypatch, path) -> None:
    # Every write below aims inside tmp_path, so a broken sandbox cannot harm the machine:
    # the absolute path and the home folder are stand-ins there.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    if path == "ABSOLUTE":
        path = str(outside / "secret.txt")
    (shop.root / "link").symlink_to(outside)
    tools = coding_tools(shop)
    for name, arguments in (
        ("read_file", {"path": path}),
        ("write_file", {"path": path, "content": "pwned"}),
        ("list_files", {"path": path}),
    ):
        block = {"type": "tool_use", "id": "toolu_x", "name": name, "input": arguments}
        result = dispatch(tools, block)
        assert result["is_error"] is True, (name, path, result["content"])
        assert "s3cret" not in result["content"]
    assert (outside / "secret.txt").read_text() == "s3cret"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_arguments_are_validated_before_anything_runs(shop) -> None:
    tools = coding_tools(shop)
    bad = [
        ("read_file", {}),
        ("read_file", {"path": ""}),
        ("read_file", {"path": 3}),
        ("write_file", {"path": "x.txt"}),
        ("run_command", {"command": ""}),
        ("run_command", {"command": "x" * 2001}),
        ("run_command", {"command": "ls", "shell": True}),
    ]
    for name, arguments in bad:
        block = {"type": "tool_use", "id": "toolu_x", "name": name, "input": arguments}
        result = dispatch(tools, block)
        assert result["is_error"] and result["content"].startswith("Invalid arguments"), name
    assert not (shop.root / "x.txt").exists()


def test_commands_run_in_the_project_without_secrets(shop, monkeypatch) -> None:
    monkeypatch.setenv("SHOP_API_TOKEN", "do-not-leak")
    monkeypatch.setenv("FORCE_COLOR", "1")
    env = agent_environment()
    assert "SHOP_API_TOKEN" not in env and "FORCE_COLOR" not in env
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    (tools_run,) = [t for t in coding_tools(shop, timeout=5) if t.name == "run_command"]
    output = tools_run.run({"command": "ls; printenv SHOP_API_TOKEN || echo unset"})
    assert "pyproject.toml" in output and "unset" in output and "do-not-leak" not in output
    # The time limit stops a command that would run on; one second is enough to show it.
    (quick_run,) = [t for t in coding_tools(shop, timeout=1) if t.name == "run_command"]
    slow = quick_run.run({"command": "sleep 60"})
    assert slow.startswith("Timed out")


# -- the chat loop itself, with a scripted stand-in client ---------------------------------


class ScriptedClient:
    """Answers `messages.stream` with prepared responses, one per call."""

    def __init__(self, responses: list) -> None:
        self.responses = list(responses)
        self.calls = 0
        self.messages = self

    def stream(self, **request):
        response = self.responses.pop(0)
        self.calls += 1

        class Stream:
            text_stream = [b.text for b in response.content if b.type == "text"]

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def get_final_message(self):
                return response

        return Stream()


LIST_CALL = {"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": {}}


@pytest.mark.parametrize("stop_reason", ["end_turn", "stop_sequence", "refusal"])
def test_any_stop_reason_but_tool_use_hands_control_back(shop, stop_reason, capsys) -> None:
    fake = ScriptedClient(
        [message("tool_use", LIST_CALL), message(stop_reason), message("end_turn")]
    )
    runs = chat(fake, shop, ["first line", "second line"], approve=Gate(Scripted([]), DANGEROUS))
    assert [run.ending for run in runs] == [stop_reason, "end_turn"]
    assert fake.calls == 3, "the first line should take two calls, the second one"
    assert pairing_problems(runs[-1].messages) == []
    assert f"[{stop_reason}: control is back with you]" in capsys.readouterr().out


def test_add_user_line_after_tool_results_keeps_the_history_valid() -> None:
    messages = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [LIST_CALL]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}],
        },
    ]
    add_user_line(messages, "carry on")
    assert len(messages) == 3
    assert messages[-1]["content"][-1] == {"type": "text", "text": "carry on"}
    add_user_line(messages[:1], "x")  # a plain user message: a new message is appended
    fresh: list = []
    add_user_line(fresh, "hello")
    assert fresh == [{"role": "user", "content": "hello"}]


def test_terminal_lines_read_input_until_an_empty_line(monkeypatch) -> None:
    typed = iter(["first", "second", "", "never"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(typed))
    assert list(terminal_lines()) == ["first", "second"]

    def end_of_file(prompt=""):
        raise EOFError

    monkeypatch.setattr(builtins, "input", end_of_file)
    assert list(terminal_lines()) == []
