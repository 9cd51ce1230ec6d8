"""Course machinery (offline course model): the coding agent of notebook 08: find the cart total,
add an empty-cart test, fix what it finds.

Offered `read_file`, `write_file` and `run_command` (and usually `list_files`) and asked about the
cart total and the empty cart, the model works on the shop project one call per turn:

1. `list_files`, then `read_file` on the cart module (`shop/cart.py`), then on its tests;
2. `write_file` of the test file: the text it read plus `EMPTY_CART_TEST` (the whole new content);
3. `run_command` with `python -m pytest -q`, and it reads the result: only when the output shows
   the empty-cart failure (`max() arg is an empty sequence`) does it write the fix
   (`BUG_LINE` -> `FIXED_LINE`) and run pytest again; when pytest passes at once it says there is
   nothing to fix; any other failure is reported and it asks how to go on;
4. it reports what it changed and pytest's last summary line.

A declined call (`is_error` saying "declined") stops the turn: the model says what it could not do,
and who said no (the person, or the approval policy named in the result when no person was asked),
and asks the person how to go on. If the person's next line agrees ("go ahead", "yes"), it tries
the same call again; a line that refuses or negates ("No, don't go ahead", "it's not OK") is a
no, and then it shows the test so the person can add it themselves (`agrees`).
"""

from __future__ import annotations

import re

from course_helpers.fixtures.shop_project import (
    BUG_LINE,
    EMPTY_CART_TEST,
    FIXED_LINE,
    SHOP_TEST_FILE,
    SHOP_TOTAL_FILE,
)
from course_helpers.offline.conversation import Conversation, ToolCall
from course_helpers.offline.policy import Reply, call, say, scenario, text, tool_use
from course_helpers.offline.scenarios.guard import POLICY_DECLINED
from course_helpers.plumbing.commands import EXIT_CODE, TIMED_OUT
from course_helpers.plumbing.truncate import cut_marker

TEST_COMMAND = "python -m pytest -q"
_TASK = re.compile(r"cart total|empty cart", re.IGNORECASE)
_YES = re.compile(
    r"\b(?:yes|go ahead|ok(?:ay)?|sure|please do|do it|approved?|fine|continue|carry on)\b",
    re.IGNORECASE,
)
# A reply that begins with a refusal, or negates the agreeing word ("not OK", "don't go
# ahead"), is a no even though it contains "go ahead" or "ok".
_NO_FIRST = re.compile(
    r"^\W*(?:no|nope|nah|don'?t|do not|never|stop|wait|hold on|please don'?t)\b", re.IGNORECASE
)
_NEGATED = re.compile(
    r"(?:\bnot|n't|\bnever|\bno)\W+(?:\w+\W+){0,3}?" + _YES.pattern, re.IGNORECASE
)
# The line `truncate` puts where it cut, whatever the count: split from its one definition.
_CUT_BEFORE, _CUT_AFTER = cut_marker(0).strip().split("0")
_CUT = re.compile(re.escape(_CUT_BEFORE) + r"[\d,]+" + re.escape(_CUT_AFTER))
_SUMMARY = re.compile(r"^=*\s*(\d+ (?:failed|passed|error)[^\n=]*?)(?: in [\d.]+s)?\s*=*$", re.M)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # colour codes, in case the output has them
_TEST_NAME = re.search(r"def (\w+)", EMPTY_CART_TEST).group(1)


def agrees(reply: str) -> bool:
    """Does the person's reply say yes? Read by meaning, not by a word found anywhere: "No,
    don't go ahead" and "it's not OK" are a no; "Yes, go ahead" and "Sure, I don't mind" a yes."""
    if _NO_FIRST.search(reply) or _NEGATED.search(reply):
        return False
    return _YES.search(reply) is not None


def _path_of(call: ToolCall) -> str:
    value = call.input.get("path", next(iter(call.input.values()), ""))
    return str(value).strip().removeprefix("./")


def _declined(call: ToolCall) -> bool:
    return call.is_error and "declined" in (call.result or "").lower()


def pytest_summary(output: str) -> str:
    """pytest's last summary line without its duration: '1 failed, 3 passed'."""
    found = _SUMMARY.findall(output)
    return found[-1].strip() if found else ""


