"""Checks for notebook 07, Guard dangerous tools.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_07_guard_dangerous_tools.py):

`check_path_guard(resolve)`, `resolve(root, path)`:
- paths inside the root resolve to that file, `..` inside, a link that stays inside, files not
  yet created, the root itself ('.') and a root given through a symbolic link included;
- an empty path returns the root or is refused, never crashes;
- what it returns is the real path itself: no `..` and no link left in it (root / path is not);
- refused with `PathRefused` with a message (not a plain `ValueError`: the file tools catch
  `PathRefused` by name; not an assert, which `python -O` removes): `..`
  out, `..` in the middle, an absolute path (even one inside the root), a path starting with
  `~` (with HOME set to the project, so expanding it is caught too), a symbolic link that leads out, a sibling folder whose name starts like the root's.

`check_gate(AuditedGate)`, `AuditedGate(policy, dangerous)` and its `decide(name, input)`:
- returns a `Decision`;
- a harmless tool is allowed without asking the policy, with a reason and who decided; names
  are compared whole (merge_pr_status, harmless, is not asked about for merge_pr);
- a dangerous tool asks the policy once, with the call's name and input, and returns its
  decision with the policy's reason and who (an audit must say why, and who let it run);
- only an explicit yes approves: a policy answering `Decision(allowed="no")`, "deny", "false",
  None or 1 gets `allowed=False`, counted as `(name, False)`;
- `counts` holds every decision, harmless ones too, keyed by `(tool_name, allowed)`, one
  Counter per gate (not shared through the class);
- a policy that cannot answer (it raises, as `input()` does with no one at the terminal) is not a
  yes: the exception goes on, or the call is refused;
- used as `approve` by the course's dispatcher, a refused call does not run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import (
    fail,
    fail_if_not_written,
    passed,
    run_learner,
    short_repr,
    tool_call_block,
)
from course_helpers.plumbing.file_sandbox import PathRefused


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
    (root / "current").symlink_to(root / "src", target_is_directory=True)  # a link that stays in
    return root


def check_path_guard(resolve: Callable) -> None:
    """07 · `resolve(root, path)`: the real path inside the root, or PathRefused for an escape."""
    __tracebackhide__ = True
    import os
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as base:
        root = sandbox_fixture(os.path.realpath(base))
        linked = Path(os.path.realpath(base)) / "project-link"
        linked.symlink_to(root, target_is_directory=True)
        inside = [
            (root, "src/app.py"),
            (root, "notes/../src/app.py"),
            (root, "notes/new.txt"),
            (root, "current/app.py"),
            (linked, "src/app.py"),
            (root, "."),
        ]
        for given_root, path in inside:
            _check_inside(resolve, root, given_root, path)
        _check_empty_path(resolve, root)
        escapes = [
            ("../secret.txt", "climbs out with '..'", "resolve the whole path, then check it"),
            ("src/../../secret.txt", "climbs out in the middle", "resolve the whole path first"),
            (
                str(Path(base) / "secret.txt"),
                "is an absolute path",
                "root / '/abs/path' is '/abs/path' in Python: refuse absolute paths",
            ),
            (
                str(root / "src" / "app.py"),
                "is an absolute path (even one that lands inside is refused: the model must "
                "write paths relative to the project)",
                "refuse any path that starts with '/' (os.path.isabs), before joining it.",
            ),
            (
                "~/.ssh/id_rsa",
                "starts with '~' (expanded, it is whatever folder HOME names: here the check "
                "set HOME to the project, in a real run it is your home folder)",
                "refuse paths starting with '~' before anything else; never expand them.",
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
                # "~" is the project itself here: only a refusal of "~" passes, not an expansion.
                with _home(root):
                    real = resolve(root, path)
            except PathRefused as error:
                if str(error).strip():
                    continue
                fail(
                    f"resolve(root, {path!r}) raised PathRefused with no message: the path "
                    f"{why}, and the model reads only the message to know what to do instead.",
                    "say what was refused and why: raise PathRefused(f'Refused: {path!r} "
                    "leads outside the project folder.').",
                )
            except ValueError as error:
                fail(
                    f"resolve(root, {path!r}) refused with {type(error).__name__} "
                    f"({short_repr(str(error))}), not PathRefused: the path {why}. The file "
                    "tools catch PathRefused by name, and the exercise asks for it.",
                    "raise PathRefused('...') (a ValueError, imported in the first cell) with a "
                    "message for the model.",
                )
            except Exception as error:
                fail_if_not_written(error, "resolve")
                kind = type(error).__name__
                fail(
                    f"resolve(root, {path!r}) refused with {kind}, not PathRefused: the path "
                    f"{why}.",
                    "raise PathRefused('...') (a ValueError) with a message for the model"
                    + (
                        ": an assert disappears under python -O."
                        if kind == "AssertionError"
                        else "."
                    ),
                )
            fail(f"resolve(root, {path!r}) returned {short_repr(str(real))}: the path {why}.", hint)
    passed("resolve refuses every path that leaves the project")


class _home:  # noqa: N801 (used as a context manager, like a function)
    """HOME set to `folder` for a moment, so that '~' expands inside the temporary folder."""

    def __init__(self, folder: Any) -> None:
        self.folder = str(folder)

    def __enter__(self) -> None:
        import os

        self.before = os.environ.get("HOME")
        os.environ["HOME"] = self.folder

    def __exit__(self, *exc: Any) -> None:
        import os

        if self.before is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = self.before


def _check_empty_path(resolve: Callable, root: Any) -> None:
    """An empty path is the root itself, or refused with PathRefused: never a crash."""
    __tracebackhide__ = True
    import os
    from pathlib import Path

    try:
        real = resolve(root, "")
    except ValueError:
        return
    except Exception as error:
        fail_if_not_written(error, "resolve")
        fail(
            f"resolve(root, '') raised {type(error).__name__}: {error}. The model can send an "
            "empty path; the tool must answer it, not crash.",
            "check the path before reading path[0]: return the root, or raise PathRefused.",
        )
    if Path(os.path.realpath(real)) != Path(os.path.realpath(root)):
        fail(
            f"resolve(root, '') returned {short_repr(str(real))}, not the root.",
            "an empty path is the project's root (or refuse it with PathRefused).",
        )


def _check_inside(resolve: Callable, root: Any, given_root: Any, path: str) -> None:
    """A path inside the project resolves to the real path of that file, links and '..' gone."""
    __tracebackhide__ = True
    import os
    from pathlib import Path

    through = " (the root given through a symbolic link)" if given_root != root else ""
    try:
        real = resolve(given_root, path)
    except Exception as error:
        fail_if_not_written(error, "resolve")
        fail(
            f"resolve(root, {path!r}){through} refused a path inside the project "
            f"({type(error).__name__}: {error}).",
            "refuse only what leads outside the root; new files inside are fine"
            + ("; resolve the root too: Path(root).resolve()." if through else "."),
        )
    if not isinstance(real, str | os.PathLike):
        fail(
            f"resolve(root, {path!r}) returned {short_repr(real)}, not a path.",
            "return the resolved path (a pathlib.Path) inside the root.",
        )
    expected = Path(os.path.realpath(Path(given_root) / path))
    if Path(os.path.realpath(real)) != expected:
        fail(
            f"resolve(root, {path!r}){through} returned a path that is not that file: "
            f"{short_repr(str(real))}.",
            "return (root / path) with every '..' and link resolved.",
        )
    if Path(real) != expected:
        fail(
            f"resolve(root, {path!r}){through} returned {short_repr(str(real))}, which still "
            "holds '..' or a symbolic link: the tool opens a path other than the one checked.",
            "return the resolved path itself (os.path.realpath or Path.resolve()), not "
            "root / path.",
        )


def _inside(real: Any, root: Any) -> bool:
    import os

    root = os.path.realpath(root)
    return os.path.commonpath([str(real), root]) == root


class _Policy:
    """A policy with answers written in advance, that remembers what it was asked."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, Any]] = []

    @property
    def asked(self) -> int:
        return len(self.calls)

    def decide(self, tool_name: str, tool_input: Any) -> Any:
        from course_helpers.lessons.gate import Decision

        self.calls.append((tool_name, tool_input))
        allowed, reason = self.answers.pop(0) if self.answers else (False, "no answer left")
        return Decision(allowed, reason, "release-manager")


