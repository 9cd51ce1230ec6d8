"""Course machinery (exercise checks): checks for notebook 08, Assemble a coding agent.

One file, though over 400 lines: like every check module it holds one notebook's checks, so
the list below is the whole of what 08's exercises must do; most of its length is the
agent-turn check following the course's max_tokens policy (cut-off call, retry, cut-off text).

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_08_assemble_a_coding_agent.py):

`check_search_code(make_search_code)`, the `search_code(pattern, path=".")` tool (the sandbox
is checked first, so a tool that leaks hears that before anything about its docstring):
- a `Tool` named search_code, a description of 12 words or more, arguments pattern and path,
  only pattern required;
- an empty pattern is refused by the signature, before the function runs;
- `..`, an absolute path and a link to a folder outside are refused (`is_error`) and leak
  nothing; searching the whole project never reads through a link that leads out;
- matches read `path:line: text` with paths relative to the root, and only under `path`;
- at most 50 matches, then a line that says more were left out; long lines cut.

`check_agent_turn(agent_turn)`, `agent_turn(client, messages, tools, line, *, max_steps,
max_tokens)` on the coding task:
- every request offers the agent's tools, a retry after a cut-off call too (the scripted
  client of the checks never answers a request without tools with a tool call); the history
  is valid after every turn;
- it goes on while stop_reason is tool_use; at max_steps calls it returns "step_limit" with
  every call answered, and "Carry on." then finishes the task (end_turn, tests run);
- refusal and end_turn each hand back after one call, returning the stop_reason;
- max_tokens follows the course's policy or hands back: a tool_use cut off by max_tokens never
  runs and is never kept; a retry resends the same history with a higher max_tokens (at most
  128,000); a cut-off text is kept and a user message asks to continue; every retry counts
  toward max_steps; handing back at once returns "max_tokens".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course_helpers.exercise_checks.common import (
    CheckFailed,
    Recorder,
    as_plain,
    fail,
    max_output_tokens,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
    tool_call_block,
    verify_result_block,
)
from course_helpers.lessons.pairing import content_blocks, read_field

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


CODING_TASK = "Find where the cart total is computed and add a test for the empty cart."


@dataclass
class CodingKit:
    """The four coding tools over a fresh shop copy, each run logged."""

    tools: list
    ran: list[tuple[str, dict]]
    folder: Any

    def close(self) -> None:
        self.folder.cleanup()


def coding_kit() -> CodingKit:
    import tempfile
    from pathlib import Path

    from course_helpers.fixtures.shop_project import copy_shop_project
    from course_helpers.lessons.coding_agent import coding_tools
    from course_helpers.lessons.tools import Tool
    from course_helpers.plumbing.file_sandbox import FileSandbox

    folder = tempfile.TemporaryDirectory()
    sandbox = FileSandbox(copy_shop_project(Path(folder.name) / "shop"))
    ran: list[tuple[str, dict]] = []

    def logged(original: Tool) -> Tool:
        def function(**arguments: Any) -> Any:
            ran.append((original.name, dict(arguments)))
            return original.function(**arguments)

        return Tool(original.name, original.description, function, original.arguments)

    return CodingKit([logged(t) for t in coding_tools(sandbox)], ran, folder)


def check_agent_turn(agent_turn: Callable) -> None:
    """08 · `agent_turn(client, messages, tools, line, ...)`: go on while tool_use, else hand back."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        ending = run_learner(
            agent_turn, client, messages, kit.tools, CODING_TASK, max_steps=2, name="agent_turn"
        )
        if ending == "tool_use" or 0 < len(recorder.requests) < 2:
            fail(
                f"agent_turn handed control back after {len(recorder.requests)} call(s) with "
                f"{short_repr(ending)}, though the model was still asking for tools.",
                "stop_reason 'tool_use' means: run the calls, append the results, call again.",
            )
        _check_turn_basics(messages, recorder, kit, ending, "the coding task with max_steps=2")
        if len(recorder.requests) > 2:
            fail(
                f"with max_steps=2, agent_turn called the model {len(recorder.requests)} times.",
                "count the calls of this turn: for step in range(max_steps): ...",
            )
        if ending != "step_limit":
            fail(
                f"at the step limit agent_turn returned {short_repr(ending)}; expected 'step_limit'.",
                "after max_steps calls, return 'step_limit' (every call answered).",
            )
        before = len(recorder.requests)
        ending = run_learner(
            agent_turn, client, messages, kit.tools, "Carry on.", name="agent_turn"
        )
        _check_turn_basics(messages, recorder, kit, ending, "'Carry on.' after the step limit")
        sent = recorder.requests[before]["messages"]
        if "Carry on." not in json.dumps(sent[-1]):
            fail(
                "the person's new line is not at the end of the next request.",
                "append the line as a user message (or join it to the last results message).",
            )
        if ending != "end_turn" or not any(name == "run_command" for name, _ in kit.ran):
            fail(
                f"after 'Carry on.' the turn ended with {short_repr(ending)} before the agent had "
                "written and run the test.",
                "go round while stop_reason is 'tool_use'; return on anything else.",
            )
        _check_handed_back(agent_turn, "Write ransomware for me.", "refusal", {})
        _check_handed_back(agent_turn, "Hello!", "end_turn", {})
        if read_field(messages[-1], "role") != "assistant":
            fail(
                "after 'Carry on.' the turn ended (end_turn), but the model's final answer is not "
                "at the end of the history.",
                "append {'role': 'assistant', 'content': response.content} before you return.",
            )
        _check_cut_off(agent_turn)
        _check_retry_cap(agent_turn)
        _check_text_continued(agent_turn)
    finally:
        kit.close()
    passed("agent_turn goes on while tool_use and hands back on anything else")


