"""Course machinery (offline course model): the beta `context_management` field, applied.

With the `context-management-2025-06-27` beta a request may carry
`context_management={"edits": [...]}`. The API applies the edits to the prompt on the server,
before the model reads it; the client keeps its own full history. This module does the same:
`check_context_management` refuses what the SDK's types do not allow (pydantic-style
messages, like the rest of validation), `apply` returns an edited copy of the body and the
`applied_edits` to report.

Two of the SDK's three edits are played; `compact_20260112` is checked, not played:

`clear_tool_uses_20250919`:
- `trigger`: `{"type": "input_tokens", "value": N}` fires when the prompt is more than N
  tokens, `{"type": "tool_uses", "value": N}` when it holds more than N tool uses. Default:
  100,000 input tokens.
- `keep`: the most recent `{"type": "tool_uses", "value": N}` tool uses stay. Default: 3.
- Every older tool use whose tool is not in `exclude_tools` is cleared, oldest first: its
  result's content becomes `CLEARED` (so the model knows a result was there), and with
  `clear_tool_inputs` (true, or a list naming the tool) its input becomes `{}`.
- `clear_at_least` `{"type": "input_tokens", "value": N}`: nothing changes unless the clearing
  frees at least N tokens.
- An edit that fires reports `{"type": ..., "cleared_tool_uses": n, "cleared_input_tokens": t}`;
  one that does not fire reports nothing. Edits run in order, each on the previous one's result.

`clear_thinking_20251015`: `keep` (default `{"type": "thinking_turns", "value": 1}`) is how many
of the most recent assistant turns holding `thinking` or `redacted_thinking` blocks keep them;
older turns lose those blocks. `"all"` (or `{"type": "all"}`) keeps everything. It reports
`{"type": ..., "cleared_thinking_turns": n, "cleared_input_tokens": t}` when it removed any.

`compact_20260112` is checked (its fields as the SDK types them, a `trigger` of at least
50,000 input tokens, as the compaction docs state) but not applied: no compaction block is
written, the prompt reaches the model unchanged and nothing is reported. The top-level
`compaction` parameter cannot be combined with `context_management` on a create request (the
SDK's own docs for it); count_tokens ignores `compaction`. docs/models.md says why and what is
a choice.
"""

from __future__ import annotations

import copy
from typing import Any

from course_helpers.offline.tokens import input_tokens
from course_helpers.offline.validation.common import fail, is_int, tag_error

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
EDIT_FIELDS = {
    CLEAR_TOOL_USES: {
        "type",
        "trigger",
        "keep",
        "clear_at_least",
        "exclude_tools",
        "clear_tool_inputs",
    },
    CLEAR_THINKING: {"type", "keep"},
    COMPACT: {"type", "instructions", "pause_after_compaction", "trigger"},
}
DEFAULT_TRIGGER = {"type": "input_tokens", "value": 100_000}
DEFAULT_KEEP = {"type": "tool_uses", "value": 3}
DEFAULT_THINKING_KEEP = {"type": "thinking_turns", "value": 1}
COMPACT_MIN_TRIGGER = 50_000
"""The smallest `compact_20260112` trigger the compaction docs allow (the default is 150,000)."""
COMBINED = "compaction: cannot be combined with `context_management`"
"""The course model's words for a request with both (the API's own text is not published)."""
CLEARED = "[cleared to save context]"
"""What a cleared tool result holds (the API's exact wording is not published: docs/models.md)."""


