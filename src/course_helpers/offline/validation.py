"""Request validation for the offline course model, matching the real Messages API.

`validate_messages_request(body, endpoint=...)` raises `ApiError` with the status, error type
and message text the real API answers with, so that a learner's broken agent loop fails
offline exactly as it would fail live. It raises on the first problem found, like the API,
which reports one error per request.

Order of the checks (the API's own order is not documented; this one is chosen so that
shape errors come before meaning errors, and earlier messages before later ones):

1. Shape of the body, field by field (pydantic-style ``path: message``): unknown top-level
   fields (``name: Extra inputs are not permitted``), ``model``, ``max_tokens``,
   ``messages`` (roles, content, every block; ``{"role": "system"}`` on the models that take
   it), ``system``, ``stop_sequences``, ``stream``, ``temperature`` / ``top_p`` / ``top_k``
   (type and range), ``tools``, ``tool_choice``, ``thinking``, ``output_config``. With an
   ``anthropic-beta`` header, the SDK's beta block types, tool types and fields are accepted.
2. Unknown model id: 404 ``not_found_error`` ``model: <id>``.
3. Meaning: blocks allowed per role, empty content, empty text blocks, tool pairing
   (duplicate ids, missing results, orphan results, duplicate results), ``tool_choice``
   against ``tools``, at most 4 ``cache_control`` blocks; then the rules of the model
   (``models.CATALOGUE``, sources in docs/models.md), in this order: budget thinking with a
   forced ``tool_choice`` (every model), the thinking types the model accepts, thinking budget
   against ``max_tokens``, forced ``tool_choice``, sampling parameters, ``max_tokens`` against
   the model's maximum; the thinking block that must open the last assistant tool turn (when
   the model thinks: asked to, or by default; with adaptive thinking, on a model that accepts a
   forced ``tool_choice``, a turn made only of ``tool_use`` blocks is accepted, as a forced call
   returns no thinking block), and assistant prefill on models without it.
   The prompt against the model's context window is checked by the engine (it needs the
   token count).

Rules and the real reports their wording comes from
---------------------------------------------------
- ``max_tokens: Field required``; ``tools.0.custom.name: String should match pattern
  '^[a-zA-Z0-9_-]{1,128}$'``; ``tools: Tool names must be unique.``; the empty-content
  message: /work/shared/messages-api-notes.md.
- Unknown model, 404 ``not_found_error`` ``model: <id>``: carlrannaberg/claudekit#18,
  martymcenroe/AssemblyZero#649, continuedev/continue#11538.
- Missing result, ``messages.N: `tool_use` ids were found without `tool_result` blocks
  immediately after: ...``: anthropics/claude-code#5060; several ids joined by ``", "``:
  anthropics/claude-code#5989.
- Orphan result, ``messages.N.content.M: unexpected `tool_use_id` found in `tool_result`
  blocks: ...``: anthropics/claude-code#13460, router-for-me/CLIProxyAPI#497.
- Results not first. The old ``Did not find N `tool_result` block(s) at the beginning of
  this message...`` (anthropics/claude-code#37, early 2025) is gone: text placed before the
  results now gets the missing-result message at the assistant's index
  (shareAI-lab/learn-claude-code#142, 2026-03). So only the leading run of ``tool_result``
  blocks of the next message answers a ``tool_use``.
- Duplicate result, ``messages.N.content.M: each tool_use must have a single result. Found
  multiple `tool_result` blocks with id: ...``: sipeed/picoclaw#1793 (quoted in full in a
  public test suite).
- Duplicate ``tool_use`` ids, ``messages.N.content.M: `tool_use` ids must be unique``:
  reported through OpenRouter from every backend, and matched verbatim by Claude Code.
- ``tool_result`` in an assistant message, ``messages.N: `tool_result` blocks can only be in
  `user` messages``, and ``tool_use`` in a user message, ``messages.N: `tool_use` blocks can
  only be in `assistant` messages``: both quoted as live 400s in public code.
- Role: ``messages: Unexpected role "system". The Messages API accepts a top-level `system`
  parameter, not "system" as an input message role.`` (on models without mid-conversation
  system messages); any other role: ``messages:
  Unexpected role "tool". Allowed roles are "user" or "assistant".`` (quoted as live 400s).
- Unknown block type, pydantic's discriminator error with the tag in the path and the
  expected tags sorted: ``messages.N.content.M: Input tag 'x' found using 'type' does not
  match any of the expected tags: 'bash_code_execution_tool_result', ...`` and for tool
  result content the tags of the SDK's own ``ToolResultBlockParam`` content (reports quoted in
  public code; nested paths carry the tag, e.g.
  ``messages.3.content.0.tool_result.content.0.tool_reference.tool_name: Field required``).
  The list of expected tags is built from the SDK's ``ContentBlockParam`` union.
- ``A maximum of 4 blocks with cache_control may be provided. Found 5.``:
  tghamm/Anthropic.SDK#50, Wei-Shaw/sub2api#176.
- ``thinking.enabled.budget_tokens: Input should be greater than or equal to 1024``:
  danny-avila/LibreChat#8346. ```max_tokens` must be greater than
  `thinking.budget_tokens`.``: quoted as a full error body in public tests.
- Thinking with tools: ``messages.N.content.0.type: Expected `thinking` or
  `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant`
  message must start with a thinking block (preceeding the lastmost set of `tool_use` and
  `tool_result` blocks). We recommend you include thinking blocks from previous turns. To
  avoid this requirement, disable `thinking`. Please consult our documentation at
  https://docs.claude.com/en/docs/build-with-claude/extended-thinking`` (the API's own
  spelling of "preceeding"): Kilo-Org/kilocode#5219, anomalyco/opencode#3077 (2026). Applied
  when ``thinking`` is ``enabled`` or ``adaptive`` and the last assistant message contains a
  ``tool_use``; the found type is that message's first block.
- Prefill: ``This model does not support assistant message prefill. The conversation must
  end with a user message.``: smallmain/vscode-unify-chat-provider#249 (full body),
  cortexkit/magic-context#511 (Sonnet 4.6, Sonnet 5), Tarquinen/opencode-dynamic-context-
  pruning#520 (claude-sonnet-4-6 on api.anthropic.com), ericc-ch/copilot-api#261 (4.6, 4.7,
  4.8 refuse, 4.5 accepts), vybestack/llxprt-code#3695 (Fable 5). Applied to every model of
  the 5 family and to 4.6, 4.7 and 4.8; 4.5 models and ``claude-mythos-preview`` keep
  prefill. Any final assistant message counts, not only one ending with text, because the
  message says the conversation must end with a user message. Exception: a final assistant
  message holding a ``server_tool_use`` block is the resumption of a ``pause_turn`` and is
  accepted. ``count_tokens`` generates nothing, so prefill is not checked there.
- ``tool_choice may only be specified while providing tools.``: raw Bedrock body quoted in
  public code, and several proxies that strip ``tool_choice`` for it. Applied to
  ``auto``, ``any`` and ``tool`` (one report says any ``tool_choice``); ``none`` is allowed.
- Temperature: ``temperature is deprecated for this model.``: vogler75/monster-mq#168
  (sonnet-5, direct API, 2026-08), cognizant-ai-lab/neuro-san-studio#1072,
  sipeed/picoclaw#2939 (opus-4-7), The-PR-Agent/pr-agent#2456 (opus-4-8, fable-5). Applied
  to the models whose catalogue row refuses sampling parameters, with the same sentence for
  ``top_p`` and ``top_k``; SDK 2.10 no longer has these parameters at all, so they only
  arrive through ``extra_body``. Older models check 0..1 (``top_k``: a non-negative int).
- The per-model messages (forced ``tool_choice``, thinking types, ``max_tokens`` above the
  maximum) and their sources: docs/models.md.

Consecutive same-role messages and split tool results
-----------------------------------------------------
The API merges consecutive same-role messages instead of rejecting them (SDK 2.10 docstring
of ``messages``), but the ``tool_use``/``tool_result`` pairing is checked on the messages
*as sent*, before that merge. Reports of exactly this: MoonshotAI/kosong#45 (each result
of a parallel call sent as its own user message: "only the first tool_result is adjacent
and the rest trigger ... tool_use ids were found without tool_result blocks immediately
after"), rowboatlabs/rowboat#378 and agentjido/req_llm#250 (same cause, fixed by merging
the results into one message), vybestack/llxprt-code#1302 (a ``tool_use`` left alone in a
second consecutive assistant message is reported missing). So splitting the results of two
parallel calls over two user messages fails with the missing-result error at the assistant
message's index, naming the ids absent from the first of them.

Other decisions
---------------
- ``max_tokens`` 0 is accepted: SDK 2.10 documents ``0`` as the way to pre-warm the prompt
  cache without generating. Negative values and non-integers are refused.
- Unknown keys are accepted in messages and content blocks (the SDK's response blocks only
  carry fields the request types also have, and ``None`` fields are dropped); custom tool
  definitions are strict, as the API is (``tools.N.custom.x: Extra inputs are not
  permitted``), and so is the top level of the body. ``thread`` is left to the server layer
  (its own rejection lets the SDK's tool runner fall back).
- ``cache_control`` is counted on tools, system blocks, message blocks, blocks nested in
  ``tool_result`` content, and the top-level automatic ``cache_control``; ``None`` does not
  count.
- Between pairing errors, the lower message index wins; within a user message, its blocks
  are checked in order.

Messages not confirmed from real reports
----------------------------------------
Written in the API's pydantic style (``path: message``), from pydantic's own texts:
- body not an object: ``Input should be a valid dictionary``.
- ``model: Field required``, ``model: Input should be a valid string``.
- ``max_tokens: Input should be a valid integer``, ``max_tokens: Input should be greater
  than or equal to 0``.
- ``messages: Field required``, ``messages: Input should be a valid list``,
  ``messages: at least one message is required`` (empty list),
  ``messages.N: Input should be a valid dictionary``, ``messages.N.role: Field required``,
  ``messages.N.content: Field required``, ``messages.N.content: Input should be a valid
  list`` (content neither string nor list).
- Block shapes: ``messages.N.content.M: Input should be a valid dictionary``, ``...:
  Unable to extract tag using discriminator 'type'``, ``...text.text: Field required`` /
  ``Input should be a valid string``, ``...tool_result.tool_use_id: Field required``,
  ``...tool_use.id|name|input: Field required``, ``...tool_use.input: Input should be a
  valid dictionary``, ``...tool_result.content: Input should be a valid list``.
- ``messages: text content blocks must be non-empty`` (an empty text block; seen in public
  code, not in a thread).
- ``thinking``, ``redacted_thinking``, ``server_tool_use`` and server tool result blocks in a
  user message: the ``tool_use`` wording with the block's own type.
- ``system: Input should be a valid list``, ``system.N.type: Input should be 'text'``,
  ``system.N.text: Field required``; ``stop_sequences: Input should be a valid list``,
  ``stop_sequences.N: Input should be a valid string``; ``stream: Input should be a valid
  boolean``; ``temperature: Input should be a valid number`` / ``... greater than or equal
  to 0`` / ``... less than or equal to 1``.
- Tools: ``tools: Input should be a valid list``, ``tools.N: Input should be a valid
  dictionary``, ``tools.N.custom.name: Field required``, ``tools.N.custom.input_schema:
  Field required`` / ``Input should be a valid dictionary``,
  ``tools.N.custom.input_schema.type: Input should be 'object'``, unknown tool ``type``
  (discriminator error, tags from the SDK's ``ToolUnionParam``), server tool
  ``tools.N.<type>.name: Input should be 'web_search'``, ``tools.N.<type>.max_uses: Input
  should be greater than 0``.
- ``tool_choice: Input should be a valid dictionary``, unknown type (discriminator error),
  ``tool_choice.tool.name: Field required``, ``tool_choice.tool.name: Tool 'x' not found in
  provided tools``.
- ``thinking: Input should be a valid dictionary``, unknown type (discriminator error),
  ``thinking.enabled.budget_tokens: Field required``.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterable, Iterator
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

from .errors import ApiError, invalid_request
from .models import CATALOGUE, SAMPLING_PARAMS, ModelSpec

__all__ = ["KNOWN_MODELS", "validate_messages_request"]


# --------------------------------------------------------------------------- SDK-derived sets


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
class _Surface:
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
# Accepted as fields (SDK 2.10 dropped them; older models still take them through extra_body).
_EXTRA_FIELDS = frozenset({"stream", *SAMPLING_PARAMS})

_GA = _Surface(
    block_types=frozenset(_type_tags(ContentBlockParam)),
    tool_types=_type_tags(ToolUnionParam),
    custom_tool_fields=_fields(ToolParam),
    result_content_types=frozenset(_type_tags(_ToolResultContent)),
    create_fields=_fields(_create_params.MessageCreateParamsBase) - _HEADER_FIELDS | _EXTRA_FIELDS,
    count_fields=_fields(_count_params.MessageCountTokensParams) - _HEADER_FIELDS,
)
_BETA = _Surface(
    block_types=_GA.block_types | frozenset(_type_tags(BetaContentBlockParam)),
    tool_types={**_type_tags(BetaToolUnionParam), **_GA.tool_types},
    custom_tool_fields=_GA.custom_tool_fields | _fields(BetaToolParam),
    result_content_types=_GA.result_content_types | _result_content_tags(BetaToolResultBlockParam),
    create_fields=_GA.create_fields
    | (_fields(_beta_create_params.MessageCreateParamsBase) - _HEADER_FIELDS),
    count_fields=_GA.count_fields
    | (_fields(_beta_count_params.MessageCountTokensParams) - _HEADER_FIELDS),
)
_BLOCK_TYPES = _GA.block_types
_TOOL_CHOICE_TYPES = frozenset({"auto", "any", "tool", "none"})
_THINKING_TYPES = frozenset({"enabled", "disabled", "adaptive", "between_tools"})

_USER_ONLY_BLOCKS = frozenset({"tool_result"})
_ASSISTANT_ONLY_BLOCKS = frozenset(
    {"tool_use", "thinking", "redacted_thinking", "server_tool_use"}
    | {t for t in _BLOCK_TYPES if t.endswith("_tool_result") and t != "tool_result"}
)
_THINKING_BLOCKS = ("thinking", "redacted_thinking")

_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_TOOL_NAME_PATTERN = "^[a-zA-Z0-9_-]{1,128}$"
MAX_CACHE_CONTROL_BLOCKS = 4
MIN_THINKING_BUDGET = 1024

EMPTY_CONTENT = (
    "all messages must have non-empty content except for the optional final assistant message"
)
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


# --------------------------------------------------------------------------- small helpers


def _fail(message: str) -> ApiError:
    return invalid_request(message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _tag_error(path: str, tag: Any, expected: Iterable[str]) -> ApiError:
    listed = ", ".join(f"'{name}'" for name in sorted(expected))
    return _fail(
        f"{path}: Input tag '{tag}' found using 'type' does not match any of the expected "
        f"tags: {listed}"
    )


def _blocks(message: dict) -> list[dict]:
    """The content blocks of an already shape-checked message (a string is one text block)."""
    content = message["content"]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content


# --------------------------------------------------------------------------- entry point


def validate_messages_request(
    body: Any, *, endpoint: str = "messages", betas: Iterable[str] = ()
) -> None:
    """Raise `ApiError` when the real API would reject `body` (endpoint: messages|count_tokens).

    `betas` are the names of the request's `anthropic-beta` header: with any, the beta block
    types, tool types and fields are accepted too.
    """
    if endpoint not in ("messages", "count_tokens"):
        raise ValueError(f"unknown endpoint {endpoint!r}")
    generating = endpoint == "messages"
    surface = _BETA if frozenset(betas) else _GA

    _check_shape(body, generating=generating, surface=surface)
    _check_model_known(body["model"])
    spec = CATALOGUE[body["model"]]

    messages = body["messages"]
    _check_roles_of_blocks(messages)
    _check_non_empty(messages)
    _check_tool_pairing(messages)
    _check_tool_choice_against_tools(body)
    _check_cache_control_count(body)
    if generating:
        _check_model_rules(body, spec)
    _check_thinking_opens_tool_turn(body, spec)
    if generating:
        _check_prefill(body, spec)


# --------------------------------------------------------------------------- 1. shape


def _check_shape(body: Any, *, generating: bool, surface: _Surface) -> None:
    if not isinstance(body, dict):
        raise _fail("Input should be a valid dictionary")
    _check_known_fields(body, generating=generating, surface=surface)
    _check_model_field(body)
    if generating:
        _check_max_tokens(body)
    _check_messages_shape(body, surface)
    _check_system(body)
    _check_stop_sequences(body)
    if generating:
        _check_stream(body)
        _check_sampling_ranges(body)
    _check_tools_shape(body, surface)
    _check_tool_choice_shape(body)
    _check_thinking_shape(body)
    _check_output_config_shape(body)


def _check_known_fields(body: dict, *, generating: bool, surface: _Surface) -> None:
    """Unknown top-level fields: `name: Extra inputs are not permitted`.

    `thread` is left to the server layer (its own rejection lets the SDK's tool runner fall
    back). count_tokens also accepts the create fields (clients reuse one body for both).
    """
    allowed = surface.create_fields | {"thread"}
    if not generating:
        allowed = allowed | surface.count_fields
    for key in body:
        if key not in allowed:
            raise _fail(f"{key}: Extra inputs are not permitted")


def _check_model_field(body: dict) -> None:
    if "model" not in body:
        raise _fail("model: Field required")
    if not isinstance(body["model"], str):
        raise _fail("model: Input should be a valid string")


def _check_max_tokens(body: dict) -> None:
    if "max_tokens" not in body:
        raise _fail("max_tokens: Field required")
    value = body["max_tokens"]
    if not _is_int(value):
        raise _fail("max_tokens: Input should be a valid integer")
    if value < 0:
        raise _fail("max_tokens: Input should be greater than or equal to 0")


def _check_messages_shape(body: dict, surface: _Surface) -> None:
    if "messages" not in body:
        raise _fail("messages: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _fail("messages: Input should be a valid list")
    if not messages:
        raise _fail("messages: at least one message is required")
    spec = CATALOGUE.get(body.get("model"))  # type: ignore[arg-type]
    system_role = spec is not None and spec.system_role
    for index, message in enumerate(messages):
        _check_message_shape(index, message, surface, system_role=system_role)


def _check_message_shape(index: int, message: Any, surface: _Surface, *, system_role: bool) -> None:
    path = f"messages.{index}"
    if not isinstance(message, dict):
        raise _fail(f"{path}: Input should be a valid dictionary")
    if "role" not in message:
        raise _fail(f"{path}.role: Field required")
    role = message["role"]
    if role == "system" and system_role:
        _check_system_message(path, message)
        return
    if role == "system":
        raise _fail(
            'messages: Unexpected role "system". The Messages API accepts a top-level '
            '`system` parameter, not "system" as an input message role.'
        )
    if role not in ("user", "assistant"):
        raise _fail(f'messages: Unexpected role "{role}". Allowed roles are "user" or "assistant".')
    for position, block in enumerate(_content_list(path, message)):
        _check_block_shape(f"{path}.content.{position}", block, surface)


def _content_list(path: str, message: dict) -> list:
    """A message's content blocks; a string is one text block and needs no further check."""
    if "content" not in message:
        raise _fail(f"{path}.content: Field required")
    content = message["content"]
    if isinstance(content, str):
        return []
    if not isinstance(content, list):
        raise _fail(f"{path}.content: Input should be a valid list")
    return content


