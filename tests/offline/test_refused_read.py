"""The reviewer (notebooks 04-05) and a `read_file` someone refused, in any wording.

The course model reads the meaning of the error, as a model would: a refusal by someone, or an
instruction to ask, makes it stop and ask; a tool's own failure makes it look for the file.
"""

from __future__ import annotations

import re

import pytest

from course_helpers.offline.scenarios.pr_review import is_refusal

DIFF = """diff --git a/invoicing/pricing.py b/invoicing/pricing.py
--- a/invoicing/pricing.py
+++ b/invoicing/pricing.py
-def apply_discount(total: Decimal, percent: Decimal) -> Decimal:
+def apply_discount(total: Decimal, rate: Decimal) -> Decimal:
     Checkout uses this for the customer's loyalty discount.
"""

TOOLS = [
    {
        "name": name,
        "description": f"{name} of a pull request.",
        "input_schema": {
            "type": "object",
            "properties": {"pr": {"type": "integer"}, "path": {"type": "string"}},
            "required": ["pr"],
        },
    }
    for name in ("get_diff", "read_file", "list_files")
]

REFUSALS = [
    # (what the dispatcher answered, who the model says refused)
    ("The user declined to run read_file. It was not run.", "You"),
    ("Permission denied by the user: read_file was not run. Ask the user how to continue.", "You"),
    ("Rejected by the reviewer.", "You"),
    ("The person refused this call.", "You"),
    ("Not allowed by the approval policy; no person was asked.", "The approval policy"),
    ("Blocked by rule no-file-reading.", "The approval policy"),
    ("Do not read files yet: check with the user first.", "You"),
    ("Stop here and ask the user whether you may read other files.", "You"),
]

FAILURES = [
    "read_file failed with PermissionError: [Errno 13] Permission denied: 'invoicing/checkout.py'",
    "read_file failed with FileNotFoundError: no such file: invoicing/checkout.py",
    "read_file failed with KeyError: 'invoicing/checkout.py'. Did you mean checkout.py?",
]


def play(client, read_result: str):
    """Review PR #482: the diff comes back, the read fails with `read_result`."""
    messages: list[dict] = [{"role": "user", "content": "Review PR #482."}]
    answers = [(DIFF, False), (read_result, True)]
    response = None
    for content, is_error in [*answers, (None, False)]:
        response = client.messages.create(
            model="claude-sonnet-5-5", max_tokens=2048, tools=TOOLS, messages=messages
        )
        if content is None or response.stop_reason != "tool_use":
            break
        (call,) = [b for b in response.content if b.type == "tool_use"]
        messages += [
            {"role": "assistant", "content": response.content},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call.id,
                        "content": content,
                        "is_error": is_error,
                    }
                ],
            },
        ]
    return messages, response


@pytest.mark.parametrize(("refusal", "who"), REFUSALS)
def test_a_refusal_in_any_wording_stops_and_asks(client, refusal, who) -> None:
    messages, last = play(client, refusal)
    names = [b.name for m in messages[1::2] for b in m["content"] if b.type == "tool_use"]
    assert names == ["get_diff", "read_file"]  # no list_files, no second read
    assert last.stop_reason == "end_turn"
    answer = "".join(b.text for b in last.content if b.type == "text")
    assert answer.startswith(f"{who} declined to let me read invoicing/checkout.py")
    assert "How would you like me to continue?" in answer
    assert "Review of PR" not in answer


@pytest.mark.parametrize("failure", FAILURES)
def test_a_tool_failure_is_not_a_refusal(client, failure) -> None:
    assert not is_refusal(failure)
    _, last = play(client, failure)
    # The model looks for the file instead of asking: the path the error suggests, else a
    # listing (list_files is offered).
    assert last.stop_reason == "tool_use"
    calls = [b for b in last.content if b.type == "tool_use"]
    suggested = re.search(r"Did you mean:? ([\w./-]+\.py)", failure)
    if suggested:
        assert [(c.name, c.input.get("path")) for c in calls] == [("read_file", suggested.group(1))]
    else:
        assert [c.name for c in calls] == ["list_files"]


@pytest.mark.parametrize(("refusal", "who"), REFUSALS)
def test_is_refusal_reads_every_wording(refusal, who) -> None:
    assert is_refusal(refusal)
