"""Course machinery (offline course model): the rules of the `messages` list.

One job: everything the API checks inside `messages`. First their shape (roles, content, every
block and the blocks nested in a `tool_result`, and no field their request types lack;
`{"role": "system"}` on the models that take it), called from the field-by-field pass in its place; then their meaning, once the model is
known: which blocks each role may hold, empty content and empty text blocks, and the
`tool_use` / `tool_result` pairing, checked on the messages as sent (before the API merges
consecutive same-role messages). The wording of each message and its source: the package
docstring.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from course_helpers.offline.conversation import blocks_of
from course_helpers.offline.models import CATALOGUE
from course_helpers.offline.validation.common import check_effort_shape, fail, tagged_kind
from course_helpers.offline.validation.surface import BETA, BLOCK_TYPES, Surface

_USER_ONLY_BLOCKS = frozenset({"tool_result"})
_ASSISTANT_ONLY_BLOCKS = frozenset(
    {"tool_use", "thinking", "redacted_thinking", "server_tool_use"}
    | {t for t in BLOCK_TYPES if t.endswith("_tool_result") and t != "tool_result"}
)
EMPTY_CONTENT = (
    "all messages must have non-empty content except for the optional final assistant message"
)
WHITESPACE_TEXT = "messages: text content blocks must contain non-whitespace text"
_SYSTEM_BLOCKS = frozenset({"text", "tool_addition", "tool_removal"})
_CLEAR_AT = ("next_user_message", "never")
# The first bytes of each image format the API takes (the SDK's `media_type` literal).
_IMAGE_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


# -- shape


def check_messages_shape(body: dict, surface: Surface) -> None:
    if "messages" not in body:
        raise fail("messages: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise fail("messages: Input should be a valid list")
    if not messages:
        raise fail("messages: at least one message is required")
    spec = CATALOGUE.get(body.get("model"))  # type: ignore[arg-type]
    system_role = spec is not None and spec.system_role
    for index, message in enumerate(messages):
        _check_message_shape(index, message, surface, system_role=system_role)


def _check_message_shape(index: int, message: Any, surface: Surface, *, system_role: bool) -> None:
    path = f"messages.{index}"
    if not isinstance(message, dict):
        raise fail(f"{path}: Input should be a valid dictionary")
    if "role" not in message:
        raise fail(f"{path}.role: Field required")
    role = message["role"]
    if role == "system" and system_role:
        _check_system_message(path, message)
        check_extra_fields(path, message, BETA.message_fields["system"])
        return
    if role == "system":
        raise fail(
            'messages: Unexpected role "system". The Messages API accepts a top-level '
            '`system` parameter, not "system" as an input message role.'
        )
    if role not in ("user", "assistant"):
        raise fail(f'messages: Unexpected role "{role}". Allowed roles are "user" or "assistant".')
    for position, block in enumerate(_content_list(path, message)):
        _check_block_shape(f"{path}.content.{position}", block, surface)
    check_extra_fields(path, message, surface.message_fields[role])


def check_extra_fields(path: str, value: dict, allowed: frozenset[str]) -> None:
    """A field the request type does not declare: pydantic's `extra_forbidden`, after the rest.

    `messages.13.content.0.thinking.cache_control: Extra inputs are not permitted` (the block's
    type in the path); a message's own extras have no tag (`messages.1.stop_details`), nor do
    the blocks of the top-level `system` (`system.2.cache_control...`). Sources: docs/models.md.
    """
    for key in value:
        if key not in allowed:
            raise fail(f"{path}.{key}: Extra inputs are not permitted")


def _content_list(path: str, message: dict) -> list:
    """A message's content blocks; a string is one text block and needs no further check."""
    if "content" not in message:
        raise fail(f"{path}.content: Field required")
    content = message["content"]
    if isinstance(content, str):
        return []
    if not isinstance(content, list):
        raise fail(f"{path}.content: Input should be a valid list")
    return content


