"""`time_limit(seconds)`: fail a test that runs too long instead of hanging the whole suite."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread once `seconds` have passed (SIGALRM: Unix only)."""

    def give_up(signum, frame):
        raise TimeoutError(f"test took more than {seconds:g} seconds")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
