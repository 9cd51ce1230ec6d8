"""Two repairs of a history that keep every tool_use answered (built in notebook 06).

`compact_history` makes room when the prompt no longer fits the context window, and
`drop_refused_turn` takes a refused turn out so that the person can rephrase it. Both change
the list in place, and both leave a history the API accepts.
"""

from __future__ import annotations

from typing import Any

from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.support.result_wording import call_parts, short_json

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.history`. Edit those cells, then run `make promote`.


# From notebooks/06_handle_every_stop_reason.ipynb
def compact_history(messages: list, keep_turns: int = 2) -> int:
    """Shorten a history in place; return how many messages were removed (0 if none could be).

    The first user message (the task) and the last `keep_turns` assistant turns with their
    results stay. The turns in between are replaced by a short note in the first message
    saying which tools were called, so pairs stay valid: a kept tool_use keeps its result.
    """
    starts = [i for i, m in enumerate(messages) if read_field(m, "role") == "assistant"]
    if len(starts) <= keep_turns:
        return 0
    cut = starts[-keep_turns]
    if cut < 3:
        return 0
    dropped = messages[1:cut]
    calls = [
        f"{name}({short_json(arguments, 60)})"
        for message in dropped
        for block in content_blocks(message)
        if read_field(block, "type") == "tool_use"
        for _, name, arguments in [call_parts(block)]
    ]
    note = (
        f"[{len(dropped)} earlier messages were removed to fit the context window. "
        f"Tools called in them: {', '.join(calls) or 'none'}.]"
    )
    first = messages[0]
    blocks = content_blocks(first)
    messages[:] = [{**first, "content": [*blocks, {"type": "text", "text": note}]}, *messages[cut:]]
    return len(dropped)


def drop_refused_turn(messages: list) -> list:
    """Take the refused turn out of a history, in place; return the messages taken out.

    The refused turn is the person's last message with text of their own (with the user
    messages right before it: two user messages in a row are one turn), and everything after
    it. Left in place, a rephrase sent after it would be merged into it and refused again.
    Tool results in that turn answer the turn before it, so they stay.
    """
    for index in range(len(messages) - 1, -1, -1):
        if read_field(messages[index], "role") == "user" and has_own_text(messages[index]):
            break
    else:
        return []
    while index > 0 and read_field(messages[index - 1], "role") == "user":
        index -= 1
    removed = messages[index:]
    del messages[index:]
    results = [b for b in content_blocks(removed[0]) if read_field(b, "type") == "tool_result"]
    if results:
        messages.append({"role": "user", "content": results})
    return removed


def has_own_text(message: Any) -> bool:
    """True when a message says something itself (not only tool results)."""
    return any(
        read_field(block, "type") == "text" and str(read_field(block, "text") or "").strip()
        for block in content_blocks(message)
    )