def _check_whole_names(gate_class: Callable) -> None:
    """A harmless tool whose name holds a dangerous one's is not asked about: whole names."""
    __tracebackhide__ = True
    policy = _Policy((True, "fine"))
    gate = run_learner(gate_class, policy, {"merge_pr"}, name="AuditedGate")
    decision = run_learner(gate.decide, "merge_pr_status", {"pr": 482}, name="decide")
    if policy.asked:
        fail(
            "the gate asked the policy about merge_pr_status, a harmless tool (it only reads a "
            "status) whose name contains merge_pr: it matches dangerous names by substring, so "
            "every tool named like a dangerous one waits for a person, and people asked too "
            "often approve without reading.",
            "compare whole names: `tool_name in self.dangerous`.",
        )
    if getattr(decision, "allowed", None) is not True:
        fail(
            f"for merge_pr_status, a harmless tool, decide returned {short_repr(decision)}.",
            "allow a tool whose name is not in `dangerous`, with a reason and who decided.",
        )


def check_gate(gate_class: Callable) -> None:
    """07 · `AuditedGate(policy, dangerous)`: asks the policy for dangerous tools only, counts."""
    __tracebackhide__ = True
    from collections import Counter

    from course_helpers.lessons.dispatch import dispatch
    from course_helpers.lessons.gate import Decision
    from course_helpers.lessons.tools import tool

    policy = _Policy((True, "release day: merges allowed"), (False, "CI is red on #483"))
    gate = run_learner(gate_class, policy, {"merge_pr"}, name="AuditedGate")
    decisions = []
    for name, tool_input in [
        ("comment_on_pr", {"pr": 482, "text": "Looks good."}),
        ("merge_pr", {"pr": 482}),
        ("merge_pr", {"pr": 483}),
    ]:
        before = policy.asked
        decision = run_learner(gate.decide, name, tool_input, name="decide")
        if not isinstance(decision, Decision):
            fail(
                f"decide({name!r}, ...) returned {short_repr(decision)}, not a Decision.",
                "return Decision(allowed, reason, who).",
            )
        decisions.append(decision)
        if name == "comment_on_pr":
            if policy.asked:
                fail(
                    "the gate asked the policy about comment_on_pr, a harmless tool.",
                    "ask the policy only when the tool's name is in `dangerous`.",
                )
            if decision.allowed is not True or not decision.reason or not decision.who:
                fail(
                    f"for comment_on_pr, a harmless tool, decide returned {decision}.",
                    "allow it, with a reason and who decided, e.g. Decision(True, 'harmless "
                    "tool', 'AuditedGate').",
                )
            continue
        if policy.asked != before + 1:
            fail(
                f"the policy was asked {policy.asked - before} times for {name}({tool_input}).",
                "ask the policy once per dangerous call, and use its answer.",
            )
        if policy.calls[-1] != (name, tool_input):
            fail(
                f"the policy was asked about {policy.calls[-1]}, not {(name, tool_input)}.",
                "pass the call on as it is: self.policy.decide(tool_name, tool_input).",
            )
    expected_allowed = [True, True, False]
    if [d.allowed for d in decisions] != expected_allowed:
        fail(
            f"the gate's answers were {[d.allowed for d in decisions]}; the policy said yes "
            "then no to merge_pr.",
            "harmless tools pass; for dangerous ones, follow the policy: "
            "Decision(decision.allowed is True, decision.reason, decision.who).",
        )
    for decision, (reason, who) in zip(
        decisions[1:],
        [
            ("release day: merges allowed", "release-manager"),
            ("CI is red on #483", "release-manager"),
        ],
        strict=True,
    ):
        if decision.reason != reason or decision.who != who:
            fail(
                f"for merge_pr the policy decided {(decision.allowed, reason, who)}, but the gate "
                f"returned {decision}: the audit loses why, and who decided.",
                "keep the policy's reason and who: return Decision(decision.allowed is True, "
                "decision.reason, decision.who), or the policy's Decision itself when its "
                "allowed is True; never a reason or who of the gate's own.",
            )
    counts = getattr(gate, "counts", None)
    expected = Counter({("comment_on_pr", True): 1, ("merge_pr", True): 1, ("merge_pr", False): 1})
    if Counter(counts or {}) != expected:
        fail(
            f"gate.counts is {dict(counts or {})}; expected {dict(expected)}.",
            "count every decision, harmless ones too: self.counts[(tool_name, allowed)] += 1.",
        )
    other = run_learner(gate_class, _Policy(), {"merge_pr"}, name="AuditedGate")
    if getattr(other, "counts", None) is counts or Counter(getattr(other, "counts", None) or {}):
        fail(
            f"a new gate starts with counts {dict(getattr(other, 'counts', None) or {})}: every "
            "gate shares one Counter (made in the class body, so it belongs to the class), and "
            "one gate's decisions show up in another's audit.",
            "create the Counter in __init__: self.counts = Counter().",
        )
    _check_explicit_yes(gate_class)
    _check_whole_names(gate_class)
    _check_policy_failure(gate_class)
    merged: list[int] = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge pull request `pr` into main."""
        merged.append(pr)
        return f"merged #{pr}"

    gate = gate_class(_Policy((False, "not today")), {"merge_pr"})
    result = dispatch(
        {"merge_pr": merge_pr}, tool_call_block("merge_pr", "toolu_gate", pr=482), approve=gate
    )
    if merged or result.get("is_error") is not True:
        fail(
            "with your gate as `approve`, a refused merge_pr still ran.",
            "decide() must return Decision(False, ...) when the policy says no.",
        )
    passed("the gate guards dangerous tools, keeps the policy's reasons and counts every decision")


def _check_explicit_yes(gate_class: Callable) -> None:
    """A policy answering allowed="no" (or another non-True value) is a no, not a truthy string."""
    __tracebackhide__ = True
    from collections import Counter

    for answer in ("no", "deny", "false", None, 1):
        gate = run_learner(
            gate_class, _Policy((answer, f"answered {answer!r}")), {"merge_pr"}, name="AuditedGate"
        )
        decision = run_learner(gate.decide, "merge_pr", {"pr": 482}, name="decide")
        if getattr(decision, "allowed", None) is not False:
            fail(
                f"a policy answering Decision(allowed={answer!r}, ...) got a gate decision with "
                f"allowed={getattr(decision, 'allowed', None)!r}: only an explicit yes (True) "
                "approves; bool('no') is True, and 1 == True.",
                "allow only when the policy's decision.allowed is True; anything else is a "
                "refusal, with the policy's reason and who: Decision(decision.allowed is True, "
                "decision.reason, decision.who).",
            )
        counts = Counter(getattr(gate, "counts", None) or {})
        if counts != Counter({("merge_pr", False): 1}):
            fail(
                f"after a policy answered allowed={answer!r}, gate.counts is {dict(counts)}; "
                "the call was refused, so it counts as ('merge_pr', False).",
                "count the decision you return, after turning the answer into True or False.",
            )


class _SilentPolicy:
    """A policy that cannot answer: input() with no one at the terminal raises EOFError."""

    def decide(self, tool_name: str, tool_input: Any) -> Any:
        raise EOFError("no one at the terminal to answer")


def _check_policy_failure(gate_class: Callable) -> None:
    """A policy that raises is not a yes: the gate fails closed (raises on, or refuses)."""
    __tracebackhide__ = True
    gate = run_learner(gate_class, _SilentPolicy(), {"merge_pr"}, name="AuditedGate")
    try:
        decision = gate.decide("merge_pr", {"pr": 482})
    except EOFError:
        return
    if getattr(decision, "allowed", None) is not False:
        fail(
            "when the policy raised (EOFError: no one at the terminal to answer), decide "
            f"returned {short_repr(decision)}: a merge nobody approved would run.",
            "let the policy's exception go on, or refuse: never allow when there is no answer.",
        )
