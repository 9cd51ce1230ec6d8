"""A tool taken away during a run is never called again, and the coding agent of notebook 08 says
what it did and what it could not do; its finding follows from the file it read.

The tool runner's `remove_tools` (beta `inline-tools-2026-09-15`) answers the call in flight with
"Error: Tool 'write_file' not found" and tells the model in a `tool_removal` block.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic.lib.tools import ToolError
from tool_shapes import GET_WEATHER

from course_helpers.fixtures.shop_project import (
    BUG_LINE,
    FIXED_LINE,
    SHOP_TEST_FILE,
    SHOP_TOTAL_FILE,
    copy_shop_project,
)
from course_helpers.lessons.coding_agent import SYSTEM, coding_tools
from course_helpers.lessons.dispatch import dispatch
from course_helpers.plumbing.file_sandbox import FileSandbox

TASK = "Find where the cart total is computed and add a test for the empty cart."
BETA = "inline-tools-2026-09-15"
MODEL = "claude-sonnet-5-5"


def _runnable(sandbox: FileSandbox) -> list:
    tools = {t.name: t for t in coding_tools(sandbox)}

    def run(name: str, **arguments) -> str:
        block = {"type": "tool_use", "id": "toolu_x", "name": name, "input": arguments}
        result = dispatch(tools, block)
        if result["is_error"]:
            raise ToolError(result["content"])
        return result["content"]

    @anthropic.beta_tool
    def list_files(path: str = ".") -> str:
        """List the project's files."""
        return run("list_files", path=path)

    @anthropic.beta_tool
    def read_file(path: str) -> str:
        """Read a file."""
        return run("read_file", path=path)

    @anthropic.beta_tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        return run("write_file", path=path, content=content)

    @anthropic.beta_tool
    def run_command(command: str) -> str:
        """Run a command."""
        return run("run_command", command=command)

    return [list_files, read_file, write_file, run_command]


@pytest.mark.parametrize("removed", ["read_file", "write_file", "run_command"])
def test_a_removed_tool_is_never_called_again(client, tmp_path, removed) -> None:
    sandbox = FileSandbox(copy_shop_project(tmp_path / "shop"))
    runner = client.beta.messages.tool_runner(
        model=MODEL,
        max_tokens=2048,
        system=SYSTEM,
        tools=_runnable(sandbox),
        messages=[{"role": "user", "content": TASK}],
        max_iterations=30,
        thread=False,
        betas=[BETA],
    )
    asked_after: list[str] = []
    taken = False
    replies = 0
    for message in runner:
        replies += 1
        calls = [b.name for b in message.content if b.type == "tool_use"]
        if taken:
            asked_after += calls
        if removed in calls and not taken:
            runner.remove_tools(removed)
            taken = True
    assert taken
    assert removed not in asked_after
    assert message.stop_reason == "end_turn"
    said = "".join(b.text for b in message.content if b.type == "text")
    assert f"`{removed}` is no longer among my tools" in said
    if removed != "read_file":
        assert "So far I listed the project's files; read" in said and SHOP_TOTAL_FILE in said
    else:
        assert "could not read the files" in said
    assert replies < 12


@pytest.mark.parametrize("removed", [False, True])
def test_a_tool_removal_block_takes_the_tool_away_for_the_course_model(client, removed) -> None:
    messages = [{"role": "user", "content": "What's the weather in Paris?"}]
    if removed:
        reference = {"type": "tool_reference", "name": "get_weather"}
        messages.append(
            {"role": "system", "content": [{"type": "tool_removal", "tool": reference}]}
        )
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=512, tools=[GET_WEATHER], betas=[BETA], messages=messages
    )
    called = [b.name for b in reply.content if b.type == "tool_use"]
    assert called == ([] if removed else ["get_weather"])


def _finding(client, tmp_path, fixed: bool) -> str:
    root = copy_shop_project(tmp_path / "shop")
    cart = root / SHOP_TOTAL_FILE
    if fixed:
        cart.write_text(cart.read_text().replace(BUG_LINE, FIXED_LINE))
    sandbox = FileSandbox(root)
    runner = client.beta.messages.tool_runner(
        model=MODEL,
        max_tokens=2048,
        system=SYSTEM,
        tools=_runnable(sandbox),
        messages=[{"role": "user", "content": TASK}],
        max_iterations=30,
        thread=False,
    )
    for message in runner:
        for block in message.content:
            if block.type == "tool_use" and block.input.get("path") == SHOP_TEST_FILE:
                return "".join(b.text for b in message.content if b.type == "text")
    raise AssertionError("the agent never read the tests")


def test_the_finding_follows_from_the_cart_file_it_read(client, tmp_path) -> None:
    broken = _finding(client, tmp_path / "a", fixed=False)
    assert "nothing to take the max of" in broken
    fixed = _finding(client, tmp_path / "b", fixed=True)
    assert "nothing to take the max of" not in fixed
    assert "default=0" in fixed


@pytest.mark.parametrize(
    "tool",
    [
        {"type": "tool_definition", "definition": {"name": ["not", "a", "name"]}},
        {"type": "tool_definition", "definition": "get_weather"},
        {"type": "tool_reference", "name": {"odd": 1}},
    ],
)
def test_an_odd_tool_change_never_crashes_the_course_model(client, tool) -> None:
    kind = "tool_removal" if tool["type"] == "tool_reference" else "tool_addition"
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=512,
        tools=[GET_WEATHER],
        betas=[BETA],
        messages=[
            {"role": "user", "content": "What's the weather in Paris?"},
            {"role": "system", "content": [{"type": kind, "tool": tool}]},
        ],
    )
    assert reply.stop_reason in ("tool_use", "end_turn")


def test_a_tool_added_later_can_be_called(client) -> None:
    reference = {"type": "tool_reference", "name": "get_weather"}
    definition = {"type": "tool_definition", "definition": GET_WEATHER}
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=512,
        tools=[GET_WEATHER],
        betas=[BETA],
        messages=[
            {"role": "system", "content": [{"type": "tool_removal", "tool": reference}]},
            {"role": "system", "content": [{"type": "tool_addition", "tool": definition}]},
            {"role": "user", "content": "What's the weather in Paris?"},
        ],
    )
    assert [b.name for b in reply.content if b.type == "tool_use"] == ["get_weather"]
