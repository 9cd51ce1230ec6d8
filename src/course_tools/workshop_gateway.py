"""A shared-key gateway for one room and one day: participants get workshop tokens, the key stays.

Course machinery (instructor tool). Run it on a machine you control, on the room's network:

    ANTHROPIC_API_KEY=sk-ant-... python -m course_tools.workshop_gateway \\
        --tokens tokens.txt --ledger ledger.json --host 0.0.0.0 --port 8080 --budget 500000

`tokens.txt` holds one participant per line, a name, a workshop token and optionally a budget
of their own (`ada ws-3f9c...` or `bob ws-91d0... 900000`; see `course_tools.gateway_tokens`).
Each participant sets

    export ANTHROPIC_BASE_URL=http://GATEWAY-HOST:8080
    export ANTHROPIC_API_KEY=ws-3f9c...

and restarts the kernel; the course's `make_client()` then sends every request here.

For each request, in this order, before anything reaches the API:
- at most `--max-connections` connections are served at once (one more gets a 529), and at
  most `--max-per-client` from one address (one more gets a 429), before any token is read
  (`course_tools.gateway_connections`);
- its head (request line and headers) must arrive within `--head-timeout` seconds in all (and
  `--client-timeout` if shorter), and be at most 64 KiB in all: else 408, or 431;
- the workshop token (`Authorization: Bearer`, as SDK 2.x sends it, or `x-api-key`) must be in
  the token file, which is reread at every request (delete a line to revoke): else 401;
- the route must be one of an exact list (`POST /v1/messages`, `POST /v1/messages/count_tokens`,
  `GET /v1/models`, `GET /v1/models/{id}`), matched on the raw path: else 404;
- the body must have a Content-Length of at most `--max-body` bytes and arrive within
  `--client-timeout` seconds; it must be a JSON object; `max_tokens` must be a whole number no
  larger than `--max-tokens` (a larger one is refused with a message naming the cap, never cut
  silently); server tools, MCP servers and server-side threads are refused, since the input
  they add cannot be counted in advance, and so is every top-level field the hold cannot bound
  (`fallbacks`, `context_management`, anything not on `gateway_requests.BOUNDED_FIELDS`);
  a body that names a key twice, is not UTF-8, holds an unpaired surrogate or is nested too
  deep is refused, and what is forwarded is the gateway's own serialisation of the object it
  checked; a count_tokens body gets the same checks, `max_tokens` apart;
- for a Messages call, the worst case (the input, counted by the API's count_tokens, plus
  `max_tokens`) is held against the participant's `--budget` before forwarding, and refused
  (403) when spent + held + worst case would pass it (the participant's own budget, when the
  token file gives one). The answer's `usage` then replaces the hold; an error answer releases
  it; an answer whose usage is unknown (a body or a stream cut off, or no answer at all once
  the request was sent) keeps the whole hold as spent.

Every refusal comes back in the API's error envelope, every forwarded call is counted, and the
ledger is kept on disk (`--ledger`), so a restart neither forgets nor forgives. One line is
logged per request with the participant's name (whenever a known token arrived, even with a
malformed request), never a token, a request line or a header, and escaped: no control
character reaches it. `python -m course_tools.workshop_usage ledger.json` prints the room's
usage.

Only the standard library is used, so it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import email.parser
import http.client
import io
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from course_helpers.plumbing.truncate import visible
from course_tools import gateway_requests as checks
from course_tools.gateway_connections import (
    ADDRESS_FULL,
    ALL_TAKEN,
    Slots,
    default_per_client,
    turned_away,
)
from course_tools.gateway_ledger import Hold, Ledger
from course_tools.gateway_requests import Refused, Route
from course_tools.gateway_tokens import TokenFile

FORWARDED_HEADERS = ("content-type", "accept", "anthropic-version", "anthropic-beta")
RETURNED_HEADERS = ("content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry")
USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The real key goes to the upstream given, never to where a redirect points."""

    def redirect_request(self, *args, **kwargs):
        return None


UPSTREAM = urllib.request.build_opener(_NoRedirects)


def participant_token(headers) -> str:
    """The workshop token, from `Authorization: Bearer ...` (SDK 2.x) or `x-api-key`."""
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return headers.get("x-api-key", "").strip()