def _check_system_message(path: str, message: dict) -> None:
    """A mid-conversation `{"role": "system"}` entry: a string or text blocks, like `system`."""
    for position, block in enumerate(_content_list(path, message)):
        block_path = f"{path}.content.{position}"
        if not isinstance(block, dict):
            raise _fail(f"{block_path}: Input should be a valid dictionary")
        if block.get("type") != "text":
            raise _fail(f"{block_path}.type: Input should be 'text'")
        _check_text_block(f"{block_path}.text", block)


def _check_block_shape(path: str, block: Any, surface: _Surface) -> None:
    if not isinstance(block, dict):
        raise _fail(f"{path}: Input should be a valid dictionary")
    if "type" not in block:
        raise _fail(f"{path}: Unable to extract tag using discriminator 'type'")
    kind = block["type"]
    if kind not in surface.block_types:
        raise _tag_error(path, kind, surface.block_types)
    if kind == "text":
        _check_text_block(f"{path}.text", block)
    elif kind == "tool_use":
        _check_tool_use_block(f"{path}.tool_use", block)
    elif kind == "tool_result":
        _check_tool_result_block(f"{path}.tool_result", block, surface)


def _check_text_block(path: str, block: dict) -> None:
    if "text" not in block:
        raise _fail(f"{path}.text: Field required")
    if not isinstance(block["text"], str):
        raise _fail(f"{path}.text: Input should be a valid string")


