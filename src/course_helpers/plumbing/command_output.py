"""Course machinery: read a command's output, keeping its head and tail, at one cost for any bytes.

`commands.run_command` starts a thread that drains the command's pipe into a `KeptOutput`.
A command may print 50 MB, or print for ever until its deadline, and what it prints may be
text or binary. So the bytes are kept first and looked at later:

- the first bytes (enough for the head's characters) and the last bytes (enough for the
  tail's, with a little context before them) are kept as bytes; the middle is only counted,
  by its characters (bytes that start one: exact for UTF-8; for bytes that are not UTF-8, each
  byte that could start a character), which costs the same whatever the bytes are;
- only when the text is asked for are the kept bytes decoded (what is not UTF-8 becomes the
  replacement character) and escaped like every tool result (`truncate.visible`, newlines and
  tabs kept), and whole escaped characters are taken up to the limit, so a cut never splits
  an escape. The marker says how many characters of the output are not shown.

Reading a flood then costs a copy and a count per chunk, with the GIL held only briefly, so
the thread that stops the command at its deadline is never kept waiting by the reader.
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import fcntl
import itertools
import os
import threading

from course_helpers.plumbing.truncate import cut_marker, visible_pieces

CHUNK = 1 << 20  # bytes per read: a large pipe and large reads, few wake-ups
PIPE_SIZE = 1 << 20  # asked for the command's pipe (Linux; the default is 64 KiB)
CONTEXT = 32  # characters kept before the tail, so a combining mark there is judged rightly
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)


def characters_in(data: bytes | bytearray) -> int:
    """How many characters `data` holds: the bytes that start one (UTF-8 continuation bytes,
    0x80-0xBF, do not). Exact for UTF-8 text; one per such byte otherwise."""
    return len(data) - len(data.translate(None, _NOT_CONTINUATION))


def _decode(data: bytes | bytearray, *, final: bool) -> tuple[str, bytes]:
    """The text of `data` and the bytes of a character it cuts at its end (when not final)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(bytes(data), final=final)
    return text, decoder.getstate()[0]


def _shown(text: str) -> list[str]:
    """Each character as the model may read it: control, formatting and line-separator
    characters escaped (`\\x1b`, `\\u202e`, `\\x85`), newlines and tabs kept (`visible`)."""
    return visible_pieces(text, keep_newlines=True, keep_tabs=True)


def _fit(pieces: list[str], room: int, *, from_end: bool = False) -> int:
    """How many whole pieces fit in `room` characters, from the start (or from the end)."""
    sizes = itertools.accumulate(map(len, reversed(pieces) if from_end else pieces))
    return bisect.bisect_right(list(sizes), room)  # every piece has one character or more


def _head_pieces(text: str, room: int) -> list[str]:
    """The escaped pieces of the first `room` characters: no more can fit in `room`."""
    return _shown(text[:room])


def _tail_pieces(text: str, room: int) -> list[str]:
    """The escaped pieces of the last `room` characters (escaped with CONTEXT before them)."""
    start = max(0, len(text) - room - CONTEXT)
    return _shown(text[start:])[-room:] if room else []


class KeptOutput:
    """The head and tail of a byte stream, at most `limit` characters once escaped."""

    def __init__(self, limit: int) -> None:
        self.head_room = limit // 2
        self.tail_room = limit - self.head_room
        self._head_bytes = 4 * self.head_room + 3  # a character is 4 bytes at most
        self._tail_bytes = 4 * (self.tail_room + CONTEXT) + 3
        self._head = bytearray()
        self._tail = bytearray()
        self._middle = 0  # characters dropped between head and tail
        self._dropped = False

    def add(self, chunk: bytes) -> None:
        room = self._head_bytes - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        if len(chunk) >= self._tail_bytes:  # the chunk alone fills the tail
            self._middle += characters_in(self._tail) + characters_in(
                chunk[: len(chunk) - self._tail_bytes]
            )
            self._tail = bytearray(chunk[len(chunk) - self._tail_bytes :])
            self._dropped = True
            return
        self._tail += chunk
        excess = len(self._tail) - self._tail_bytes
        if excess > 0:
            self._middle += characters_in(self._tail[:excess])
            del self._tail[:excess]
            self._dropped = True

    def text(self) -> str:
        """The kept text, escaped, with a marker where characters were cut (none if none)."""
        if not self._dropped:  # everything the command printed is here
            text = _decode(self._head + self._tail, final=True)[0]
            if len(text) <= self.head_room + self.tail_room:
                whole = _shown(text)
                if sum(map(len, whole)) <= self.head_room + self.tail_room:
                    return "".join(whole)
            head = _head_pieces(text, self.head_room)
            shown_head = _fit(head, self.head_room)
            tail = _tail_pieces(text, min(self.tail_room, len(text) - shown_head))
            shown_tail = _fit(tail, self.tail_room, from_end=True)
            cut = len(text) - shown_head - shown_tail
            return _joined(head[:shown_head], cut, tail[len(tail) - shown_tail :])
        text, split = _decode(self._head, final=False)
        head = _head_pieces(text, self.head_room)
        start = 0  # continuation bytes of a character whose first byte was counted as cut
        while start < min(3, len(self._tail)) and 0x80 <= self._tail[start] < 0xC0:
            start += 1
        tail_text = _decode(self._tail[start:], final=True)[0]
        tail = _tail_pieces(tail_text, self.tail_room)
        shown_head = _fit(head, self.head_room)
        shown_tail = _fit(tail, self.tail_room, from_end=True)
        cut = self._middle + characters_in(split) + len(text) - shown_head
        cut += len(tail_text) - shown_tail
        return _joined(head[:shown_head], cut, tail[len(tail) - shown_tail :])


def _joined(head: list[str], cut: int, tail: list[str]) -> str:
    return "".join(head) + cut_marker(cut) + "".join(tail)


class OutputReader:
    """Drains the pipe in a thread into a KeptOutput; `pause()` stops reading for a while."""

    def __init__(self, pipe, max_output: int) -> None:
        self._pipe = pipe
        with contextlib.suppress(OSError, AttributeError):  # not Linux, or not allowed
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        self._kept = KeptOutput(max_output)
        self._lock = threading.Lock()
        self._reading = threading.Event()
        self._reading.set()
        self._thread = threading.Thread(target=self._run, name="command-output", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        fd = self._pipe.fileno()
        while True:
            self._reading.wait()
            chunk = os.read(fd, CHUNK)
            if not chunk:
                return
            with self._lock:
                self._kept.add(chunk)

    def pause(self) -> None:
        """Stop reading (a writer then waits on the full pipe): while a group is being stopped,
        nothing else in this process competes with the thread that stops it."""
        self._reading.clear()

    def resume(self) -> None:
        self._reading.set()

    def finish(self, wait: float) -> bool:
        """Wait up to `wait` seconds for end-of-file; True if all output was read."""
        self.resume()
        self._thread.join(wait)
        return not self._thread.is_alive()

    def text(self) -> str:
        with self._lock:
            return self._kept.text()
