"""How the workshop gateway reads a request's head, before any token: bounded in time and size.

Course machinery (instructor tool). A connection that sends nothing keeps its slot only for the
short idle timeout; once a byte arrives, the head (request line and headers) must arrive within
`--head-timeout` (and `--client-timeout`, if shorter) in all, a trickle of bytes resetting
nothing, and be at most MAX_HEAD bytes in all. A refused head gets a fixed message (never a
quote of what the client sent: a token may be in it) and a short lingering close, so the answer
is not lost to a reset while the client is still sending.
"""

from __future__ import annotations

import email.parser
import http.client
import io
import re
import socket
import time

from course_tools.gateway_ledger import Hold


class DeadlineReader(socket.SocketIO):
    """The participant's socket, read against a deadline for the whole of a request part.

    A timeout on each read is no limit: one byte every few seconds would hold a thread for
    ever. Before each read the socket's timeout is set to what is left until `deadline`.
    """

    deadline: float | None = None

    def readinto(self, buffer) -> int:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("deadline passed")
            self._sock.settimeout(left)
        return super().readinto(buffer)


# Messages for the errors found before a request could be read: fixed texts, never a quote of
# what the client sent (a token may be in it).
HTTP_LAYER_ERRORS = {
    400: "the request line is malformed: expected 'METHOD /path HTTP/1.1'",
    408: "the request head did not arrive in time",
    414: "the request line is too long",
    431: "the request's headers are too long or too many",
    505: "this workshop gateway speaks HTTP/1.1 (and 1.0) only",
}


# The methods the log names; any other word in that place is logged as "(bad method)", since
# whatever a client puts there would otherwise be written into the log as it is.
METHODS = frozenset({"GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"})


# A header line is a name of token characters, a colon, a value (RFC 9110 §5.1, RFC 9112 §5).
# Whitespace between the name and the colon (`Transfer-Encoding : chunked`) and a line folded
# onto the one before (obs-fold, a line starting with a space or a tab) are refused with a 400
# (RFC 9112 §5.1 and §5.2): read one way here and another way upstream, either could smuggle
# a header past the checks.
HEADER_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
MALFORMED_HEADER = (
    "a header line is malformed: a name with whitespace before its colon, or a line folded "
    "onto the one before (obs-fold)"
)


def malformed_header(line: bytes) -> bool:
    """True for a header line whose name is not a token followed at once by ':', or obs-fold."""
    name, colon, _ = line.partition(b":")
    return not colon or HEADER_NAME.fullmatch(name) is None


MAX_HEADER_LINE = 65_536
MAX_HEADERS = 100
MAX_HEAD = 65_536  # the request line and every header line together, before any token
LINGER, LINGER_BYTES = 1.0, 1_000_000  # how long and how much is dropped after a 431 / 414


class HeadReader:
    """The part of the gateway's request handler that reads the head (a mixin)."""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.client_timeout)
        self._reader = DeadlineReader(self.connection, "rb")
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        """One request: its head within --client-timeout, then _handle (which reads the body)."""
        self._body_read = False
        self._sent = False
        self._hold: Hold | None = None
        self.head_problem: str | None = None  # a 400's own message, else HTTP_LAYER_ERRORS's
        self._name: str | None = None
        self.command, self.request_version = "", "HTTP/1.1"
        self.requestline, self.path, self.headers = "", "", None
        self._line = f"unknown token from {self.client_address[0]}:"
        # A connection that sends nothing (new, or kept alive after a request) keeps its slot
        # only for the short idle timeout; once a byte arrives, the head has --client-timeout.
        idle = min(self.server.idle_timeout, self.server.client_timeout)
        self._reader.deadline = time.monotonic() + idle
        problem, line, header_lines = None, b"", []
        try:
            if not self.rfile.peek(1):  # the participant closed an idle connection
                self.close_connection = True
                return
        except (TimeoutError, OSError):  # idle too long: let it go, nothing to say
            self.close_connection = True
            self._reader.deadline = None
            return
        head_deadline = min(self.server.head_timeout, self.server.client_timeout)
        self._reader.deadline = time.monotonic() + head_deadline
        try:
            line = self.rfile.readline(MAX_HEAD + 1)
            if len(line) > MAX_HEAD:
                problem = 414  # the rest of the line is never read: the connection closes
            else:
                problem = self._read_header_lines(header_lines, MAX_HEAD - len(line))
        except TimeoutError:
            problem = 408
        except OSError:
            self.close_connection = True
            return
        finally:
            self._reader.deadline = None
            self.connection.settimeout(self.server.client_timeout)
        # Whatever header lines arrived are read, even when the request is refused: the name
        # of the participant whose token is among them goes into the log and the report.
        self.headers = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(
            b"".join(header_lines).decode("iso-8859-1")
        )
        words = line.decode("latin-1").rstrip("\r\n").split(" ") if problem != 414 else []
        if problem is None and (len(words) != 3 or not words[0] or not words[1]):
            problem = 400
        if problem is None and words[2] not in ("HTTP/1.1", "HTTP/1.0"):
            problem = 505 if words[2].startswith("HTTP/") else 400
        if problem is None and any(ord(c) < 32 or ord(c) == 127 for c in " ".join(words)):
            problem = 400  # a control character in the request line: never read, never logged
        if problem is None and any(malformed_header(header) for header in header_lines):
            problem, self.head_problem = 400, MALFORMED_HEADER
        if problem is None:
            self.command, self.path, version = words
            connection = (self.headers.get("connection") or "").lower()
            self.close_connection = version == "HTTP/1.0" or connection == "close"
        self._handle(problem)
        if problem in (414, 431):
            self._linger()
            return
        try:
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _read_header_lines(self, lines: list[bytes], room: int) -> int | None:
        """Read the header lines into `lines`; 431 when one is too long, there are too many, or
        the whole head passes MAX_HEAD (`room` is what the request line left of it)."""
        while True:
            header = self.rfile.readline(min(MAX_HEADER_LINE, room) + 1)
            if header in (b"\r\n", b"\n", b""):
                return None
            room -= len(header)
            if len(header) > MAX_HEADER_LINE or len(lines) == MAX_HEADERS or room < 0:
                return 431
            lines.append(header)
            self._trust_on_token(header)

    def _trust_on_token(self, header: bytes) -> None:
        """A valid token line makes the connection a participant's at once, before the head
        ends: a participant on a slow link is not evicted by a few token-less connections."""
        name, _, value = header.partition(b":")
        name, token = name.lower(), value.decode("iso-8859-1").strip()
        if name == b"authorization" and token.lower().startswith("bearer "):
            token = token[7:].strip()
        elif name != b"x-api-key":
            return
        if token and self.server.participants.participant(token) is not None:
            self.server.slots.trust(self.connection)

    def _linger(self) -> None:
        """After refusing a head that was not read to its end: say we are done, then read and
        drop what is still coming for a moment, so the answer is not lost to a reset."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER
            dropped = 0
            while dropped < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                chunk = self.connection.recv(65_536)
                if not chunk:
                    break
                dropped += len(chunk)
        except OSError:
            pass
