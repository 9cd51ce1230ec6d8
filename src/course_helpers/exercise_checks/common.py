"""Course machinery (exercise checks): failures, the recording client, small readers, and the
shared check kit (the PR reviewer's tools, tool calls and results written by hand) that any new
check may use.

What a learner sees when a check fails: the check's two lines (what is wrong, and a hint),
not a traceback into this module. `CheckFailed` is an `AssertionError`, so plain Python and
pytest still see an ordinary exception with a full traceback; only IPython (Jupyter) asks the
exception how to show itself (`_render_traceback_`) and gets the two lines.

A blank exercise raises `NotWrittenYet` from its placeholder. Called from a demo cell it says,
in one line, that the function is not written yet; called by a check it becomes a CheckFailed
that says the same, never "passed" and never a list of problems that reads like success.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2

from course_helpers.client import MODEL
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field
from course_helpers.plumbing.truncate import clip


class CheckFailed(AssertionError):
    """Your code does not do what the exercise asks yet. The message says what, and a hint."""

    def _render_traceback_(self) -> list[str]:
        """What Jupyter shows instead of a traceback: the message and the hint, in red."""
        lines = str(self).splitlines() or ["the check failed"]
        return [f"\x1b[31m✗ {lines[0]}\x1b[0m", *lines[1:]]


class NotWrittenYet(NotImplementedError):
    """Raised by an exercise's placeholder: the learner has not written this part yet."""

    def __init__(self, what: str | None = None) -> None:
        if what is None:
            import sys

            # The function whose placeholder raised: the frame that called this constructor.
            caller = sys._getframe(1).f_code.co_name
            what = caller if caller.isidentifier() and caller != "<module>" else "this exercise"
        self.what = what
        super().__init__(
            f"{what} is not written yet: replace the placeholder under '# YOUR CODE HERE' in its "
            "cell, run that cell, then run this one again."
        )

    def _render_traceback_(self) -> list[str]:
        return [f"\x1b[33m… {self}\x1b[0m"]


# A request to continue a cut-off answer that tells the model not to repeat itself.
NEGATION = r"\b(?:without|no|not|never|nor|don't|dont|avoid|skip|omit)\b"
NO_REPEAT = re.compile(NEGATION + r"[^.!?]{0,30}\b(?:repeat|repetition|restat)", re.IGNORECASE)


def fail(what: str, hint: str) -> None:
    """Raise CheckFailed with the two lines every failed check shows."""
    raise CheckFailed(f"{what}\nHint: {hint}")


def passed(name: str) -> None:
    print(f"✓ {name}: passed")


# -- plumbing: a client whose every request is recorded -----------------------------------------


def accepts_forced_tool_choice(model: str) -> bool:
    """Whether `model` takes tool_choice {"type": "any"} or {"type": "tool", ...}.

    Read from the course model's catalogue, which applies the same rule to every request.
    """
    from course_helpers.offline.models import spec_for

    spec = spec_for(str(model))
    return True if spec is None else spec.forced_tool_choice


def max_output_tokens(model: str = MODEL) -> int:
    """The largest max_tokens `model` accepts, read from the course model's catalogue."""
    from course_helpers.offline.models import spec_for

    spec = spec_for(str(model))
    return 128_000 if spec is None else spec.max_output_tokens


@dataclass
class Recorder:
    """Stands between the SDK and the course model; keeps every request body and response."""

    requests: list[dict] = field(default_factory=list)
    responses: list[dict] = field(default_factory=list)  # {"status": int, "body": dict}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        from course_helpers.offline import default_app

        body = json.loads(request.content or b"{}")
        is_messages = request.url.path.rstrip("/") == "/v1/messages"
        if is_messages:
            self.requests.append(body)
        response = default_app().handle(request)
        if not is_messages:
            return response
        raw = response.read()
        if body.get("stream") and response.status_code == 200:
            # A streamed answer is kept as the message its events add up to, as the SDK's
            # get_final_message() builds it; the learner's code still reads the stream itself.
            self.responses.append({"status": 200, "body": streamed_message(raw)})
        else:
            self.responses.append({"status": response.status_code, "body": response.json()})
        return httpx2.Response(response.status_code, headers=response.headers, content=raw)

    @property
    def messages_sent(self) -> list[list[dict]]:
        """The `messages` of every request, in order."""
        return [r.get("messages", []) for r in self.requests]


def streamed_message(raw: bytes) -> dict:
    """The message a stream of server-sent events adds up to, as plain JSON data."""
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot, buffers = None, {}
    for line in raw.decode().splitlines():
        if not line.startswith("data: "):
            continue
        event = json.loads(line[len("data: ") :])
        if event.get("type") in ("ping", "error"):
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return {} if snapshot is None else snapshot.model_dump(mode="json", exclude_none=True)


