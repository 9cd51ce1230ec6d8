"""Save a session to a file and resume it anywhere (built in notebook 12, step 8).

`save_session` writes a history as request params (SDK objects dumped, thinking blocks and their
signatures as they came) with the settings it was made with; `load_session` reads it back and
refuses, with `SessionRefused`, a file that would break a rule of the API: a tool_use without
its result, a result without its call, a thinking block without its signature.
"""

from __future__ import annotations

import json
from pathlib import Path

from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.context.sessions`. Edit those cells, then run `make promote`.


# From notebooks/12_keep_the_context_in_bounds.ipynb
SESSION_FORMAT = "course-session/1"


class SessionRefused(ValueError):
    """A session file that cannot be resumed as it is: it would break a rule of the API."""


def as_params(messages: list) -> list[dict]:
    """A history as request params: plain JSON values, SDK objects dumped without None fields.

    A thinking block keeps its text and its signature as they came, character for character.
    """
    params = []
    for message in messages:
        content = read_field(message, "content")
        if not isinstance(content, str):
            content = [
                dict(block)
                if isinstance(block, dict)
                else block.model_dump(mode="json", exclude_none=True)
                for block in content
            ]
        params.append({"role": read_field(message, "role"), "content": content})
    return params


def save_session(path: Path, messages: list, **settings) -> Path:
    """Write a history and the settings it was made with (model, system...) to a JSON file."""
    data = {"format": SESSION_FORMAT, **settings, "messages": as_params(messages)}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def session_problems(messages: list) -> list[str]:
    """What in a saved history the API would refuse: notebook 03's pairing problems, and
    thinking blocks that lost their signature (the API needs it to accept them back)."""
    problems = pairing_problems(messages)
    for i, message in enumerate(messages):
        for j, block in enumerate(content_blocks(message)):
            kind = read_field(block, "type")
            if kind == "thinking" and not read_field(block, "signature"):
                problems.append(
                    f"messages[{i}].content[{j}]: a thinking block without its signature"
                )
            if kind == "redacted_thinking" and not read_field(block, "data"):
                problems.append(
                    f"messages[{i}].content[{j}]: a redacted_thinking block without its data"
                )
    return problems


def load_session(path: Path) -> dict:
    """Read a session file back; refuse one that is not a session or would break a rule."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise SessionRefused(f"{path.name} is not a session file (no format {SESSION_FORMAT!r})")
    problems = session_problems(data.get("messages") or [])
    if problems:
        raise SessionRefused(
            f"{path.name} cannot be resumed: {'; '.join(problems)}. Sending it would fail; "
            "resume from an earlier copy, or repair it as notebook 03 shows."
        )
    return data