def usage_total(usage: dict | None) -> int:
    """Every token a `usage` reports, cache reads and writes at full weight."""
    usage = usage or {}
    return sum(int(usage.get(name) or 0) for name in USAGE_FIELDS)


class _ClientGone(Exception):
    """The participant's connection closed before the request was read."""


class _DeadlineReader(socket.SocketIO):
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


MAX_HEADER_LINE = 65_536
MAX_HEADERS = 100
MAX_HEAD = 65_536  # the request line and every header line together, before any token
LINGER, LINGER_BYTES = 1.0, 1_000_000  # how long and how much is dropped after a 431 / 414


class GatewayHandler(BaseHTTPRequestHandler):
    """Reads each request itself: a deadline for its head, a name for every line it logs."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "workshop-gateway"
    sys_version = ""
    server: Gateway

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.client_timeout)
        self._reader = _DeadlineReader(self.connection, "rb")
        self.rfile = io.BufferedReader(self._reader)

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the participant left, or went silent

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # one line per request is logged by _handle instead

    def log_error(self, format: str, *args) -> None:  # noqa: A002
        # The base class quotes what the client sent: never logged (a token may be in it).
        self.server.log(f"connection from {self.client_address[0]}: an error in the HTTP layer")

    def handle_one_request(self) -> None:
        """One request: its head within --client-timeout, then _handle (which reads the body)."""
        self._body_read = False
        self._sent = False
        self._hold: Hold | None = None
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

    def _handle(self, problem: int | None) -> None:
        method = self.command if self.command in METHODS else "(bad method)"
        try:
            participant = None
            if self.headers is not None:
                token = participant_token(self.headers)
                participant = self.server.participants.participant(token)
            if participant is not None:
                self._name = participant.name
                self._line = f"{participant.name}:"
                self.server.ledger.set_budget(participant.name, participant.budget)
            if problem is not None:
                self.close_connection = True
                kind = "timeout_error" if problem == 408 else "invalid_request_error"
                raise Refused(problem, kind, HTTP_LAYER_ERRORS[problem])
            self._line += f" {method}"
            if participant is None:
                raise Refused(401, "authentication_error", "invalid workshop token")
            self._line += " (not forwarded)"
            route = checks.route(method, self.path)
            self._line = f"{participant.name}: {method} {route.name}"
            if (self.headers.get("expect") or "").lower() == "100-continue":
                self.send_response_only(100)
                self.end_headers()
            body = self._read_body()
            if route.name == "messages":
                self._messages(participant.name, route, body)
            else:
                if route.name == "count_tokens":  # what Messages refuses, count_tokens does too
                    request = checks.json_body(body)
                    checks.no_thread(request)
                    checks.no_server_tools(request)
                    checks.only_bounded_fields(request)
                    body = checks.canonical(request)
                elif body:
                    body = checks.canonical(checks.json_body(body))
                self.server.ledger.count_call(participant.name, route.name)
                self._forward(method, route, body, None)
        except Refused as refused:
            if self._name is not None:
                self.server.ledger.count_refusal(self._name)
            self._log(refused.status, f"refused: {refused.logged}")  # before the answer goes out
            self._error(refused)
        except _ClientGone:
            self._log(0, "the participant closed the connection")
            self.close_connection = True
        except Exception as error:  # a fault of the gateway's own: answered, logged, held to
            self.close_connection = True
            self._log(500, f"gateway fault ({type(error).__name__})")
            if not self._sent:
                self._error(Refused(500, "api_error", "the workshop gateway failed; tell the room"))
        finally:
            if self._hold is not None:  # never settled: the most it could have used is spent
                self.server.ledger.settle(self._hold, self._hold.tokens)
                self._hold = None

    def _log(self, status: int, note: str) -> None:
        # Escaped: no newline, escape code or bell from anywhere can forge or hide a log line.
        self.server.log(visible(f"{self._line} {status}, {note}"))

    def _read_body(self) -> bytes:
        """The whole body, within --client-timeout in all (a trickle of bytes does not reset it)."""
        length = checks.content_length(self.headers, self.server.max_body)
        self._reader.deadline = time.monotonic() + self.server.client_timeout
        chunks: list[bytes] = []
        received = 0
        try:
            while received < length:
                chunk = self.rfile.read1(min(65_536, length - received))
                if not chunk:
                    raise _ClientGone()
                chunks.append(chunk)
                received += len(chunk)
        except TimeoutError:
            self.close_connection = True
            raise Refused(
                408,
                "timeout_error",
                f"the request body did not arrive within {self.server.client_timeout:g} s",
            ) from None
        except OSError:
            raise _ClientGone() from None
        finally:
            self._reader.deadline = None
            self.connection.settimeout(self.server.client_timeout)
        self._body_read = True
        return b"".join(chunks)

    def _messages(self, name: str, route: Route, body: bytes) -> None:
        request = checks.json_body(body)
        checks.no_thread(request)
        checks.no_server_tools(request)
        checks.only_bounded_fields(request)
        max_tokens = checks.checked_max_tokens(request, self.server.max_tokens)
        counted = self._count_input(route, checks.counted_part(request))
        worst = counted + max_tokens
        ledger = self.server.ledger
        self._hold = ledger.reserve(name, worst)
        if self._hold is None:
            budget = ledger.budget_of(name)
            left = max(0, budget - ledger.spent(name) - ledger.held(name))
            raise Refused(
                403,
                "permission_error",
                f"workshop budget: this request may use up to {worst:,} tokens ({counted:,} in, "
                f"max_tokens {max_tokens:,} out) and {left:,} of your {budget:,} are left",
            )
        ledger.count_call(name, route.name)
        self._forward("POST", route, checks.canonical(request), self._hold)

    def _count_input(self, route: Route, counted: dict) -> int:
        """The request's input tokens, as the API's count_tokens measures them."""
        path = "/v1/messages/count_tokens" + route.upstream_path.removeprefix("/v1/messages")
        try:
            with self._upstream("POST", path, checks.canonical(counted)) as answer:
                return int(json.loads(answer.read())["input_tokens"])
        except urllib.error.HTTPError as error:
            with error:
                try:
                    data = error.read()
                except (OSError, http.client.HTTPException):
                    data = b""
                raise _api_error(error.code, data) from None
        except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError) as error:
            raise Refused(
                502,
                "api_error",
                "the gateway could not count the request's tokens "
                f"({type(error).__name__}); try again",
            ) from None

    def _upstream(self, method: str, path: str, body: bytes | None):
        headers = {k: self.headers[k] for k in FORWARDED_HEADERS if self.headers.get(k)}
        headers["content-type"] = "application/json"
        headers["authorization"] = f"Bearer {self.server.api_key}"
        request = urllib.request.Request(
            self.server.upstream + path, data=body, method=method, headers=headers
        )
        return UPSTREAM.open(request, timeout=self.server.upstream_timeout)

    def _forward(self, method: str, route: Route, body: bytes, hold: Hold | None) -> None:
        """Send the request on; relay the answer; settle the hold and log before its last byte."""
        try:
            answer = self._upstream(method, route.upstream_path, body or None)
        except urllib.error.HTTPError as error:
            answer = error  # the API's own error: not billed, passed back as it is
        except urllib.error.URLError as error:  # urllib's word for: the request never left
            if hold:
                self.server.ledger.release(hold)
                self._hold = None
            raise Refused(
                502, "api_error", f"the gateway cannot reach the API ({type(error).__name__})"
            ) from None
        except (OSError, http.client.HTTPException) as error:
            # The request was sent and no answer came back: the API may have done (and billed)
            # the work, so the hold is spent, settled before the participant hears back.
            if hold:
                self.server.ledger.settle(hold, hold.tokens)
                self._hold = None
            raise Refused(
                502,
                "api_error",
                f"the API sent no answer ({type(error).__name__}); the request may have run, "
                "so what it could have used is counted",
            ) from None
        status = answer.getcode()
        settled: list[str] = []

        def settle(usage: dict | None, cut: bool = False) -> None:  # before the last byte
            if not settled:
                settled.append(self._settle(hold, status, usage, cut))
                self._log(status, settled[0])

        with answer:
            if (answer.headers.get("content-type") or "").startswith("text/event-stream"):
                self._send_head(status, answer)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                try:
                    self._relay_stream(answer, settle)
                except http.client.HTTPException:  # the API's stream broke off mid-chunk
                    settle(None, cut=True)
                    self.close_connection = True  # no last chunk: the participant sees it cut
                except OSError:  # the participant left, or the API's connection broke
                    settle(None, cut=True)
                    self.close_connection = True
                return
            try:
                data = answer.read()
            except (OSError, http.client.HTTPException) as error:  # the API's answer broke off
                settle(None, cut=True)
                raise Refused(
                    502,
                    "api_error",
                    f"the API's answer broke off ({type(error).__name__}); try again",
                ) from None
            settle(_json_usage(data))
            self._send_head(status, answer)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:
                self.close_connection = True

    def _send_head(self, status: int, answer) -> None:
        self._sent = True
        self.send_response(status)
        for name in RETURNED_HEADERS:
            if answer.headers.get(name):
                self.send_header(name, answer.headers[name])
        self.send_header("x-workshop-max-tokens-cap", str(self.server.max_tokens))

    def _settle(self, hold: Hold | None, status: int, usage: dict | None, cut: bool) -> str:
        """Turn the hold into what the answer used; what to log about it."""
        ledger = self.server.ledger
        self._hold = None
        if hold is None:
            return "no tokens" + (", the answer broke off" if cut else "")
        if status >= 400:  # the API's own error: not billed, even if its answer broke off
            ledger.release(hold)
            return "not billed"
        if usage is None:  # the answer was cut off: the most it could have used is spent
            total = ledger.settle(hold, hold.tokens)
            return f"usage unknown (cut off), {hold.tokens:,} tokens (the hold), {total:,} in all"
        used = usage_total(usage)
        total = ledger.settle(hold, used)
        note = f"{used:,} tokens, {total:,} of {ledger.budget_of(hold.name):,} in all"
        if used > hold.tokens:  # the count fell short: charged, and said
            note += f" ({used - hold.tokens:,} above the hold)"
        return note

    def _relay_stream(self, answer, settle: Callable[..., None]) -> None:
        """Send server-sent events on as they come; settle with the usage they report."""
        usage: dict = {}
        finished = False
        for line in answer:  # one line at a time, as the API writes them
            self.wfile.write(f"{len(line):X}\r\n".encode() + line + b"\r\n")
            self.wfile.flush()
            if line.startswith(b"data:"):
                try:
                    event = json.loads(line[5:])
                except ValueError:
                    continue
                kind = event.get("type") if isinstance(event, dict) else None
                if kind == "message_start":
                    usage.update((event.get("message") or {}).get("usage") or {})
                elif kind == "message_delta":
                    usage.update(event.get("usage") or {})  # cumulative counts
                elif kind == "message_stop":
                    finished = True
        if not finished:  # a stream cut off: usage unknown, and the participant must see it
            settle(None, cut=True)
            self.close_connection = True
            return
        settle(usage)
        self.wfile.write(b"0\r\n\r\n")

    def _error(self, refused: Refused) -> None:
        data = refused.envelope()
        self._sent = True
        self.send_response(refused.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if refused.status == 400 and "max_tokens" in refused.message:
            self.send_header("x-workshop-max-tokens-cap", str(self.server.max_tokens))
        if not self._body_read:  # the body was not read: this connection cannot be reused
            self.close_connection = True
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        try:
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True


def _json_usage(data: bytes) -> dict | None:
    try:
        usage = json.loads(data).get("usage")
    except (ValueError, AttributeError):
        return None
    return usage if isinstance(usage, dict) else None


def _api_error(status: int, data: bytes) -> Refused:
    """The API's error answer, as a refusal with the same status, type and message."""
    try:
        error = json.loads(data)["error"]
        return Refused(
            status,
            str(error["type"]),
            str(error["message"]),
            logged=f"the API answered {status} to the count",  # its message quotes the request
        )
    except (ValueError, KeyError, TypeError):
        return Refused(status, "api_error", f"the API answered {status}")