def _check_tool_use_block(path: str, block: dict) -> None:
    for field in ("id", "name", "input"):
        if field not in block:
            raise _fail(f"{path}.{field}: Field required")
    for field in ("id", "name"):
        if not isinstance(block[field], str):
            raise _fail(f"{path}.{field}: Input should be a valid string")
    if not isinstance(block["input"], dict):
        raise _fail(f"{path}.input: Input should be a valid dictionary")


def _check_tool_result_block(path: str, block: dict, surface: _Surface) -> None:
    if "tool_use_id" not in block:
        raise _fail(f"{path}.tool_use_id: Field required")
    if not isinstance(block["tool_use_id"], str):
        raise _fail(f"{path}.tool_use_id: Input should be a valid string")
    content = block.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _fail(f"{path}.content: Input should be a valid list")
    for position, inner in enumerate(content):
        inner_path = f"{path}.content.{position}"
        if not isinstance(inner, dict):
            raise _fail(f"{inner_path}: Input should be a valid dictionary")
        if "type" not in inner:
            raise _fail(f"{inner_path}: Unable to extract tag using discriminator 'type'")
        if inner["type"] not in surface.result_content_types:
            raise _tag_error(inner_path, inner["type"], surface.result_content_types)
        if inner["type"] == "text":
            _check_text_block(f"{inner_path}.text", inner)