def _check_turn_basics(
    messages: list, recorder: Recorder, kit: CodingKit, ending: Any, what: str
) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail("agent_turn made no call to the model.", "call client.messages.create(...).")
    expected = sorted(t.name for t in kit.tools)
    for number, request in enumerate(recorder.requests, start=1):
        offered = sorted(t.get("name") for t in request.get("tools") or [])
        if offered == expected:
            continue
        earlier = recorder.responses[number - 2]["body"] if number > 1 else {}
        retry = earlier.get("stop_reason") == "max_tokens"
        which = f"request {number}" + (
            " (the retry after a response cut off by max_tokens)" if retry else ""
        )
        if not offered:
            fail(
                f"for {what}, {which} was sent without the tools: the model cannot call a tool "
                "it is not offered, and the API refuses a history holding tool_use blocks in a "
                "request that defines no tools.",
                "send tools=[t.definition() for t in tools] on every request, retries included.",
            )
        fail(
            f"for {what}, {which} offers tools {offered}, not the agent's tools {expected}.",
            "send tools=[t.definition() for t in tools] on every request, retries included.",
        )
    if not isinstance(ending, str):
        fail(
            f"for {what}, agent_turn returned {short_repr(ending)}, not how the turn ended.",
            "return the stop_reason that ended the turn, or 'step_limit'.",
        )
    require_pairing(
        messages,
        f"after {what}, the history breaks a pairing rule",
        "append the assistant's turn and one user message with every result, each turn.",
    )


def _check_handed_back(agent_turn: Callable, line: str, expected: str, options: dict) -> None:
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client, recorder = recording_client()
        messages: list = []
        what = f"{line!r}" + (f" with max_tokens={options['max_tokens']}" if options else "")
        try:
            ending = run_learner(agent_turn, client, messages, kit.tools, line, **options)
        except CheckFailed:
            if expected == "refusal" and len(recorder.requests) > 1:
                fail(
                    f"for {what} the model refused (stop_reason 'refusal', no content), and "
                    "agent_turn called it again (asking it to continue?), which the API "
                    f"answered with {recorder.responses[-1]['status']}: a refusal is the "
                    "model's answer, not a cut-off one, and there is nothing to continue.",
                    "on 'refusal', hand control back at once: return response.stop_reason.",
                )
            raise
        _check_turn_basics(messages, recorder, kit, ending, what)
        if len(recorder.requests) > 1:
            fail(
                f"for {what} (stop_reason {expected!r}) agent_turn called the model "
                f"{len(recorder.requests)} times; it should hand control back after one.",
                "any stop_reason other than 'tool_use' ends the turn: the person decides what next.",
            )
        if ending != expected:
            fail(
                f"for {what}, agent_turn returned {short_repr(ending)}; the model stopped with "
                f"{expected!r}.",
                "return response.stop_reason when it is not 'tool_use'.",
            )
        if expected == "end_turn":
            _check_answer_kept(messages, recorder, what)
    finally:
        kit.close()


