"""Course machinery (exercise checks): notebook 12, keep the context in bounds.

Requirements the checks enforce, one line each (tests/exercise_variants/test_12_context.py
proves them both ways):

- `clear_results(messages, keep)`: the API still accepts the history (every tool_result keeps
  its tool_use_id, in its place, and an is_error result stays marked); assistant turns, thinking
  blocks included, are untouched; the newest `keep` results are unchanged; every older result is
  shorter than before and its stub names the tool it came from and the argument to call it again
  with (keep=2, 1 and 0: `[:-keep]` clears nothing at 0); `messages` itself changes (a new list
  returned instead says so);
- `choose_cut(messages, keep_turns)`: the index of the first message to keep; with a summary in
  front of `messages[cut:]` the API accepts the history; the last `keep_turns` assistant turns
  are kept and nothing before the turn ahead of them; None when there is nothing to summarise;
- `save(path, messages)` / `resume(path)`: the file is JSON; the resumed history has every
  thinking block's text and signature character for character and every tool id paired; the
  course model, started afresh, continues it to the end of the task; the file `save` wrote is
  resumed, not refused; a file whose thinking block lost its signature, and one whose
  tool_result answers no tool_use, are refused with an exception (not resumed, not None).

Each failure says what the API answered (its own error text) and which mistake it points at.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    CheckFailed,
    NotWrittenYet,
    api_message,
    as_plain,
    fail,
    fail_if_not_written,
    passed,
    run_learner,
)
from course_helpers.fixtures.long_task import (
    SYSTEM,
    Workspace,
    long_task_tools,
    opening_messages,
    succeeded,
)
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field

STEPS = 7  # calls in the half-way run every check starts from: the list, then 6 files read


def _fresh_client() -> anthropic.Anthropic:
    """A client of a course model of its own: a fresh model, shared with nobody."""
    from course_helpers.offline import CourseModelApp

    return CourseModelApp().client(max_retries=0)


def _settings() -> dict:
    tools = long_task_tools(Workspace())
    return {"model": MODEL, "system": SYSTEM, "tools": [t.definition() for t in tools]}


def halfway_history(steps: int = STEPS) -> list:
    """The long task stopped after `steps` calls: SDK objects in its assistant turns."""
    run = run_agent(
        _fresh_client(),
        messages=opening_messages(),
        tools=long_task_tools(Workspace()),
        system=SYSTEM,
        max_steps=steps,
    )
    return run.messages


def refusal(messages: list) -> str | None:
    """What the API says about a history (None when it accepts it)."""
    try:
        _fresh_client().messages.count_tokens(**_settings(), messages=messages)
    except anthropic.APIStatusError as error:
        return f"{error.status_code} {api_message(error).rstrip('.')}"
    return None


def _results(messages: list) -> list[tuple[int, int, Any]]:
    return [
        (i, j, block)
        for i, message in enumerate(messages)
        if read_field(message, "role") == "user"
        for j, block in enumerate(content_blocks(message))
        if read_field(block, "type") == "tool_result"
    ]


def _result_text(block: Any) -> str:
    content = read_field(block, "content") or ""
    if isinstance(content, str):
        return content
    return "".join(str(read_field(b, "text") or "") for b in content)


# -- 1. clear old tool results ------------------------------------------------------------------


def check_clear_results(clear_results: Callable[..., Any]) -> None:
    """Exercise 1: clear old tool results in place, keeping every pair."""
    __tracebackhide__ = True
    original = halfway_history()
    first_result = _results(original)[0][2]  # a dict: the course's dispatcher built it
    first_result["is_error"] = True  # a failed call: its stub must still say it failed
    for keep in (2, 1, 0):
        messages = copy.deepcopy(original)
        before = copy.deepcopy(as_plain(messages))
        returned = run_learner(clear_results, messages, keep=keep, name="clear_results")
        if isinstance(returned, list) and as_plain(messages) == before:
            fail(
                "clear_results returned a new list and left `messages` as it was; the loop "
                "keeps sending its own list, so nothing was cleared.",
                "change `messages` in place: messages[i] = ..., not a copy that you return.",
            )
        _check_cleared(before, as_plain(messages), keep)
    passed("clear_results")


def _check_cleared(before: list, after: list, keep: int) -> None:
    __tracebackhide__ = True
    said = refusal(after)
    old_results = _results(before)
    if said is not None:
        lost = [
            f"messages[{i}].content[{j}]"
            for i, j, block in _results(after)
            if not read_field(block, "tool_use_id")
        ]
        if lost:
            mistake = f"your stub at {lost[0]} has no tool_use_id"
        elif pairing_problems(after):
            mistake = "a tool_use lost its tool_result (or a result its tool_use)"
        else:
            mistake = (
                "a stub the API cannot read: a tool_result's content is a string or a list of "
                "text blocks"
            )
        fail(
            f"after clear_results(messages, keep={keep}) the API refuses the history: {said}. "
            f"That is {mistake}.",
            "change only each old result's content; keep the block, its type and its "
            "tool_use_id where they are.",
        )
    if len(after) != len(before):
        fail(
            f"clear_results changed the number of messages ({len(before)} -> {len(after)}).",
            "clear the results' content; do not remove or add messages.",
        )
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if old["role"] == "assistant" and old != new:
            fail(
                f"clear_results changed messages[{index}], an assistant turn.",
                "only tool results are cleared: thinking blocks and tool calls must stay exactly "
                "as the model wrote them.",
            )
    new_results = _results(after)
    for (i, j, old), (_, _, new) in zip(old_results, new_results, strict=True):
        if read_field(old, "is_error") and read_field(new, "is_error") is not True:
            fail(
                f"with keep={keep}, the result at messages[{i}].content[{j}] had is_error: True "
                "and lost it: the stub now reads like a call that worked.",
                "change only the result's content; keep its tool_use_id and is_error as they "
                "are (a new dict loses them unless you copy them).",
            )
    calls = {
        read_field(b, "id"): b
        for m in before
        for b in content_blocks(m)
        if read_field(b, "type") == "tool_use"
    }
    cleared = max(0, len(old_results) - keep)  # not [:-keep]: with keep=0 that is empty
    for (i, j, old), (_, _, new) in zip(old_results[cleared:], new_results[cleared:], strict=True):
        if old != new:
            fail(
                f"with keep={keep}, the result at messages[{i}].content[{j}] is one of the newest "
                "and should not change, but it did.",
                "leave the last `keep` tool_result blocks as they are.",
            )
    for i, j, old in old_results[:cleared]:
        new = after[i]["content"][j]
        if len(_result_text(old)) < 400:
            continue  # short results may stay
        stub = _result_text(new)
        if len(stub) >= len(_result_text(old)):
            fail(
                f"with keep={keep}, the old result at messages[{i}].content[{j}] was not cleared.",
                "replace the content of every result but the newest `keep` with a short stub.",
            )
        call = calls.get(read_field(old, "tool_use_id"))
        name, arguments = read_field(call, "name"), read_field(call, "input") or {}
        wanted = [str(name), *map(str, arguments.values())]
        if not all(word in stub for word in wanted):
            fail(
                f"the stub at messages[{i}].content[{j}] is {stub[:90]!r}: it does not say what "
                f"was there and how to get it again ({' and '.join(map(repr, wanted))}).",
                "name the tool and its arguments in the stub, so the model can call it again.",
            )


# -- 2. choose a cut point ----------------------------------------------------------------------


def _histories() -> list[tuple[str, list]]:
    long = halfway_history()

    def call(call_id: str, name: str, **arguments: str) -> dict:
        return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}

    def result(call_id: str, text: str) -> dict:
        return {"type": "tool_result", "tool_use_id": call_id, "content": text}

    parallel = [
        {"role": "user", "content": "Read both files."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Both at once."},
                call("toolu_p1", "read_source", path="a.py"),
                call("toolu_p2", "read_source", path="b.py"),
            ],
        },
        {"role": "user", "content": [result("toolu_p1", "a"), result("toolu_p2", "b")]},
        {"role": "assistant", "content": [{"type": "text", "text": "Read. Anything else?"}]},
        {"role": "user", "content": "Now list the files."},
        {"role": "assistant", "content": [call("toolu_l1", "list_sources")]},
        {"role": "user", "content": [result("toolu_l1", "a.py")]},
    ]
    return [("the long task, half way", long), ("a history with parallel calls", parallel)]


def _turn_starts(messages: list) -> list[int]:
    return [i for i, m in enumerate(messages) if read_field(m, "role") == "assistant"]


def check_choose_cut(choose_cut: Callable[..., Any]) -> None:
    """Exercise 2: a cut point that keeps the last turns whole and every pair."""
    __tracebackhide__ = True
    for label, messages in _histories():
        for keep_turns in (1, 2):
            cut = run_learner(choose_cut, list(messages), keep_turns, name="choose_cut")
            _check_cut(label, messages, keep_turns, cut)
    short = _histories()[1][1][:3]
    cut = run_learner(choose_cut, short, 1, name="choose_cut")
    if cut is not None:
        fail(
            f"choose_cut(messages, 1) returned {cut!r} for a history of one turn.",
            "when the turns to keep are all there is, there is nothing to summarise: return None.",
        )
    passed("choose_cut")


def _check_cut(label: str, messages: list, keep_turns: int, cut: Any) -> None:
    __tracebackhide__ = True
    where = f"on {label} with keep_turns={keep_turns}"
    if cut is None:
        fail(
            f"choose_cut returned None {where}, but the history holds "
            f"{len(_turn_starts(messages))} assistant turns: there is something to summarise.",
            "return None only when there are no more than `keep_turns` assistant turns.",
        )
    if not isinstance(cut, int) or isinstance(cut, bool) or not 0 < cut < len(messages):
        fail(
            f"choose_cut returned {cut!r} {where}: not the index of a message after the first.",
            "return the index of the first message to keep (1 to len(messages) - 1).",
        )
    kept = [{"role": "user", "content": "(a summary of the earlier turns)"}, *messages[cut:]]
    said = refusal(as_plain(kept))
    if said is not None:
        opens = [read_field(b, "type") for b in content_blocks(messages[cut])]
        mistake = (
            f"the kept part opens with messages[{cut}], whose tool_result blocks answer a "
            "tool_use that went into the summary (an orphan tool_result)"
            if "tool_result" in opens
            else f"the cut at messages[{cut}] splits a turn from its results"
        )
        fail(
            f"cutting at {cut} {where}, the API refuses the history: {said}. That is because "
            f"{mistake}.",
            "cut where an assistant turn starts, never at a message of tool results.",
        )
    starts = _turn_starts(messages)
    first_kept = starts[-keep_turns]
    earliest = starts[-keep_turns - 1] + 1 if len(starts) > keep_turns else 1
    if cut > first_kept:
        fail(
            f"choose_cut returned {cut} {where}: it cuts into the last {keep_turns} turns "
            f"(they start at messages[{first_kept}]).",
            "keep the last `keep_turns` assistant turns and everything after them.",
        )
    if cut < earliest:
        fail(
            f"choose_cut returned {cut} {where}: it keeps more than the last {keep_turns} turns, "
            "so the summary saves less room than it could.",
            f"cut at the start of the {keep_turns}th assistant turn from the end.",
        )


# -- 3. save and resume a session ---------------------------------------------------------------


def _thinking(messages: list) -> list[tuple[str, str]]:
    return [
        (str(read_field(b, "thinking")), str(read_field(b, "signature")))
        for m in messages
        for b in content_blocks(m)
        if read_field(b, "type") == "thinking"
    ]


def _damage(data: Any, block_type: str, change: Callable[[dict], None]) -> bool:
    """Change the first block of `block_type` in the JSON data, in place; True if one was."""
    if isinstance(data, dict):
        if data.get("type") == block_type:
            change(data)
            return True
        return any(_damage(value, block_type, change) for value in data.values())
    if isinstance(data, list):
        return any(_damage(value, block_type, change) for value in data)
    return False


def _refuses(resume: Callable[..., Any], path: Path) -> Any:
    """What resume(path) returned, or the `_REFUSED` marker if it raised."""
    try:
        return resume(path)
    except (CheckFailed, NotWrittenYet):
        raise
    except Exception:
        return _REFUSED


_REFUSED = object()


def check_sessions(save: Callable[..., Any], resume: Callable[..., Any]) -> None:
    """Exercise 3: a session saved to JSON, resumed, refused when broken."""
    __tracebackhide__ = True
    messages = halfway_history()
    with tempfile.TemporaryDirectory(prefix="course-12-check-") as folder:
        path = Path(folder) / "session.json"
        run_learner(save, path, messages, name="save")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            fail(
                f"save(path, messages) did not write a JSON file there: {error}.",
                "write json.dumps(...) of the history as request params to `path`.",
            )
        if "Block(" in path.read_text(encoding="utf-8"):
            fail(
                "the file save wrote holds SDK objects as strings (such as 'ThinkingBlock(...)'): "
                "json.dumps(..., default=str) writes their repr, which no one can send again.",
                "turn each SDK block into a dict first: "
                "block.model_dump(mode='json', exclude_none=True).",
            )
        signatures = [signature for _, signature in _thinking(messages)]
        missing = [s for s in signatures if s not in path.read_text(encoding="utf-8")]
        if missing:
            unsigned = as_plain(messages)
            for message in unsigned:
                for block in content_blocks(message):
                    if isinstance(block, dict) and block.get("type") == "thinking":
                        block.pop("signature", None)
            fail(
                f"the file save wrote lost {len(missing)} of the {len(signatures)} thinking "
                f"signatures; a history resumed from it is refused: {refusal(unsigned)}. That is "
                "a resumed history missing a thinking signature.",
                "save every block whole: dump SDK objects with "
                "block.model_dump(mode='json', exclude_none=True), signature included.",
            )
        try:
            resumed = resume(path)
        except (CheckFailed, NotWrittenYet) as error:
            fail_if_not_written(error, "resume")
            raise
        except Exception as error:
            fail(
                f"resume refused the file save had just written, a session that breaks no rule: "
                f"{type(error).__name__}: {error}",
                "refuse only what the API would: a thinking block without its signature, or a "
                "problem pairing_problems finds.",
            )
        if not isinstance(resumed, list):
            fail(
                f"resume(path) returned {type(resumed).__name__}, not a list of messages.",
                "return the messages themselves, ready for messages=... (from a wrapper object, "
                "its list of messages).",
            )
        said = refusal(as_plain(resumed))
        if said is not None:
            lost = len(_thinking(messages)) != len(_thinking(resumed)) or any(
                not signature for _, signature in _thinking(resumed)
            )
            mistake = (
                "the resumed history lost a thinking block's signature"
                if lost or "signature" in said
                else "the resumed history breaks a rule the original kept"
            )
            fail(
                f"the API refuses the resumed history: {said}. That is because {mistake}.",
                "save every block whole: dump SDK objects with "
                "block.model_dump(mode='json', exclude_none=True), thinking and signature included.",
            )
        if _thinking(resumed) != _thinking(messages):
            fail(
                "the resumed history's thinking blocks differ from the ones the model wrote.",
                "keep the text and the signature of every thinking block exactly as they came.",
            )
        workspace = Workspace()
        run = run_agent(
            _fresh_client(),
            messages=resumed,
            tools=long_task_tools(workspace),
            system=SYSTEM,
            max_steps=40,
        )
        if not succeeded(workspace):
            fail(
                f"the resumed session did not finish the task ({run.ending}: {run.final_text[:90]!r}).",
                "resume must return the whole history, in order, as it was saved.",
            )
        broken = Path(folder) / "unsigned.json"
        damaged = copy.deepcopy(data)
        if not _damage(damaged, "thinking", lambda block: block.pop("signature", None)):
            fail("the saved file has no thinking block with a signature in it.", "save them whole.")
        broken.write_text(json.dumps(damaged), encoding="utf-8")
        accepted = _refuses(resume, broken)
        if accepted is None:
            fail(
                "resume returned None for a file whose thinking block lost its signature; a "
                "caller that does not test for None goes on with no history at all.",
                "raise an exception (a ValueError is fine) that says what is wrong.",
            )
        if accepted is not _REFUSED:
            said = refusal(as_plain(accepted)) or "nothing (it was accepted)"
            fail(
                "resume accepted a file whose thinking block lost its signature; sending it, the "
                f"API says: {said}.",
                "check every thinking block has its signature (and every tool_use its result) "
                "before returning, and raise an exception that says what is wrong.",
            )
        stray = Path(folder) / "unpaired.json"
        unpaired = copy.deepcopy(data)
        if not _damage(
            unpaired, "tool_result", lambda block: block.update(tool_use_id="toolu_none")
        ):
            fail("the saved file has no tool_result block in it.", "save every message whole.")
        stray.write_text(json.dumps(unpaired), encoding="utf-8")
        accepted = _refuses(resume, stray)
        if accepted is not _REFUSED:
            problems = pairing_problems(accepted) if isinstance(accepted, list) else []
            fail(
                "resume accepted a file in which a tool_result answers no tool_use (pairing_problems "
                f"says: {problems[0] if problems else 'nothing, on what resume returned'}); the API "
                "refuses such a history with a 400.",
                "run pairing_problems on the messages before returning, and raise an exception "
                "that names the problem when it finds one.",
            )
    passed("save and resume")
