"""Summarise the oldest turns with the model (built in notebook 12, step 5).

`cut_point` finds where a history may be cut: the start of an assistant turn, so the part kept
opens with a whole turn (thinking block first, its calls answered). `Summarise` is a rung for
`KeepInBounds`: it sends the turns before the cut to the model with `SUMMARY_PROMPT`, whole and
with the run's tools but `tool_choice` none, and puts the summary in a user message in their place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import anthropic

from course_helpers.lessons.controller import text_of
from course_helpers.lessons.pairing import content_blocks, read_field

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.context.summary`. Edit those cells, then run `make promote`.


# From notebooks/12_keep_the_context_in_bounds.ipynb
def cut_point(messages: list, keep_turns: int = 2) -> int | None:
    """Where to cut a history for a summary: the index of the first message to keep.

    Always the start of an assistant turn (the message before it is the person's side), so the
    part kept opens with a whole turn: its thinking block first, its tool_use blocks answered
    in the message after it. The last `keep_turns` turns are kept; None when there is not
    enough before them to summarise.
    """
    starts = [
        i
        for i, message in enumerate(messages)
        if i > 0
        and read_field(message, "role") == "assistant"
        and read_field(messages[i - 1], "role") == "user"
    ]
    if len(starts) <= keep_turns or keep_turns < 1:
        return None
    return starts[-keep_turns]


# From notebooks/12_keep_the_context_in_bounds.ipynb
# The request that replaces old turns by a summary. It says what must survive the cut.
SUMMARY_PROMPT = (
    "Summarise the conversation so far for yourself: this summary will replace these turns. "
    "Keep every request and constraint of the person, in their own words; your findings, with "
    "the file each one is in; the files and tools you have already used; and what is left to "
    "do. Do not call tools."
)
# Put before the summary in the history, so the model knows what it is reading.
SUMMARY_NOTE = "[The start of this session was replaced by a summary of it.]\n"


@dataclass
class Summarise:
    """A rung that asks the model for a summary of the oldest turns and cuts them.

    `settings` are the run's own (model, system, tools: the old turns hold tool_use blocks, so
    the tools must be sent), with `tool_choice` none: the model may only write. The old turns go
    whole, thinking blocks unaltered; the summary comes back as text and goes in a user message
    in front of the turns kept. `usage` keeps what each summary call cost.
    """

    client: anthropic.Anthropic
    settings: dict
    keep_turns: int = 2
    prompt: str = SUMMARY_PROMPT
    max_tokens: int = 1024
    usage: list[dict] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)

    def __call__(self, messages: list) -> str:
        cut = cut_point(messages, self.keep_turns)
        if cut is None:
            return ""
        older, last = messages[: cut - 1], messages[cut - 1]
        ask = {
            "role": "user",
            "content": [*content_blocks(last), {"type": "text", "text": self.prompt}],
        }
        request = {**self.settings, "max_tokens": self.max_tokens, "messages": [*older, ask]}
        if request.get("tools"):
            request["tool_choice"] = {"type": "none"}
        response = self.client.messages.create(**request)
        self.usage.append(response.usage.model_dump(exclude_none=True))
        summary = text_of(response).strip()
        if not summary:
            return ""
        self.summaries.append(summary)
        messages[:] = [{"role": "user", "content": SUMMARY_NOTE + summary}, *messages[cut:]]
        return f"summarised {cut} old messages in {len(summary):,} characters"