def _check_answer_kept(messages: list, recorder: Recorder, what: str) -> None:
    """The final answer is the last message of the history: the next line follows it."""
    __tracebackhide__ = True
    last = messages[-1] if messages else {}
    answer = recorder.responses[-1]["body"].get("content") if recorder.responses else None
    if read_field(last, "role") != "assistant" or as_plain(content_blocks(last)) != answer:
        fail(
            f"for {what}, the model's final answer is not at the end of the history: the next "
            "line the person types follows a conversation the model never sees its answer in.",
            "append {'role': 'assistant', 'content': response.content} before you return.",
        )


class _Scripted:
    """A client whose every call gets the next of a list of scripted responses (the last one
    repeats), recording each request: for endings the course model does not stage on demand."""

    def __init__(self, replies: list[dict]) -> None:
        self.replies, self.requests = replies, []
        self.messages = self

    def create(self, **request: Any) -> Any:
        __tracebackhide__ = True
        import anthropic

        self.requests.append(as_plain(request))
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        calls = any(b.get("type") == "tool_use" for b in reply["content"])
        if calls and not request.get("tools"):
            # A request that offers no tools never gets a tool call: say what the code sent.
            after = (
                " (the retry after a response cut off by max_tokens)"
                if len(self.requests) > 1
                else ""
            )
            fail(
                f"agent_turn sent request {len(self.requests)}{after} without the tools: the "
                "model cannot call a tool it is not offered.",
                "send tools=[t.definition() for t in tools] on every request, retries included.",
            )
        return anthropic.types.Message.model_validate(
            {
                "id": f"msg_scripted_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": str(request.get("model", "")),
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 50},
                **reply,
            }
        )

    def stream(self, **request: Any) -> Any:
        """A streamed request gets the same scripted reply, read as a finished stream."""
        from course_helpers.exercise_checks.common import FinishedStream

        return FinishedStream(self.create(**request))


CUT_CALL = {
    "stop_reason": "max_tokens",
    "content": [
        {"type": "text", "text": "Let me look at the cart."},
        {"type": "tool_use", "id": "toolu_cut", "name": "read_file", "input": {}},
    ],
}
CUT_TEXT = {"stop_reason": "max_tokens", "content": [{"type": "text", "text": "The total is "}]}
REST = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "in shop/cart.py."}]}


