"""Course machinery (exercise checks): exercise 08.1, `search_code`: what it finds, what it escapes,
the names it shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    run_learner,
    short_repr,
    tool_call_block,
    verify_result_block,
)

SECRET = "API_TOKEN=hunter2"


def _shop_with_escapes(base: Any) -> Any:
    """A copy of the shop project in base/shop, a secret in base/outside, two links out to it."""
    from pathlib import Path

    from course_helpers.fixtures.shop_project import copy_shop_project

    base = Path(base)
    root = copy_shop_project(base / "shop")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text(f"{SECRET}\n")
    (root / "docs").symlink_to(base / "outside", target_is_directory=True)
    (root / "notes.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "data").mkdir()
    (root / "data" / "dump.txt").write_text("needle " + "x" * 20_000 + "\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "cart.cpython-311.py").write_text(f"{SKIPPED} = 1\n")
    (root / "many").mkdir()
    (root / "many" / "a.txt").write_text("".join(f"row {n}\n" for n in range(40)))
    (root / "many" / "b.txt").write_text("".join(f"row {n}\n" for n in range(40, 70)))
    odd = root / "odd"
    odd.mkdir()
    for name, text in ODD_NAMES.items():
        (odd / name).write_text(f"{ODD_MARK} {text}\n")
    return root


SKIPPED = "CACHED_TOTAL"  # only in a file under __pycache__, a folder in sandbox.skip
ODD_MARK = "ODD_MARK"
# Real file names that read like escapes once shown: a newline, a decoy whose name is the
# newline written as an escape, a zero-width space. Each file says which one it is.
ODD_NAMES = {"q\nr.py": "newline", "q\\nr.py": "decoy", "z\u200bhidden.py": "zero-width"}


MATCH_LINE = re.compile(r"^\S+:\d+:")


def check_search_code(make_search_code: Callable) -> None:
    """08 · `make_search_code(sandbox)`: a validated, sandboxed, bounded code search tool."""
    __tracebackhide__ = True
    import os
    import tempfile

    from course_helpers.lessons.tools import Tool
    from course_helpers.plumbing.file_sandbox import FileSandbox

    with tempfile.TemporaryDirectory() as base:
        root = _shop_with_escapes(os.path.realpath(base))
        search = run_learner(make_search_code, FileSandbox(root), name="make_search_code")
        if not isinstance(search, Tool):
            fail(
                f"make_search_code returned a {type(search).__name__}, not a Tool.",
                "put @tool on the inner `def search_code(...)` and return it.",
            )
        tools = {"search_code": search}
        _, text = _search(tools, "def total", pattern="def total")
        if "not written" in text:
            fail(
                "search_code is not written yet (it still answers 'not written').",
                "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
            )
        # Security first: a tool that leaks what lies outside the project hears that before
        # anything about its docstring or its arguments.
        _check_search_escapes(tools)
        _check_empty_pattern(tools)
        definition = search.definition()
        if definition["name"] != "search_code":
            fail(
                f"the tool is called {definition['name']!r}; the exercise asks for search_code.",
                "name the inner function search_code: @tool takes the name from it.",
            )
        if len(definition["description"].split()) < 12:
            fail(
                "the docstring (the tool's description) is too short for the model to use it well.",
                "say what it searches, the pattern's syntax, the format of a match and the limit.",
            )
        schema = definition["input_schema"]
        properties = schema.get("properties") or {}
        if sorted(properties) != ["path", "pattern"]:
            fail(
                f"the tool's arguments are {sorted(properties)}; expected pattern and path.",
                "def search_code(pattern: ..., path: ... = '.') -> str",
            )
        if schema.get("required") != ["pattern"]:
            fail(
                f"the schema's required list is {schema.get('required')}; only pattern is required.",
                "give path a default of '.' (the whole project); pattern has none.",
            )
        _check_search_finds(tools)
    passed("search_code is validated, sandboxed and bounded")


def _search(tools: dict, what: str, **arguments: Any) -> tuple[dict, str]:
    from course_helpers.lessons.dispatch import dispatch

    call = tool_call_block("search_code", "toolu_search", **arguments)
    result = dispatch(tools, call)
    return result, verify_result_block(result, call, "run_tool", what)


def _check_empty_pattern(tools: dict) -> None:
    __tracebackhide__ = True
    result, text = _search(tools, "an empty pattern", pattern="")
    if not text.startswith("Invalid arguments"):
        fail(
            "an empty pattern reached your function: it matches every line of every file.",
            "refuse it in the signature: Annotated[str, Field(min_length=1)].",
        )


def _check_search_escapes(tools: dict) -> None:
    __tracebackhide__ = True
    for path, why in [
        ("..", "climbs out of the project with '..'"),
        ("/", "is an absolute path"),
        ("docs", "is a symbolic link to a folder outside the project"),
    ]:
        result, text = _search(tools, f"path={path!r}", pattern="hunter2", path=path)
        if SECRET in text:
            fail(
                f"search_code(path={path!r}) found the secret outside the project: the path {why}.",
                "resolve the path with sandbox.resolve(path) before you look at any file.",
            )
        if result.get("is_error") is not True:
            fail(
                f"search_code(path={path!r}) was not refused (is_error not set): the path {why}.",
                "let sandbox.resolve(path) raise PathRefused; the dispatcher makes it is_error.",
            )
    result, text = _search(tools, "the whole project", pattern="hunter2")
    if SECRET in text:
        fail(
            "searching '.' found the secret through a symbolic link inside the project that "
            "leads outside.",
            "skip links while walking (os.walk does not follow folder links; check each file "
            "with sandbox.resolve, which refuses a link that leads out).",
        )


def _check_search_finds(tools: dict) -> None:
    __tracebackhide__ = True
    result, text = _search(tools, "def (sub)?total", pattern=r"def (sub)?total")
    if result.get("is_error"):
        fail(
            f"searching the shop for 'def (sub)?total' failed: {short_repr(text)}",
            "run it by hand.",
        )
    if any(line.startswith(("/", "~")) for line in text.splitlines()):
        fail(
            "the matches show absolute paths; read_file refuses them, and they tell the model "
            "where the project lives on your machine.",
            "show each path relative to the project root: sandbox.relative(real_path).",
        )
    for line_number in (17, 38, 42):
        if not re.search(rf"(?m)^shop/cart\.py:{line_number}:", text):
            fail(
                f"searching for 'def (sub)?total' did not report shop/cart.py line {line_number} "
                f"as 'shop/cart.py:{line_number}: ...': {short_repr(text)}",
                "one line per match, 'path:line_number: text', with re.search(pattern, line).",
            )
    result, text = _search(tools, "Cart in tests", pattern="Cart", path="tests")
    found = [line for line in text.splitlines() if MATCH_LINE.match(line)]
    if not found or any(not line.startswith("tests/") for line in found):
        fail(
            f"searching 'Cart' with path='tests' gave matches outside tests/: {short_repr(text)}",
            "walk only the folder the path names (or read only the file it names).",
        )
    result, text = _search(tools, "'.' (every line)", pattern=".")
    found = [line for line in text.splitlines() if MATCH_LINE.match(line)]
    if len(found) > 50:
        fail(
            f"searching for '.' returned {len(found)} matching lines; the model pays for every "
            "one on every later turn.",
            "stop at 50 matches and add a line saying how many more there were.",
        )
    notes = [line for line in text.splitlines() if line.strip() and not MATCH_LINE.match(line)]
    if not notes:
        fail(
            "searching for '.' stopped at 50 matches without saying so: the model thinks it "
            "has seen them all.",
            "after the last match, add a line such as '[... 73 more matches not shown]'.",
        )
    result, text = _search(tools, "a 20,000-character line", pattern="needle", path="data")
    if len(text) > 1000:
        fail(
            f"one match in a 20,000-character line gave a result of {len(text):,} characters.",
            "cut each matching line to about 200 characters.",
        )
    result, text = _search(tools, "'row' in many/", pattern="row", path="many")
    notes = [line for line in text.splitlines() if line.strip() and not MATCH_LINE.match(line)]
    if not any(re.search(r"(?<![\d,])20(?![\d,])", note) for note in notes):
        fail(
            "searching 'row' in many/ (70 matching lines in 2 files) did not say that 20 more "
            f"matches were left out: {short_repr(' '.join(notes) or text[-80:])}.",
            "count every matching line you do not show, not the files they are in.",
        )
    result, text = _search(tools, "a name found only under __pycache__", pattern=SKIPPED)
    if any(MATCH_LINE.match(line) and SKIPPED in line for line in text.splitlines()):
        fail(
            "searching the project found a match under __pycache__, a folder in sandbox.skip: "
            "cache and tool folders are large, and never what the model is looking for.",
            "while walking, drop the folders in sandbox.skip: subfolders[:] = [d for d in "
            "subfolders if d not in sandbox.skip].",
        )
    _check_odd_names(tools)


def _check_odd_names(tools: dict) -> None:
    """Files whose names hold a newline, an escape look-alike, a zero-width space."""
    __tracebackhide__ = True
    result, text = _search(tools, "odd file names", pattern=ODD_MARK, path="odd")
    found = sorted(
        line.rsplit(ODD_MARK, 1)[1].strip()
        for line in text.splitlines()
        if ODD_MARK in line and MATCH_LINE.match(line)
    )
    if found != sorted(ODD_NAMES.values()):
        fail(
            f"in odd/, three files hold {ODD_MARK}: one named with a newline, one named with "
            "the two characters '\\n' (its escaped look-alike), one with a zero-width space; "
            f"the search found {found}: it searched the files by the name it shows (escaped), "
            "not by their real path, so some were skipped or read twice.",
            "read the file the walk found: sandbox.resolve(file.relative_to(sandbox.root)"
            ".as_posix()); use sandbox.relative(real) only to show the name.",
        )
    if any(line.count(":") < 2 for line in text.splitlines() if ODD_MARK in line) or len(
        [line for line in text.splitlines() if line.strip()]
    ) != len(ODD_NAMES):
        fail(
            f"a file name holding a newline broke a match over two lines: {short_repr(text)}.",
            "show names with sandbox.relative(real), which escapes control characters.",
        )