def _check_system(body: dict) -> None:
    system = body.get("system")
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise _fail("system: Input should be a valid list")
    for index, block in enumerate(system):
        path = f"system.{index}"
        if not isinstance(block, dict):
            raise _fail(f"{path}: Input should be a valid dictionary")
        if block.get("type") != "text":
            raise _fail(f"{path}.type: Input should be 'text'")
        if "text" not in block:
            raise _fail(f"{path}.text: Field required")
        if not isinstance(block["text"], str):
            raise _fail(f"{path}.text: Input should be a valid string")


def _check_stop_sequences(body: dict) -> None:
    if "stop_sequences" not in body:
        return
    sequences = body["stop_sequences"]
    if not isinstance(sequences, list):
        raise _fail("stop_sequences: Input should be a valid list")
    for index, sequence in enumerate(sequences):
        if not isinstance(sequence, str):
            raise _fail(f"stop_sequences.{index}: Input should be a valid string")


def _check_stream(body: dict) -> None:
    if "stream" in body and not isinstance(body["stream"], bool):
        raise _fail("stream: Input should be a valid boolean")


def _check_sampling_ranges(body: dict) -> None:
    for name in ("temperature", "top_p"):
        if name not in body:
            continue
        value = body[name]
        if not _is_number(value):
            raise _fail(f"{name}: Input should be a valid number")
        if value < 0:
            raise _fail(f"{name}: Input should be greater than or equal to 0")
        if value > 1:
            raise _fail(f"{name}: Input should be less than or equal to 1")
    if "top_k" in body:
        if not _is_int(body["top_k"]):
            raise _fail("top_k: Input should be a valid integer")
        if body["top_k"] < 0:
            raise _fail("top_k: Input should be greater than or equal to 0")


