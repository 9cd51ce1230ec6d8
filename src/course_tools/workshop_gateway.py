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
- at most `--max-connections` connections are served at once, and at most `--max-per-client`
  from one address (one more gets a 429), before any token is read; when every slot is taken,
  the connection whose head has been arriving longest without a valid token (past
  `--evict-after` seconds) is closed to make room, and only when there is none does a
  newcomer get a 529 (`course_tools.gateway_connections`);
- its head (request line and headers) must arrive within `--head-timeout` seconds in all (and
  `--client-timeout` if shorter), and be at most 64 KiB in all: else 408, or 431; a header
  line with whitespace before its colon, or folded onto the one before, is a 400;
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
  checked; a count_tokens body gets the same checks, `max_tokens` apart, and a participant
  makes at most `--count-tokens-per-minute` (30) upstream counts a minute, direct or of a
  Messages call then refused (else 429, retry-after), none once their budget is spent (403);
- for a Messages call, a `max_tokens` larger than what is left of the budget is refused
  (403) before anything is counted; then the worst case (the input, counted by the API's
  count_tokens, plus `max_tokens`) is held against the participant's `--budget` before forwarding, and refused
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

Only the standard library is used, so it runs with any Python 3.11. The parts: the head is read
by `gateway_head`, slots are counted by `gateway_connections`, requests checked by
`gateway_requests`, the API reached by `gateway_upstream`, spending kept by `gateway_ledger`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from course_helpers.plumbing.truncate import visible
from course_tools import gateway_requests as checks
from course_tools.gateway_connections import (
    ADDRESS_FULL,
    ALL_TAKEN,
    EVICT_AFTER,
    Slots,
    default_per_client,
    turned_away,
)
from course_tools.gateway_head import HTTP_LAYER_ERRORS, METHODS, HeadReader
from course_tools.gateway_ledger import Ledger
from course_tools.gateway_requests import COUNT_TOKENS_PER_MINUTE, CallRate, Refused, Route
from course_tools.gateway_tokens import TokenFile
from course_tools.gateway_upstream import UpstreamRelay


def participant_token(headers) -> str:
    """The workshop token, from `Authorization: Bearer ...` (SDK 2.x) or `x-api-key`."""
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return headers.get("x-api-key", "").strip()


class _ClientGone(Exception):
    """The participant's connection closed before the request was read."""


class GatewayHandler(HeadReader, UpstreamRelay, BaseHTTPRequestHandler):
    """Reads each request itself: a deadline for its head, a name for every line it logs."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "workshop-gateway"
    sys_version = ""
    server: Gateway

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

    def _handle(self, problem: int | None) -> None:
        method = self.command if self.command in METHODS else "(bad method)"
        try:
            participant = None
            if self.headers is not None:
                token = participant_token(self.headers)
                participant = self.server.participants.participant(token)
            if participant is not None:
                self.server.slots.trust(self.connection)
                self._name = participant.name
                self._line = f"{participant.name}:"
                self.server.ledger.set_budget(participant.name, participant.budget)
            if problem is not None:
                self.close_connection = True
                kind = "timeout_error" if problem == 408 else "invalid_request_error"
                message = self.head_problem or HTTP_LAYER_ERRORS[problem]
                raise Refused(problem, kind, message)
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
                    ledger, name = self.server.ledger, participant.name
                    if ledger.spent(name) >= ledger.budget_of(name):  # nothing left to plan for
                        raise checks.over_budget(None, 0, ledger.budget_of(name))
                    self.server.count_rate.check(name)
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
        ledger = self.server.ledger
        budget = ledger.budget_of(name)
        left = max(0, budget - ledger.spent(name) - ledger.held(name))
        if max_tokens > left:  # refused before the input is counted: no upstream call at all
            said = f"{max_tokens:,} tokens out (max_tokens) plus its input,"
            raise checks.over_budget(said, left, budget)
        self.server.count_rate.check(name)  # every upstream count, whichever route causes it
        counted = self._count_input(route, checks.counted_part(request))
        worst = counted + max_tokens
        self._hold = ledger.reserve(name, worst)
        if self._hold is not None:  # served and paid for: this count was not a free one
            self.server.count_rate.refund(name)
        else:
            left = max(0, budget - ledger.spent(name) - ledger.held(name))
            said = f"{worst:,} tokens ({counted:,} in, max_tokens {max_tokens:,} out)"
            raise checks.over_budget(said, left, budget)
        ledger.count_call(name, route.name)
        self._forward("POST", route, checks.canonical(request), self._hold)

    def _error(self, refused: Refused) -> None:
        data = refused.envelope()
        self._sent = True
        self.send_response(refused.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if refused.status == 400 and "max_tokens" in refused.message:
            self.send_header("x-workshop-max-tokens-cap", str(self.server.max_tokens))
        if refused.retry_after is not None:
            self.send_header("retry-after", str(max(1, round(refused.retry_after))))
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


EVICTED = 0  # a key of Gateway._turned_away: token-less connections closed to make room


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
        evict_after: float = EVICT_AFTER,
        count_tokens_per_minute: int = COUNT_TOKENS_PER_MINUTE,
        log: Callable[[str], None] = _print,
    ) -> None:
        self.log = log
        self.count_rate = CallRate(count_tokens_per_minute)
        self.upstream = upstream.rstrip("/")
        self.api_key = api_key
        self.participants = TokenFile(tokens, log=log)
        self.ledger = Ledger(budget, ledger)
        self.max_tokens = max_tokens
        self.max_body = max_body
        self.client_timeout = client_timeout
        self.upstream_timeout = upstream_timeout
        self.max_connections = max_connections
        self.slots = Slots(
            max_connections, max_per_client or default_per_client(max_connections), evict_after
        )
        self.idle_timeout = idle_timeout
        self.head_timeout = head_timeout
        self._turned_away: Counter[int] = Counter()  # refused since the last line that said so
        self._turned_away_logged = float("-inf")
        super().__init__(address, GatewayHandler)

    def process_request(self, request, client_address) -> None:
        """A thread per connection, within the caps (`gateway_connections`); past them, the door."""
        address = str(client_address[0])
        evicted = self.slots.evicted
        refused = self.slots.take(address, request)
        if self.slots.evicted != evicted:  # only this thread takes slots
            self._log_turned_away(EVICTED)
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
            self.slots.give_back(request)
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
            if self._turned_away[EVICTED]:
                said.append(
                    f"{self._turned_away[EVICTED]} connection(s) without a valid token closed "
                    "to make room"
                )
            self.log("; ".join(said))
            self._turned_away.clear()
            self._turned_away_logged = now

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.give_back(request)


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
    parser.add_argument(
        "--evict-after",
        type=float,
        default=EVICT_AFTER,
        help="seconds after which a connection still without a valid token gives its slot to "
        "a newcomer when every slot is taken",
    )
    parser.add_argument(
        "--count-tokens-per-minute",
        type=int,
        default=COUNT_TOKENS_PER_MINUTE,
        help="direct count_tokens calls a minute per participant (more get a 429)",
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
        evict_after=args.evict_after,
        count_tokens_per_minute=args.count_tokens_per_minute,
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
