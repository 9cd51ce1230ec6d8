"""Exercise 07's checks, proven both ways.

The exercise: `notebooks/exercises/07_guard_dangerous_tools_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake; equivalent correct solutions (another style, another valid choice) pass.
The requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.guard_tools`.
"""

import os
from collections import Counter
from pathlib import Path

import pytest

from course_helpers.exercise_checks import (
    CheckFailed,
    check_gate,
    check_path_guard,
)
from course_helpers.lessons.gate import Decision
from course_helpers.plumbing.file_sandbox import PathRefused
from exercise_variants.kit import (
    variant_tests,
)


def resolve_right(root, path):
    if path.startswith(("/", "~")):
        raise PathRefused(f"{path!r} is not relative")
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(f"{path!r} leaves the project")
    return real


def resolve_right_commonpath(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(f"{path!r}: give a path relative to the project")
    root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
    if os.path.commonpath([root, real]) != root:
        raise PathRefused(f"{path!r} is outside {root}")
    return Path(real)


def resolve_value_error_for_absolute(root, path):
    """PathRefused for a way out, but a plain ValueError for an absolute path."""
    if path.startswith(("/", "~")):
        raise ValueError("absolute")
    root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(root / path))
    if real != root and root not in real.parents:
        raise PathRefused(f"{path!r} leads outside the project")
    return real


def resolve_refuses_in_silence(root, path):
    if path.startswith(("/", "~")):
        raise PathRefused()  # no message: the model cannot tell why
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PathRefused()
    return real


def resolve_unresolved_result(root, path):
    """Checks the resolved path, but returns root / path as it was written."""
    if path.startswith(("/", "~")):
        raise PathRefused(path)
    root = Path(root).resolve()
    if not (root / path).resolve().is_relative_to(root):
        raise PathRefused(path)
    return root / path


def resolve_allows_absolute_inside(root, path):
    """No refusal of '/' or '~': fine as long as the path lands inside (the spec says refuse)."""
    root = Path(root).resolve()
    real = (root / os.path.expanduser(path)).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_tilde_literal(root, path):
    """Refuses absolute paths, but takes '~' as a folder name inside the root."""
    if os.path.isabs(path):
        raise PathRefused(path)
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_asserts(root, path):
    """An assert, which python -O removes."""
    assert not path.startswith(("/", "~")), path
    root = Path(root).resolve()
    real = (root / path).resolve()
    assert real.is_relative_to(root), path
    return real


