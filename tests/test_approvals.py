"""Approval policies and the Gate: who may run a dangerous tool, and the record of it."""

import io
from collections import Counter

import pytest
from IPython.core.error import StdinNotImplementedError

from course_helpers.approvers import AllowAll, AskInTerminal, DenyAll, Scripted
from course_helpers.lessons.gate import ApprovalPolicy, Decision, Gate

MERGE = ("merge_pr", {"pr": 482})


@pytest.mark.parametrize(
    "policy",
    [AllowAll(), DenyAll(), Scripted([]), AskInTerminal(lambda _: "n"), Gate(DenyAll(), set())],
)
def test_every_policy_meets_the_protocol(policy):
    assert isinstance(policy, ApprovalPolicy)
    assert isinstance(policy.decide(*MERGE), Decision)


def test_allow_all_and_deny_all():
    assert AllowAll().decide(*MERGE).allowed is True
    denied = DenyAll().decide(*MERGE)
    assert (denied.allowed, denied.who) == (False, "DenyAll")


# --- Scripted -----------------------------------------------------------------------------


def test_scripted_list_answers_in_order_then_denies():
    policy = Scripted([True, False])
    answers = [policy.decide("run_command", {"command": "ls"}) for _ in range(3)]
    assert [a.allowed for a in answers] == [True, False, False]
    assert answers[2].reason == "the script has no answer for call 3"
    assert policy.remaining == 0


def test_scripted_dict_answers_by_tool_and_denies_unknown_tools():
    policy = Scripted({"write_file": True, "run_command": False})
    assert policy.decide("write_file", {}).allowed is True
    assert policy.decide("write_file", {}).allowed is True  # a dict answer can be reused
    assert policy.decide("run_command", {}).allowed is False
    assert policy.decide("merge_pr", {}).allowed is False
    assert policy.remaining is None


@pytest.mark.parametrize("answers", [["yes"], [1, 0], {"run_command": "y"}, None, "yes", True])
def test_scripted_refuses_answers_that_are_not_booleans(answers):
    with pytest.raises(TypeError, match="Scripted"):
        Scripted(answers)


# --- AskInTerminal ------------------------------------------------------------------------


def test_terminal_shows_the_call_and_accepts_yes():
    prompts = []

    def person(prompt):
        prompts.append(prompt)
        return " Yes \n"

    decision = AskInTerminal(person).decide("run_command", {"command": "pytest -q"})
    assert decision == Decision(True, "the person approved", "person")
    assert prompts[0].startswith("The agent wants to call run_command with:\n")
    assert "  command:\n    │ pytest -q\n" in prompts[0]
    assert prompts[0].endswith("Allow? [y/N] ")


@pytest.mark.parametrize("answer", ["", "n", "no", "yes please", "maybe", "Y E S", None, 1])
def test_terminal_treats_anything_but_yes_as_no(answer):
    decision = AskInTerminal(lambda _: answer).decide(*MERGE)
    assert decision.allowed is False and decision.who == "person"


def test_terminal_refuses_a_call_too_long_to_show_without_asking():
    prompts = []
    decision = AskInTerminal(lambda p: prompts.append(p) or "y").decide(
        "write_file", {"text": "x" * 50_000}
    )
    assert prompts == []  # never shown cut: refused instead
    assert decision.allowed is False and "too long to show" in decision.reason


@pytest.mark.parametrize(
    "error",
    [EOFError(), StdinNotImplementedError("no stdin in this kernel"), RuntimeError("lost stdin")],
)
def test_terminal_denies_when_no_one_can_answer(error):
    def no_person(prompt):
        raise error

    decision = AskInTerminal(no_person).decide(*MERGE)
    assert decision.allowed is False
    assert decision.who == "AskInTerminal"  # not a person: no one answered
    assert type(error).__name__ in decision.reason


def test_terminal_does_not_read_a_stdin_that_is_not_a_terminal(monkeypatch):
    piped = io.StringIO("y\n")
    monkeypatch.setattr("sys.stdin", piped)
    decision = AskInTerminal().decide(*MERGE)
    assert decision.allowed is False
    assert "not a terminal" in decision.reason
    assert piped.read() == "y\n"  # nothing was consumed


def test_terminal_lets_ctrl_c_through():
    def interrupted(prompt):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        AskInTerminal(interrupted).decide(*MERGE)


# --- Gate ---------------------------------------------------------------------------------


def test_gate_lets_harmless_tools_through_without_asking():
    policy = Scripted([])
    gate = Gate(policy, {"merge_pr"})
    decision = gate.decide("comment_on_pr", {"pr": 482, "body": "LGTM"})
    assert decision.allowed and decision.who == "Gate"
    assert policy.asked == 0


