"""A small coding agent: four tools over a FileSandbox and a chat loop around the agent turn.

Built in notebook 08 and saved here. `coding_tools(sandbox)` gives the model `list_files`,
`read_file`, `write_file` and `run_command`, each confined to the sandbox's folder, with arguments
validated before anything runs. `chat(client, sandbox, lines, approve=...)` runs one agent turn per
line the person types: the turn goes on while the model asks for tools and hands control back on
any other stop reason (or at the step limit).

No `from __future__ import annotations` here on purpose: `@tool` reads the annotations as real
objects to build the schema, and the notebook cell that defines these functions has none either.
"""

import os
import sys
from collections.abc import Iterable, Iterator
from typing import Annotated, Any

import anthropic
from pydantic import Field

from course_helpers.client import MODEL
from course_helpers.lessons.agent import AgentRun, run_agent, tool_calls
from course_helpers.lessons.tools import Tool, tool
from course_helpers.plumbing.commands import run_command as run_in_shell
from course_helpers.plumbing.commands import safe_environment
from course_helpers.plumbing.file_sandbox import FileSandbox
from course_helpers.plumbing.truncate import clip, visible

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.coding_agent`. Edit those cells, then run `make promote`.


# From notebooks/08_assemble_a_coding_agent.ipynb
# (anthropic, MODEL, run_agent and FileSandbox are imported in the first cell)


MAX_STEPS = 30  # calls to the model per agent turn before control goes back to the person
DANGEROUS = frozenset({"write_file", "run_command"})
SYSTEM = (
    "You are a coding agent working in a small Python project. Explore with list_files and "
    "read_file before you change anything. write_file replaces a whole file: give its complete "
    "new content. Run commands such as `python -m pytest -q` with run_command. Paths are "
    "relative to the project root. If the user declines an action, do not try it again: say "
    "what you could not do and ask how to go on."
)
ProjectPath = Annotated[str, Field(min_length=1, max_length=4096)]


def agent_environment() -> dict[str, str]:
    """The environment of the agent's commands: the allow-list, plain output, this Python first.

    `safe_environment()` keeps only PATH, HOME, the locale and a few more, so no secret and no
    setting of the process around the agent reaches a command. `python` then means the
    interpreter running the course (with pytest installed). Colour codes are turned off,
    because the model reads the output and pays for every escape sequence, and Python writes
    no .pyc files into the project.
    """
    env = safe_environment()
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.update(NO_COLOR="1", TERM="dumb", PYTHONDONTWRITEBYTECODE="1")
    return env


def coding_tools(
    sandbox: FileSandbox, *, timeout: float = 60, max_output: int = 3500
) -> list[Tool]:
    """The four tools of the coding agent, confined to `sandbox`.

    `max_output` stays below the dispatcher's RESULT_LIMIT (4000), so a long file or a long
    command output is shortened once, with a marker that says how much is missing.
    """

    @tool
    def list_files(path: ProjectPath = ".") -> str:
        """List the files and folders under `path`, relative to the project root, one per line.

        Folders end with '/'. Call it first to see what the project holds.
        """
        return sandbox.list_files(path)

    @tool
    def read_file(path: ProjectPath) -> str:
        """Return the text of one file. `path` is relative to the project root, e.g. 'src/app.py'.

        Very long files are shortened in the middle (the text says how much was cut).
        """
        return sandbox.read_text(path, max_chars=max_output)

    @tool
    def write_file(path: ProjectPath, content: str) -> str:
        """Replace the whole file at `path` with `content`, creating it (and its folders) if needed.

        Give the complete new text of the file, not a fragment. Needs the user's approval.
        """
        return sandbox.write_text(path, content)

    @tool
    def run_command(command: Annotated[str, Field(min_length=1, max_length=2000)]) -> str:
        """Run a shell command in the project root; return its exit code and output.

        Example: 'python -m pytest -q'. Commands are stopped after a time limit, get no input
        and no secrets, are meant to stay in the project (no network, no writes elsewhere), and
        long output is shortened. Needs the user's approval.
        """
        result = run_in_shell(
            command,
            cwd=sandbox.root,
            timeout=timeout,
            max_output=max_output,
            env=agent_environment(),
        )
        return result.as_tool_text()

    return [list_files, read_file, write_file, run_command]


# From notebooks/08_assemble_a_coding_agent.ipynb
def terminal_lines(prompt: str = "you> ") -> Iterator[str]:
    """What the person types, line by line, until an empty line, 'exit' or end of input."""
    while True:
        try:
            line = input(prompt)
        except EOFError:
            return
        if line.strip().lower() in ("", "exit", "quit"):
            return
        yield line


def add_user_line(messages: list, line: str) -> None:
    """Append what the person said; after tool results (a step limit) it joins that message."""
    last = messages[-1] if messages else None
    if isinstance(last, dict) and last.get("role") == "user" and isinstance(last["content"], list):
        last["content"].append({"type": "text", "text": line})
    else:
        messages.append({"role": "user", "content": line})


def shorten(value: Any, width: int = 50) -> str:
    """A value as one short line, for the log of what the agent did."""
    return clip(visible(repr(value)), width, marker="...'")


def report_calls(messages: list) -> None:
    """Print the calls of the last turn and the first line of each result.

    Everything printed is escaped first (`visible`): a result is text from the project, and a
    terminal escape in a file's first line must not rewrite the lines printed above it.
    """
    if len(messages) < 2 or not tool_calls(messages[-2]):
        return
    results = {
        r["tool_use_id"]: r for r in messages[-1]["content"] if r.get("type") == "tool_result"
    }
    for call in tool_calls(messages[-2]):
        arguments = ", ".join(f"{visible(str(k))}={shorten(v)}" for k, v in call.input.items())
        result = results.get(call.id, {})
        text = visible(str(result.get("content", "")), keep_newlines=True)
        lines = text.strip().split("\n") or [""]
        more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
        mark = "✗" if result.get("is_error") else "✓"
        first = lines[0] if len(lines[0]) <= 100 else lines[0][:100].rsplit(" ", 1)[0] + " [...]"
        print(f"  → {visible(str(call.name))}({arguments})\n    {mark} {first}{more}")


class TurnPrinter:
    """What chat() prints of one agent turn: the text as it streams, each answered turn once.

    `wrap(sample)` wraps the loop's sampler (the seam of notebook 04): before the model is
    called again, the calls of the turn just answered are printed with their results.
    """

    def __init__(self, messages: list) -> None:
        self.mid_line = True  # chat() has printed "agent> "
        # The message of results printed last; at the start, whatever the history already holds.
        self.reported: Any = messages[-1] if messages else None

    def text(self, piece: str) -> None:
        if piece == "\n" and not self.mid_line:
            return  # the sampler's new line between two turns: the calls ended the line
        print(visible(piece, keep_newlines=True, keep_tabs=True), end="", flush=True)
        self.mid_line = True

    def end_line(self) -> None:
        if self.mid_line:
            print()
            self.mid_line = False

    def report(self, messages: list) -> None:
        """Print the last turn's calls and results, unless they were printed already."""
        if len(messages) < 2 or messages[-1] is self.reported or not tool_calls(messages[-2]):
            return
        self.reported = messages[-1]
        self.end_line()
        report_calls(messages)

    def wrap(self, sample):
        def sample_and_report(messages, **changes):
            self.report(messages)
            return sample(messages, **changes)

        return sample_and_report


def chat(
    client: anthropic.Anthropic,
    sandbox: FileSandbox,
    lines: Iterable[str] | None = None,
    *,
    approve: Any,
    messages: list | None = None,
    tools: list[Tool] | None = None,
    system: str = SYSTEM,
    model: str = MODEL,
    max_steps: int = MAX_STEPS,
) -> list[AgentRun]:
    """One agent turn per line the person types; control comes back after each.

    `lines` is a list in notebooks and CI; None reads them with input() (a terminal only: a
    notebook run by CI has no one to type). `approve` decides on the dangerous calls.
    Text is printed as it streams in, and each tool call with its result's first line.
    """
    tools = coding_tools(sandbox) if tools is None else tools
    messages = [] if messages is None else messages
    runs = []
    for line in terminal_lines() if lines is None else lines:
        if lines is not None:
            print(f"you> {line}")
        add_user_line(messages, line)
        print("agent> ", end="")
        printer = TurnPrinter(messages)
        run = run_agent(
            client,
            messages=messages,
            tools=tools,
            system=system,
            model=model,
            max_steps=max_steps,
            approve=approve,
            on_text=printer.text,
            wrap_sample=printer.wrap,
        )
        printer.report(messages)  # a turn stopped by the step limit ends with results
        printer.end_line()
        print(f"[{run.ending}: control is back with you]\n")
        runs.append(run)
    return runs