def _check_tools_shape(body: dict, surface: _Surface) -> None:
    if "tools" not in body:
        return
    tools = body["tools"]
    if not isinstance(tools, list):
        raise _fail("tools: Input should be a valid list")
    for index, tool in enumerate(tools):
        _check_tool_definition(index, tool, surface)
    names = [tool["name"] for tool in tools if "name" in tool]
    if len(names) != len(set(names)):
        raise _fail("tools: Tool names must be unique.")


def _check_tool_definition(index: int, tool: Any, surface: _Surface) -> None:
    path = f"tools.{index}"
    if not isinstance(tool, dict):
        raise _fail(f"{path}: Input should be a valid dictionary")
    kind = tool.get("type") or "custom"
    if kind not in surface.tool_types:
        raise _tag_error(path, kind, surface.tool_types)
    if kind == "custom":
        _check_custom_tool(f"{path}.custom", tool, surface)
    else:
        _check_server_tool(f"{path}.{kind}", kind, tool, surface)


def _check_custom_tool(path: str, tool: dict, surface: _Surface) -> None:
    if "name" not in tool:
        raise _fail(f"{path}.name: Field required")
    name = tool["name"]
    if not isinstance(name, str):
        raise _fail(f"{path}.name: Input should be a valid string")
    if not _TOOL_NAME.match(name):
        raise _fail(f"{path}.name: String should match pattern '{_TOOL_NAME_PATTERN}'")
    if "input_schema" not in tool:
        raise _fail(f"{path}.input_schema: Field required")
    schema = tool["input_schema"]
    if not isinstance(schema, dict):
        raise _fail(f"{path}.input_schema: Input should be a valid dictionary")
    if schema.get("type") != "object":
        raise _fail(f"{path}.input_schema.type: Input should be 'object'")
    for key in tool:
        if key not in surface.custom_tool_fields:
            raise _fail(f"{path}.{key}: Extra inputs are not permitted")


