"""Course machinery (offline course model): the request headers the API checks on every endpoint:
`anthropic-version`, `anthropic-beta`.

- No `anthropic-version`: 400 ``anthropic-version: header is required``.
- An unknown version: 400 ``anthropic-version: "X" is not a valid version``.
- An unknown beta name: 400 ``Unexpected value(s) `a`, `b` for the `anthropic-beta` header.
  Please consult our documentation at docs.claude.com or try again without the header.``

Sources and the choice of known names: docs/models.md.
"""

from __future__ import annotations

import typing

from anthropic._constants import ANTHROPIC_API_VERSION
from anthropic.types.anthropic_beta_param import AnthropicBetaParam

from course_helpers.offline.errors import ApiError

API_VERSIONS = frozenset({"2023-01-01", "2023-06-01", ANTHROPIC_API_VERSION})
"""The documented versions, and the one SDK 2.10 sends."""


def _sdk_betas() -> set[str]:
    return {
        value
        for arg in typing.get_args(AnthropicBetaParam)
        for value in typing.get_args(arg)
        if isinstance(value, str)
    }


# Beta names that real clients send and the first-party API accepts, but SDK 2.10's
# `AnthropicBetaParam` literal does not list (see docs/models.md for each source).
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
        # Listed by the TypeScript SDK (@anthropic-ai/sdk 1.14.0) but not by Python SDK 2.10.
        "ce-claude-code-managed-settings-2026-10-06",
        "efs-2026-10-01",
        "google-managed-data-controls-2026-09-01",
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
    if raw is None:
        return frozenset()
    names = [name.strip() for name in raw.split(",")]
    unknown = [name for name in names if name not in KNOWN_BETAS]
    if unknown:
        listed = ", ".join(f"`{name}`" for name in unknown)
        raise ApiError(
            400,
            f"Unexpected value(s) {listed} for the `anthropic-beta` header. Please consult our "
            "documentation at docs.claude.com or try again without the header.",
        )
    return frozenset(names)
