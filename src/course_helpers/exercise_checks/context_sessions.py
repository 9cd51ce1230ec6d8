"""Course machinery (exercise checks): notebook 12, exercise 3 (save and resume a session).

One job: `check_sessions`, with the requirements listed in `exercise_checks.context`.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course_helpers.exercise_checks.common import (
    CheckFailed,
    NotWrittenYet,
    as_plain,
    fail,
    fail_if_not_written,
    passed,
    run_learner,
    short_repr,
)
from course_helpers.exercise_checks.context_common import fresh_client, refusal
from course_helpers.exercise_checks.context_history import (
    changed,
    first_difference,
    session_history,
    thinking_damage,
    thinking_dicts,
    thinking_places,
    with_saved_thinking,
)
from course_helpers.fixtures.long_task import SYSTEM, Workspace, long_task_tools, succeeded
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.pairing import pairing_problems
from course_helpers.offline.validation.rules import INVALID_SIGNATURE, THINKING_MODIFIED


def _refuses(resume: Callable[..., Any], path: Path, problem: str, words: tuple) -> Any:
    """What resume(path) returned, or the `_REFUSED` marker if it raised saying what is wrong.

    A refusal must name the problem (one of `words`); a lookup error of the learner's own code
    (KeyError('signature') from b["signature"]) is a crash, not a refusal.
    """
    __tracebackhide__ = True
    try:
        return resume(path)
    except (CheckFailed, NotWrittenYet):
        raise
    except _CRASHES as error:
        fail(
            f"resume crashed on a file in which {problem}: {type(error).__name__}: {error}. "
            "That is your own code failing on a lookup, not a refusal; the person reading it "
            "cannot tell what is wrong with the file.",
            "look fields up with block.get(...), and raise an exception of your own "
            "(a ValueError is fine) whose message names the problem, e.g. "
            "'messages[3].content[0]: a thinking block without its signature'.",
        )
    except Exception as error:
        said = str(error).lower()
        if not any(word in said for word in words):
            fail(
                f"resume refused a file in which {problem}, but its message does not say what "
                f"is wrong: {type(error).__name__}: {short_repr(str(error), 80)}.",
                "name the problem in the message, so the person knows what to fix: "
                f"mention {' or '.join(repr(w) for w in words[:3])} (pairing_problems' own text "
                "does, for pairing).",
            )
        return _REFUSED


_REFUSED = object()
_CRASHES = (KeyError, IndexError, AttributeError, TypeError, NameError)
_SIGNATURE_WORDS = ("signature", "thinking", "signed")
_PAIRING_WORDS = ("tool_use", "tool_result", "pair", "result", "toolu_none", "answer")


def check_sessions(save: Callable[..., Any], resume: Callable[..., Any]) -> None:
    """Exercise 3: a session saved to JSON, resumed as it was, refused when broken."""
    __tracebackhide__ = True
    messages = session_history()
    with tempfile.TemporaryDirectory(prefix="course-12-check-") as folder:
        path = Path(folder) / "session.json"
        before = copy.deepcopy(messages)
        run_learner(save, path, messages, name="save")
        _check_unchanged(before, messages)
        data = _read_json(path)
        _check_thinking_saved(messages, data)
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
        _check_same_history(messages, resumed)
        workspace = Workspace()
        run = run_agent(
            fresh_client(),
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
        _check_each_unsigned_refused(resume, Path(folder), data)
        _check_unpaired_refused(resume, Path(folder), data)
    passed("save and resume")


def _check_unchanged(before: list, messages: list) -> None:
    """save left the caller's history as it was: the same messages, blocks of the same types."""
    __tracebackhide__ = True

    def shape(history: list) -> list:
        return [
            (
                type(m),
                type(m.get("content")) if isinstance(m, dict) else None,
                [type(b) for b in m["content"]]
                if isinstance(m, dict) and isinstance(m.get("content"), list)
                else None,
            )
            for m in history
        ]

    if shape(messages) != shape(before) or as_plain(messages) != as_plain(before):
        fail(
            "save changed the history it was given (its messages or their blocks, e.g. SDK "
            "blocks replaced by dicts): the caller goes on with that list, and saving must not "
            "touch it.",
            "build new data to write and leave `messages` alone: "
            "[{'role': m['role'], 'content': [dump(b) for b in m['content']]} for m in messages]"
            ", where dump(b) is b if it is a dict, else b.model_dump(mode='json', "
            "exclude_none=True).",
        )


