"""Course machinery (offline course model): the rules that read several fields, and the model's.

One job: what is refused once every field has a valid shape: an unknown model (404),
`tool_choice` against `tools`, the shape, count and TTL order of `cache_control` breakpoints,
then the rules of the model (`models.CATALOGUE`, sources in docs/models.md) in the documented
order, the thinking block that must open the last assistant tool turn, and assistant prefill.
The wording of each message and its source: the package docstring.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_helpers.offline.conversation import blocks_of
from course_helpers.offline.errors import ApiError
from course_helpers.offline.models import SAMPLING_PARAMS, TOP_EFFORTS, ModelSpec
from course_helpers.offline.signatures import altered
from course_helpers.offline.validation.common import fail, is_number, tag_error
from course_helpers.offline.validation.surface import KNOWN_MODELS

_THINKING_BLOCKS = ("thinking", "redacted_thinking")
MAX_CACHE_CONTROL_BLOCKS = 4
# The SDK's CacheControlEphemeralParam: type "ephemeral", ttl "5m" (the default) or "1h".
CACHE_CONTROL_TYPE = "ephemeral"
CACHE_TTLS = ("5m", "1h")

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
THINKING_MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)
INVALID_SIGNATURE = "Invalid `signature` in `thinking` block"
PREFILL_TRAILING_WHITESPACE = (
    "messages: final assistant content cannot end with trailing whitespace"
)
TOOLS_UNDEFINED = "Requests which include `tool_use` or `tool_result` blocks must define tools."
EFFORT_UNSUPPORTED = "This model does not support the effort parameter."
TTL_ORDER = (
    "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
    "Note that blocks are processed in the following order: `tools`, `system`, `messages`."
)


def check_model_known(model: str) -> None:
    if model not in KNOWN_MODELS:
        raise ApiError(404, f"model: {model}")


def check_tools_defined(body: dict) -> None:
    """A history holding `tool_use` or `tool_result` blocks needs `tools` in the request."""
    if body.get("tools"):
        return
    for message in body["messages"]:
        if any(block["type"] in ("tool_use", "tool_result") for block in blocks_of(message)):
            raise fail(TOOLS_UNDEFINED)


def check_tool_choice_against_tools(body: dict) -> None:
    choice = body.get("tool_choice")
    if choice is None or choice["type"] == "none":
        return
    tools = body.get("tools") or []
    if not tools:
        raise fail("tool_choice may only be specified while providing tools.")
    if choice["type"] == "tool" and choice["name"] not in {tool["name"] for tool in tools}:
        raise fail(f"tool_choice.tool.name: Tool '{choice['name']}' not found in provided tools")


def _cache_control_carriers(body: dict) -> Iterator[tuple[str, str, Any]]:
    """Everything that can carry a `cache_control` breakpoint, in the order the API reads them.

    Each comes with two paths: the one shape errors name (with the block's type, as pydantic
    writes it) and the plain one the TTL-order error names (`messages.0.content.4.`).
    """
    yield "", "", body
    for index, tool in enumerate(body.get("tools") or []):
        yield f"tools.{index}.{tool.get('type') or 'custom'}.", f"tools.{index}.", tool
    if isinstance(body.get("system"), list):
        for index, block in enumerate(body["system"]):
            yield f"system.{index}.", f"system.{index}.", block
    for number, message in enumerate(body["messages"]):
        content = message.get("content")  # a system message may carry only `output_config`
        if not isinstance(content, list):
            continue
        for position, block in enumerate(content):
            plain = f"messages.{number}.content.{position}."
            path = f"{plain}{block['type']}."
            yield path, plain, block
            if block["type"] == "tool_result" and isinstance(block.get("content"), list):
                for inner, nested in enumerate(block["content"]):
                    tagged = f"{path}content.{inner}.{nested.get('type')}."
                    yield tagged, f"{plain}content.{inner}.", nested


def check_cache_control(body: dict) -> None:
    """Each `cache_control` is an ephemeral breakpoint with a TTL the API offers; at most four.

    The top-level marker (automatic caching) counts as one of the four. Its shape is checked
    first; its breakpoint lands on the last cacheable block, after every block marker, which
    is where the TTL order (no `1h` after a `5m`) checks it.
    """
    found = 0
    markers: list[tuple[str, str]] = []  # (plain path, ttl) of the block markers, in order
    for path, plain, carrier in _cache_control_carriers(body):
        marker = carrier.get("cache_control") if isinstance(carrier, dict) else None
        if marker is None:
            continue
        found += 1
        if not isinstance(marker, dict):
            raise fail(f"{path}cache_control: Input should be a valid dictionary")
        if marker.get("type") != CACHE_CONTROL_TYPE:
            raise tag_error(f"{path}cache_control", marker.get("type"), [CACHE_CONTROL_TYPE])
        if marker.get("ttl") is not None and marker["ttl"] not in CACHE_TTLS:
            listed = " or ".join(f"'{ttl}'" for ttl in CACHE_TTLS)
            raise fail(f"{path}cache_control.{CACHE_CONTROL_TYPE}.ttl: Input should be {listed}")
        if carrier is not body:
            markers.append((plain, marker.get("ttl") or "5m"))
    if found > MAX_CACHE_CONTROL_BLOCKS:
        raise fail(
            f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be "
            f"provided. Found {found}."
        )
    automatic = body.get("cache_control")
    if automatic is not None:
        markers.append(("", automatic.get("ttl") or "5m"))
    _check_ttl_order(markers)


def _check_ttl_order(markers: list[tuple[str, str]]) -> None:
    """A `1h` breakpoint may not follow a `5m` one (tools, then system, then messages)."""
    seen_short = False
    for plain, ttl in markers:
        if ttl == "1h" and seen_short:
            raise fail(f"{plain}cache_control.ttl: {TTL_ORDER}")
        seen_short = seen_short or ttl == "5m"


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
            # `temperature` at its default (1.0) is still taken, for older clients that always
            # send it; any other value, and any `top_p` or `top_k`, is refused.
            default = name == "temperature" and is_number(body.get(name)) and body[name] == 1
            if name in body and not default:
                raise fail(f"{name} is deprecated for this model.")
    if body["max_tokens"] > spec.max_output_tokens:
        raise fail(
            f"max_tokens: {body['max_tokens']} > {spec.max_output_tokens}, which is the maximum "
            f"allowed number of output tokens for {spec.id}"
        )
    for path, effort in _efforts(body):
        _check_effort(path, effort, kind, spec)


def _efforts(body: dict) -> Iterator[tuple[str, str]]:
    """Every `effort` the request sets: top level, and per turn in system messages."""
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None:
        yield "output_config.effort", effort
    for index, message in enumerate(body["messages"]):
        config = message.get("output_config") if message["role"] == "system" else None
        if isinstance(config, dict) and config.get("effort") is not None:
            yield f"messages.{index}.output_config.effort", config["effort"]


def _check_effort(path: str, effort: str, thinking: str | None, spec: ModelSpec) -> None:
    if not spec.effort_levels:
        raise fail(EFFORT_UNSUPPORTED)
    if effort not in spec.effort_levels:
        accepted = ", ".join(f"'{level}'" for level in _ordered(spec.effort_levels))
        raise fail(f"{path}: '{effort}' is not supported by this model. Use one of {accepted}.")
    thinking_off = thinking is not None and thinking in ("disabled", "between_tools")
    if spec.caps_effort_without_thinking and thinking_off and effort in TOP_EFFORTS:
        raise fail(
            f"{path} '{effort}' is not supported when thinking is disabled on this model. "
            "Use effort 'high' or below, or enable thinking."
        )


def _ordered(levels: frozenset[str]) -> list[str]:
    order = ("low", "medium", "high", "xhigh", "max")
    return [level for level in order if level in levels]


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


def check_thinking_blocks(body: dict, spec: ModelSpec, *, generating: bool = True) -> None:
    """Thinking blocks come back unaltered; the last tool turn opens with its thinking block.

    Manual thinking (`enabled`) makes that block mandatory. With adaptive thinking (asked for,
    or by default) the model may skip thinking, so a tool turn without a thinking block is a
    history it can write; a thinking block that is there must still come first. A final
    assistant message (prefill, on the models that take it) is held to the same rule: it is
    the turn the model goes on writing.
    """
    messages = body["messages"]
    assistant_indexes = [i for i, message in enumerate(messages) if message["role"] == "assistant"]
    if not assistant_indexes:
        return
    last = assistant_indexes[-1]
    for index in assistant_indexes:
        for position, block in enumerate(blocks_of(messages[index])):
            # An empty signature was never written by the API: it cannot be checked, so refused.
            if block["type"] == "thinking" and (not block["signature"] or altered(block)):
                wording = THINKING_MODIFIED if index == last else INVALID_SIGNATURE
                raise fail(f"messages.{index}.content.{position}: {wording}")
    if not spec.thinks(body.get("thinking")):
        return
    blocks = blocks_of(messages[last])
    prefilled = generating and spec.prefill and last == len(messages) - 1 and bool(blocks)
    if not prefilled and not any(block["type"] == "tool_use" for block in blocks):
        return
    first = blocks[0]["type"]
    if first in _THINKING_BLOCKS:
        return
    manual = (body.get("thinking") or {}).get("type") == "enabled"
    thought = any(block["type"] in _THINKING_BLOCKS for block in blocks)
    if manual or thought:
        raise fail(f"messages.{last}.content.0.type: {THINKING_FIRST.format(found=first)}")


def check_prefill(body: dict, spec: ModelSpec) -> None:
    last = body["messages"][-1]
    if last["role"] != "assistant":
        return
    blocks = blocks_of(last)
    if any(block["type"] == "server_tool_use" for block in blocks):
        return  # resuming a `pause_turn`: the paused assistant turn is sent back as is
    if not spec.prefill:
        raise fail(PREFILL_UNSUPPORTED)
    if (
        blocks
        and blocks[-1]["type"] == "text"
        and blocks[-1]["text"] != blocks[-1]["text"].rstrip()
    ):
        raise fail(PREFILL_TRAILING_WHITESPACE)
