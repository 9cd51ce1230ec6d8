"""The reviewer (notebooks 04-06) when the code host cannot be reached.

A project folder deleted under the reviewer (a cleanup cell run before a Try it) is the
host's fault: the tool's error names no path, and the course model does not ask the person
to check a pull-request number nothing says is wrong. A PR that does not exist still gets
"check the number".
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from course_helpers.fixtures.pr_repo import CodeHostUnreachable, build_pr_repo
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.tools import tool

TOOLS = [
    {
        "name": "get_diff",
        "description": "The diff of a pull request.",
        "input_schema": {
            "type": "object",
            "properties": {"pr": {"type": "integer"}},
            "required": ["pr"],
        },
    },
    {
        "name": "read_file",
        "description": "Read a file of the pull request.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]


def answer_after(client, error: str, number: int = 731) -> str:
    """Ask for a review of PR `number`; get_diff fails with `error`; the model's answer."""
    messages: list[dict] = [{"role": "user", "content": f"Please review PR #{number}."}]
    first = client.messages.create(
        model="claude-sonnet-5-5", max_tokens=1024, tools=TOOLS, messages=messages
    )
    (call,) = [b for b in first.content if b.type == "tool_use"]
    messages += [
        {"role": "assistant", "content": first.content},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call.id, "content": error, "is_error": True}
            ],
        },
    ]
    last = client.messages.create(
        model="claude-sonnet-5-5", max_tokens=1024, tools=TOOLS, messages=messages
    )
    assert last.stop_reason == "end_turn"
    return "".join(b.text for b in last.content if b.type == "text")


def test_a_deleted_project_is_reported_without_its_path():
    with tempfile.TemporaryDirectory() as folder:
        repo = build_pr_repo(Path(folder) / "project")
        assert repo.get_diff(483)  # reachable while the folder exists
    with pytest.raises(CodeHostUnreachable) as raised:
        repo.get_diff(482)
    assert folder not in str(raised.value)
    assert "could not be reached" in str(raised.value)
    with pytest.raises(CodeHostUnreachable):
        repo.read_file("README.md")


def test_the_tool_result_names_no_host_path():
    with tempfile.TemporaryDirectory() as folder:
        repo = build_pr_repo(Path(folder) / "project")

    @tool
    def get_diff(pr: int) -> str:
        """The diff of a pull request."""
        return repo.get_diff(pr)

    call = {"type": "tool_use", "id": "toolu_1", "name": "get_diff", "input": {"pr": 482}}
    result = dispatch([get_diff], call)
    assert result["is_error"] is True
    text = str(result["content"])
    assert folder not in text and "/tmp" not in text
    assert "could not be reached" in text


def test_an_unreachable_host_is_not_blamed_on_the_number(client):
    error = (
        "get_diff failed with CodeHostUnreachable: The code host could not be reached: "
        "the project's folder is gone (was it cleaned up?)."
    )
    answer = answer_after(client, error)
    assert "PR #731" in answer
    assert "check the number" not in answer
    assert "not with the number" in answer
    assert "could not be reached" in answer


def test_a_missing_pull_request_still_asks_for_the_number(client):
    answer = answer_after(client, "get_diff failed with LookupError: no such pull request")
    assert "Could you check the number?" in answer
