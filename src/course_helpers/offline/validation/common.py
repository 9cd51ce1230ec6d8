"""Course machinery (offline course model): the small helpers every validation check uses.

One job: say a refusal the API's way (`fail`, `tag_error`), recognise JSON numbers the way
pydantic does (a bool is not an int).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from course_helpers.offline.errors import ApiError, invalid_request


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
