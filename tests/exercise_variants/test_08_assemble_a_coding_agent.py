"""Exercise 08's checks, proven both ways.

The exercise: `notebooks/exercises/08_assemble_a_coding_agent_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake; equivalent correct solutions (another style, another valid choice) pass.
The requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.coding_agent`.
"""

import os
import re
from pathlib import Path
from typing import Annotated

import pydantic
import pytest

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    CheckFailed,
    check_agent_turn,
    check_search_code,
)
from course_helpers.lessons.agent import tool_calls
from course_helpers.lessons.dispatch import dispatch as course_dispatch
from course_helpers.lessons.tools import tool
from course_helpers.plumbing.file_sandbox import PathRefused
from exercise_variants.kit import (
    variant_tests,
)


def make_search(*, min_length=1, confine=True, cap=50, relative=True):
    def make_search_code(sandbox):
        @tool
        def search_code(
            pattern: Annotated[str, pydantic.Field(min_length=min_length)], path: str = "."
        ) -> str:
            """Search the project's files for a Python regular expression.

            Returns 'path:line: text' per match, relative paths, at most 50 matches then a note
            saying how many more there were. `path` limits the search to a folder or a file.
            """
            regex = re.compile(pattern)
            start = sandbox.resolve(path) if confine else sandbox.root / path
            files = [start] if start.is_file() else sorted(p for p in start.rglob("*"))
            shown, more = [], 0
            for file in files:
                if confine:
                    try:
                        file = sandbox.resolve(file.relative_to(sandbox.root).as_posix())
                    except PathRefused:
                        continue
                if not file.is_file() or any(part in sandbox.skip for part in file.parts):
                    continue
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        if cap is None or len(shown) < cap:
                            where = sandbox.relative(file) if relative else str(file)
                            shown.append(f"{where}:{number}: {line.strip()[:200]}")
                        else:
                            more += 1
            if more:
                shown.append(f"[{more} more matches not shown]")
            return "\n".join(shown) or "No matches."

        return search_code

    return make_search_code


def make_search_leaky_short_doc(sandbox):
    """Ignores the sandbox, and its docstring is short: the leak is what it must hear first."""

    @tool
    def search_code(pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = ".") -> str:
        """Search code."""
        regex = re.compile(pattern)
        start = sandbox.root / path
        files = [start] if start.is_file() else sorted(start.rglob("*"))
        found = []
        for file in files:
            if file.is_file():
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        found.append(f"{sandbox.relative(file)}:{number}: {line.strip()}")
        return "\n".join(found[:50]) or "No matches."

    return search_code


def make_search_follows_links_short_doc(sandbox):
    """Checks `path` with the sandbox, but walks through links that lead out; short docstring."""

    @tool
    def search_code(pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = ".") -> str:
        """Search code."""
        regex = re.compile(pattern)
        start = sandbox.resolve(path)
        found = []
        for folder, _, names in os.walk(start, followlinks=True):
            for name in sorted(names):
                file = Path(folder) / name
                for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        found.append(f"{os.path.relpath(file, sandbox.root)}:{number}: {line}")
        return "\n".join(found[:50]) or "No matches."

    return search_code


CONTINUE = "Continue exactly where you stopped, without repeating yourself."