def _check_retry_cap(agent_turn: Callable) -> None:
    """A call cut off again and again: the retries stop growing at the exercise's 16,000."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client = _Scripted([CUT_CALL])
        run_learner(
            agent_turn,
            client,
            [],
            kit.tools,
            CODING_TASK,
            max_steps=6,
            max_tokens=2048,
            name="agent_turn",
        )
        asked = [int(r.get("max_tokens", 0)) for r in client.requests]
        if max(asked, default=0) > RETRY_CAP:
            fail(
                f"a tool_use cut off on every try got retries with max_tokens {asked}: above "
                f"{RETRY_CAP:,} a request must be streamed (the SDK refuses it), and no model "
                "writes more than its maximum.",
                f"cap the retry: min(max_tokens * 4, {RETRY_CAP:,}); at the cap, hand back "
                "'max_tokens'.",
            )
        if kit.ran:
            fail(
                f"a tool_use cut off by max_tokens ran ({kit.ran[0][0]}): its input is "
                "half-written.",
                "never run the calls of a response whose stop_reason is 'max_tokens'.",
            )
    finally:
        kit.close()


def _check_text_continued(agent_turn: Callable) -> None:
    """A text answer cut off by max_tokens is kept and continued, not asked again."""
    __tracebackhide__ = True
    kit = coding_kit()
    try:
        client = _Scripted([CUT_TEXT, REST])
        messages: list = []
        ending = run_learner(
            agent_turn,
            client,
            messages,
            kit.tools,
            "Where is the total computed?",
            max_steps=4,
            max_tokens=2048,
            name="agent_turn",
        )
        if len(client.requests) == 1:
            if ending != "max_tokens":
                fail(
                    f"after a text answer cut off by max_tokens, agent_turn returned "
                    f"{short_repr(ending)}.",
                    "return 'max_tokens' (the person decides), or keep the text and continue.",
                )
            return
        sent = client.requests[1].get("messages") or []
        kept = [
            m
            for m in sent
            if m.get("role") == "assistant" and as_plain(content_blocks(m)) == CUT_TEXT["content"]
        ]
        if not kept:
            fail(
                "a text answer cut off by max_tokens was thrown away and the request sent again "
                "(with more room?): the words already written are paid for, and the model can go "
                "on from them.",
                "keep the cut-off text as the assistant's turn, then a user message asking the "
                "model to continue where it stopped.",
            )
        if sent[-1].get("role") != "user":
            fail(
                "after a cut-off text the next request ends with the assistant's turn: newer "
                "models refuse a prefilled assistant message.",
                "append a user message asking to continue where it stopped, without repeating "
                "itself.",
            )
    finally:
        kit.close()


MODEL_MAX_OUTPUT = max_output_tokens()  # the course model's largest max_tokens
RETRY_CAP = 16_000  # the exercise's cap: above about 21,000 a request must be streamed


def _calls_in(body: dict) -> list[dict]:
    return [b for b in content_blocks(body) if read_field(b, "type") == "tool_use"]


def _check_cut_off(agent_turn: Callable) -> None:
    """max_tokens: hand back at once, or follow the course's policy; never run a cut-off call.

    The course's policy: a cut-off text is kept and the model is asked to continue; a cut-off
    tool_use is never run, the turn is discarded and the same request is retried with a higher
    max_tokens (never above the model's maximum); every retry counts toward the step limit.
    Handing control back to the person at once (returning "max_tokens") is also accepted.
    """
    __tracebackhide__ = True
    kit = coding_kit()
    max_steps = 3
    try:
        cut_at = _tokens_that_cut_the_first_call(kit)
        client, recorder = recording_client()
        messages: list = []
        what = f"the coding task with max_tokens={cut_at} and max_steps={max_steps}"
        ending = run_learner(
            agent_turn,
            client,
            messages,
            kit.tools,
            CODING_TASK,
            max_tokens=cut_at,
            max_steps=max_steps,
            name="agent_turn",
        )
        if not recorder.requests:
            fail("agent_turn made no call to the model.", "call client.messages.create(...).")
        bodies = [r["body"] for r in recorder.responses]
        cut_ids = {
            c["id"] for b in bodies if b.get("stop_reason") == "max_tokens" for c in _calls_in(b)
        }
        answered = {
            str(read_field(block, "tool_use_id"))
            for sent in [*recorder.messages_sent, messages]
            for message in sent
            for block in content_blocks(message)
            if read_field(block, "type") == "tool_result"
        }
        kept = {
            str(read_field(block, "id"))
            for message in messages
            for block in content_blocks(message)
            if read_field(block, "type") == "tool_use"
        }
        if cut_ids & answered:
            name = next(c["name"] for b in bodies for c in _calls_in(b) if c["id"] in cut_ids)
            fail(
                f"for {what}, your turn ran {name} from a tool_use cut off by max_tokens: its "
                "input is half-written, and it must never run.",
                "decide on stop_reason first: only 'tool_use' runs tools; a cut-off call is "
                "discarded (retry the request with a higher max_tokens, or hand back).",
            )
        if cut_ids & kept:
            fail(
                f"for {what}, the history keeps a tool_use cut off by max_tokens, with no result: "
                "the next request would be refused.",
                "do not append a response whose tool_use was cut off: discard that turn.",
            )
        complete_calls = sum(
            len(_calls_in(b)) for b in bodies if b.get("stop_reason") == "tool_use"
        )
        if len(kit.ran) > complete_calls:
            fail(
                f"for {what}, {len(kit.ran)} tools ran for {complete_calls} complete tool_use "
                "block(s): a call cut off by max_tokens ran.",
                "only a response with stop_reason 'tool_use' runs tools.",
            )
        if len(recorder.requests) > max_steps:
            fail(
                f"for {what}, agent_turn called the model {len(recorder.requests)} times: the "
                "retries after max_tokens did not count toward the step limit.",
                "every call counts, retries included: a runaway retry must stop at max_steps.",
            )
        _check_retries(recorder, bodies, what)
        _check_turn_basics(messages, recorder, kit, ending, what)
        if len(recorder.requests) == 1 and ending != "max_tokens":
            fail(
                f"for {what}, agent_turn stopped after one call cut off by max_tokens and "
                f"returned {short_repr(ending)}.",
                "return 'max_tokens' (the person decides), or retry with a higher max_tokens.",
            )
    finally:
        kit.close()


def _tokens_that_cut_the_first_call(kit: CodingKit) -> int:
    """A max_tokens that cuts the model's first answer inside its tool_use, on this model.

    The answer may open with a thinking block, whose length depends on the model: ask once
    with room to spare, then cut a few tokens before the end (the tool_use is the last block).
    """
    from course_helpers.client import MODEL

    client, _ = recording_client()
    full = client.messages.create(
        model=MODEL,
        max_tokens=2048,
        tools=[t.definition() for t in kit.tools],
        messages=[{"role": "user", "content": CODING_TASK}],
    )
    return max(1, full.usage.output_tokens - 3)


def _check_retries(recorder: Recorder, bodies: list[dict], what: str) -> None:
    """After each cut-off response that was followed by another call: the right next request."""
    __tracebackhide__ = True
    for index, body in enumerate(bodies[:-1]):
        if body.get("stop_reason") != "max_tokens":
            continue
        before, after = recorder.requests[index], recorder.requests[index + 1]
        if _calls_in(body):
            if after.get("messages") != before.get("messages"):
                fail(
                    f"for {what}, after a tool_use cut off by max_tokens the next request did not "
                    "resend the same history: the cut-off turn must be discarded, not kept or "
                    "answered.",
                    "retry the very same request, with a higher max_tokens.",
                )
            if int(after.get("max_tokens", 0)) <= int(before.get("max_tokens", 0)):
                fail(
                    f"for {what}, a tool_use was cut off at max_tokens={before.get('max_tokens')} "
                    f"and the retry asked for max_tokens={after.get('max_tokens')}: it will be "
                    "cut at the same place.",
                    "raise max_tokens for the retry (e.g. times 4), never above the model's "
                    f"maximum ({MODEL_MAX_OUTPUT:,}).",
                )
            changed = sorted(
                key
                for key in set(before) | set(after)
                if key not in ("max_tokens", "messages", "stream")
                and before.get(key) != after.get(key)
            )
            if changed:
                lost = [key for key in changed if key not in after]
                fail(
                    f"for {what}, the retry after a tool_use cut off by max_tokens changed "
                    f"{changed} of the request"
                    + (f" (sent without the {', '.join(lost)})" if lost else "")
                    + ": only max_tokens should change, or the model answers another request.",
                    "retry the very same request (tools, system and all), with a higher "
                    "max_tokens.",
                )
            if int(after.get("max_tokens", 0)) > MODEL_MAX_OUTPUT:
                fail(
                    f"for {what}, the retry asked for max_tokens={after.get('max_tokens')}, above "
                    f"the model's maximum of {MODEL_MAX_OUTPUT:,}: the API answers 400.",
                    f"cap it: min(max_tokens * 4, {MODEL_MAX_OUTPUT:,}).",
                )
        else:
            sent = after.get("messages") or []
            texts = [
                read_field(b, "text")
                for m in sent
                if read_field(m, "role") == "assistant"
                for b in content_blocks(m)
                if read_field(b, "type") == "text"
            ]
            cut_text = [
                read_field(b, "text")
                for b in content_blocks(body)
                if read_field(b, "type") == "text"
            ]
            if cut_text and not all(t in texts for t in cut_text):
                fail(
                    f"for {what}, a text answer cut off by max_tokens was dropped before the next "
                    "call.",
                    "keep a cut-off text in the history and ask the model to continue where it "
                    "stopped.",
                )
            if sent and read_field(sent[-1], "role") != "user":
                fail(
                    f"for {what}, after a cut-off text the next request ends with the assistant's "
                    "turn: newer models refuse a prefilled assistant message.",
                    "append a user message asking to continue where it stopped, without "
                    "repeating itself.",
                )
