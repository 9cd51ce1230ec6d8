"""Course machinery (offline course model): faults on demand: make the course model fail the way the
real API sometimes does.

    from course_helpers.offline import faults
    faults.inject("rate_limit", times=2)   # the next two requests get a 429 with retry-after

Each incoming request to /v1/messages takes the next queued fault, so the SDK's automatic
retries consume them one by one. Over HTTP (`serve`) a client can also ask for a fault on one
request with the header `course-fault: <kind>`.
"""

from __future__ import annotations

from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass

from course_helpers.offline.errors import ApiError

KINDS = {
    "rate_limit": "429 rate_limit_error with a retry-after header (retried by the SDK)",
    "overloaded": "529 overloaded_error (retried by the SDK)",
    "server_error": "500 api_error (retried by the SDK)",
    "stream_error": "an `error` event in the middle of a 200 stream (not retried)",
    "disconnect": "the connection drops before a response arrives (retried by the SDK)",
    "prompt_too_long": "400: the prompt is longer than the context window",
    "context_window": "the reply stops with stop_reason model_context_window_exceeded",
}


@dataclass(frozen=True)
class Fault:
    kind: str
    retry_after: float = 1.0


class FaultQueue:
    def __init__(self) -> None:
        self._queue: deque[Fault] = deque()

    def inject(self, kind: str, *, times: int = 1, retry_after: float = 1.0) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown fault {kind!r}; choose one of: {', '.join(KINDS)}")
        for _ in range(times):
            self._queue.append(Fault(kind, retry_after))

    def next(self) -> Fault | None:
        return self._queue.popleft() if self._queue else None

    def clear(self) -> None:
        self._queue.clear()

    def __len__(self) -> int:
        return len(self._queue)

    @contextmanager
    def injected(self, kind: str, *, times: int = 1, retry_after: float = 1.0):
        """Inject faults for the duration of a `with` block, and clear what is left after it."""
        self.inject(kind, times=times, retry_after=retry_after)
        try:
            yield self
        finally:
            self.clear()


def status_error(fault: Fault) -> ApiError | None:
    """The HTTP error a fault turns into, or None for faults that act elsewhere."""
    if fault.kind == "rate_limit":
        return ApiError(
            429,
            "This request would exceed the rate limit for your organization of 50 requests per "
            "minute. For details, refer to https://docs.claude.com/en/api/rate-limits.",
            headers={"retry-after": f"{fault.retry_after:g}"},
        )
    if fault.kind == "overloaded":
        return ApiError(529, "Overloaded")
    if fault.kind == "server_error":
        return ApiError(500, "Internal server error")
    return None
