"""Course machinery (offline course model): the small helpers every validation check uses.

One job: say a refusal the API's way (`fail`, `tag_error`, `tagged_kind`), recognise JSON
numbers the way pydantic does (a bool is not an int), check an `effort` value (wherever it is
set).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from course_helpers.offline.errors import ApiError, invalid_request
from course_helpers.offline.models import EFFORT_LEVELS


def fail(message: str) -> ApiError:
    return invalid_request(message)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def tag_error(path: str, tag: Any, expected: Iterable[str]) -> ApiError:
    listed = ", ".join(f"'{name}'" for name in sorted(expected))
    return fail(
        f"{path}: Input tag '{tag}' found using 'type' does not match any of the expected "
        f"tags: {listed}"
    )


def tagged_kind(path: str, value: Any, expected: Iterable[str]) -> Any:
    """The `type` of a tagged object (a block, `tool_choice`, `thinking`), refused the way
    pydantic refuses it when it is not an object, has no `type`, or has a type not expected."""
    if not isinstance(value, dict):
        raise fail(f"{path}: Input should be a valid dictionary")
    if "type" not in value:
        raise fail(f"{path}: Unable to extract tag using discriminator 'type'")
    if value["type"] not in expected:
        raise tag_error(path, value["type"], expected)
    return value["type"]


def check_effort_shape(path: str, config: dict) -> None:
    """`effort` of an `output_config` (top level, or per turn in a system message)."""
    effort = config.get("effort")
    if effort is not None and effort not in EFFORT_LEVELS:
        listed = ", ".join(f"'{e}'" for e in EFFORT_LEVELS[:-1]) + f" or '{EFFORT_LEVELS[-1]}'"
        raise fail(f"{path}.effort: Input should be {listed}")