def _exit_code(output: str) -> int | None:
    match = re.search(rf"^{re.escape(EXIT_CODE)}(-?\d+)", output, re.MULTILINE)
    return int(match.group(1)) if match else None


class _Plan:
    """What the conversation so far says about the task, read from the calls and their results."""

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.calls = [c for c in conv.calls() if c.result is not None]
        listing = next(
            (c.result for c in reversed(self.calls) if c.name == "list_files" and not c.is_error),
            "",
        )
        files = re.findall(r"[\w./-]+\.py", listing or "")
        self.cart_path = next(
            (f for f in files if f.endswith("cart.py") and not f.startswith("tests/")),
            SHOP_TOTAL_FILE,
        )
        self.test_path = next(
            (f for f in files if f.startswith("tests/") and f.endswith("test_cart.py")),
            SHOP_TEST_FILE,
        )

    def of(self, name: str, path: str | None = None) -> list[ToolCall]:
        return [c for c in self.calls if c.name == name and (path is None or _path_of(c) == path)]

    def last_ok(self, name: str, path: str | None = None) -> ToolCall | None:
        done = [c for c in self.of(name, path) if not c.is_error]
        return done[-1] if done else None

    def after(self, call: ToolCall | None, name: str) -> list[ToolCall]:
        """Calls to `name` made after `call` (all of them when call is None)."""
        start = 0 if call is None else self.calls.index(call) + 1
        return [c for c in self.calls[start:] if c.name == name]


def _decliner(call: ToolCall) -> str:
    """Who said no, as the subject of a sentence: 'You' or 'Your approval policy (Scripted)'."""
    policy = POLICY_DECLINED.search(call.result or "")
    if policy is None:
        return "You"
    return (
        f"Your approval policy ({policy.group(1)})" if policy.group(1) else "Your approval policy"
    )


def _ask_after_decline(plan: _Plan, call: ToolCall) -> Reply:
    """Say what could not be done and end the turn with a question for the person."""
    who = _decliner(call)
    if call.name == "write_file" and _path_of(call) == plan.test_path:
        return say(
            f"{who} declined my change to {plan.test_path}, so nothing was written. I can show "
            "you the test so you can add it yourself, or write it if you tell me to go ahead. "
            "How would you like me to go on?"
        )
    if call.name == "write_file":
        return say(
            f"{who} declined my fix to {_path_of(call)}, so the file is unchanged and the new "
            "empty-cart test still fails. How would you like me to go on: should I write the "
            "fix after all, or would you rather change it yourself?"
        )
    command = call.input.get("command", next(iter(call.input.values()), ""))
    return say(
        f"{who} declined running `{command}`, so I don't know yet whether the tests pass. I can "
        "run it if you tell me to go ahead, or you can run it yourself and paste me the output. "
        "How would you like me to go on?"
    )


def _after_decline(plan: _Plan, call: ToolCall) -> Reply:
    """The person answered after a decline: try again if they agree, else hand over the test."""
    if agrees(plan.conv.person_text):
        return Reply([text("All right, trying that again."), tool_use(call.name, **call.input)])
    return say(
        f"Understood, I won't change anything. Here is the test to add to {plan.test_path} "
        f"yourself:\n\n```python{EMPTY_CART_TEST}```"
    )


@scenario(
    "coding_agent",
    "A coding agent on the shop project with list_files, read_file, write_file and run_command: "
    "'Find where the cart total is computed and add a test for the empty cart.' (notebook 08)",
    priority=26,
)
def coding_agent(conv: Conversation) -> Reply | None:
    had = set(conv.tool_names) | conv.removed_tools
    if not {"read_file", "write_file", "run_command"} <= had:
        return None
    said = [conv.first_user_text, conv.person_text]
    if not any(_TASK.search(s) for s in said):
        return None
    plan = _Plan(conv)
    if plan.calls and _declined(plan.calls[-1]):
        if conv.ends_with_results:
            return _ask_after_decline(plan, plan.calls[-1])
        return _after_decline(plan, plan.calls[-1])
    if plan.calls and plan.calls[-1].name in conv.removed_tools and conv.ends_with_results:
        return _without(plan, plan.calls[-1].name)  # the call in flight was answered "not found"
    reply = _next_step(conv, plan)
    gone = [
        b["name"] for b in reply.content if b["type"] == "tool_use" and not conv.offers(b["name"])
    ]
    return _without(plan, gone[0]) if gone else reply