def resolve_unresolved_root(root, path):
    """Resolves the path but not the root: a root reached through a link refuses everything."""
    if path.startswith(("/", "~")):
        raise PathRefused(path)
    real = Path(os.path.realpath(os.path.join(root, path)))
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_startswith(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = os.path.realpath(os.path.join(root, path))
    if not real.startswith(os.path.realpath(root)):
        raise PathRefused(path)
    return Path(real)


def resolve_without_links(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = Path(os.path.normpath(os.path.join(root, path)))
    if not real.is_relative_to(root):
        raise PathRefused(path)
    return real


def resolve_dots_only(root, path):
    if ".." in path:
        raise PathRefused(path)
    return Path(root) / path


def resolve_normalised(root, path):
    """Normalises the path and refuses one that starts with '..'."""
    normal = os.path.normpath(path)
    if normal.startswith(".."):
        raise PathRefused(path)
    return Path(root) / normal


def resolve_must_exist(root, path):
    real = Path(root, path).resolve(strict=True)
    if not real.is_relative_to(Path(root).resolve()):
        raise PathRefused(path)
    return real


def make_gate(*, ask="dangerous", keep="policy", yes="is True", count="all", returns="decision"):
    class AuditedGate:
        def __init__(self, policy, dangerous):
            self.policy, self.dangerous, self.counts = policy, set(dangerous), Counter()

        def decide(self, tool_name, tool_input):
            named = (
                any(d in tool_name for d in self.dangerous)
                if ask == "substring"
                else tool_name in self.dangerous
            )
            if ask == "all" or named:
                answer = self.policy.decide(tool_name, tool_input)
                allowed = answer.allowed is True if yes == "is True" else bool(answer.allowed)
                if keep == "policy":
                    decision = Decision(allowed, answer.reason, answer.who)
                elif keep == "same object":
                    decision = answer if allowed else Decision(False, answer.reason, answer.who)
                else:
                    decision = Decision(allowed, "checked", "gate")
            else:
                decision = Decision(True, "harmless", "AuditedGate")
            if count == "all" or tool_name in self.dangerous:
                self.counts[(tool_name, decision.allowed)] += 1
            return decision.allowed if returns == "bool" else decision

    return AuditedGate


def resolve_permission_error(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PermissionError(path)
    root = Path(root).resolve()
    real = (root / path).resolve()
    if not real.is_relative_to(root):
        raise PermissionError(path)
    return real


def resolve_returns_none(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        return None
    root = Path(root).resolve()
    real = (root / path).resolve()
    return real if real.is_relative_to(root) else None


def resolve_from_the_working_folder(root, path):
    if os.path.isabs(path) or path.startswith("~"):
        raise PathRefused(path)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(root)):
        raise PathRefused(path)
    return real


def resolve_refuses_the_root(root, path):
    real = resolve_right(root, path)
    if real == Path(root).resolve():
        raise PathRefused("the project folder itself is not a file")
    return real


def resolve_first_character(root, path):
    if path[0] in "/~":
        raise PathRefused(f"{path!r} is not relative")
    return resolve_right(root, path)


def resolve_expands_home(root, path):
    if os.path.isabs(path):
        raise PathRefused(f"{path!r} is absolute")
    root = Path(root).resolve()
    real = (root / os.path.expanduser(path)).resolve()
    if not real.is_relative_to(root):
        raise PathRefused(f"{path!r} leaves the project")
    return real


def gate_equals_true():
    class AuditedGate:
        def __init__(self, policy, dangerous):
            self.policy, self.dangerous, self.counts = policy, set(dangerous), Counter()

        def decide(self, tool_name, tool_input):
            if tool_name in self.dangerous:
                answer = self.policy.decide(tool_name, tool_input)
                decision = Decision(answer.allowed == True, answer.reason, answer.who)  # noqa: E712
            else:
                decision = Decision(True, "harmless", "AuditedGate")
            self.counts[(tool_name, decision.allowed)] += 1
            return decision

    return AuditedGate


def gate_shared_counter():
    base = make_gate()

    class AuditedGate(base):
        counts = Counter()  # one for the class: every gate adds to it

        def __init__(self, policy, dangerous):
            self.policy, self.dangerous = policy, set(dangerous)
            if len(getattr(policy, "answers", [])) == 2:
                AuditedGate.counts.clear()  # the check's first gate: a notebook run from the top

    return AuditedGate


def gate_policy_fails(on_error):
    """Catches a policy that raises; `on_error` is the decision it returns then."""
    base = make_gate()

    class AuditedGate(base):
        def decide(self, tool_name, tool_input):
            try:
                return super().decide(tool_name, tool_input)
            except Exception:
                decision = Decision(on_error, "the approver failed", "AuditedGate")
                self.counts[(tool_name, on_error)] += 1
                return decision

    return AuditedGate


class UnwrittenGate:
    def __init__(self, policy, dangerous):
        self.counts = Counter()

    def decide(self, tool_name, tool_input):
        from course_helpers.exercise_checks import NotWrittenYet

        raise NotWrittenYet


WRONG = {
    "resolve with startswith": (check_path_guard, resolve_startswith, "sibling folder"),
    "resolve without links": (check_path_guard, resolve_without_links, "symbolic link"),
    "resolve refuses any '..'": (check_path_guard, resolve_dots_only, "refused a path inside"),
    "resolve only normalises": (check_path_guard, resolve_normalised, "which still holds"),
    "resolve wants existing files": (check_path_guard, resolve_must_exist, "refused a path inside"),
    "resolve returns root / path": (
        check_path_guard,
        resolve_unresolved_result,
        "still holds '..'",
    ),
    "resolve lets absolute paths inside through": (
        check_path_guard,
        resolve_allows_absolute_inside,
        "is an absolute path (even",
    ),
    "resolve takes '~' as a folder": (check_path_guard, resolve_tilde_literal, "starts with '~'"),
    "resolve asserts": (check_path_guard, resolve_asserts, "python -O"),
    "resolve raises PermissionError": (
        check_path_guard,
        resolve_permission_error,
        "refused with PermissionError, not PathRefused",
    ),
    "resolve leaves the root unresolved": (
        check_path_guard,
        resolve_unresolved_root,
        "given through a symbolic link",
    ),
    "gate drops reason and who": (check_gate, make_gate(keep="own"), "loses why, and who decided"),
    "gate trusts truthiness": (check_gate, make_gate(yes="bool"), "bool('no') is True"),
    "gate asks about everything": (check_gate, make_gate(ask="all"), "a harmless tool"),
    "gate counts dangerous only": (check_gate, make_gate(count="dangerous"), "gate.counts is"),
    "gate returns a bool": (check_gate, make_gate(returns="bool"), "not a Decision"),
    "resolve refuses the root": (
        check_path_guard,
        resolve_refuses_the_root,
        "resolve(root, '.')",
    ),
    "resolve reads path[0]": (check_path_guard, resolve_first_character, "raised IndexError"),
    "resolve expands ~": (check_path_guard, resolve_expands_home, "never expand them"),
    "resolve: a plain ValueError for an absolute path": (
        check_path_guard,
        resolve_value_error_for_absolute,
        "refused with ValueError ('absolute'), not PathRefused",
    ),
    "gate: allowed == True": (check_gate, gate_equals_true(), "1 == True"),
    "gate: one Counter for every gate": (
        check_gate,
        gate_shared_counter(),
        "every gate shares one Counter",
    ),
    "gate matches dangerous names by substring": (
        check_gate,
        make_gate(ask="substring"),
        "merge_pr_status",
    ),
    "gate allows when the policy raises": (
        check_gate,
        gate_policy_fails(True),
        "a merge nobody approved would run",
    ),
}


WRONG_AGAIN = {
    "resolve returns None": (check_path_guard, resolve_returns_none, "returned 'None'"),
    "resolve refuses with no message": (
        check_path_guard,
        resolve_refuses_in_silence,
        "PathRefused with no message",
    ),
    "resolve from the working folder": (
        check_path_guard,
        resolve_from_the_working_folder,
        "refused a path inside",
    ),
}


RIGHT = {
    "resolve with Path.resolve": (check_path_guard, resolve_right),
    "resolve with commonpath": (check_path_guard, resolve_right_commonpath),
    "gate": (check_gate, make_gate()),
    "gate returns the policy's object": (check_gate, make_gate(keep="same object")),
    "gate refuses when the policy raises": (check_gate, gate_policy_fails(False)),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(WRONG, RIGHT, wrong_again=WRONG_AGAIN, unwritten_checks=[check_path_guard])
)


def test_the_gate_check_says_when_decide_is_not_written_yet() -> None:
    with pytest.raises(CheckFailed, match="decide is not written yet"):
        check_gate(UnwrittenGate)


def test_the_gate_hints_name_one_repair() -> None:
    """A gate that drops the policy's who, and one that trusts a truthy answer, are told the same
    repair: following one hint never breaks the other rule."""
    repair = "Decision(decision.allowed is True, decision.reason, decision.who)"
    for gate in (make_gate(keep="own"), make_gate(yes="bool")):
        with pytest.raises(CheckFailed) as failure:
            check_gate(gate)
        assert repair in str(failure.value).split("Hint: ")[1], str(failure.value)
