"""How many connections the workshop gateway serves at once, in all and from one address.

Course machinery (instructor tool). A connection takes a slot before its first byte is read,
so before any token is seen. Without a cap per address, a few slow sockets from one machine
(each sending a head that never ends) would hold every slot and a participant with a valid
token would be turned away. So a connection is turned away, with the API's error envelope,
when its address already holds its share (429, rate limited) or when the room's slots are all
taken (529, overloaded): the SDK retries both after a pause.

The share is `--max-per-client` (by default a quarter of `--max-connections`, at least 2).
A room whose laptops all reach the gateway through one address (a NAT) sets it to
`--max-connections`.

A cap per address does not stop slow sockets from several addresses. So a connection that
has not yet shown a valid token is only borrowing its slot: when a new connection finds every
slot taken, the connection whose head has been arriving the longest (for at least
`--evict-after` seconds, by default one) is closed and its slot given to the newcomer. A
participant's head arrives in a few milliseconds and then holds a valid token, which keeps its
slot; token-less heads are the ones that are old. Only when every slot is held by a
participant, or by a head younger than that, is the newcomer turned away.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from course_tools.gateway_requests import Refused

ALL_TAKEN = 529
ADDRESS_FULL = 429
EVICT_AFTER = 1.0  # seconds a token-less head may take before a newcomer may have its slot


def default_per_client(max_connections: int) -> int:
    return min(max_connections, max(2, max_connections // 4))


@dataclass(eq=False)
class _Held:
    address: str
    connection: object
    since: float = field(default_factory=time.monotonic)
    trusted: bool = False  # a valid token has arrived on it
    released: bool = False


class Slots:
    """At most `total` connections at once, and at most `per_client` from one address; a
    connection without a valid token yields its slot to a newcomer once `evict_after` old."""

    def __init__(self, total: int, per_client: int, evict_after: float = EVICT_AFTER) -> None:
        if total < 1 or per_client < 1:
            raise ValueError("the connection caps must be 1 or more")
        if not evict_after >= 0:
            raise ValueError("evict_after must be 0 seconds or more")
        self.total, self.per_client, self.evict_after = total, per_client, evict_after
        self._lock = threading.Lock()
        self._held: dict[object, _Held] = {}  # by connection (the socket)
        self._by_address: Counter[str] = Counter()
        self.evicted = 0  # connections closed to give their slot to a newcomer

    @property
    def open(self) -> int:
        return len(self._held)

    def take(self, address: str, connection: object = None) -> int | None:
        """Take a slot for `address`: None when granted, else the status to turn it away with.

        When every slot is taken, the oldest connection still without a valid token (and at
        least `evict_after` seconds old) is closed and its slot taken instead."""
        connection = object() if connection is None else connection
        victim = None
        with self._lock:
            if len(self._held) >= self.total:
                victim = self._oldest_untrusted()
                if victim is None:
                    return ALL_TAKEN
            if self._by_address[address] >= self.per_client:
                return ADDRESS_FULL  # and no one's slot is taken for it
            if victim is not None:
                self._release(victim)
                self.evicted += 1
            self._held[connection] = _Held(address, connection)
            self._by_address[address] += 1
        if victim is not None:
            _close(victim.connection)
        return None

    def _oldest_untrusted(self) -> _Held | None:
        now = time.monotonic()
        waiting = [held for held in self._held.values() if not held.trusted]
        oldest = min(waiting, key=lambda held: held.since, default=None)
        if oldest is None or now - oldest.since < self.evict_after:
            return None
        return oldest

    def _release(self, held: _Held) -> None:
        held.released = True
        del self._held[held.connection]
        self._by_address[held.address] -= 1
        if self._by_address[held.address] <= 0:
            del self._by_address[held.address]

    def trust(self, connection: object) -> None:
        """A valid token arrived on `connection`: its slot is its own until it closes."""
        with self._lock:
            held = self._held.get(connection)
            if held is not None:
                held.trusted = True

    def give_back(self, connection: object) -> None:
        """The connection ended (a connection already evicted gave its slot back then)."""
        with self._lock:
            held = self._held.get(connection)
            if held is not None:
                self._release(held)


def _close(connection: object) -> None:
    """End an evicted connection: its thread's next read sees the end and gives up."""
    if isinstance(connection, socket.socket):
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)


def turned_away(status: int) -> bytes:
    """The whole answer to a connection turned away: a status line, headers and the envelope."""
    if status == ADDRESS_FULL:
        refused = Refused(
            429, "rate_limit_error", "too many connections from your address; try again shortly"
        )
        line = "429 Too Many Requests"
    else:
        refused = Refused(
            529, "overloaded_error", "the workshop gateway is busy; try again shortly"
        )
        line = "529 Overloaded"
    data = refused.envelope()
    head = (
        f"HTTP/1.1 {line}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(data)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + data