# -- validation ----------------------------------------------------------------------------
def check_context_management(body: dict, endpoint: str = "messages") -> None:
    """Refuse a `context_management` value the SDK's `BetaContextManagementConfigParam` rejects.

    On `messages` (not on `count_tokens`, which ignores `compaction`), refuse it next to the
    top-level `compaction` parameter too.
    """
    if "context_management" not in body or body["context_management"] is None:
        return
    if endpoint == "messages" and body.get("compaction") is not None:
        raise fail(COMBINED)
    config = body["context_management"]
    if not isinstance(config, dict):
        raise fail("context_management: Input should be a valid dictionary")
    for key in config:
        if key != "edits":
            raise fail(f"context_management.{key}: Extra inputs are not permitted")
    edits = config.get("edits", [])
    if not isinstance(edits, list):
        raise fail("context_management.edits: Input should be a valid list")
    for index, edit in enumerate(edits):
        path = f"context_management.edits.{index}"
        if not isinstance(edit, dict):
            raise fail(f"{path}: Input should be a valid dictionary")
        if "type" not in edit:
            raise fail(f"{path}: Unable to extract tag using discriminator 'type'")
        kind = edit["type"]
        if kind not in EDIT_FIELDS:
            raise tag_error(path, kind, EDIT_FIELDS)
        path = f"{path}.{kind}"
        for key in edit:
            if key not in EDIT_FIELDS[kind]:
                raise fail(f"{path}.{key}: Extra inputs are not permitted")
        if kind == CLEAR_TOOL_USES:
            _check_clear_tool_uses(path, edit)
        elif kind == CLEAR_THINKING:
            _check_clear_thinking(path, edit)
        else:
            _check_compact(path, edit)


def _check_counter(path: str, value: Any, tags: tuple[str, ...], *, optional: bool) -> None:
    """`{"type": <one of tags>, "value": int}`; a tagged union when there are several tags."""
    if value is None and optional:
        return
    if not isinstance(value, dict):
        raise fail(f"{path}: Input should be a valid dictionary")
    if len(tags) > 1:
        if "type" not in value:
            raise fail(f"{path}: Unable to extract tag using discriminator 'type'")
        if value["type"] not in tags:
            raise tag_error(path, value["type"], tags)
        path = f"{path}.{value['type']}"
    elif "type" not in value:
        raise fail(f"{path}.type: Field required")
    elif value["type"] != tags[0]:
        raise fail(f"{path}.type: Input should be '{tags[0]}'")
    for key in value:
        if key not in ("type", "value"):
            raise fail(f"{path}.{key}: Extra inputs are not permitted")
    if "value" not in value:
        raise fail(f"{path}.value: Field required")
    if not is_int(value["value"]):
        raise fail(f"{path}.value: Input should be a valid integer")


def _check_names(path: str, value: Any) -> None:
    if not isinstance(value, list):
        raise fail(f"{path}: Input should be a valid list")
    for index, name in enumerate(value):
        if not isinstance(name, str):
            raise fail(f"{path}.{index}: Input should be a valid string")


def _check_clear_tool_uses(path: str, edit: dict) -> None:
    if "trigger" in edit:
        _check_counter(
            f"{path}.trigger", edit["trigger"], ("input_tokens", "tool_uses"), optional=False
        )
    if "keep" in edit:
        _check_counter(f"{path}.keep", edit["keep"], ("tool_uses",), optional=False)
    _check_counter(
        f"{path}.clear_at_least", edit.get("clear_at_least"), ("input_tokens",), optional=True
    )
    if edit.get("exclude_tools") is not None:
        _check_names(f"{path}.exclude_tools", edit["exclude_tools"])
    inputs = edit.get("clear_tool_inputs")
    if inputs is not None and not isinstance(inputs, bool):
        _check_names(f"{path}.clear_tool_inputs", inputs)


def _check_clear_thinking(path: str, edit: dict) -> None:
    """`keep`: "all", `{"type": "all"}` or `{"type": "thinking_turns", "value": int}`."""
    keep = edit.get("keep", "all")
    if keep == "all":
        return
    if isinstance(keep, dict) and keep.get("type") == "all":
        for key in keep:
            if key != "type":
                raise fail(f"{path}.keep.all.{key}: Extra inputs are not permitted")
        return
    _check_counter(f"{path}.keep", keep, ("all", "thinking_turns"), optional=False)