def _check_system_message(path: str, message: dict) -> None:
    """A mid-conversation `{"role": "system"}` entry, as the SDK's `BetaSystemMessageParam` has it.

    `content` (a string, or text, `tool_addition` and `tool_removal` blocks), a per-turn
    `output_config` (`effort`; `format` stays top-level only) and `clear_at`; one of `content`
    and `output_config` fields must be there.
    """
    config = message.get("output_config")
    if config is not None:
        if not isinstance(config, dict):
            raise fail(f"{path}.output_config: Input should be a valid dictionary")
        if "format" in config:
            raise fail(f"{path}.output_config.format: Extra inputs are not permitted")
        check_effort_shape(f"{path}.output_config", config)
    clear_at = message.get("clear_at")
    if clear_at is not None and clear_at not in _CLEAR_AT:
        raise fail(f"{path}.clear_at: Input should be 'next_user_message' or 'never'")
    configured = isinstance(config, dict) and any(v is not None for v in config.values())
    if message.get("content") is None:
        if not configured:
            raise fail(f"{path}: a system message needs `content` or `output_config` fields")
        return
    for position, block in enumerate(_content_list(path, message)):
        block_path = f"{path}.content.{position}"
        kind = tagged_kind(block_path, block, _SYSTEM_BLOCKS)
        if kind == "text":
            check_text_block(f"{block_path}.text", block)
        elif "tool" not in block:
            raise fail(f"{block_path}.{kind}.tool: Field required")
        elif not isinstance(block["tool"], dict):
            raise fail(f"{block_path}.{kind}.tool: Input should be a valid dictionary")
        check_extra_fields(f"{block_path}.{kind}", block, BETA.block_fields[kind])


def _check_block_shape(path: str, block: Any, surface: Surface) -> None:
    kind = tagged_kind(path, block, surface.block_types)
    if kind == "text":
        check_text_block(f"{path}.text", block)
    elif kind == "image":
        check_image_block(f"{path}.image", block)
    elif kind == "tool_use":
        _check_tool_use_block(f"{path}.tool_use", block)
    elif kind == "tool_result":
        _check_tool_result_block(f"{path}.tool_result", block, surface)
    elif kind in _THINKING_FIELDS:
        _check_string_fields(f"{path}.{kind}", block, _THINKING_FIELDS[kind])
    check_extra_fields(f"{path}.{kind}", block, surface.block_fields[kind])


# A thinking block goes back with its text and its signature, a redacted one with its data
# (the SDK's ThinkingBlockParam and RedactedThinkingBlockParam: every field Required).
_THINKING_FIELDS = {"thinking": ("signature", "thinking"), "redacted_thinking": ("data",)}


def _check_string_fields(path: str, block: dict, fields: tuple[str, ...]) -> None:
    for field in fields:
        if field not in block:
            raise fail(f"{path}.{field}: Field required")
        if not isinstance(block[field], str):
            raise fail(f"{path}.{field}: Input should be a valid string")


def check_text_block(path: str, block: dict) -> None:
    if "text" not in block:
        raise fail(f"{path}.text: Field required")
    if not isinstance(block["text"], str):
        raise fail(f"{path}.text: Input should be a valid string")


def _check_tool_use_block(path: str, block: dict) -> None:
    for field in ("id", "name", "input"):
        if field not in block:
            raise fail(f"{path}.{field}: Field required")
    for field in ("id", "name"):
        if not isinstance(block[field], str):
            raise fail(f"{path}.{field}: Input should be a valid string")
    if not isinstance(block["input"], dict):
        raise fail(f"{path}.input: Input should be a valid dictionary")


def _check_tool_result_block(path: str, block: dict, surface: Surface) -> None:
    if "tool_use_id" not in block:
        raise fail(f"{path}.tool_use_id: Field required")
    if not isinstance(block["tool_use_id"], str):
        raise fail(f"{path}.tool_use_id: Input should be a valid string")
    is_error = block.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):  # "yes", 1: not a boolean
        raise fail(f"{path}.is_error: Input should be a valid boolean")
    if "content" not in block:
        return  # no content: an empty result, which the API accepts
    content = block["content"]
    if isinstance(content, str):
        return
    if not isinstance(content, list):  # None included: leave the field out instead
        raise fail(f"{path}.content: Input should be a valid list")
    for position, inner in enumerate(content):
        inner_path = f"{path}.content.{position}"
        kind = tagged_kind(inner_path, inner, surface.result_content_types)
        if kind == "text":
            check_text_block(f"{inner_path}.text", inner)
        elif kind == "image":
            check_image_block(f"{inner_path}.image", inner)
        check_extra_fields(f"{inner_path}.{kind}", inner, surface.result_content_fields[kind])


