"""Course machinery (offline course model): the request headers the API checks on every endpoint:
`anthropic-version`, `anthropic-beta`.

- No `anthropic-version`: 400 ``anthropic-version: header is required``.
- An unknown version: 400 ``anthropic-version: "X" is not a valid version``.
- A value that cannot be a beta name (an empty entry between commas, spaces or capitals inside a
  name, a name neither known nor dated): 400 ``Unexpected value(s) `a`, `b` for the
  `anthropic-beta` header. Please consult our documentation at docs.claude.com or try again
  without the header.``

Beta names are accepted when the SDK or a real client knows them (`KNOWN_BETAS`) or when they
have the shape of one: lower-case words joined by hyphens, ending in a date (`name-2026-07-01`
or `name-20250219`). The API learns new betas faster than any list here. Repeated header lines
arrive joined with ", " (HTTP's rule for repeated fields), and a trailing comma is ignored.

Sources and the choice of known names: docs/models.md.
"""

from __future__ import annotations

import re
import typing
from datetime import date

from anthropic._constants import ANTHROPIC_API_VERSION
from anthropic.types.anthropic_beta_param import AnthropicBetaParam

from course_helpers.offline.errors import ApiError

API_VERSIONS = frozenset({"2023-01-01", "2023-06-01", ANTHROPIC_API_VERSION})
"""The documented versions, and the one the SDK sends."""


def _sdk_betas() -> set[str]:
    return {
        value
        for arg in typing.get_args(AnthropicBetaParam)
        for value in typing.get_args(arg)
        if isinstance(value, str)
    }


# Beta names that real clients send and the first-party API accepts, but the SDK's
# `AnthropicBetaParam` literal does not list (see docs/models.md for each source). The dated ones
# would pass the shape rule anyway; the list says where each came from.
EXTRA_BETAS = frozenset(
    {
        "mid-conversation-system-2026-04-07",
        "claude-code-20250219",
        "oauth-2025-04-20",
        "fine-grained-tool-streaming-2025-05-14",
        "prompt-caching-scope-2026-01-05",
        "structured-outputs-2025-12-15",
        "effort-2025-11-24",
        "advanced-tool-use-2025-11-20",
        "tool-search-tool-2025-10-19",
        "tool-examples-2025-10-29",
        "web-fetch-2025-09-10",
        "web-search-2025-03-05",
        "redact-thinking-2026-02-12",
        "context-management-2025-06-27",
        # Sent by a coding-agent CLI on the first request of each conversation.
        "per-turn-control-2026-07-01",
        "code-execution-2025-08-25",
    }
)
KNOWN_BETAS = frozenset(_sdk_betas() | EXTRA_BETAS)


def check_headers(headers: dict[str, str]) -> frozenset[str]:
    """Check the version and beta headers (names lower-cased); return the betas asked for."""
    version = headers.get("anthropic-version")
    if version is None:
        raise ApiError(400, "anthropic-version: header is required")
    if version.strip() not in API_VERSIONS:
        raise ApiError(400, f'anthropic-version: "{version}" is not a valid version')
    raw = headers.get("anthropic-beta")
    if raw is None or not raw.strip():
        return frozenset()
    names = [name.strip() for name in raw.split(",")]
    if names[-1] == "":
        names.pop()  # a trailing comma: "a, b,"
    unknown = [name for name in names if not is_beta_name(name)]
    if unknown:
        listed = ", ".join(f"`{name}`" for name in unknown)
        raise ApiError(
            400,
            f"Unexpected value(s) {listed} for the `anthropic-beta` header. Please consult our "
            "documentation at docs.claude.com or try again without the header.",
        )
    return frozenset(names)


_DATED_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*?-(\d{4})-?(\d{2})-?(\d{2})")


def is_beta_name(name: str) -> bool:
    """A name the SDK knows, or one shaped like a beta: hyphenated lower-case words and a date."""
    if name in KNOWN_BETAS:
        return True
    match = _DATED_NAME.fullmatch(name)
    if match is None:
        return False
    try:
        date(*(int(part) for part in match.groups()))
    except ValueError:
        return False
    return True
