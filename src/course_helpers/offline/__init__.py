"""Course machinery: the offline course model, a local stand-in for the Messages API.

The real `anthropic` SDK talks to it through an in-process HTTP transport (see
`course_helpers.make_client`) or over loopback HTTP (`python -m course_helpers.offline serve`).
It validates requests like the real API, answers from small scenario policies, streams real
server-sent events and can fail on demand (`faults.inject(...)`). Each model id of the SDK is
played by its own rules (context window, forced `tool_choice`, thinking types and thinking by
default...): see `models.CATALOGUE`, served by `GET /v1/models`, and docs/models.md.
"""

from __future__ import annotations

from course_helpers.offline.app import CourseModelApp
from course_helpers.offline.engine import CourseModel
from course_helpers.offline.faults import FaultQueue

_default: CourseModelApp | None = None


def default_app() -> CourseModelApp:
    """The course model every offline client in this process shares."""
    global _default
    if _default is None:
        _default = CourseModelApp()
    return _default


def reset() -> CourseModelApp:
    """Start again with a fresh course model (empty prompt cache, no queued faults)."""
    global _default
    _default = CourseModelApp()
    return _default


class _DefaultFaults:
    """`offline.faults.inject(...)` acts on the shared course model's fault queue."""

    def __getattr__(self, name: str):
        return getattr(default_app().faults, name)


faults: FaultQueue = _DefaultFaults()  # type: ignore[assignment]

__all__ = ["CourseModel", "CourseModelApp", "default_app", "faults", "reset"]