class FinishedStream:
    """A finished message, read the way `client.messages.stream(...)` is read: for the
    check's own stand-in clients, so that a learner who streams gets the same answer."""

    def __init__(self, message: Any) -> None:
        self._message = message

    def __enter__(self) -> FinishedStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    @property
    def text_stream(self) -> Any:
        return iter([text_of(self._message.content)] if text_of(self._message.content) else [])

    def until_done(self) -> None:
        return None

    def get_final_message(self) -> Any:
        return self._message

    def get_final_text(self) -> str:
        return text_of(self._message.content)


def recording_client() -> tuple[anthropic.Anthropic, Recorder]:
    """An SDK client talking to the offline course model, with a Recorder in between."""
    from course_helpers.offline import default_app

    recorder = Recorder()
    # The course model's own client, with the recorder as its transport.
    client = default_app().client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


def run_learner(function: Callable, *args: Any, name: str | None = None, **kwargs: Any) -> Any:
    """Call the learner's function; turn an unexpected exception into a clear CheckFailed."""
    __tracebackhide__ = True
    label = name or getattr(function, "__name__", "your function")
    if not callable(function):
        fail(
            f"{label} is a {type(function).__name__}, not a function.",
            "define it with `def` in the cell above and run that cell.",
        )
    try:
        return function(*args, **kwargs)
    except CheckFailed:
        raise
    except NotWrittenYet:
        fail(
            f"{label} is not written yet (it still raises NotWrittenYet).",
            "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
        )
    except anthropic.APIStatusError as error:
        fail(
            f"the course model refused a request from {label}: {error.status_code} "
            f"{api_message(error)}",
            "the API names the message and block at fault (messages.N.content.M); look there.",
        )
    except AttributeError as error:
        block = type(getattr(error, "obj", None)).__name__
        if block.endswith("Block") and error.name == "text":
            fail(
                f"{label} raised AttributeError: {error}. A response's content is a list of "
                f"blocks, and the one read (response.content[0]?) is a {block}: the model may "
                "think, or call a tool, before or instead of writing text.",
                "read the text blocks only: ''.join(block.text for block in response.content "
                "if block.type == 'text').",
            )
        _raised(label, error)
    except Exception as error:
        _raised(label, error)


def _raised(label: str, error: Exception) -> None:
    __tracebackhide__ = True
    fail(
        f"{label} raised {type(error).__name__}: {error}",
        "run it by hand on the example in the cell above and read the traceback.",
    )


