"""Make room in a history that no longer fits (built in notebook 12, steps 3 and 4).

`KeepInBounds` wraps the loop's `sample` seam: before each call it counts the request and, while
it is over its limit, climbs its rungs, functions that shorten the history in place. Two rungs
live here: `drop_old_turns` (notebook 06's compaction) and `clear_old_results`, which replaces old
tool results by a stub and keeps every tool_use / tool_result pair. The third rung, a summary
written by the model, is `course_helpers.lessons.context.summary.Summarise`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from course_helpers.lessons.context.window import Window
from course_helpers.lessons.history import compact_history
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.support.result_wording import call_parts, short_json

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.context.room`. Edit those cells, then run `make promote`.


# From notebooks/12_keep_the_context_in_bounds.ipynb
@dataclass
class KeepInBounds(Window):
    """A wrapper of `sample` that keeps every request under `limit` input tokens.

    Before each call it counts the request; while it is over the limit, it tries the next of
    its `rungs`, functions that make room in the history in place and say what they did ("" when
    they could not). The history is the loop's own list, so what a rung removes is gone for
    every later call too. `sizes` holds what each call sent; `log` what each rung did, and
    each request that went out over the limit because no rung could make more room.
    """

    limit: int = 0
    rungs: tuple[Callable[[list], str], ...] = ()
    log: list[str] = field(default_factory=list)

    def __call__(self, sample):
        def sample_in_bounds(messages, **changes):
            size = self.count(messages)
            for rung in self.rungs:
                if size <= self.limit:
                    break
                did = rung(messages)
                if did:
                    before, size = size, self.count(messages)
                    self.log.append(f"{before:,} > {self.limit:,} tokens: {did}, now {size:,}")
            if size > self.limit:
                self.log.append(f"{size:,} > {self.limit:,} tokens: no rung made room, sent as is")
            self.sizes.append(size)
            return sample(messages, **changes)

        return sample_in_bounds


def drop_old_turns(messages: list) -> str:
    """Rung one, notebook 06's compaction: keep the task and the last two turns, drop the rest."""
    removed = compact_history(messages, keep_turns=2)
    return f"dropped {removed} old messages" if removed else ""


# From notebooks/12_keep_the_context_in_bounds.ipynb
# What a cleared result says instead: what was there, and how to get it again.
STUB = (
    "[Result cleared to save room: {call} returned {size:,} characters here. "
    "Call it again if you need them.]"
)


def result_size(block: Any) -> int:
    """How many characters a tool_result block carries (text, or text blocks)."""
    content = read_field(block, "content") or ""
    if isinstance(content, str):
        return len(content)
    return sum(len(read_field(b, "text") or "") for b in content)


def clear_old_results(messages: list, keep: int = 3, at_least: int = 400) -> str:
    """Replace the content of old tool results with a stub, in place; say how many.

    The newest `keep` results stay as they are, and so do results shorter than `at_least`
    characters (a stub would save nothing). Every block stays where it was, with its
    tool_use_id and its is_error flag, so every tool_use keeps its tool_result: only the
    content changes. Assistant turns, thinking blocks included, are never touched.
    """
    calls = {
        read_field(block, "id"): call_parts(block)
        for message in messages
        for block in content_blocks(message)
        if read_field(block, "type") == "tool_use"
    }
    places = [
        (i, j)
        for i, message in enumerate(messages)
        if read_field(message, "role") == "user"
        for j, block in enumerate(content_blocks(message))
        if read_field(block, "type") == "tool_result"
    ]
    cleared = 0
    for i, j in places[: max(0, len(places) - keep)]:
        blocks = content_blocks(messages[i])
        block = blocks[j]
        size = result_size(block)
        if size < at_least:
            continue  # short results, and results already cleared, stay
        call_id = read_field(block, "tool_use_id")
        _, name, arguments = calls.get(call_id, (call_id, "a tool", {}))
        stub = STUB.format(call=f"{name}({short_json(arguments, 80)})", size=size)
        blocks[j] = {"type": "tool_result", "tool_use_id": call_id, "content": stub}
        if read_field(block, "is_error"):
            blocks[j]["is_error"] = True
        messages[i] = {"role": "user", "content": blocks}
        cleared += 1
    return f"cleared {cleared} old tool results" if cleared else ""