def _without(plan: _Plan, name: str) -> Reply:
    """The next step needs a tool that was taken away: never call it; say what was done and what
    could not be, and hand the rest to the person."""
    ok = [c for c in plan.calls if not c.is_error]
    done = ["listed the project's files"] if any(c.name == "list_files" for c in ok) else []
    for verb, tool in (("read", "read_file"), ("wrote", "write_file")):
        paths = list(dict.fromkeys(_path_of(c) for c in ok if c.name == tool))
        if paths:
            done.append(f"{verb} {' and '.join(paths)}")
    runs = [pytest_summary(_ANSI.sub("", c.result or "")) for c in ok if c.name == "run_command"]
    if runs:
        done.append(f"ran the tests (last: {runs[-1] or 'no summary line'})")
    did = f"So far I {'; '.join(done)}." if done else "So far I have done nothing."
    wrote_test = any(
        c.name == "write_file" and not c.is_error and _path_of(c) == plan.test_path
        for c in plan.calls
    )
    if name == "write_file" and not wrote_test:
        rest = (
            f"I could not add the empty-cart test to {plan.test_path}. Here it is, to add "
            f"yourself:\n\n```python{EMPTY_CART_TEST}```"
        )
    elif name == "write_file":
        rest = (
            f"I could not write the fix to {plan.cart_path}. To make the new test pass, change "
            f"`{BUG_LINE.strip()}` to `{FIXED_LINE.strip()}` yourself."
        )
    elif name == "run_command":
        rest = f"I could not run `{TEST_COMMAND}`; please run it yourself and tell me the result."
    else:
        rest = "I could not read the files I need, so I could not go on with the task."
    return say(f"`{name}` is no longer among my tools, so I stopped there. {did} {rest}")


def _next_step(conv: Conversation, plan: _Plan) -> Reply:
    if not plan.of("list_files") and conv.offers("list_files"):
        schema = (conv.tool("list_files") or {}).get("input_schema") or {}
        folder = [
            n for n in ("path", "folder", "directory") if n in (schema.get("properties") or {})
        ]
        arguments = {folder[0]: "."} if folder else {}
        return call("list_files", "I'll start by looking at the project's files.", **arguments)
    cart = plan.last_ok("read_file", plan.cart_path)
    if cart is None:
        why = f"The cart lives in {plan.cart_path}; the total is probably there."
        return _read(conv, plan, plan.cart_path, why)
    tests = plan.last_ok("read_file", plan.test_path)
    if tests is None:
        return _read(conv, plan, plan.test_path, _finding(cart.result or ""))
    return _write_and_test(conv, plan, cart.result or "", tests.result or "")


def _finding(cart_text: str) -> str:
    """What the model saw in the cart module it read, and why it reads the tests next."""
    if BUG_LINE in cart_text:
        return (
            "Found it: `Cart.total()` adds shipping for the heaviest item, and it finds "
            "that item with `max(...)` over the cart lines. On an empty cart there is "
            "nothing to take the max of. Let me look at the existing tests first."
        )
    if FIXED_LINE in cart_text:
        return (
            "Found it: `Cart.total()` adds shipping for the heaviest item, found with "
            "`max(..., default=0)`, so an empty cart should already total 0.00. Let me look at "
            "the existing tests, then check that with a test."
        )
    if "def total" in cart_text:
        return "Found `total()` in the cart module. Let me look at the existing tests first."
    return "I don't see the total computed here. Let me look at the existing tests first."


def _read(conv: Conversation, plan: _Plan, path: str, why: str) -> Reply:
    """Read `path`, saying why first; if reading it failed already, report that instead."""
    tried = plan.of("read_file", path)
    if tried:
        return say(f"I could not read {path}: {(tried[-1].result or '')[:300]}")
    path_arg = conv.argument_for("read_file", ("path", "file", "filename"))
    return call("read_file", why, **{path_arg: path})