def check_image_block(path: str, block: dict) -> None:
    """A base64 image must decode, and its bytes must be of the media type it states."""
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return  # a URL or a file id: fetched by the API, not checked here
    media_type = source.get("media_type")
    if media_type not in _IMAGE_MAGIC:
        listed = ", ".join(f"'{kind}'" for kind in list(_IMAGE_MAGIC)[:-1])
        raise fail(
            f"{path}.source.base64.media_type: Input should be {listed} or "
            f"'{list(_IMAGE_MAGIC)[-1]}'"
        )
    data = source.get("data")
    if not isinstance(data, str):
        raise fail(f"{path}.source.base64.data: Input should be a valid string")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    webp = media_type != "image/webp" or raw[8:12] == b"WEBP"
    if not (raw.startswith(_IMAGE_MAGIC[media_type]) and webp):
        raise fail(
            f"{path}.source.base64: Image does not match the provided media type {media_type}"
        )


# -- meaning


def check_roles_of_blocks(messages: list[dict]) -> None:
    for index, message in enumerate(messages):
        role = message["role"]
        for block in blocks_of(message):
            kind = block["type"]
            if role == "assistant" and kind in _USER_ONLY_BLOCKS:
                raise fail(f"messages.{index}: `{kind}` blocks can only be in `user` messages")
            if role == "user" and kind in _ASSISTANT_ONLY_BLOCKS:
                raise fail(f"messages.{index}: `{kind}` blocks can only be in `assistant` messages")


def check_non_empty(messages: list[dict]) -> None:
    last = len(messages) - 1
    for index, message in enumerate(messages):
        content = message.get("content")  # a system message may carry only `output_config`
        if content in ("", []) and not (index == last and message["role"] == "assistant"):
            raise fail(f"messages.{index}: {EMPTY_CONTENT}")
        for block in blocks_of(message):
            if block["type"] != "text" or content == "":
                continue
            if block["text"] == "":
                raise fail("messages: text content blocks must be non-empty")
            if not block["text"].strip():
                raise fail(WHITESPACE_TEXT)


def _tool_use_ids(message: dict) -> list[str]:
    return [block["id"] for block in blocks_of(message) if block["type"] == "tool_use"]


def _leading_result_ids(message: dict | None) -> set[str]:
    """Ids of the `tool_result` blocks that open `message` (only those answer a `tool_use`)."""
    if message is None or message["role"] != "user":
        return set()
    ids: set[str] = set()
    for block in blocks_of(message):
        if block["type"] != "tool_result":
            break
        ids.add(block["tool_use_id"])
    return ids


def check_tool_pairing(messages: list[dict]) -> None:
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
    for position, block in enumerate(blocks_of(message)):
        if block["type"] != "tool_use":
            continue
        if block["id"] in seen:
            raise fail(f"messages.{index}.content.{position}: `tool_use` ids must be unique")
        seen.add(block["id"])


def _check_results_follow(index: int, message: dict, following: dict) -> None:
    answered = _leading_result_ids(following)
    missing = [tool_id for tool_id in _tool_use_ids(message) if tool_id not in answered]
    if missing:
        raise fail(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )


def _check_results_answer(index: int, message: dict, previous: dict | None) -> None:
    asked = set(_tool_use_ids(previous)) if previous and previous["role"] == "assistant" else set()
    answered: set[str] = set()
    for position, block in enumerate(blocks_of(message)):
        if block["type"] != "tool_result":
            continue
        tool_id = block["tool_use_id"]
        path = f"messages.{index}.content.{position}"
        if tool_id not in asked:
            raise fail(
                f"{path}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_id}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the "
                "previous message."
            )
        if tool_id in answered:
            raise fail(
                f"{path}: each tool_use must have a single result. Found multiple "
                f"`tool_result` blocks with id: {tool_id}"
            )
        answered.add(tool_id)
