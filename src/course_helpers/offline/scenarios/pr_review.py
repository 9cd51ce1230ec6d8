"""Course machinery (offline course model): the pull-request reviewer, for notebooks 04 to 06.

Offered tools named `get_diff` and `read_file` (and maybe `list_files`) and asked to review a
pull request ("Review PR #482"), the model:

1. calls `get_diff` for that PR;
2. reads the diff it gets back: when a changed function's docstring names a caller ("Checkout
   uses this ...") it calls `read_file` on that caller, the module next to the changed file
   (or the path the user named, or the one `list_files` shows);
3. writes a review: it quotes the caller's line that still uses the old meaning, if there is one.

It reacts to what the learner's tools return: an `is_error` from `get_diff` ("PR #999 does not
exist") is reported honestly, with the open PRs when the error lists them, and about the number
the failed call used (a call cut off at `max_tokens` may carry "4" for "482"); an `is_error`
from `read_file` leads to the path the error suggests ("Did you mean: ...?"), when it has not
tried it yet, else to `list_files` when it is offered, else to a review that says which file could
not be read.

A `read_file` that someone refused is not tried again, and not worked around (no `list_files`,
no other path): the model says what the diff alone shows and asks the person how to go on. It
reads the meaning of the error, not one keyword (`is_refusal`): a refusal in any usual wording
("declined", "denied", "refused", "rejected", "not allowed"...) made by someone (the user, a
person, a reviewer, an approval policy), or an instruction to ask the user before going on.
A tool's own failure, such as the operating system's "Permission denied: 'x.py'", is neither.

When `read_file` or `list_files` also takes the pull request's number (an argument named `pr`,
`pr_number` or `number`), the model passes the number of the PR under review.
"""

from __future__ import annotations

import posixpath
import re

from course_helpers.offline.conversation import Conversation, ToolCall
from course_helpers.offline.policy import Reply, call, say, scenario

_PR = re.compile(r"(?:\bPR|pull request)\s*#?\s*(\d+)", re.IGNORECASE)
_PATH = re.compile(r"\b[\w./-]+\.py\b")
_REFUSED = re.compile(
    r"\b(declin\w*|den(?:y|ied|ies)|refus\w*|reject\w*|disallow\w*|forbid\w*|veto\w*|blocked|"
    r"said no|not (?:allowed|permitted|approved|authori[sz]ed)|did not (?:allow|approve)|"
    r"(?:won't|will not|does not|doesn't|didn't) (?:allow|approve|permit))\b",
    re.IGNORECASE,
)
_SOMEONE = re.compile(
    r"\b(user|person|human|reviewer|operator|owner|maintainer|approv\w*|polic\w*|rule)\b",
    re.IGNORECASE,
)
_ASK = re.compile(
    r"\b(ask (?:the (?:user|person|human|reviewer)|them|me|how|whether|what|first|before)|"
    r"check with (?:the )?(?:user|person|me)|"
    r"how (?:to|you(?:'d| would) like to|would you like to) (?:continue|proceed|go on)|"
    r"wait for (?:the user|instructions|an answer))",
    re.IGNORECASE,
)


def is_refusal(error: str) -> bool:
    """Whether a tool's error says someone refused the call, or tells the model to ask first.

    What a model understands from the result, in any usual wording: "The user declined...",
    "Permission denied by the user", "Rejected by the reviewer", "Not allowed by policy", or
    "... ask the user how to continue". A refusal word with nobody behind it and no request to
    ask ("Permission denied: 'x.py'", an operating-system error) is the tool failing.
    """
    refused = _REFUSED.search(error) is not None and _SOMEONE.search(error) is not None
    return refused or _ASK.search(error) is not None


def _pr_number(conv: Conversation) -> int | None:
    match = _PR.search(conv.person_text)
    return int(match.group(1)) if match else None


# -- reading a diff ----------------------------------------------------------------------


def changed_files(diff: str) -> list[str]:
    return re.findall(r"^\+\+\+ b/(\S+)", diff, re.MULTILINE)


def changed_functions(diff: str) -> list[tuple[str, str, str]]:
    """(name, old parameters, new parameters) of every function whose signature changed."""
    old = dict(re.findall(r"^-def (\w+)\(([^)]*)\)", diff, re.MULTILINE))
    new = dict(re.findall(r"^\+def (\w+)\(([^)]*)\)", diff, re.MULTILINE))
    return [(name, old[name], new[name]) for name in old if name in new and old[name] != new[name]]


