"""Checks for notebook 07, Guard dangerous tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.checks.build_loop import tool_call_block
from course_helpers.checks.common import fail, passed, run_learner, short_repr


def sandbox_fixture(base: Any) -> Any:
    """base/project (the root) with files, a sibling base/project2, a secret and a bad link."""
    from pathlib import Path

    base = Path(base)
    root = base / "project"
    (root / "src").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (base / "project2").mkdir()
    (base / "project2" / "keys.txt").write_text("not yours\n")
    (base / "secret.txt").write_text("TOKEN=hunter2\n")
    (base / "outside").mkdir()
    (base / "outside" / "passwd").write_text("root:x:0:0\n")
    (root / "docs").symlink_to(base / "outside", target_is_directory=True)
    return root


def check_sandbox(resolve: Callable) -> None:
    """07 · `resolve(root, path)`: the real path inside the root, or an exception for an escape."""
    __tracebackhide__ = True
    import os
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as base:
        root = sandbox_fixture(os.path.realpath(base))
        for path in ("src/app.py", "notes/../src/app.py", "notes/new.txt"):
            try:
                real = resolve(root, path)
            except Exception as error:
                fail(
                    f"resolve(root, {path!r}) refused a path inside the project "
                    f"({type(error).__name__}: {error}).",
                    "refuse only what leads outside the root; new files inside are fine.",
                )
            if not isinstance(real, str | os.PathLike):
                fail(
                    f"resolve(root, {path!r}) returned {short_repr(real)}, not a path.",
                    "return the resolved path (a pathlib.Path) inside the root.",
                )
            real = Path(os.path.realpath(real))
            if real != Path(os.path.realpath(root / path)):
                fail(
                    f"resolve(root, {path!r}) returned a path that is not that file.",
                    "return (root / path) with every '..' and link resolved.",
                )
        escapes = [
            ("../secret.txt", "climbs out with '..'", "resolve the whole path, then check it"),
            ("src/../../secret.txt", "climbs out in the middle", "resolve the whole path first"),
            (
                str(Path(base) / "secret.txt"),
                "is an absolute path",
                "root / '/abs/path' is '/abs/path' in Python: refuse absolute paths",
            ),
            (
                "~/.ssh/id_rsa",
                "points into a home folder",
                "refuse paths starting with '~' (tools may expand them)",
            ),
            (
                "docs/passwd",
                "goes through a symbolic link that leads outside",
                "follow links before checking: os.path.realpath or Path.resolve()",
            ),
            (
                "../project2/keys.txt",
                "lands in a sibling folder whose name starts like the root's",
                "compare whole path parts (real.is_relative_to(root)), not str.startswith",
            ),
        ]
        for path, why, hint in escapes:
            try:
                real = resolve(root, path)
            except Exception:
                continue
            inside = real is not None and _inside(Path(os.path.realpath(real)), root)
            if path.startswith("~") and inside:
                continue  # taken as a folder literally named '~' inside the root: safe
            fail(f"resolve(root, {path!r}) returned {short_repr(str(real))}: the path {why}.", hint)
    passed("resolve refuses every path that leaves the project")


def _inside(real: Any, root: Any) -> bool:
    import os

    root = os.path.realpath(root)
    return os.path.commonpath([str(real), root]) == root


def check_gate(gate_class: Callable) -> None:
    """07 · `AuditedGate(policy, dangerous)`: asks the policy for dangerous tools only, counts."""
    __tracebackhide__ = True
    from collections import Counter

    from course_helpers.approvals import Decision, Scripted
    from course_helpers.dispatch import run_tool
    from course_helpers.tools import tool

    policy = Scripted([True, False])
    gate = run_learner(gate_class, policy, {"merge_pr"}, name="AuditedGate")
    decisions = []
    for name, tool_input in [
        ("comment_on_pr", {"pr": 482, "text": "Looks good."}),
        ("merge_pr", {"pr": 482}),
        ("merge_pr", {"pr": 483}),
    ]:
        decision = run_learner(gate.decide, name, tool_input, name="decide")
        if not isinstance(decision, Decision):
            fail(
                f"decide({name!r}, ...) returned {short_repr(decision)}, not a Decision.",
                "return Decision(allowed, reason, who).",
            )
        decisions.append(decision.allowed)
        if name == "comment_on_pr" and policy.asked:
            fail(
                "the gate asked the policy about comment_on_pr, a harmless tool.",
                "ask the policy only when the tool's name is in `dangerous`.",
            )
    if policy.asked != 2:
        fail(
            f"the policy was asked {policy.asked} times for two merge_pr calls.",
            "ask the policy once per dangerous call, and use its answer.",
        )
    if decisions != [True, True, False]:
        fail(
            f"the gate's answers were {decisions}; the script said yes then no to merge_pr.",
            "harmless tools pass; for dangerous ones, return the policy's Decision.",
        )
    counts = getattr(gate, "counts", None)
    expected = Counter({("comment_on_pr", True): 1, ("merge_pr", True): 1, ("merge_pr", False): 1})
    if Counter(counts or {}) != expected:
        fail(
            f"gate.counts is {dict(counts or {})}; expected {dict(expected)}.",
            "count every decision, harmless ones too: self.counts[(tool_name, allowed)] += 1.",
        )
    merged: list[int] = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge pull request `pr` into main."""
        merged.append(pr)
        return f"merged #{pr}"

    gate = gate_class(Scripted([False]), {"merge_pr"})
    result = run_tool(
        {"merge_pr": merge_pr}, tool_call_block("merge_pr", "toolu_gate", pr=482), approve=gate
    )
    if merged or result.get("is_error") is not True:
        fail(
            "with your gate as `approve`, a refused merge_pr still ran.",
            "decide() must return Decision(False, ...) when the policy says no.",
        )
    passed("the gate guards dangerous tools and counts every decision")
