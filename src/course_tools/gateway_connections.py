"""How many connections the workshop gateway serves at once, in all and from one address.

Course machinery (instructor tool). A connection takes a slot before its first byte is read,
so before any token is seen. Without a cap per address, a few slow sockets from one machine
(each sending a head that never ends) would hold every slot and a participant with a valid
token would be turned away. So a connection is turned away, with the API's error envelope,
when the room's slots are all taken (529, overloaded) or when its address already holds its
share (429, rate limited): the SDK retries both after a pause.

The share is `--max-per-client` (by default a quarter of `--max-connections`, at least 2).
A room whose laptops all reach the gateway through one address (a NAT) sets it to
`--max-connections`.
"""

from __future__ import annotations

import threading
from collections import Counter

from course_tools.gateway_requests import Refused

ALL_TAKEN = 529
ADDRESS_FULL = 429


def default_per_client(max_connections: int) -> int:
    return min(max_connections, max(2, max_connections // 4))


class Slots:
    """At most `total` connections at once, and at most `per_client` from one address."""

    def __init__(self, total: int, per_client: int) -> None:
        if total < 1 or per_client < 1:
            raise ValueError("the connection caps must be 1 or more")
        self.total, self.per_client = total, per_client
        self._lock = threading.Lock()
        self._open = 0
        self._by_address: Counter[str] = Counter()

    def take(self, address: str) -> int | None:
        """Take a slot for `address`: None when granted, else the status to turn it away with."""
        with self._lock:
            if self._open >= self.total:
                return ALL_TAKEN
            if self._by_address[address] >= self.per_client:
                return ADDRESS_FULL
            self._open += 1
            self._by_address[address] += 1
            return None

    def give_back(self, address: str) -> None:
        with self._lock:
            self._open -= 1
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]


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