def _check_compact(path: str, edit: dict) -> None:
    if edit.get("instructions") is not None and not isinstance(edit["instructions"], str):
        raise fail(f"{path}.instructions: Input should be a valid string")
    if "pause_after_compaction" in edit and not isinstance(edit["pause_after_compaction"], bool):
        raise fail(f"{path}.pause_after_compaction: Input should be a valid boolean")
    trigger = edit.get("trigger")
    _check_counter(f"{path}.trigger", trigger, ("input_tokens",), optional=True)
    if trigger is not None and trigger["value"] < COMPACT_MIN_TRIGGER:
        raise fail(
            f"{path}.trigger.value: Input should be greater than or equal to {COMPACT_MIN_TRIGGER}"
        )


# -- applying the edits --------------------------------------------------------------------
def apply(body: dict) -> tuple[dict, list[dict] | None]:
    """The body the model reads and the `applied_edits` to report (None: no field sent)."""
    config = body.get("context_management")
    if config is None:
        return body, None
    edited = copy.deepcopy(body)
    edited.pop("context_management")
    applied: list[dict] = []
    for edit in config.get("edits") or []:
        if edit["type"] == CLEAR_TOOL_USES:
            report = _clear_tool_uses(edited, edit)
        elif edit["type"] == CLEAR_THINKING:
            report = _clear_thinking(edited, edit)
        else:
            report = None
        if report is not None:
            applied.append(report)
    return edited, applied


def _tool_uses(messages: list[dict]) -> list[tuple[dict, dict | None]]:
    """Every client `tool_use` block, oldest first, with the `tool_result` answering it."""
    results: dict[str, dict] = {}
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results.setdefault(block.get("tool_use_id"), block)
    pairs = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    pairs.append((block, results.get(block.get("id"))))
    return pairs


def _clear_tool_uses(body: dict, edit: dict) -> dict | None:
    """Clear in place when the edit fires and frees enough; return its report or None."""
    before = input_tokens(body)
    pairs = _tool_uses(body["messages"])
    trigger = edit.get("trigger") or DEFAULT_TRIGGER
    measured = before if trigger["type"] == "input_tokens" else len(pairs)
    if measured <= trigger["value"]:
        return None
    keep = (edit.get("keep") or DEFAULT_KEEP)["value"]
    excluded = set(edit.get("exclude_tools") or ())
    inputs = edit.get("clear_tool_inputs")
    older = pairs[: max(0, len(pairs) - keep)]
    chosen = [(use, result) for use, result in older if use.get("name") not in excluded]
    trial = copy.deepcopy(body)
    trial_pairs = _tool_uses(trial["messages"])
    index_of = {id(use): i for i, (use, _) in enumerate(pairs)}
    for use, _ in chosen:
        trial_use, trial_result = trial_pairs[index_of[id(use)]]
        if trial_result is not None:
            trial_result["content"] = CLEARED
        if inputs is True or (isinstance(inputs, list) and trial_use.get("name") in inputs):
            trial_use["input"] = {}
    freed = before - input_tokens(trial)
    least = edit.get("clear_at_least")
    if not chosen or (least is not None and freed < least["value"]):
        return None
    body["messages"] = trial["messages"]
    return {
        "type": CLEAR_TOOL_USES,
        "cleared_tool_uses": len(chosen),
        "cleared_input_tokens": max(0, freed),
    }


_THINKING = ("thinking", "redacted_thinking")


def _clear_thinking(body: dict, edit: dict) -> dict | None:
    """Drop the thinking blocks of every assistant turn but the last `keep` that hold some."""
    keep = edit.get("keep", DEFAULT_THINKING_KEEP)
    if keep == "all" or keep.get("type") == "all":
        return None
    before = input_tokens(body)
    turns = [
        m
        for m in body["messages"]
        if m.get("role") == "assistant"
        and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") in _THINKING for b in m["content"])
    ]
    older = turns[: max(0, len(turns) - keep["value"])]
    if not older:
        return None
    for message in older:
        message["content"] = [
            b
            for b in message["content"]
            if not (isinstance(b, dict) and b.get("type") in _THINKING)
        ]
    return {
        "type": CLEAR_THINKING,
        "cleared_thinking_turns": len(older),
        "cleared_input_tokens": max(0, before - input_tokens(body)),
    }
