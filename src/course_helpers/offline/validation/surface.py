"""Course machinery (offline course model): what a Messages request may contain, per the SDK.

One job: read the SDK's own types once, at import, into the sets the checks compare against:
the content block tags and each one's fields, the message fields, the tool types and their
fields, the fields of a create and of a count_tokens request, for the GA surface and for the
beta one (with an `anthropic-beta` header).
Read from the types, not copied, so a new SDK brings its new blocks and tools with it.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from anthropic.types import (
    ContentBlockParam,
    MessageParam,
    Model,
    TextBlockParam,
    ToolParam,
    ToolUnionParam,
)
from anthropic.types import message_count_tokens_params as _count_params
from anthropic.types import message_create_params as _create_params
from anthropic.types.beta import (
    BetaContentBlockParam,
    BetaMessageParam,
    BetaTextBlockParam,
    BetaToolParam,
    BetaToolResultBlockParam,
    BetaToolUnionParam,
)
from anthropic.types.beta import message_count_tokens_params as _beta_count_params
from anthropic.types.beta import message_create_params as _beta_create_params
from anthropic.types.tool_result_block_param import Content as _ToolResultContent

from course_helpers.offline.models import SAMPLING_PARAMS


def _literals(annotation: Any) -> list[Any]:
    """Every value of the `Literal[...]` types inside an annotation (through Union/Optional)."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return [value for arg in get_args(annotation) for value in _literals(arg)]


def _type_tags(union: Any, key: str = "type") -> dict[str, dict[str, Any]]:
    """Map each member's `type` tag (or its `key` tag) to its resolved field annotations."""
    tags: dict[str, dict[str, Any]] = {}
    for member in get_args(union):
        if get_origin(member) in (typing.Union, typing.Annotated) or not isinstance(member, type):
            tags.update({k: v for k, v in _type_tags(member, key).items() if k not in tags})
            continue
        hints = _hints(member)
        for tag in _literals(hints.get(key)):
            tags[tag] = hints
    return tags


def _hints(kind: Any) -> dict[str, Any]:
    """Field annotations of a TypedDict or of a pydantic model (SDK response blocks)."""
    fields = getattr(kind, "model_fields", None)
    if fields is not None:
        return {name: field.annotation for name, field in fields.items()}
    return typing.get_type_hints(kind)


KNOWN_MODELS: frozenset[str] = frozenset(_literals(Model))
"""Every model id of the SDK's `anthropic.types.Model` literal."""


def _fields(*types: Any) -> frozenset[str]:
    return frozenset(name for kind in types for name in _hints(kind))


def _tag_fields(union: Any, key: str = "type") -> dict[str, frozenset[str]]:
    """Each tag of a request union and the field names its TypedDict declares."""
    return {tag: frozenset(hints) for tag, hints in _type_tags(union, key).items()}


def _result_content_fields(block_param: Any) -> dict[str, frozenset[str]]:
    content = typing.get_type_hints(block_param)["content"]
    iterable = next(arg for arg in get_args(content) if arg is not str)
    return _tag_fields(get_args(iterable)[0])


def _joined(*maps: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Per tag, the fields either surface allows (the beta types add fields, never remove)."""
    tags = {tag for fields in maps for tag in fields}
    return {tag: frozenset().union(*(m.get(tag, frozenset()) for m in maps)) for tag in tags}


@dataclass(frozen=True)
class Surface:
    """What the request may contain: the GA types, or the beta ones (an `anthropic-beta` sent).

    `block_fields` maps each content block type to the fields its request TypedDict declares
    (`ThinkingBlockParam`: `type`, `thinking`, `signature`; no `cache_control`), and the same
    for `result_content_fields` (blocks inside a `tool_result`), `message_fields` (per role)
    and `system_block_fields` (a block of the top-level `system`).
    """

    block_types: frozenset[str]
    tool_types: dict[str, dict[str, Any]]
    custom_tool_fields: frozenset[str]
    result_content_types: frozenset[str]
    block_fields: dict[str, frozenset[str]]
    result_content_fields: dict[str, frozenset[str]]
    message_fields: dict[str, frozenset[str]]
    system_block_fields: frozenset[str]
    create_fields: frozenset[str]
    count_fields: frozenset[str]

    @property
    def server_tool_names(self) -> dict[str, list[Any]]:
        return {
            tag: _literals(hints.get("name"))
            for tag, hints in self.tool_types.items()
            if tag != "custom"
        }


# Request fields that the SDK sends as headers, never in the body.
_HEADER_FIELDS = frozenset({"betas", "workspace_id"})
# Accepted as fields (the SDK dropped them in 2.10; older models still take them through extra_body).
_EXTRA_FIELDS = frozenset({"stream", *SAMPLING_PARAMS})

GA = Surface(
    block_types=frozenset(_type_tags(ContentBlockParam)),
    tool_types=_type_tags(ToolUnionParam),
    custom_tool_fields=_fields(ToolParam),
    result_content_types=frozenset(_type_tags(_ToolResultContent)),
    block_fields=_tag_fields(ContentBlockParam),
    result_content_fields=_tag_fields(_ToolResultContent),
    message_fields=_tag_fields(MessageParam, "role"),
    system_block_fields=_fields(TextBlockParam),
    create_fields=_fields(_create_params.MessageCreateParamsBase) - _HEADER_FIELDS | _EXTRA_FIELDS,
    count_fields=_fields(_count_params.MessageCountTokensParams) - _HEADER_FIELDS,
)
BETA = Surface(
    block_types=GA.block_types | frozenset(_type_tags(BetaContentBlockParam)),
    tool_types={**_type_tags(BetaToolUnionParam), **GA.tool_types},
    custom_tool_fields=GA.custom_tool_fields | _fields(BetaToolParam),
    result_content_types=GA.result_content_types
    | frozenset(_result_content_fields(BetaToolResultBlockParam)),
    block_fields=_joined(GA.block_fields, _tag_fields(BetaContentBlockParam)),
    result_content_fields=_joined(
        GA.result_content_fields, _result_content_fields(BetaToolResultBlockParam)
    ),
    message_fields=_joined(GA.message_fields, _tag_fields(BetaMessageParam, "role")),
    system_block_fields=GA.system_block_fields | _fields(BetaTextBlockParam),
    create_fields=GA.create_fields
    | (_fields(_beta_create_params.MessageCreateParamsBase) - _HEADER_FIELDS),
    count_fields=GA.count_fields
    | (_fields(_beta_count_params.MessageCountTokensParams) - _HEADER_FIELDS),
)
BLOCK_TYPES = GA.block_types
