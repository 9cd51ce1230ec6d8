"""Course machinery (offline course model): request validation, as the real Messages API does.

`validate_messages_request(body, endpoint=...)` raises `ApiError` with the status, error type
and message text the real API answers with, so that a learner's broken agent loop fails
offline exactly as it would fail live. It raises on the first problem found, like the API,
which reports one error per request.

One job per module: `surface` (what the SDK's types allow), `fields` (the body, field by
field), `messages` (the messages: shape, roles, pairing), `rules` (rules across fields and
the model's own), `common` (the refusal helpers). This docstring is the reference for all
of them: the order of the checks, and where the wording of each message comes from.

Order of the checks (the API's own order is not documented; this one is chosen so that
shape errors come before meaning errors, and earlier messages before later ones):

1. Shape of the body, field by field (pydantic-style ``path: message``): unknown top-level
   fields (``name: Extra inputs are not permitted``), ``model``, ``max_tokens``,
   ``messages`` (roles, content, every block; ``{"role": "system"}`` on the models that take
   it), ``system``, ``stop_sequences``, ``stream``, ``temperature`` / ``top_p`` / ``top_k``
   (type and range), ``tools``, ``tool_choice``, ``thinking``, ``output_config``,
   ``service_tier``. With an ``anthropic-beta`` header, the SDK's beta block types, tool types
   and fields are accepted. Base64 images are checked against their media type here.
2. Unknown model id: 404 ``not_found_error`` ``model: <id>``.
3. Meaning: blocks allowed per role, empty content, empty and whitespace-only text blocks, tool
   pairing
   (duplicate ids, missing results, orphan results, duplicate results), tool blocks without
   ``tools``, ``tool_choice`` against ``tools``, at most 4 ``cache_control`` blocks and their TTL
   order (no ``1h`` after a ``5m``); then the
   rules of the model
   (``models.CATALOGUE``, sources in docs/models.md), in this order: budget thinking with a
   forced ``tool_choice`` (every model), the thinking types the model accepts, thinking budget
   against ``max_tokens``, forced ``tool_choice``, sampling parameters, ``max_tokens`` against
   the model's maximum, ``effort`` against the model's levels; then thinking blocks sent back
   altered (checked against the course model's own signatures), the thinking block that must
   open the last assistant tool turn (required under manual ``enabled`` thinking; under adaptive
   thinking, asked for or by default, only a block that is there must come first; a
   prefilled final assistant message is held to the same rule), and assistant prefill: on
   models without it, and a prefill ending in whitespace on models with it.
   The prompt against the model's context window is checked by the engine (it needs the
   token count).

Rules and the real reports their wording comes from
---------------------------------------------------
- ``max_tokens: Field required``: tickernelz/opencode-mem#50.
- ``tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'``:
  home-assistant/core#147760, vybestack/llxprt-code#482.
- ``tools: Tool names must be unique.``: anthropics/claude-code#10687, microsoft/vscode#278073.
- Empty content, ``messages.N: all messages must have non-empty content except for the
  optional final assistant message``: anthropics/claude-code#3196, tidyverse/ellmer#709.
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
- Unknown field in a block, ``messages.13.content.0.thinking.cache_control: Extra inputs are not
  permitted`` (Wei-Shaw/sub2api#225, lbjlaq/Antigravity-Manager#96), checked after the block's
  own fields, against the fields of the SDK's request TypedDict for that block type (beta ones
  with a beta header), nested ``tool_result`` blocks too; in a message, ``messages.1.stop_details``
  (activeagent/activeagent#333); in a top-level ``system`` block, ``system.N.foo`` (the form of
  anthropics/claude-code#25597). What is sent back from a response: docs/models.md.
- Unknown block type, pydantic's discriminator error with the tag in the path and the
  expected tags sorted: ``messages.N.content.M: Input tag 'x' found using 'type' does not
  match any of the expected tags: 'bash_code_execution_tool_result', ...`` and for tool
  result content the tags of the SDK's own ``ToolResultBlockParam`` content (reports quoted in
  public code; nested paths carry the tag, e.g.
  ``messages.3.content.0.tool_result.content.0.tool_reference.tool_name: Field required``).
  The list of expected tags is built from the SDK's ``ContentBlockParam`` union.
- ``A maximum of 4 blocks with cache_control may be provided. Found 5.``:
  tghamm/Anthropic.SDK#50, Wei-Shaw/sub2api#176.
- ``messages.0.content.4.cache_control.ttl: a ttl='1h' cache_control block must not come
  after a ttl='5m' cache_control block. Note that blocks are processed in the following order:
  `tools`, `system`, `messages`.``: cnighswonger/claude-code-cache-fix#44,
  headroomlabs-ai/headroom#2939 (the path has no block type tag). The top-level automatic
  breakpoint comes last; its path, ``cache_control.ttl``, is not confirmed (docs/models.md).
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
  when the last assistant message contains a ``tool_use`` and either ``thinking`` is
  ``enabled``, or the model thinks adaptively and the message holds a thinking block that is
  not first; the found type is that message's first block. Altered thinking blocks and their
  wording: docs/models.md.
- A thinking block sent back without its signature (or its text), ``messages.N.content.M.
  thinking.signature: Field required``: lbjlaq/Antigravity-Manager#1790,
  justlovemaki/AIClient2API#437; a redacted one without ``data``, the same wording. An empty
  signature, which the API never writes, gets ``messages.N.content.M: Invalid `signature` in
  `thinking` block`` (kaitranntt/ccs#415 traces that error to a proxy sending ``""``), or the
  "cannot be modified" wording in the latest assistant message, as for an altered block.
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
- Prefill ending in whitespace, ``messages: final assistant content cannot end with trailing
  whitespace``: the full error body is quoted as a live 400 (``claude-haiku-4-5``) in public
  run logs and client code that strips the prefill for it. Checked on the models that take
  prefill, on the final message's last block (a string content is one block).
- A prefilled final assistant message under manual ``enabled`` thinking must open with a
  thinking block (the thinking rule above, whose wording names "a final `assistant`
  message"); under adaptive thinking only a block that is there must come first.
  docs/models.md says why.
- Tool blocks without tools, ``Requests which include `tool_use` or `tool_result` blocks must
  define tools.``: the API's body, quoted verbatim in public code (mock servers reproducing it,
  and summary calls that drop tool blocks because of it). Omitted or empty ``tools``; after
  the pairing checks; on ``count_tokens`` too.
- ``tool_choice may only be specified while providing tools.``: raw Bedrock body quoted in
  public code, and several proxies that strip ``tool_choice`` for it. Applied to
  ``auto``, ``any`` and ``tool`` (one report says any ``tool_choice``); ``none`` is allowed.
- Temperature: ``temperature is deprecated for this model.``: vogler75/monster-mq#168
  (sonnet-5, direct API, 2026-08), cognizant-ai-lab/neuro-san-studio#1072,
  sipeed/picoclaw#2939 (opus-4-7), The-PR-Agent/pr-agent#2456 (opus-4-8, fable-5). Applied
  to the models whose catalogue row refuses sampling parameters, with the same sentence for
  ``top_p`` and ``top_k``; SDK 2.10 and later no longer have these parameters at all, so they only
  arrive through ``extra_body``. Older models check 0..1 (``top_k``: a non-negative int).
- The per-model messages (forced ``tool_choice``, thinking types, ``max_tokens`` above the
  maximum) and their sources: docs/models.md.

Consecutive same-role messages and split tool results
-----------------------------------------------------
A deliberate departure from the general rule. The API merges consecutive same-role messages
instead of rejecting them (the SDK docstring of ``messages``), and the course model accepts
``[user, user]``; but the ``tool_use``/``tool_result`` pairing is checked on the messages
*as sent*, before that merge, so tool calls or results split over two consecutive messages
of one role are refused. Why: the reports below show the live API doing exactly that, and a
stand-in that merged first would let a loop pass offline that fails live. Reports of exactly this: MoonshotAI/kosong#45 (each result
of a parallel call sent as its own user message: "only the first tool_result is adjacent
and the rest trigger ... tool_use ids were found without tool_result blocks immediately
after"), rowboatlabs/rowboat#378 and agentjido/req_llm#250 (same cause, fixed by merging
the results into one message), vybestack/llxprt-code#1302 (a ``tool_use`` left alone in a
second consecutive assistant message is reported missing). So splitting the results of two
parallel calls over two user messages fails with the missing-result error at the assistant
message's index, naming the ids absent from the first of them.

Other decisions
---------------
- ``max_tokens`` 0 is accepted: the SDK (2.10 and later) documents ``0`` as the way to
  pre-warm the prompt cache without generating. Negative values and non-integers are refused.
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
  valid dictionary``, ``...tool_result.content: Input should be a valid list`` (content
  neither string nor list, ``null`` included: the SDK's ``ToolResultBlockParam`` lets you leave
  ``content`` out, never send it empty-handed as ``None``; the same wording as a message's
  content, the last member of the union being a list).
- ``cache_control``: ``<path>.cache_control: Input should be a valid dictionary``, a ``type``
  other than ``ephemeral`` (discriminator error), ``<path>.cache_control.ephemeral.ttl: Input
  should be '5m' or '1h'`` (the SDK's ``CacheControlEphemeralParam`` allows only those two).
  ``<path>`` is where the marker sits: ``tools.N.custom.``, ``system.N.``,
  ``messages.N.content.M.<type>.``, nothing for the top-level automatic marker.
- ``messages: text content blocks must be non-empty`` (an empty text block; seen in public
  code, not in a thread). A whitespace-only one: docs/models.md.
- ``thinking``, ``redacted_thinking``, ``server_tool_use`` and server tool result blocks in a
  user message: the ``tool_use`` wording with the block's own type.
- ``system: Input should be a valid list``, ``system.N.type: Input should be 'text'``,
  ``system.N.text: Field required``; ``stop_sequences: Input should be a valid list``,
  ``stop_sequences.N: Input should be a valid string``; ``stream: Input should be a valid
  boolean``; ``...tool_result.is_error: Input should be a valid boolean`` (the SDK types it
  ``bool``: a string such as ``"yes"`` or a number is refused; ``null``, which the SDK sends
  as it is, counts as leaving the field out, as for ``cache_control``); ``temperature: Input should be a valid number`` / ``... greater than or equal
  to 0`` / ``... less than or equal to 1``.
- Tools: ``tools: Input should be a valid list``, ``tools.N: Input should be a valid
  dictionary``, ``tools.N.custom.name: Field required``, ``tools.N.custom.input_schema:
  Field required`` / ``Input should be a valid dictionary``,
  ``tools.N.custom.input_schema.type: Input should be 'object'``, unknown tool ``type``
  (discriminator error, tags from the SDK's ``ToolUnionParam``), server tool
  ``tools.N.<type>.name: Input should be 'web_search'``, ``tools.N.<type>.max_uses: Input
  should be greater than 0``. After those, a custom tool's schema that fails the draft 2020-12
  meta-schema: ``tools.N.custom.input_schema: JSON schema is invalid. It must match JSON Schema
  draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at
  https://docs.claude.com/en/docs/tool-use.`` (live errors in anthropics/claude-code#63673 and
  #8900; docs/models.md, "Tool input schemas").
- ``tool_choice: Input should be a valid dictionary``, unknown type (discriminator error),
  ``tool_choice.tool.name: Field required``, ``tool_choice.tool.name: Tool 'x' not found in
  provided tools``.
- ``thinking: Input should be a valid dictionary``, unknown type (discriminator error),
  ``thinking.enabled.budget_tokens: Field required``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from course_helpers.offline.models import CATALOGUE
from course_helpers.offline.validation.fields import TOOL_NAME, TOOL_NAME_PATTERN, check_shape
from course_helpers.offline.validation.messages import (
    check_non_empty,
    check_roles_of_blocks,
    check_tool_pairing,
)
from course_helpers.offline.validation.rules import (
    check_cache_control,
    check_model_known,
    check_model_rules,
    check_prefill,
    check_thinking_blocks,
    check_tool_choice_against_tools,
    check_tools_defined,
)
from course_helpers.offline.validation.surface import BETA, GA, KNOWN_MODELS

__all__ = ["KNOWN_MODELS", "TOOL_NAME", "TOOL_NAME_PATTERN", "validate_messages_request"]


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
    surface = BETA if frozenset(betas) else GA

    check_shape(body, generating=generating, surface=surface)
    check_model_known(body["model"])
    spec = CATALOGUE[body["model"]]

    messages = body["messages"]
    check_roles_of_blocks(messages)
    check_non_empty(messages)
    check_tool_pairing(messages)
    check_tools_defined(body)
    check_tool_choice_against_tools(body)
    check_cache_control(body)
    if generating:
        check_model_rules(body, spec)
    check_thinking_blocks(body, spec, generating=generating)
    if generating:
        check_prefill(body, spec)
