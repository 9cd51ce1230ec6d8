"""Course machinery (offline course model): what a Messages request may contain, per the SDK.

One job: read the SDK's own types once, at import, into the sets the checks compare against:
the content block tags, the tool types and their fields, the fields of a create and of a
count_tokens request, for the GA surface and for the beta one (with an `anthropic-beta` header).
Read from the types, not copied, so a new SDK brings its new blocks and tools with it.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from anthropic.types import ContentBlockParam, Model, ToolParam, ToolUnionParam
from anthropic.types import message_count_tokens_params as _count_params
from anthropic.types import message_create_params as _create_params
from anthropic.types.beta import (
    BetaContentBlockParam,
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


def _type_tags(union: Any) -> dict[str, dict[str, Any]]:
    """Map each member's `type` tag to its resolved field annotations."""
    tags: dict[str, dict[str, Any]] = {}
    for member in get_args(union):
        if get_origin(member) in (typing.Union, typing.Annotated) or not isinstance(member, type):
            tags.update({k: v for k, v in _type_tags(member).items() if k not in tags})
            continue
        hints = _hints(member)
        for tag in _literals(hints.get("type")):
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


def _result_content_tags(block_param: Any) -> frozenset[str]:
    content = typing.get_type_hints(block_param)["content"]
    iterable = next(arg for arg in get_args(content) if arg is not str)
    return frozenset(_type_tags(get_args(iterable)[0]))


@dataclass(frozen=True)
class Surface:
    """What the request may contain: the GA types, or the beta ones (an `anthropic-beta` sent)."""

    block_types: frozenset[str]
    tool_types: dict[str, dict[str, Any]]
    custom_tool_fields: frozenset[str]
    result_content_types: frozenset[str]
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
    create_fields=_fields(_create_params.MessageCreateParamsBase) - _HEADER_FIELDS | _EXTRA_FIELDS,
    count_fields=_fields(_count_params.MessageCountTokensParams) - _HEADER_FIELDS,
)
BETA = Surface(
    block_types=GA.block_types | frozenset(_type_tags(BetaContentBlockParam)),
    tool_types={**_type_tags(BetaToolUnionParam), **GA.tool_types},
    custom_tool_fields=GA.custom_tool_fields | _fields(BetaToolParam),
    result_content_types=GA.result_content_types | _result_content_tags(BetaToolResultBlockParam),
    create_fields=GA.create_fields
    | (_fields(_beta_create_params.MessageCreateParamsBase) - _HEADER_FIELDS),
    count_fields=GA.count_fields
    | (_fields(_beta_count_params.MessageCountTokensParams) - _HEADER_FIELDS),
)
BLOCK_TYPES = GA.block_types