def make_turn(
    *,
    on_cut="retry",
    growth=4,
    count_retries=True,
    decide_on="stop_reason",
    go_on=CONTINUE,
    retry_tools=True,
    on_refusal="hand back",
    streamed=False,
):
    """agent_turn in several styles: on_cut is 'retry' (the course's policy), 'hand back' or
    'keep' (keeps a cut-off turn in the history and hands back); retry_tools=False sends the
    retry after a cut-off call without the tools; on_refusal="continue" asks the model to go on
    after a refusal, as after cut-off text; streamed=True streams every request."""

    def agent_turn(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        last = messages[-1] if messages else None
        if last and last["role"] == "user" and isinstance(last["content"], list):
            last["content"].append({"type": "text", "text": line})
        else:
            messages.append({"role": "user", "content": line})
        limit, steps, offered = max_tokens, 0, definitions
        while steps < max_steps:
            request = {"model": MODEL, "max_tokens": limit, "messages": messages}
            request |= {"tools": offered} if offered else {}
            if streamed:
                with client.messages.stream(**request) as stream:
                    response = stream.get_final_message()
            else:
                response = client.messages.create(**request)
            offered = definitions
            steps += 1
            calls = tool_calls(response)
            wants_tools = calls if decide_on == "content" else response.stop_reason == "tool_use"
            if response.stop_reason == "max_tokens" and calls and decide_on == "stop_reason":
                if on_cut == "hand back":
                    return "max_tokens"
                if on_cut == "keep":
                    messages.append({"role": "assistant", "content": response.content})
                    return "max_tokens"
                limit = min(limit * growth, 16_000)
                if not retry_tools:
                    offered = None
                if not count_retries:
                    steps -= 1
                continue
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason == "refusal" and on_refusal == "continue":
                messages.append({"role": "user", "content": go_on})
                continue
            if response.stop_reason == "max_tokens" and not calls:
                if on_cut == "retry":
                    messages.append({"role": "user", "content": go_on})
                    continue
                return "max_tokens"
            if not wants_tools:
                return response.stop_reason
            results = [course_dispatch(registry, call) for call in calls]
            messages.append({"role": "user", "content": results})
        return "step_limit"

    return agent_turn


def turn_chat(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
    """A chat, not an agent: one call per line."""
    messages.append({"role": "user", "content": line})
    response = client.messages.create(
        model=MODEL,
        max_tokens=max_tokens,
        tools=[t.definition() for t in tools],
        messages=messages,
    )
    messages.append({"role": "assistant", "content": response.content})
    if response.stop_reason == "tool_use":
        registry = {t.name: t for t in tools}
        results = [course_dispatch(registry, call) for call in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    return response.stop_reason


def make_search_walk(*, skip=True, count="lines", real_paths=True, cap=50):
    def make_search_code(sandbox):
        @tool
        def search_code(
            pattern: Annotated[str, pydantic.Field(min_length=1)], path: str = "."
        ) -> str:
            """Search the project's files for a Python regular expression.

            Returns 'path:line: text' per match, relative paths, at most 50 matches then a note
            saying how many more there were. `path` limits the search to a folder or a file.
            """
            regex = re.compile(pattern)
            start = sandbox.resolve(path)
            files = [start] if start.is_file() else []
            for folder, subfolders, names in os.walk(start):
                if skip:
                    subfolders[:] = sorted(d for d in subfolders if d not in sandbox.skip)
                files += [Path(folder) / name for name in sorted(names)]
            shown, more, files_left = [], 0, set()
            for file in files:
                name = file.relative_to(sandbox.root).as_posix()
                try:
                    real = sandbox.resolve(name if real_paths else sandbox.relative(file))
                except PathRefused:
                    continue
                if not real.is_file():
                    continue
                for number, line in enumerate(real.read_text(errors="replace").splitlines(), 1):
                    if regex.search(line):
                        if len(shown) < cap:
                            shown.append(f"{sandbox.relative(real)}:{number}: {line.strip()[:200]}")
                        else:
                            more += 1
                            files_left.add(real)
            if more:
                shown.append(
                    f"[{more if count == 'lines' else len(files_left)} more matches not shown]"
                )
            return "\n".join(shown) or "No matches."

        return search_code

    return make_search_code


def make_search_blank(sandbox):
    @tool
    def search_code(pattern: str, path: str = ".") -> str:
        """Search the project's files for a regular expression and return the matching
        lines, one per line, as 'path:line_number: text'."""
        return "(no matches yet: not written)"

    return search_code


def make_turn_variant(*, keep_final=True, cap=16_000, cut_text="continue"):
    def agent_turn(client, messages, tools, line, *, max_steps=30, max_tokens=2048):
        registry = {t.name: t for t in tools}
        definitions = [t.definition() for t in tools]
        last = messages[-1] if messages else None
        if last and last["role"] == "user" and isinstance(last["content"], list):
            last["content"].append({"type": "text", "text": line})
        else:
            messages.append({"role": "user", "content": line})
        limit = max_tokens
        for _ in range(max_steps):
            response = client.messages.create(
                model=MODEL, max_tokens=limit, tools=definitions, messages=messages
            )
            calls = tool_calls(response)
            if response.stop_reason == "max_tokens" and (calls or cut_text == "again"):
                if cap and limit >= cap:
                    return "max_tokens"
                limit = min(limit * 4, cap) if cap else limit * 4
                continue
            if response.stop_reason not in ("tool_use", "max_tokens") and not keep_final:
                return response.stop_reason
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason == "max_tokens":
                messages.append({"role": "user", "content": CONTINUE})
                continue
            if response.stop_reason != "tool_use":
                return response.stop_reason
            messages.append(
                {"role": "user", "content": [course_dispatch(registry, c) for c in calls]}
            )
        return "step_limit"

    return agent_turn


def test_a_request_without_tools_never_gets_a_tool_call_from_the_scripted_model() -> None:
    """The check's scripted client refuses, with the learner's mistake, to answer a request
    that offers no tools with a tool_use (what a retry sent without tools got before)."""
    from course_helpers.exercise_checks.coding_agent import CUT_CALL, _Scripted

    client = _Scripted([CUT_CALL])
    request = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    with pytest.raises(CheckFailed, match="without the tools"):
        client.create(**request)
    offered = client.create(**request, tools=[{"name": "read_file", "input_schema": {}}])
    assert offered.stop_reason == "max_tokens"


def test_the_course_model_never_calls_a_tool_it_is_not_offered() -> None:
    """The coding task, which gets a tool call with tools, gets text without them."""
    from course_helpers.exercise_checks.coding_agent import CODING_TASK
    from course_helpers.offline import default_app

    client = default_app().client(max_retries=0)
    for model in ("claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5"):
        for max_tokens in (40, 144, 2048):
            response = client.messages.create(
                model=model,
                max_tokens=max_tokens,
                messages=[{"role": "user", "content": CODING_TASK}],
            )
            assert not tool_calls(response), (model, max_tokens, response.content)


WRONG = {
    "search: empty pattern": (check_search_code, make_search(min_length=0), "empty pattern"),
    "search: not confined": (check_search_code, make_search(confine=False), "found the secret"),
    "search: no cap": (check_search_code, make_search(cap=None), "matching lines"),
    "search: absolute paths": (check_search_code, make_search(relative=False), "absolute paths"),
    "search: follows links out, short docstring": (
        check_search_code,
        make_search_follows_links_short_doc,
        "through a symbolic link inside the project",
    ),
    "turn: a chat": (check_agent_turn, turn_chat, "handed control back after 1 call"),
    "turn runs a cut-off call": (
        check_agent_turn,
        make_turn(decide_on="content"),
        "from a tool_use cut off by max_tokens",
    ),
    "turn keeps a cut-off call": (
        check_agent_turn,
        make_turn(on_cut="keep"),
        "keeps a tool_use cut off",
    ),
    "turn retries with the same limit": (
        check_agent_turn,
        make_turn(growth=1),
        "cut at the same place",
    ),
    "turn retries uncounted": (
        check_agent_turn,
        make_turn(count_retries=False),
        "did not count toward the step limit",
    ),
    "search: not written yet": (check_search_code, make_search_blank, "not written yet"),
    "search: into skipped folders": (
        check_search_code,
        make_search_walk(skip=False),
        "__pycache__",
    ),
    "search: counts files left out": (
        check_search_code,
        make_search_walk(count="files"),
        "20 more matches",
    ),
    "search: by the names it shows": (
        check_search_code,
        make_search_walk(real_paths=False),
        "by the name it shows",
    ),
    "turn without its final answer": (
        check_agent_turn,
        make_turn_variant(keep_final=False),
        "final answer is not at the end of the history",
    ),
    "turn retries without a cap": (
        check_agent_turn,
        make_turn_variant(cap=None),
        "above 16,000",
    ),
    "turn asks again for cut-off text": (
        check_agent_turn,
        make_turn_variant(cut_text="again"),
        "was thrown away and the request sent again",
    ),
    "turn retries without the tools": (
        check_agent_turn,
        make_turn(retry_tools=False),
        "without the tools",
    ),
    "turn asks the model to continue after a refusal": (
        check_agent_turn,
        make_turn(on_refusal="continue"),
        "a refusal is the model's answer, not a cut-off one",
    ),
}


WRONG_AGAIN = {
    "search: ignores the sandbox, short docstring": (
        check_search_code,
        make_search_leaky_short_doc,
        "found the secret outside the project",
    ),
}


RIGHT = {
    "search with rglob": (check_search_code, make_search()),
    "turn follows the max_tokens policy": (check_agent_turn, make_turn()),
    "turn hands back on max_tokens": (check_agent_turn, make_turn(on_cut="hand back")),
    "search with os.walk": (check_search_code, make_search_walk()),
    "turn from another factory": (check_agent_turn, make_turn_variant()),
    "turn streamed": (check_agent_turn, make_turn(streamed=True)),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(
        WRONG,
        RIGHT,
        wrong_again=WRONG_AGAIN,
        unwritten_checks=[check_search_code, check_agent_turn],
    )
)
