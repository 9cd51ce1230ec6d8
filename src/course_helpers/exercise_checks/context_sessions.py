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
)
from course_helpers.exercise_checks.context_common import fresh_client, halfway_history, refusal
from course_helpers.fixtures.long_task import SYSTEM, Workspace, long_task_tools, succeeded
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field


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
