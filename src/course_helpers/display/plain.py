"""Course machinery (display of histories): turn whatever a learner passes into plain data.

One job: SDK objects, pydantic models, tuples and odd values become the dicts, lists, strings
and numbers the API documents, so the view model (`model.py`) only ever reads plain JSON-ready
data. Nothing here raises on odd input: a learner's broken list is exactly what must be shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def to_plain(obj: Any) -> Any:
    """Return `obj` as JSON-ready plain data (dicts, lists, str, numbers, bool, None).

    SDK objects and other pydantic models are dumped with
    `model_dump(mode="json", exclude_none=True)` (or `to_dict()`), so a `ToolUseBlock`
    becomes the same dict you would have written by hand. Anything else that cannot be
    represented becomes a short `<TypeName>` string: never a repr with a memory address.
    """
    return _plain(obj, set())


def _plain(obj: Any, path: set[int]) -> Any:
    """Convert `obj` recursively; `path` holds the containers being converted (cycle guard)."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if id(obj) in path:
        return "<cycle>"
    path = path | {id(obj)}
    if isinstance(obj, Mapping):
        return {str(key): _plain(value, path) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(item, path) for item in obj]
    dumped = _dump_model(obj)
    if dumped is not None:
        return _plain(dumped, path)
    if isinstance(obj, bytes | bytearray):
        return f"<{len(obj)} bytes>"
    return f"<{type(obj).__name__}>"


def _dump_model(obj: Any) -> dict | list | None:
    """Dump a pydantic / SDK object to plain data, or return None if it is not one."""
    dumpers = (
        lambda: obj.model_dump(mode="json", exclude_none=True, by_alias=True),
        lambda: obj.to_dict(),
    )
    for dump in dumpers:
        try:
            result = dump()
        except Exception:
            continue
        if isinstance(result, dict | list):
            return result
    return None


def as_list(messages: Any) -> list[Any]:
    """Accept a list of messages, one message, None or any iterable; never raise."""
    if messages is None:
        return []
    if isinstance(messages, str | bytes | Mapping) or _dump_model(messages) is not None:
        return [messages]
    if isinstance(messages, Iterable):
        try:
            return list(messages)
        except Exception:
            return [messages]
    return [messages]


def normalize(messages: Any) -> list[dict[str, Any]]:
    """Return `messages` as a list of plain message dicts, SDK objects turned into dicts.

    Content blocks such as `TextBlock` or `ToolUseBlock` (what `response.content` holds)
    become the dicts the API documents. Items that are not messages at all are wrapped as
    `{"role": None, "content": <item as plain data>}` so callers can always index them.
    """
    result = []
    for item in as_list(messages):
        plain = to_plain(item)
        result.append(plain if isinstance(plain, dict) else {"role": None, "content": plain})
    return result
