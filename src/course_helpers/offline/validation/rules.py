"""Course machinery (offline course model): the rules that read several fields, and the model's.

One job: what is refused once every field has a valid shape: an unknown model (404),
`tool_choice` against `tools`, the count of `cache_control` breakpoints, then the rules of the
model (`models.CATALOGUE`, sources in docs/models.md) in the documented order, the thinking
block that must open the last assistant tool turn, and assistant prefill. The wording of each
message and its source: the package docstring.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_helpers.offline.conversation import blocks_of
from course_helpers.offline.errors import ApiError
from course_helpers.offline.models import SAMPLING_PARAMS, ModelSpec
from course_helpers.offline.validation.common import fail
from course_helpers.offline.validation.surface import KNOWN_MODELS

_THINKING_BLOCKS = ("thinking", "redacted_thinking")
MAX_CACHE_CONTROL_BLOCKS = 4

THINKING_WITH_FORCED_TOOL = "Thinking may not be enabled when tool_choice forces tool use."
FORCED_TOOL_UNSUPPORTED = "tool_choice forces tool use is not compatible with this model."
PREFILL_UNSUPPORTED = (
    "This model does not support assistant message prefill. "
    "The conversation must end with a user message."
)
THINKING_FIRST = (
    "Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is "
    "enabled, a final `assistant` message must start with a thinking block (preceeding the "
    "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking "
    "blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
    "consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


def check_model_known(model: str) -> None:
    if model not in KNOWN_MODELS:
        raise ApiError(404, f"model: {model}")


def check_tool_choice_against_tools(body: dict) -> None:
    choice = body.get("tool_choice")
    if choice is None or choice["type"] == "none":
        return
    tools = body.get("tools") or []
    if not tools:
        raise fail("tool_choice may only be specified while providing tools.")
    if choice["type"] == "tool" and choice["name"] not in {tool["name"] for tool in tools}:
        raise fail(f"tool_choice.tool.name: Tool '{choice['name']}' not found in provided tools")


def _cache_control_carriers(body: dict) -> Iterator[Any]:
    """Everything that can carry a `cache_control` breakpoint."""
    yield body
    yield from body.get("tools") or []
    if isinstance(body.get("system"), list):
        yield from body["system"]
    for message in body["messages"]:
        if isinstance(message["content"], str):
            continue
        for block in message["content"]:
            yield block
            if block["type"] == "tool_result" and isinstance(block.get("content"), list):
                yield from block["content"]


def check_cache_control_count(body: dict) -> None:
    found = sum(
        1
        for carrier in _cache_control_carriers(body)
        if isinstance(carrier, dict) and carrier.get("cache_control") is not None
    )
    if found > MAX_CACHE_CONTROL_BLOCKS:
        raise fail(
            f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be "
            f"provided. Found {found}."
        )


def check_model_rules(body: dict, spec: ModelSpec) -> None:
    """The rules that depend on the model (see `models.CATALOGUE`), in this order."""
    thinking = body.get("thinking")
    kind = thinking["type"] if thinking is not None else None
    choice = body.get("tool_choice")
    forced = choice is not None and choice["type"] in ("any", "tool") and bool(body.get("tools"))
    if kind == "enabled" and forced:
        raise fail(THINKING_WITH_FORCED_TOOL)
    if kind is not None and kind not in spec.thinking_types:
        raise fail(_thinking_refusal(kind, spec))
    if kind == "enabled" and thinking["budget_tokens"] >= body["max_tokens"]:
        raise fail("`max_tokens` must be greater than `thinking.budget_tokens`.")
    if forced and not spec.forced_tool_choice:
        raise fail(FORCED_TOOL_UNSUPPORTED)
    if not spec.sampling_params:
        for name in SAMPLING_PARAMS:
            if name in body:
                raise fail(f"{name} is deprecated for this model.")
    if body["max_tokens"] > spec.max_output_tokens:
        raise fail(
            f"max_tokens: {body['max_tokens']} > {spec.max_output_tokens}, which is the maximum "
            f"allowed number of output tokens for {spec.id}"
        )


def _thinking_refusal(kind: str, spec: ModelSpec) -> str:
    if kind == "adaptive":
        return "adaptive thinking is not supported on this model"
    refused = f'"thinking.type.{kind}" is not supported for this model.'
    if kind == "enabled":
        return (
            f'{refused} Use "thinking.type.adaptive" and "output_config.effort" to control '
            "thinking behavior."
        )
    off = spec.thinking_off_type
    if off is not None:
        return f'{refused} Use "thinking.type.{off}" to turn thinking off on this model.'
    if spec.thinks_by_default:
        return f"{refused} Thinking cannot be turned off on this model."
    return refused


def check_thinking_opens_tool_turn(body: dict, spec: ModelSpec) -> None:
    """When the model thinks (asked to, or by default), the last tool turn opens with thinking."""
    if not spec.thinks(body.get("thinking")):
        return
    messages = body["messages"]
    assistant_indexes = [i for i, message in enumerate(messages) if message["role"] == "assistant"]
    if not assistant_indexes:
        return
    index = assistant_indexes[-1]
    blocks = blocks_of(messages[index])
    if not any(block["type"] == "tool_use" for block in blocks):
        return
    explicit = (body.get("thinking") or {}).get("type") == "enabled"
    only_calls = all(block["type"] == "tool_use" for block in blocks)
    if spec.forced_tool_choice and not explicit and only_calls:
        # What a forced tool_choice produces on a model that accepts one and thinks adaptively
        # (by default or asked): the call opens the turn, with no thinking block. Sent back
        # whole, it is valid. A model that refuses forced tool use never wrote such a turn, so
        # there a turn without its thinking block is a history the loop cut.
        return
    first = blocks[0]["type"]
    if first not in _THINKING_BLOCKS:
        raise fail(f"messages.{index}.content.0.type: {THINKING_FIRST.format(found=first)}")


def check_prefill(body: dict, spec: ModelSpec) -> None:
    last = body["messages"][-1]
    if last["role"] != "assistant" or spec.prefill:
        return
    if any(block["type"] == "server_tool_use" for block in blocks_of(last)):
        return  # resuming a `pause_turn`: the paused assistant turn is sent back as is
    raise fail(PREFILL_UNSUPPORTED)
