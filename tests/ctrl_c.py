"""`python_handles_ctrl_c()`: Ctrl-C reaches the test's Python code, however pytest was started.

A program started in the background by a shell (`command &`, a script run that way, some
process supervisors) inherits SIGINT *ignored*, and Python then leaves it ignored: no
KeyboardInterrupt ever comes, and `_thread.interrupt_main()`, a test's way of pressing Ctrl-C,
does nothing. A test of what Ctrl-C does would then fail, or wait out its timeouts, depending
only on how its run was started. Inside this block SIGINT has Python's own handler (what an
interactive run has), and the previous handler is put back afterwards.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def python_handles_ctrl_c() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread while the block runs."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
