"""Course machinery: one place that decides which backend the course talks to.

Every notebook calls `make_client()` and nothing else knows the difference:

- offline (the default, no key needed): the course model, a local stand-in for the Messages
  API, reached through an in-process HTTP transport;
- live: `ANTHROPIC_API_KEY` is set, so the real API answers;
- compatible: `ANTHROPIC_BASE_URL` points at any server that speaks the Messages API.

`COURSE_BACKEND=offline` forces the course model whatever else is set; `COURSE_BACKEND=live`
picks the live API even without a key, but a set `ANTHROPIC_BASE_URL` still wins.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import anthropic

# The model id the whole course uses. Change it here, or set COURSE_MODEL.
DEFAULT_MODEL = "claude-sonnet-5-5"
MODEL = os.environ.get("COURSE_MODEL", DEFAULT_MODEL)


@dataclass(frozen=True)
class Backend:
    """Which backend a client talks to, in words a learner can read."""

    name: str  # "offline", "live" or "compatible"
    base_url: str | None

    def describe(self) -> str:
        if self.name == "offline":
            return "offline course model (no API key needed, token counts are estimates)"
        if self.name == "compatible":
            return f"compatible server at {self.base_url}"
        return "live Anthropic API (calls are billed to your key)"


def detect_backend(environ: dict[str, str] | None = None) -> Backend:
    """Read the environment and decide the backend; see the module docstring for the rules."""
    env = os.environ if environ is None else environ
    forced = env.get("COURSE_BACKEND", "").strip().lower()
    base_url = env.get("ANTHROPIC_BASE_URL") or None
    if forced not in ("", "offline", "live"):
        raise ValueError(f"COURSE_BACKEND must be 'offline' or 'live', not {forced!r}")
    if forced == "offline":
        return Backend("offline", None)
    if base_url:
        return Backend("compatible", base_url)
    if forced == "live" or env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_AUTH_TOKEN"):
        return Backend("live", None)
    return Backend("offline", None)


def banner(backend: Backend | None = None, model: str | None = None) -> str:
    """The one line every notebook prints so you always know who is answering."""
    backend = backend or detect_backend()
    return f"Backend: {backend.describe()} · model: {model or MODEL}"


def make_client(*, quiet: bool = False, **kwargs) -> anthropic.Anthropic:
    """Return a real `anthropic.Anthropic` client for the active backend.

    Extra keyword arguments go to the client (for example `max_retries=0`).
    """
    backend = detect_backend()
    if not quiet:
        print(banner(backend))
    if backend.name == "offline":
        from course_helpers.offline import default_app

        return default_app().client(**kwargs)
    if backend.name == "compatible":
        # Local servers accept any key, but the SDK needs one to send the request.
        api_key = os.environ.get("ANTHROPIC_API_KEY") or "not-needed"
        return anthropic.Anthropic(api_key=api_key, base_url=backend.base_url, **kwargs)
    return anthropic.Anthropic(**kwargs)


def make_async_client(*, quiet: bool = False, **kwargs) -> anthropic.AsyncAnthropic:
    """The async twin of `make_client()`."""
    backend = detect_backend()
    if not quiet:
        print(banner(backend))
    if backend.name == "offline":
        from course_helpers.offline import default_app

        return default_app().async_client(**kwargs)
    if backend.name == "compatible":
        api_key = os.environ.get("ANTHROPIC_API_KEY") or "not-needed"
        return anthropic.AsyncAnthropic(api_key=api_key, base_url=backend.base_url, **kwargs)
    return anthropic.AsyncAnthropic(**kwargs)