def _check_server_tool(path: str, kind: str, tool: dict, surface: _Surface) -> None:
    expected = surface.server_tool_names[kind]
    if "name" not in surface.tool_types[kind]:
        pass  # a tool type without a name (e.g. an MCP toolset)
    elif "name" not in tool:
        raise _fail(f"{path}.name: Field required")
    if expected and tool["name"] not in expected:
        listed = " or ".join(f"'{name}'" for name in expected)
        raise _fail(f"{path}.name: Input should be {listed}")
    max_uses = tool.get("max_uses")
    if max_uses is None:
        return
    if not _is_int(max_uses):
        raise _fail(f"{path}.max_uses: Input should be a valid integer")
    if max_uses < 1:
        raise _fail(f"{path}.max_uses: Input should be greater than 0")


def _check_tool_choice_shape(body: dict) -> None:
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    if not isinstance(choice, dict):
        raise _fail("tool_choice: Input should be a valid dictionary")
    if "type" not in choice:
        raise _fail("tool_choice: Unable to extract tag using discriminator 'type'")
    if choice["type"] not in _TOOL_CHOICE_TYPES:
        raise _tag_error("tool_choice", choice["type"], _TOOL_CHOICE_TYPES)
    if choice["type"] == "tool":
        if "name" not in choice:
            raise _fail("tool_choice.tool.name: Field required")
        if not isinstance(choice["name"], str):
            raise _fail("tool_choice.tool.name: Input should be a valid string")