def _write_and_test(conv: Conversation, plan: _Plan, cart_text: str, test_text: str) -> Reply:
    write_args = (
        conv.argument_for("write_file", ("path", "file", "filename")),
        conv.argument_for("write_file", ("content", "text", "contents")),
    )
    run_arg = conv.argument_for("run_command", ("command", "cmd"))
    written = [
        c
        for c in plan.of("write_file", plan.test_path)
        if not c.is_error and _TEST_NAME in str(c.input.get(write_args[1], ""))
    ]
    if not written:
        if _CUT.search(test_text):
            return say(
                f"{plan.test_path} came back shortened, so I can't safely rewrite it whole. "
                f"Please add this test yourself:\n\n```python{EMPTY_CART_TEST}```"
            )
        new_text = test_text + EMPTY_CART_TEST
        return call(
            "write_file",
            f"I'll add a test for the empty cart at the end of {plan.test_path}.",
            **{write_args[0]: plan.test_path, write_args[1]: new_text},
        )
    runs = plan.after(written[-1], "run_command")
    if not runs:
        return call(
            "run_command",
            f"I added `{_TEST_NAME}`. Now I'll run the tests.",
            **{run_arg: TEST_COMMAND},
        )
    run = runs[-1]
    output = _ANSI.sub("", run.result or "")
    if run.is_error:
        return say(f"I could not run the tests: {output[:300]}\nHow would you like me to go on?")
    if output.startswith(TIMED_OUT):
        return say(
            "The test run did not finish in time, so I can't tell whether the new test passes. "
            "How would you like me to go on?"
        )
    fixes = [c for c in plan.after(written[-1], "write_file") if not c.is_error]
    summary = pytest_summary(output) or f"exit code {_exit_code(output)}"
    if not fixes:
        return _react_to_first_run(conv, plan, cart_text, output, summary, write_args)
    if not plan.after(fixes[-1], "run_command"):
        return call(
            "run_command", "Now the tests again, to check the fix.", **{run_arg: TEST_COMMAND}
        )
    if _exit_code(output) == 0:
        return say(
            f"Done. The cart total is computed in `Cart.total()` in {plan.cart_path}: the "
            "subtotal plus shipping for the heaviest item.\n\n"
            f"- I added `{_TEST_NAME}` to {plan.test_path}. It failed for a real reason: "
            "`max()` of an empty cart raises `ValueError`.\n"
            f"- I changed that line to `max(..., default=0)`: a weight of 0 already ships free "
            f"(like gift cards), so an empty cart now totals 0.00.\n"
            f"- pytest now reports: {summary}."
        )
    return say(
        f"The tests still fail after my fix ({summary}). The output ends with:\n\n"
        f"{_tail(output)}\n\nHow would you like me to go on?"
    )


def _react_to_first_run(
    conv: Conversation,
    plan: _Plan,
    cart_text: str,
    output: str,
    summary: str,
    write_args: tuple[str, str],
) -> Reply:
    if _exit_code(output) == 0:
        return say(
            f"I added `{_TEST_NAME}` to {plan.test_path} and ran the tests: {summary}. The "
            "empty cart already totals 0.00, so there is nothing to fix."
        )
    if "max() arg is an empty sequence" in output or "max() iterable argument is empty" in output:
        if BUG_LINE not in cart_text:
            return say(
                f"The new test fails ({summary}) on the `max()` in {plan.cart_path}, but that "
                "line is not the one I read earlier, so I won't overwrite the file. How would "
                "you like me to go on?"
            )
        found = re.search(r"^E\s+(\w+Error: .*\S)\s*$", output, re.MULTILINE)
        error = found.group(1) if found else "ValueError"
        return call(
            "write_file",
            f"The new test fails for a real reason ({summary}): `{error}` in "
            "`Cart.total()`. An empty cart has no heaviest item. Weight 0 already ships "
            "free (that is how gift cards work), so `max(..., default=0)` is the fix.",
            **{
                write_args[0]: plan.cart_path,
                write_args[1]: cart_text.replace(BUG_LINE, FIXED_LINE),
            },
        )
    return say(
        f"The tests fail, but not in the way I expected ({summary}). The output ends with:\n\n"
        f"{_tail(output)}\n\nHow would you like me to go on?"
    )


def _tail(output: str, lines: int = 8) -> str:
    return "\n".join("    " + line for line in output.strip().splitlines()[-lines:])