def caller_hint(diff: str) -> str | None:
    """The module a docstring says uses the function ('Checkout uses this' -> 'checkout')."""
    match = re.search(r"\b([A-Za-z_]\w*) (?:uses|calls) this\b", diff) or re.search(
        r"\b(?:used|called) (?:by|from|in) ([A-Za-z_]\w*)", diff
    )
    return match.group(1).lower() if match else None


def parameter_names(parameters: str) -> list[str]:
    return [p.split(":")[0].split("=")[0].strip() for p in parameters.split(",") if p.strip()]


def _with_pr(conv: Conversation, tool: str, number: int, **arguments) -> dict:
    """The call's arguments, plus the PR's number when the tool takes one."""
    props = ((conv.tool(tool) or {}).get("input_schema") or {}).get("properties") or {}
    for name in ("pr", "pr_number", "number"):
        if name in props and name not in arguments:
            return {name: number, **arguments}
    return arguments


# -- the scenario --------------------------------------------------------------------------


@scenario(
    "pr_review",
    "Review a pull request with tools named get_diff and read_file: 'Review PR #482.' "
    "(PR #999 does not exist)",
    priority=30,
)
def pr_review(conv: Conversation) -> Reply | None:
    if not conv.offers("get_diff", "read_file"):
        return None
    number = _pr_number(conv)
    if number is None:
        return None
    calls = conv.task_calls()
    diffs = [c for c in calls if c.name == "get_diff"]
    if not diffs:
        pr_arg = conv.argument_for("get_diff", ("pr", "number", "pr_number"))
        return call(
            "get_diff", f"I'll start by reading the diff of PR #{number}.", **{pr_arg: number}
        )
    diff_call = diffs[-1]
    if diff_call.is_error:
        pr_arg = conv.argument_for("get_diff", ("pr", "number", "pr_number"))
        asked = _number_in(diff_call.input.get(pr_arg))
        return _no_such_pr(number, diff_call.result or "", asked)
    return _after_diff(conv, number, diff_call.result or "", calls)


def _number_in(value: object) -> int | None:
    """The PR number a call's argument holds (482, "482", "#482"), or None."""
    match = re.search(r"\d+", str(value)) if value is not None else None
    return int(match.group()) if match else None


def _no_such_pr(number: int, error: str, asked: int | None = None) -> Reply:
    """The failed get_diff reported honestly: the error is about the number the call used,
    which is not the one the user named when the call was cut or mistyped."""
    if asked is not None and asked != number:
        return say(
            f"I could not read the diff: my call asked the code host for PR #{asked}, not "
            f"PR #{number}, and it answered: {error.strip().rstrip('.')}. Should I read "
            f"PR #{number} instead?"
        )
    open_prs = re.findall(r"#(\d+)", error.split("open PRs", 1)[-1]) if "open PRs" in error else []
    if open_prs:
        listed = " and ".join(f"#{n}" for n in open_prs)
        return say(
            f"I can't review PR #{number}: it does not exist on the code host. The open pull "
            f"requests are {listed}. Which one would you like me to review?"
        )
    said = error.strip().split(": ", 1)[-1] if "failed" in error else error.strip()
    if not re.search(r"does not exist|not found|no such|unknown", error, re.IGNORECASE):
        # The error is not about the number (the host is down, the folder gone): do not
        # ask the person to check a number nothing says is wrong.
        return say(
            f"I can't review PR #{number} right now. Reading its diff failed: "
            f"{said.rstrip('.')}. That is a problem on the code host's side, not with the "
            "number: once the host is back, ask me again."
        )
    return say(
        f"I can't review PR #{number}. The code host answered: {said.rstrip('.')}. "
        "Could you check the number?"
    )