def _read_json(path: Path) -> Any:
    __tracebackhide__ = True
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        fail(
            f"save wrote {path.name}, but it is not UTF-8 text ({error}): a JSON file is, and "
            "the person's words and the model's thoughts hold characters such as 'é', '«' and '€'.",
            "write json.dumps(...) of the history as UTF-8: "
            "path.write_text(json.dumps(...), encoding='utf-8').",
        )
    except OSError as error:
        fail(
            f"save(path, messages) did not write a file there: {error}.",
            "write json.dumps(...) of the history as request params to `path`.",
        )
    try:
        data = json.loads(text)
    except ValueError as error:
        several = "Extra data" in str(error)
        fail(
            f"save(path, messages) did not write a JSON file there: {error}."
            + (" The file holds several JSON documents (JSON Lines?), not one." if several else ""),
            "write one JSON document: json.dumps(...) of the whole history (a list, or an object "
            "holding it) to `path`.",
        )
    if "Block(" in text:
        fail(
            "the file save wrote holds SDK objects as strings (such as 'ThinkingBlock(...)'): "
            "json.dumps(..., default=str) writes their repr, which no one can send again.",
            "turn each SDK block into a dict first: "
            "block.model_dump(mode='json', exclude_none=True).",
        )
    return data


def _check_thinking_saved(messages: list, data: Any) -> None:
    """Every thinking block is in the file as the model wrote it: tell what was lost or changed."""
    __tracebackhide__ = True
    damage = thinking_damage(messages, data)
    if damage is None:
        return
    places = thinking_places(messages)
    total = len(places)
    if damage.kind == "left out":
        if not damage.saved and all(sig in json.dumps(data) for sig in _signatures(messages)):
            return  # a format of its own, with the signatures in it: resume is judged below
        fail(
            f"the file save wrote holds {len(damage.saved)} of the {total} thinking blocks the "
            "model wrote.",
            "save every block of every message, thinking blocks included: "
            "block.model_dump(mode='json', exclude_none=True).",
        )
    said = refusal(with_saved_thinking(messages, damage.saved))
    first = damage.indexes[0]
    i, j = places[first]
    if said is None:  # a signature the course model did not write: it cannot check it
        last = max(k for k, m in enumerate(messages) if m["role"] == "assistant")
        said = f"400 messages.{i}.content.{j}: " + (
            THINKING_MODIFIED if i == last else INVALID_SIGNATURE
        ).rstrip(".")
    old = as_plain(messages[i]["content"][j])
    new = damage.saved[first]
    count = f"{len(damage.indexes)} of the {total}"
    if damage.kind == "signature missing":
        fail(
            f"the file save wrote lost {count} thinking signatures (the first in messages[{i}]); "
            f"a history resumed from it is refused: {said}. That is a resumed history missing a "
            "thinking signature.",
            "save every block whole: dump SDK objects with "
            "block.model_dump(mode='json', exclude_none=True), signature included.",
        )
    if damage.kind == "text changed":
        fail(
            f"save changed the text of {count} thinking blocks (the first, in messages[{i}], "
            f"{changed(old['thinking'], new.get('thinking'))}); the signature seals that text, "
            f"so the API refuses the history: {said}.",
            "write each thinking block's text exactly as it came, whitespace and non-ASCII "
            "characters included: no strip(), and the file in UTF-8.",
        )
    fail(
        f"save changed {count} thinking signatures (the first, in messages[{i}], is "
        f"{short_repr(new.get('signature'), 40)} instead of {short_repr(old['signature'], 40)}); "
        f"the API checks each signature against its block and refuses the history: {said}.",
        "write each signature whole, as it came: it is opaque, never shorten, re-encode or "
        "rebuild it.",
    )