def _check_output_config_shape(body: dict) -> None:
    if "output_config" not in body or body["output_config"] is None:
        return
    config = body["output_config"]
    if not isinstance(config, dict):
        raise _fail("output_config: Input should be a valid dictionary")
    effort = config.get("effort")
    if effort is not None and effort not in _EFFORTS:
        listed = ", ".join(f"'{e}'" for e in _EFFORTS[:-1]) + f" or '{_EFFORTS[-1]}'"
        raise _fail(f"output_config.effort: Input should be {listed}")
    fmt = config.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise _fail("output_config.format: Input should be a valid dictionary")
    if fmt.get("type") != "json_schema":
        raise _fail("output_config.format.type: Input should be 'json_schema'")
    if "schema" not in fmt:
        raise _fail("output_config.format.schema: Field required")
    if not isinstance(fmt["schema"], dict):
        raise _fail("output_config.format.schema: Input should be a valid dictionary")


def _check_thinking_shape(body: dict) -> None:
    if "thinking" not in body:
        return
    thinking = body["thinking"]
    if not isinstance(thinking, dict):
        raise _fail("thinking: Input should be a valid dictionary")
    if "type" not in thinking:
        raise _fail("thinking: Unable to extract tag using discriminator 'type'")
    if thinking["type"] not in _THINKING_TYPES:
        raise _tag_error("thinking", thinking["type"], _THINKING_TYPES)
    if thinking["type"] != "enabled":
        return
    if "budget_tokens" not in thinking:
        raise _fail("thinking.enabled.budget_tokens: Field required")
    budget = thinking["budget_tokens"]
    if not _is_int(budget):
        raise _fail("thinking.enabled.budget_tokens: Input should be a valid integer")
    if budget < MIN_THINKING_BUDGET:
        raise _fail(
            "thinking.enabled.budget_tokens: Input should be greater than or equal to "
            f"{MIN_THINKING_BUDGET}"
        )


# --------------------------------------------------------------------------- 2. model


def _check_model_known(model: str) -> None:
    if model not in KNOWN_MODELS:
        raise ApiError(404, f"model: {model}")


# --------------------------------------------------------------------------- 3. meaning


def _check_roles_of_blocks(messages: list[dict]) -> None:
    for index, message in enumerate(messages):
        role = message["role"]
        for block in _blocks(message):
            kind = block["type"]
            if role == "assistant" and kind in _USER_ONLY_BLOCKS:
                raise _fail(f"messages.{index}: `{kind}` blocks can only be in `user` messages")
            if role == "user" and kind in _ASSISTANT_ONLY_BLOCKS:
                raise _fail(
                    f"messages.{index}: `{kind}` blocks can only be in `assistant` messages"
                )


def _check_non_empty(messages: list[dict]) -> None:
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if message["content"] in ("", []) and not (
            index == last and message["role"] == "assistant"
        ):
            raise _fail(f"messages.{index}: {EMPTY_CONTENT}")
        for block in _blocks(message):
            if block["type"] == "text" and block["text"] == "" and message["content"] != "":
                raise _fail("messages: text content blocks must be non-empty")


def _tool_use_ids(message: dict) -> list[str]:
    return [block["id"] for block in _blocks(message) if block["type"] == "tool_use"]


def _leading_result_ids(message: dict | None) -> set[str]:
    """Ids of the `tool_result` blocks that open `message` (only those answer a `tool_use`)."""
    if message is None or message["role"] != "user":
        return set()
    ids: set[str] = set()
    for block in _blocks(message):
        if block["type"] != "tool_result":
            break
        ids.add(block["tool_use_id"])
    return ids