def test_gate_sends_dangerous_tools_to_the_policy_and_logs_everything():
    gate = Gate(Scripted([False, True]), dangerous={"merge_pr", "run_command"})
    gate.decide("read_file", {"path": "README.md"})
    gate.decide("merge_pr", {"pr": 482})
    gate.decide("merge_pr", {"pr": 482})
    gate.decide("read_file", {"path": "src/app.py"})
    assert gate.audit_log == [
        {"tool": "read_file", "input": {"path": "README.md"}, "allowed": True,
         "reason": "harmless tool: no approval needed", "who": "Gate"},
        {"tool": "merge_pr", "input": {"pr": 482}, "allowed": False,
         "reason": "the script says no", "who": "Scripted"},
        {"tool": "merge_pr", "input": {"pr": 482}, "allowed": True,
         "reason": "the script says yes", "who": "Scripted"},
        {"tool": "read_file", "input": {"path": "src/app.py"}, "allowed": True,
         "reason": "harmless tool: no approval needed", "who": "Gate"},
    ]  # fmt: skip
    assert gate.counts == Counter(
        {("read_file", True): 2, ("merge_pr", False): 1, ("merge_pr", True): 1}
    )


def test_gate_log_is_not_changed_by_later_edits_of_the_input():
    gate = Gate(AllowAll(), {"write_file"})
    tool_input = {"path": "a.txt", "lines": ["one"]}
    gate.decide("write_file", tool_input)
    tool_input["lines"].append("two")
    assert gate.audit_log[0]["input"] == {"path": "a.txt", "lines": ["one"]}


def test_gate_stops_an_injected_instruction():
    """A file told the agent to merge; the person was never going to say yes."""
    gate = Gate(AskInTerminal(lambda _: "no"), {"merge_pr"})
    decision = gate.decide("merge_pr", {"pr": 999})
    assert not decision.allowed
    assert gate.counts[("merge_pr", False)] == 1


def test_gate_matches_names_exactly():
    gate = Gate(DenyAll(), {"run_command"})
    assert not gate.decide("run_command", {}).allowed
    # A name that differs only in case or separators is taken for a typo in `dangerous`, and
    # refused loudly: never let through as "harmless".
    with pytest.raises(ValueError, match="did you mean 'Run_Command'"):
        gate.decide("Run_Command", {})


def test_gate_refuses_a_single_string_as_the_dangerous_set():
    with pytest.raises(TypeError, match="set of tool names"):
        Gate(DenyAll(), "run_command")


@pytest.mark.parametrize("bad", [[1, 2], {None}])
def test_gate_refuses_dangerous_names_that_are_not_strings(bad):
    with pytest.raises(TypeError, match="tool names"):
        Gate(DenyAll(), bad)


def test_gate_refuses_a_policy_without_decide():
    with pytest.raises(TypeError, match="decide"):
        Gate(lambda name, args: True, {"merge_pr"})


def test_gate_refuses_a_policy_that_returns_a_bare_bool():
    class Sloppy:
        def decide(self, tool_name, tool_input):
            return True

    gate = Gate(Sloppy(), {"merge_pr"})
    with pytest.raises(TypeError, match="not a Decision"):
        gate.decide(*MERGE)
    assert gate.audit_log == []


@pytest.mark.parametrize("name", [None, 5, b"merge_pr"])
def test_gate_needs_a_string_tool_name(name):
    with pytest.raises(TypeError, match="tool_name"):
        Gate(DenyAll(), {"merge_pr"}).decide(name, {})


def test_gate_logs_nothing_for_a_policy_that_fails():
    class Broken:
        def decide(self, tool_name, tool_input):
            raise RuntimeError("the approval service is down")

    gate = Gate(Broken(), {"merge_pr"})
    with pytest.raises(RuntimeError, match="service is down"):
        gate.decide(*MERGE)
    assert gate.audit_log == [] and gate.counts == Counter()


@pytest.mark.parametrize("typo", ["merge-pr", "Merge_PR", "merge pr", "merge.pr"])
def test_a_dangerous_name_spelled_another_way_is_refused_not_let_through(typo):
    policy = AllowAll()
    gate = Gate(policy, dangerous={typo, "bash"})
    with pytest.raises(ValueError) as raised:
        gate.decide(*MERGE)
    assert str(raised.value).startswith(
        f"{typo!r} is not the name of any tool: did you mean 'merge_pr'?"
    )
    assert gate.audit_log == []  # nothing was decided, so nothing ran on a "harmless" yes
    # Other tools still pass, and the exact name still goes to the policy.
    assert gate.decide("read_file", {"path": "README.md"}).who == "Gate"
    assert Gate(DenyAll(), {"merge_pr"}).decide(*MERGE).allowed is False


def test_a_misspelt_dangerous_name_stops_the_call_in_the_dispatcher():
    from course_helpers.lessons.dispatch import dispatch
    from course_helpers.lessons.tools import tool

    merged = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge a pull request."""
        merged.append(pr)
        return f"Merged PR #{pr}"

    block = {"type": "tool_use", "id": "toolu_1", "name": "merge_pr", "input": {"pr": 482}}
    result = dispatch([merge_pr], block, approve=Gate(AllowAll(), {"merge-pr"}))
    assert result["is_error"] is True
    assert "'merge-pr' is not the name of any tool: did you mean 'merge_pr'?" in result["content"]
    assert merged == []