def guarded(check: Callable) -> Callable:
    """`check`, such that no exception ends it but a CheckFailed that says what the code did.

    Every check the package exports is wrapped in this (see `exercise_checks/__init__.py`): a
    learner's code that does something no check foresaw (returns an odd shape, raises from a
    place the check does not wrap) gets the course's two lines, never a raw traceback.
    """
    import functools

    @functools.wraps(check)
    def run(learner: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            return check(learner, *args, **kwargs)
        except CheckFailed:
            raise
        except NotWrittenYet as error:
            fail_if_not_written(error, error.what)
        except Exception as error:
            label = getattr(learner, "__name__", None) or type(learner).__name__
            where = _learner_line(error, learner)
            if where:
                fail(
                    f"{label} raised {type(error).__name__} ({clip(str(error), 120)}) at "
                    f"{where}, while the check ran it.",
                    "run it by hand on the exercise's example and read the traceback there.",
                )
            fail(
                f"{label} gave the check something it could not read: "
                f"{type(error).__name__} ({clip(str(error), 120)}) while looking at what it "
                "returned, sent or left in the history.",
                "compare the types your code returns and stores with the exercise's example "
                "(lists of blocks, dicts with 'type', response.content as it is).",
            )

    return run


def _learner_line(error: BaseException, learner: Any) -> str | None:
    """Where in the learner's own code (the file their function or class is written in) `error`
    was raised, if it was."""
    import traceback

    codes = [getattr(learner, "__code__", None)]
    if isinstance(learner, type):
        codes += [getattr(value, "__code__", None) for value in vars(learner).values()]
    files = {code.co_filename for code in codes if code is not None}
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in files:
            found = f"line {frame.lineno} of {frame.name}"
    return found


def fail_if_not_written(error: BaseException, label: str) -> None:
    """For a check that calls the learner's code itself: an unwritten exercise says so."""
    __tracebackhide__ = True
    if isinstance(error, NotWrittenYet):
        fail(
            f"{label} is not written yet (it still raises NotWrittenYet).",
            "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
        )


def api_message(error: anthropic.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else {}
    return str(inner.get("message") or error.message)


def block_types(message: Any) -> list[str]:
    return [str(read_field(b, "type")) for b in content_blocks(message)]


def as_plain(value: Any) -> Any:
    """SDK objects and dicts alike, as plain JSON-able data (for comparisons)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    if isinstance(value, dict):
        return {k: as_plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [as_plain(v) for v in value]
    return value


def text_of(blocks: list[Any]) -> str:
    return "".join(
        str(read_field(b, "text") or "") for b in blocks if read_field(b, "type") == "text"
    )


def require_pairing(messages: list, situation: str, hint: str = "see notebook 03.") -> None:
    """Fail with the first pairing problem of a history, said after `situation`."""
    __tracebackhide__ = True
    problems = pairing_problems(messages)
    if problems:
        fail(f"{situation}: {problems[0]}", hint)


def word_count_tools() -> dict[str, Any]:
    """A second tools dict, unlike the exercise's: a check passes it to see the dispatcher uses it."""
    from course_helpers.lessons.tools import tool

    @tool
    def count_words(text: str) -> str:
        """Count the words of a text. Returns the count as a line such as '3 words'."""
        return f"{len(text.split())} words"

    return {"count_words": count_words}


def short_repr(value: Any, width: int = 70) -> str:
    return clip(repr(value), width)


def ask_model(client: anthropic.Anthropic, messages: list, **options: Any) -> Any:
    """Send a history to the course model; a refusal (400) becomes CheckFailed."""
    __tracebackhide__ = True
    try:
        return client.messages.create(model=MODEL, max_tokens=1024, messages=messages, **options)
    except anthropic.APIStatusError as error:
        fail(
            f"the API refuses the history your code built: {error.status_code} "
            f"{api_message(error)}",
            "messages.N.content.M in the message points at the block at fault.",
        )


# The shared check kit: the PR reviewer's tools, and tool calls and results written by hand.


@dataclass
class ReviewerKit:
    """The PR reviewer's tools over a real fixture repository, with a log of every run."""

    tools: dict
    ran: list[tuple[str, dict]]
    folder: Any
    repo: Any = None  # the fixture repository itself, to read what a tool should return

    def close(self) -> None:
        self.folder.cleanup()


def reviewer_kit(with_list_files: bool = False) -> ReviewerKit:
    """get_diff and read_file (and list_files) over a fresh copy of the PR fixture repository."""
    import tempfile
    from pathlib import Path

    from course_helpers.fixtures.pr_repo import build_pr_repo
    from course_helpers.lessons.tools import tool

    folder = tempfile.TemporaryDirectory()
    repo = build_pr_repo(Path(folder.name) / "invoicing")
    ran: list[tuple[str, dict]] = []

    @tool
    def get_diff(pr: int) -> str:
        """Return the unified diff of pull request number `pr`. Fails if it does not exist."""
        ran.append(("get_diff", {"pr": pr}))
        return repo.get_diff(pr)

    @tool
    def read_file(path: str) -> str:
        """Return the text of one file of the repository, as the pull request leaves it."""
        ran.append(("read_file", {"path": path}))
        return repo.read_file(path)

    @tool
    def list_files() -> list[str]:
        """List every file path in the repository."""
        ran.append(("list_files", {}))
        return repo.list_files()

    chosen = [get_diff, read_file, list_files] if with_list_files else [get_diff, read_file]
    return ReviewerKit({t.name: t for t in chosen}, ran, folder, repo)


def tool_call_block(name: str, tool_id: str, **tool_input: Any) -> Any:
    """A tool_use block written by hand, the way the SDK gives it to your code."""
    from types import SimpleNamespace

    return SimpleNamespace(type="tool_use", id=tool_id, name=name, input=tool_input)


def verify_result_block(result: Any, call: Any, label: str, what: str) -> str:
    """A result must be a tool_result block for this call; return its content as text."""
    __tracebackhide__ = True
    if not isinstance(result, dict):
        fail(
            f"{label} returned {short_repr(result)} for {what}, not a tool_result block (a dict).",
            "return {'type': 'tool_result', 'tool_use_id': block.id, 'content': ...}.",
        )
    if result.get("type") != "tool_result":
        fail(
            f"the block {label} returned for {what} has type {result.get('type')!r}.",
            "its 'type' must be 'tool_result'.",
        )
    if result.get("tool_use_id") != call.id:
        fail(
            f"the result for {what} has tool_use_id {result.get('tool_use_id')!r}; the call's id "
            f"is {call.id!r}.",
            "copy it from the block: 'tool_use_id': block.id.",
        )
    content = result.get("content")
    if not isinstance(content, str | list) or not content:
        fail(
            f"the result for {what} has content {short_repr(content)}; the API takes a non-empty "
            "string or a list of blocks.",
            "turn what the tool returned into text, e.g. str(output).",
        )
    return content if isinstance(content, str) else text_of(content)