def _check_tool_pairing(messages: list[dict]) -> None:
    """Pairing runs on the messages as sent, before consecutive same-role messages merge."""
    seen_tool_use: set[str] = set()
    for index, message in enumerate(messages):
        if message["role"] == "assistant":
            _check_unique_tool_use(index, message, seen_tool_use)
            following = messages[index + 1] if index + 1 < len(messages) else None
            if following is not None:
                _check_results_follow(index, message, following)
        else:
            previous = messages[index - 1] if index > 0 else None
            _check_results_answer(index, message, previous)


def _check_unique_tool_use(index: int, message: dict, seen: set[str]) -> None:
    for position, block in enumerate(_blocks(message)):
        if block["type"] != "tool_use":
            continue
        if block["id"] in seen:
            raise _fail(f"messages.{index}.content.{position}: `tool_use` ids must be unique")
        seen.add(block["id"])


def _check_results_follow(index: int, message: dict, following: dict) -> None:
    answered = _leading_result_ids(following)
    missing = [tool_id for tool_id in _tool_use_ids(message) if tool_id not in answered]
    if missing:
        raise _fail(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )


def _check_results_answer(index: int, message: dict, previous: dict | None) -> None:
    asked = set(_tool_use_ids(previous)) if previous and previous["role"] == "assistant" else set()
    answered: set[str] = set()
    for position, block in enumerate(_blocks(message)):
        if block["type"] != "tool_result":
            continue
        tool_id = block["tool_use_id"]
        path = f"messages.{index}.content.{position}"
        if tool_id not in asked:
            raise _fail(
                f"{path}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_id}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the "
                "previous message."
            )
        if tool_id in answered:
            raise _fail(
                f"{path}: each tool_use must have a single result. Found multiple "
                f"`tool_result` blocks with id: {tool_id}"
            )
        answered.add(tool_id)


def _check_tool_choice_against_tools(body: dict) -> None:
    choice = body.get("tool_choice")
    if choice is None or choice["type"] == "none":
        return
    tools = body.get("tools") or []
    if not tools:
        raise _fail("tool_choice may only be specified while providing tools.")
    if choice["type"] == "tool" and choice["name"] not in {tool["name"] for tool in tools}:
        raise _fail(f"tool_choice.tool.name: Tool '{choice['name']}' not found in provided tools")


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


def _check_cache_control_count(body: dict) -> None:
    found = sum(
        1
        for carrier in _cache_control_carriers(body)
        if isinstance(carrier, dict) and carrier.get("cache_control") is not None
    )
    if found > MAX_CACHE_CONTROL_BLOCKS:
        raise _fail(
            f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be "
            f"provided. Found {found}."
        )


def _check_model_rules(body: dict, spec: ModelSpec) -> None:
    """The rules that depend on the model (see `models.CATALOGUE`), in this order."""
    thinking = body.get("thinking")
    kind = thinking["type"] if thinking is not None else None
    choice = body.get("tool_choice")
    forced = choice is not None and choice["type"] in ("any", "tool") and bool(body.get("tools"))
    if kind == "enabled" and forced:
        raise _fail(THINKING_WITH_FORCED_TOOL)
    if kind is not None and kind not in spec.thinking_types:
        raise _fail(_thinking_refusal(kind, spec))
    if kind == "enabled" and thinking["budget_tokens"] >= body["max_tokens"]:
        raise _fail("`max_tokens` must be greater than `thinking.budget_tokens`.")
    if forced and not spec.forced_tool_choice:
        raise _fail(FORCED_TOOL_UNSUPPORTED)
    if not spec.sampling_params:
        for name in SAMPLING_PARAMS:
            if name in body:
                raise _fail(f"{name} is deprecated for this model.")
    if body["max_tokens"] > spec.max_output_tokens:
        raise _fail(
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


def _check_thinking_opens_tool_turn(body: dict, spec: ModelSpec) -> None:
    """When the model thinks (asked to, or by default), the last tool turn opens with thinking."""
    if not spec.thinks(body.get("thinking")):
        return
    messages = body["messages"]
    assistant_indexes = [i for i, message in enumerate(messages) if message["role"] == "assistant"]
    if not assistant_indexes:
        return
    index = assistant_indexes[-1]
    blocks = _blocks(messages[index])
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
        raise _fail(f"messages.{index}.content.0.type: {THINKING_FIRST.format(found=first)}")


def _check_prefill(body: dict, spec: ModelSpec) -> None:
    last = body["messages"][-1]
    if last["role"] != "assistant" or spec.prefill:
        return
    if any(block["type"] == "server_tool_use" for block in _blocks(last)):
        return  # resuming a `pause_turn`: the paused assistant turn is sent back as is
    raise _fail(PREFILL_UNSUPPORTED)