def _print(line: str) -> None:
    print(line, flush=True)


class Gateway(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        *,
        upstream: str,
        api_key: str,
        tokens: Path,
        budget: int,
        max_tokens: int,
        ledger: Path | None = None,
        max_body: int = 4_000_000,
        client_timeout: float = 30.0,
        upstream_timeout: float = 600.0,
        max_connections: int = 100,
        max_per_client: int | None = None,
        idle_timeout: float = 5.0,
        head_timeout: float = 10.0,
        log: Callable[[str], None] = _print,
    ) -> None:
        self.log = log
        self.upstream = upstream.rstrip("/")
        self.api_key = api_key
        self.participants = TokenFile(tokens, log=log)
        self.ledger = Ledger(budget, ledger)
        self.max_tokens = max_tokens
        self.max_body = max_body
        self.client_timeout = client_timeout
        self.upstream_timeout = upstream_timeout
        self.max_connections = max_connections
        self.slots = Slots(max_connections, max_per_client or default_per_client(max_connections))
        self.idle_timeout = idle_timeout
        self.head_timeout = head_timeout
        self._turned_away: Counter[int] = Counter()  # refused since the last line that said so
        self._turned_away_logged = float("-inf")
        super().__init__(address, GatewayHandler)

    def process_request(self, request, client_address) -> None:
        """A thread per connection, within the caps (`gateway_connections`); past them, the door."""
        address = str(client_address[0])
        refused = self.slots.take(address)
        if refused is not None:
            self._log_turned_away(refused)
            try:
                request.setblocking(False)  # never wait on this client: the accept loop is here
                request.send(turned_away(refused))
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.give_back(address)
            raise

    def _log_turned_away(self, status: int) -> None:
        """One line a second at most, with how many were turned away: a flood fills no disk."""
        self._turned_away[status] += 1
        now = time.monotonic()
        if now - self._turned_away_logged >= 1.0:
            full, address = self._turned_away[ALL_TAKEN], self._turned_away[ADDRESS_FULL]
            said = []
            if full:
                said.append(f"{full} connection(s) refused: {self.max_connections} already open")
            if address:
                said.append(
                    f"{address} connection(s) refused: {self.slots.per_client} already open "
                    "from their address"
                )
            self.log("; ".join(said))
            self._turned_away.clear()
            self._turned_away_logged = now

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.give_back(str(client_address[0]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course_tools.workshop_gateway")
    parser.add_argument("--tokens", type=Path, required=True, help="file: 'name token' lines")
    parser.add_argument(
        "--ledger", type=Path, help="file that keeps the spending (default: next to --tokens)"
    )
    parser.add_argument("--upstream", default="https://api.anthropic.com")
    parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0 for the room's network")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--budget", type=int, default=500_000, help="tokens per participant")
    parser.add_argument("--max-tokens", type=int, default=16_000, help="largest max_tokens")
    parser.add_argument("--max-body", type=int, default=4_000_000, help="largest body, bytes")
    parser.add_argument(
        "--client-timeout",
        type=float,
        default=30.0,
        help="seconds for a request's head, and again for its body",
    )
    parser.add_argument(
        "--max-connections", type=int, default=100, help="connections served at once"
    )
    parser.add_argument(
        "--max-per-client",
        type=int,
        help="connections at once from one address (default: a quarter of --max-connections, "
        "at least 2; a room behind one NAT sets it to --max-connections)",
    )
    parser.add_argument(
        "--head-timeout",
        type=float,
        default=10.0,
        help="seconds for a request's head to arrive, before any token is seen",
    )
    args = parser.parse_args(argv)
    api_key = os.environ.get("ANTHROPIC_API_KEY", "")
    if not api_key:
        parser.error("set ANTHROPIC_API_KEY (the real key) in the gateway's own environment")
    if not args.tokens.is_file():
        parser.error(f"no token file at {args.tokens}")
    gateway = Gateway(
        (args.host, args.port),
        upstream=args.upstream,
        api_key=api_key,
        tokens=args.tokens,
        ledger=args.ledger or args.tokens.with_name("workshop-ledger.json"),
        budget=args.budget,
        max_tokens=args.max_tokens,
        max_body=args.max_body,
        client_timeout=args.client_timeout,
        max_connections=args.max_connections,
        max_per_client=args.max_per_client,
        head_timeout=args.head_timeout,
    )
    host, port = gateway.server_address[:2]
    print(f"Workshop gateway on http://{host}:{port} for {len(gateway.participants)} participants")
    if host not in ("127.0.0.1", "::1", "localhost"):
        print("Plain HTTP: anyone on this network can read the workshop tokens and the answers.")
    sys.stdout.flush()
    try:
        gateway.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        gateway.server_close()


if __name__ == "__main__":
    main()