def _signatures(messages: list) -> list[str]:
    return [as_plain(messages[i]["content"][j])["signature"] for i, j in thinking_places(messages)]


def _check_same_history(messages: list, resumed: list) -> None:
    """The resumed history is the saved one, block by block."""
    __tracebackhide__ = True
    difference = first_difference(messages, resumed)
    said = refusal(as_plain(resumed))
    if difference is None and said is None:
        return
    verdict = (
        f"the API refuses it: {said}"
        if said is not None
        else "the API accepts it, but it is not the conversation the model had"
    )
    if difference is None:
        fail(
            f"the API refuses the resumed history: {said}. That is because the resumed history "
            "breaks a rule the original kept.",
            "save every block whole: dump SDK objects with "
            "block.model_dump(mode='json', exclude_none=True), thinking and signature included.",
        )
    where, hint = difference
    fail(f"the resumed history differs from the one saved: {where}; {verdict}.", hint)


def _check_each_unsigned_refused(resume: Callable[..., Any], folder: Path, data: Any) -> None:
    """A file whose thinking block lost its signature is refused, whichever block it is."""
    __tracebackhide__ = True
    count = len(thinking_dicts(data))
    if count == 0:
        fail("the saved file has no thinking block with a signature in it.", "save them whole.")
    cases = [(k, False) for k in range(count)] + [(0, True)]  # and an empty signature
    for k, empty in cases:
        damaged = copy.deepcopy(data)
        if empty:
            thinking_dicts(damaged)[k]["signature"] = ""
        else:
            thinking_dicts(damaged)[k].pop("signature", None)
        broken = folder / f"unsigned-{k + 1}{'-empty' if empty else ''}.json"
        broken.write_text(json.dumps(damaged, ensure_ascii=False), encoding="utf-8")
        which = f"the {_ordinal(k + 1)} of its {count} thinking blocks"
        lost = "has an empty signature ('')" if empty else "lost its signature"
        accepted = _refuses(resume, broken, f"{which} {lost}", _SIGNATURE_WORDS)
        if accepted is None:
            fail(
                f"resume returned None for a file in which {which} {lost}; a caller "
                "that does not test for None goes on with no history at all.",
                "raise an exception (a ValueError is fine) that says what is wrong.",
            )
        if accepted is not _REFUSED:
            said = refusal(as_plain(accepted)) or "nothing (it was accepted)"
            fail(
                f"resume accepted a file in which {which} {lost}; sending it, the "
                f"API says: {said}.",
                (
                    "an empty signature is no signature: test `not block.get('signature')`, "
                    "not only whether the key is there, and raise an exception that says what "
                    "is wrong."
                    if empty
                    else "check every thinking block of every message has its signature (and every "
                    "tool_use its result) before returning, and raise an exception that says what "
                    "is wrong."
                ),
            )


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _check_unpaired_refused(resume: Callable[..., Any], folder: Path, data: Any) -> None:
    __tracebackhide__ = True
    stray = folder / "unpaired.json"
    unpaired = copy.deepcopy(data)
    if not _damage(unpaired, "tool_result", lambda block: block.update(tool_use_id="toolu_none")):
        fail("the saved file has no tool_result block in it.", "save every message whole.")
    stray.write_text(json.dumps(unpaired, ensure_ascii=False), encoding="utf-8")
    accepted = _refuses(
        resume,
        stray,
        "a tool_result answers no tool_use (tool_use_id 'toolu_none')",
        _PAIRING_WORDS,
    )
    if accepted is not _REFUSED:
        problems = pairing_problems(accepted) if isinstance(accepted, list) else []
        fail(
            "resume accepted a file in which a tool_result answers no tool_use (pairing_problems "
            f"says: {problems[0] if problems else 'nothing, on what resume returned'}); the API "
            "refuses such a history with a 400.",
            "run pairing_problems on the messages before returning, and raise an exception "
            "that names the problem when it finds one.",
        )


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
