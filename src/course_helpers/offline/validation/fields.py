"""Course machinery (offline course model): the shape of a request body, field by field.

One job: refuse a body whose fields the API's pydantic models would refuse, with pydantic's
`path: message` wording: unknown top-level fields, `model`, `max_tokens`, `system`,
`stop_sequences`, `stream`, sampling parameters, `tools`, `tool_choice`, `thinking` and
`output_config`, in that order (the `messages` field is checked by `messages.py`, in its
place in the order). The wording of each message and its source: the package docstring.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator

from course_helpers.offline.validation.common import (
    check_effort_shape,
    fail,
    is_int,
    is_number,
    tag_error,
    tagged_kind,
)
from course_helpers.offline.validation.messages import check_extra_fields, check_messages_shape
from course_helpers.offline.validation.output_schema import subset_error
from course_helpers.offline.validation.surface import Surface

TOOL_NAME_PATTERN = "^[a-zA-Z0-9_-]{1,128}$"
"""The API's rule for a tool's name (also what notebook 02's check holds a learner's tool to)."""
TOOL_NAME = re.compile(TOOL_NAME_PATTERN)
MIN_THINKING_BUDGET = 1024
_TOOL_CHOICE_TYPES = frozenset({"auto", "any", "tool", "none"})
_THINKING_TYPES = frozenset({"enabled", "disabled", "adaptive", "between_tools"})
_SERVICE_TIERS = ("auto", "standard_only")


OUTPUT_FORMAT_DEPRECATED = (
    "output_format: This field is deprecated. Use 'output_config.format' instead. See "
    "https://platform.claude.com/docs/en/build-with-claude/structured-outputs for more "
    "information."
)


def check_shape(body: Any, *, generating: bool, surface: Surface) -> None:
    if not isinstance(body, dict):
        raise fail("Input should be a valid dictionary")
    _check_known_fields(body, generating=generating, surface=surface)
    _check_model_field(body)
    if generating:
        _check_max_tokens(body)
    check_messages_shape(body, surface)
    _check_system(body, surface)
    _check_stop_sequences(body)
    if generating:
        _check_stream(body)
        _check_sampling_ranges(body)
    _check_tools_shape(body, surface)
    _check_tool_choice_shape(body)
    _check_thinking_shape(body)
    _check_output_config_shape(body)
    _check_service_tier(body)


def _check_known_fields(body: dict, *, generating: bool, surface: Surface) -> None:
    """Unknown top-level fields: `name: Extra inputs are not permitted`.

    `thread` is left to the server layer (its own rejection lets the SDK's tool runner fall
    back). count_tokens also accepts the create fields (clients reuse one body for both).
    """
    allowed = surface.create_fields | {"thread"}
    if not generating:
        allowed = allowed | surface.count_fields
    for key in body:
        if key == "output_format" and key not in allowed:
            # The structured-outputs beta's field, moved to output_config.format: the API names
            # its successor (langchain4j/langchain4j#4521; docs/models.md).
            raise fail(OUTPUT_FORMAT_DEPRECATED)
        if key not in allowed:
            raise fail(f"{key}: Extra inputs are not permitted")


def _check_model_field(body: dict) -> None:
    if "model" not in body:
        raise fail("model: Field required")
    if not isinstance(body["model"], str):
        raise fail("model: Input should be a valid string")


def _check_max_tokens(body: dict) -> None:
    if "max_tokens" not in body:
        raise fail("max_tokens: Field required")
    value = body["max_tokens"]
    if not is_int(value):
        raise fail("max_tokens: Input should be a valid integer")
    if value < 0:
        raise fail("max_tokens: Input should be greater than or equal to 0")


def _check_system(body: dict, surface: Surface) -> None:
    system = body.get("system")
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise fail("system: Input should be a valid list")
    for index, block in enumerate(system):
        path = f"system.{index}"
        if not isinstance(block, dict):
            raise fail(f"{path}: Input should be a valid dictionary")
        if block.get("type") != "text":
            raise fail(f"{path}.type: Input should be 'text'")
        if "text" not in block:
            raise fail(f"{path}.text: Field required")
        if not isinstance(block["text"], str):
            raise fail(f"{path}.text: Input should be a valid string")
        check_extra_fields(path, block, surface.system_block_fields)


def _check_stop_sequences(body: dict) -> None:
    if "stop_sequences" not in body:
        return
    sequences = body["stop_sequences"]
    if not isinstance(sequences, list):
        raise fail("stop_sequences: Input should be a valid list")
    for index, sequence in enumerate(sequences):
        if not isinstance(sequence, str):
            raise fail(f"stop_sequences.{index}: Input should be a valid string")


def _check_stream(body: dict) -> None:
    if "stream" in body and not isinstance(body["stream"], bool):
        raise fail("stream: Input should be a valid boolean")


def _check_sampling_ranges(body: dict) -> None:
    for name in ("temperature", "top_p"):
        if name not in body:
            continue
        value = body[name]
        if not is_number(value):
            raise fail(f"{name}: Input should be a valid number")
        if value < 0:
            raise fail(f"{name}: Input should be greater than or equal to 0")
        if value > 1:
            raise fail(f"{name}: Input should be less than or equal to 1")
    if "top_k" in body:
        if not is_int(body["top_k"]):
            raise fail("top_k: Input should be a valid integer")
        if body["top_k"] < 0:
            raise fail("top_k: Input should be greater than or equal to 0")


def _check_tools_shape(body: dict, surface: Surface) -> None:
    if "tools" not in body:
        return
    tools = body["tools"]
    if not isinstance(tools, list):
        raise fail("tools: Input should be a valid list")
    for index, tool in enumerate(tools):
        _check_tool_definition(index, tool, surface)
    names = [tool["name"] for tool in tools if "name" in tool]
    if len(names) != len(set(names)):
        raise fail("tools: Tool names must be unique.")
    for index, tool in enumerate(tools):
        if (tool.get("type") or "custom") != "custom":
            continue
        if not _meets_meta_schema(tool["input_schema"]):
            raise fail(f"tools.{index}.custom.input_schema: {SCHEMA_INVALID}")
        # A strict tool's schema is held to the structured-outputs subset; live reports
        # quote these refusals with the tool's own path, `tools.N.custom:` (docs/models.md).
        error = subset_error(tool["input_schema"]) if tool.get("strict") is True else None
        if error:
            raise fail(f"tools.{index}.custom: {error}")


SCHEMA_INVALID = (
    "JSON schema is invalid. It must match JSON Schema draft 2020-12 "
    "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
    "https://docs.claude.com/en/docs/tool-use."
)
_META = Draft202012Validator(Draft202012Validator.META_SCHEMA)  # no format assertions


def _meets_meta_schema(schema: dict) -> bool:
    """Whether a tool's input schema is a draft 2020-12 schema: the meta-schema's own rules
    (keyword shapes), nothing more. A `$ref` that leads nowhere, `minimum` above `maximum` or a
    pattern Python cannot compile pass, as the meta-schema lets them."""
    try:
        return bool(_META.is_valid(schema))
    except RecursionError:
        return True  # too deep to check here: no evidence that the API refuses it


def _check_tool_definition(index: int, tool: Any, surface: Surface) -> None:
    path = f"tools.{index}"
    if not isinstance(tool, dict):
        raise fail(f"{path}: Input should be a valid dictionary")
    kind = tool.get("type") or "custom"
    if kind not in surface.tool_types:
        raise tag_error(path, kind, surface.tool_types)
    if kind == "custom":
        _check_custom_tool(f"{path}.custom", tool, surface)
    else:
        _check_server_tool(f"{path}.{kind}", kind, tool, surface)


def _check_custom_tool(path: str, tool: dict, surface: Surface) -> None:
    if "name" not in tool:
        raise fail(f"{path}.name: Field required")
    name = tool["name"]
    if not isinstance(name, str):
        raise fail(f"{path}.name: Input should be a valid string")
    if not TOOL_NAME.match(name):
        raise fail(f"{path}.name: String should match pattern '{TOOL_NAME_PATTERN}'")
    if "input_schema" not in tool:
        raise fail(f"{path}.input_schema: Field required")
    schema = tool["input_schema"]
    if not isinstance(schema, dict):
        raise fail(f"{path}.input_schema: Input should be a valid dictionary")
    if schema.get("type") != "object":
        raise fail(f"{path}.input_schema.type: Input should be 'object'")
    for key in tool:
        if key not in surface.custom_tool_fields:
            raise fail(f"{path}.{key}: Extra inputs are not permitted")


def _check_server_tool(path: str, kind: str, tool: dict, surface: Surface) -> None:
    expected = surface.server_tool_names[kind]
    if "name" not in surface.tool_types[kind]:
        pass  # a tool type without a name (e.g. an MCP toolset)
    elif "name" not in tool:
        raise fail(f"{path}.name: Field required")
    if expected and tool["name"] not in expected:
        listed = " or ".join(f"'{name}'" for name in expected)
        raise fail(f"{path}.name: Input should be {listed}")
    max_uses = tool.get("max_uses")
    if max_uses is None:
        return
    if not is_int(max_uses):
        raise fail(f"{path}.max_uses: Input should be a valid integer")
    if max_uses < 1:
        raise fail(f"{path}.max_uses: Input should be greater than 0")


def _check_tool_choice_shape(body: dict) -> None:
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    tagged_kind("tool_choice", choice, _TOOL_CHOICE_TYPES)
    if choice["type"] == "tool":
        if "name" not in choice:
            raise fail("tool_choice.tool.name: Field required")
        if not isinstance(choice["name"], str):
            raise fail("tool_choice.tool.name: Input should be a valid string")


def _check_service_tier(body: dict) -> None:
    if "service_tier" in body and body["service_tier"] not in _SERVICE_TIERS:
        raise fail("service_tier: Input should be 'auto' or 'standard_only'")


def _check_output_config_shape(body: dict) -> None:
    if "output_config" not in body or body["output_config"] is None:
        return
    config = body["output_config"]
    if not isinstance(config, dict):
        raise fail("output_config: Input should be a valid dictionary")
    check_effort_shape("output_config", config)
    fmt = config.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise fail("output_config.format: Input should be a valid dictionary")
    if fmt.get("type") != "json_schema":
        raise fail("output_config.format.type: Input should be 'json_schema'")
    if "schema" not in fmt:
        raise fail("output_config.format.schema: Field required")
    schema = fmt["schema"]
    if not isinstance(schema, dict):
        raise fail("output_config.format.schema: Input should be a valid dictionary")
    # No public report quotes the API on an output schema that is not draft 2020-12: the
    # wording of the tools' refusal is the closest one documented, with this field's path.
    if not _meets_meta_schema(schema):
        raise fail(f"output_config.format.schema: {SCHEMA_INVALID}")
    error = subset_error(schema)
    if error:
        raise fail(f"output_config.format.schema: {error}")


def _check_thinking_shape(body: dict) -> None:
    if "thinking" not in body:
        return
    thinking = body["thinking"]
    tagged_kind("thinking", thinking, _THINKING_TYPES)
    if thinking["type"] != "enabled":
        return
    if "budget_tokens" not in thinking:
        raise fail("thinking.enabled.budget_tokens: Field required")
    budget = thinking["budget_tokens"]
    if not is_int(budget):
        raise fail("thinking.enabled.budget_tokens: Input should be a valid integer")
    if budget < MIN_THINKING_BUDGET:
        raise fail(
            "thinking.enabled.budget_tokens: Input should be greater than or equal to "
            f"{MIN_THINKING_BUDGET}"
        )