def _after_diff(conv: Conversation, number: int, diff: str, calls: list[ToolCall]) -> Reply:
    files = changed_files(diff)
    functions = changed_functions(diff)
    hint = caller_hint(diff)
    if not functions or not hint:
        return say(_review_without_callers(number, files, functions))
    name, old, new = functions[0]
    reads = [c for c in calls if c.name == "read_file"]
    read_ok = [c for c in reads if not c.is_error]
    path_arg = conv.argument_for("read_file", ("path", "file", "filename"))
    if read_ok:
        read = read_ok[-1]
        return say(_review(number, name, old, new, read, str(read.input.get(path_arg, ""))))
    tried = {str(c.input.get(path_arg, "")) for c in reads}
    folder = posixpath.dirname(files[0]) if files else ""
    if not reads:
        named = [p for p in _PATH.findall(conv.person_text) if hint in p]
        path = named[0] if named else posixpath.join(folder, f"{hint}.py")
        return call(
            "read_file",
            f"The diff changes what `{name}` takes, and its docstring says {hint} uses it. "
            f"Let me read {path} to check that caller.",
            **_with_pr(conv, "read_file", number, **{path_arg: path}),
        )
    error = reads[-1].result or ""
    if is_refusal(error):
        # Someone said no, or asked to be asked: do not try again or around it; ask how to go on.
        declined = str(reads[-1].input.get(path_arg, "that file"))
        who = "The approval policy" if re.search(r"polic|rule", error, re.I) else "You"
        return say(
            f"{who} declined to let me read {declined}, so I have not checked that caller. "
            f"From the diff alone: PR #{number} changes `{name}({old})` to `{name}({new})`, "
            f"and its docstring says {hint} uses this function. If {declined} still passes "
            "the old kind of value, it will break.\n\n"
            f"How would you like me to continue? I can read {declined} if you allow it, or "
            "finish the review from the diff alone."
        )
    # The error names the file it probably meant: read that first, before listing anything.
    suggested = re.search(r"Did you mean:? ([\w./-]+\.py)", error)
    if suggested and suggested.group(1) not in tried:
        path = suggested.group(1)
        return call(
            "read_file",
            f"The error suggests {path}; let me read that.",
            **_with_pr(conv, "read_file", number, **{path_arg: path}),
        )
    listings = [c for c in calls if c.name == "list_files" and not c.is_error]
    if listings:
        found = [
            f
            for f in re.findall(r"[\w./-]+\.py", listings[-1].result or "")
            if posixpath.basename(f) == f"{hint}.py" and f not in tried
        ]
        if found:
            return call(
                "read_file",
                f"There it is: {found[0]}.",
                **_with_pr(conv, "read_file", number, **{path_arg: found[0]}),
            )
    elif conv.offers("list_files"):
        return call(
            "list_files",
            f"{sorted(tried)[0]} is not there. Let me list the files.",
            **_with_pr(conv, "list_files", number),
        )
    return say(
        f"Review of PR #{number}: it changes `{name}({old})` to `{name}({new})`. The diff says "
        f"{hint} uses this function, but I could not read that file ({error.strip()[:200]}). "
        "Please check the callers before merging: I can't tell whether they were updated."
    )


def _review_without_callers(number: int, files: list[str], functions: list) -> str:
    touched = ", ".join(files) or "no files"
    if not files:
        return f"PR #{number} has an empty diff: there is nothing to review."
    if functions:
        return (
            f"Review of PR #{number}: the diff touches {touched} and changes the signature of "
            f"`{functions[0][0]}`. Check its callers before merging."
        )
    return (
        f"Review of PR #{number}: the diff touches {touched} and changes no function "
        "signatures, so no caller can break. Looks good to merge."
    )


def _review(number: int, name: str, old: str, new: str, read: ToolCall, path: str) -> str:
    source = read.result or ""
    path = path or "the caller"
    call_lines = [
        line.strip()
        for line in source.splitlines()
        if f"{name}(" in line and not line.lstrip().startswith(("def ", "from ", "import "))
    ]
    old_names = [p for p in parameter_names(old) if p not in parameter_names(new)]
    stale = [line for line in call_lines if any(word in line for word in old_names)]
    if stale:
        return (
            f"Review of PR #{number}: request changes.\n\n"
            f"The PR changes `{name}({old})` to `{name}({new})`: the second argument is now "
            f"a fraction between 0 and 1 instead of a value in {old_names[0]}, and anything "
            "above the new range raises ValueError.\n\n"
            f"But {path} was not updated. It still calls:\n\n    {stale[0]}\n\n"
            f"That passes the old {old_names[0]} value (10 for 10 %), so every call with a "
            f"value above 1 now raises ValueError at run time. The tests in the diff only "
            f"cover `{name}` itself, so they pass.\n\n"
            f"Suggested fix: convert at the call site (divide by 100) or rename the field, and "
            f"add a test that goes through {path}."
        )
    if call_lines:
        return (
            f"Review of PR #{number}: `{name}` changed from ({old}) to ({new}). {path} calls it "
            f"as `{call_lines[0]}`; please confirm that argument matches the new meaning."
        )
    return (
        f"Review of PR #{number}: `{name}` changed from ({old}) to ({new}). I read {path} and "
        f"it does not call `{name}` directly, so I found no broken caller."
    )
