"""A shared-key gateway for one room and one day: participants get workshop tokens, the key stays.

Course machinery (instructor tool). Run it on a machine you control, on the room's network:

    ANTHROPIC_API_KEY=sk-ant-... python -m course_tools.workshop_gateway \\
        --tokens tokens.txt --ledger ledger.json --host 0.0.0.0 --port 8080 --budget 500000

`tokens.txt` holds one participant per line, a name and a workshop token (`ada ws-3f9c...`;
see `course_tools.gateway_tokens`). Each participant sets

    export ANTHROPIC_BASE_URL=http://GATEWAY-HOST:8080
    export ANTHROPIC_API_KEY=ws-3f9c...

and restarts the kernel; the course's `make_client()` then sends every request here.

For each request, in this order, before anything reaches the API:
- the workshop token (`Authorization: Bearer`, as SDK 2.x sends it, or `x-api-key`) must be in
  the token file, which is reread at every request (delete a line to revoke): else 401;
- the route must be one of an exact list (`POST /v1/messages`, `POST /v1/messages/count_tokens`,
  `GET /v1/models`, `GET /v1/models/{id}`), matched on the raw path: else 404;
- the body must have a Content-Length of at most `--max-body` bytes and arrive within
  `--client-timeout` seconds; it must be a JSON object; `max_tokens` must be a whole number no
  larger than `--max-tokens` (a larger one is refused with a message naming the cap, never cut
  silently); server tools, MCP servers and server-side threads are refused, since the input
  they add cannot be counted in advance;
- for a Messages call, the worst case (the input, counted by the API's count_tokens, plus
  `max_tokens`) is held against the participant's `--budget` before forwarding, and refused
  (403) when spent + held + worst case would pass it. The answer's `usage` then replaces the
  hold; an error answer releases it; an answer whose usage is unknown (a stream cut off) keeps
  the whole hold as spent.

Every refusal comes back in the API's error envelope, every forwarded call is counted, and the
ledger is kept on disk (`--ledger`), so a restart neither forgets nor forgives. One line is
logged per request with the participant's name, never a token. `python -m
course_tools.workshop_usage ledger.json` prints the room's usage.

Only the standard library is used, so it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from course_tools import gateway_requests as checks
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


class GatewayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Not HTTP/0.9: an unparseable request line still gets a status line and the envelope.
    default_request_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "workshop-gateway"
    sys_version = ""
    server: Gateway

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the participant left, or went silent between requests

    def send_error(self, code: int, message: str | None = None, explain: str | None = None):
        """Errors found by the HTTP layer (a malformed request line, headers too long)."""
        self._body_read = False
        kind = "not_found_error" if code in (404, 501) else "invalid_request_error"
        self._error(Refused(code, kind, message or explain or "malformed request"))
        self.server.log(f"connection from {self.client_address[0]}: {code}, {message}")

    def setup(self) -> None:
        self.timeout = self.server.client_timeout  # reads and writes on the participant's socket
        super().setup()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # one line per request is logged by _handle instead

    def log_error(self, format: str, *args) -> None:  # noqa: A002
        self.server.log(f"connection from {self.client_address[0]}: " + format % args)

    def do_POST(self) -> None:
        self._handle("POST")

    def do_GET(self) -> None:
        self._handle("GET")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _handle(self, method: str) -> None:
        self._body_read = False
        self._line = f"unknown token from {self.client_address[0]}: {method} (route not checked)"
        name = None
        try:
            name = self.server.participants.name_for(participant_token(self.headers))
            if name is None:
                raise Refused(401, "authentication_error", "invalid workshop token")
            self._line = f"{name}: {method} (not forwarded)"
            route = checks.route(method, self.path)
            self._line = f"{name}: {method} {route.name}"
            body = self._read_body()
            if route.name == "messages":
                self._messages(name, route, body)
            else:
                self.server.ledger.count_call(name, route.name)
                self._forward(method, route, body, None)
        except Refused as refused:
            if name is not None:
                self.server.ledger.count_refusal(name)
            self._log(refused.status, f"refused: {refused.logged}")  # before the answer goes out
            self._error(refused)
        except _ClientGone:
            self._log(0, "the participant closed the connection")
            self.close_connection = True

    def _log(self, status: int, note: str) -> None:
        self.server.log(f"{self._line} {status}, {note}")

    def _read_body(self) -> bytes:
        """The whole body, within --client-timeout in all (a trickle of bytes does not reset it)."""
        length = checks.content_length(self.headers, self.server.max_body)
        deadline = time.monotonic() + self.server.client_timeout
        chunks: list[bytes] = []
        received = 0
        try:
            while received < length:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self.connection.settimeout(left)
                chunk = self.rfile.read1(min(65_536, length - received))
                if not chunk:
                    raise _ClientGone()
                chunks.append(chunk)
                received += len(chunk)
        except TimeoutError:
            raise Refused(
                408,
                "timeout_error",
                f"the request body did not arrive within {self.server.client_timeout:g} s",
            ) from None
        except OSError:
            raise _ClientGone() from None
        finally:
            self.connection.settimeout(self.server.client_timeout)
        self._body_read = True
        return b"".join(chunks)

    def _messages(self, name: str, route: Route, body: bytes) -> None:
        request = checks.json_body(body)
        max_tokens = checks.checked_max_tokens(request, self.server.max_tokens)
        checks.no_server_tools(request)
        checks.no_thread(request)
        counted = self._count_input(route, checks.counted_part(request))
        worst = counted + max_tokens
        hold = self.server.ledger.reserve(name, worst)
        if hold is None:
            ledger = self.server.ledger
            left = max(0, ledger.budget - ledger.spent(name) - ledger.held(name))
            raise Refused(
                403,
                "permission_error",
                f"workshop budget: this request may use up to {worst:,} tokens ({counted:,} in, "
                f"max_tokens {max_tokens:,} out) and {left:,} of your {ledger.budget:,} are left",
            )
        self.server.ledger.count_call(name, route.name)
        self._forward("POST", route, body, hold)

    def _count_input(self, route: Route, counted: dict) -> int:
        """The request's input tokens, as the API's count_tokens measures them."""
        path = "/v1/messages/count_tokens" + route.upstream_path.removeprefix("/v1/messages")
        try:
            with self._upstream("POST", path, json.dumps(counted).encode()) as answer:
                return int(json.loads(answer.read())["input_tokens"])
        except urllib.error.HTTPError as error:
            with error:
                raise _api_error(error.code, error.read()) from None
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise Refused(
                502, "api_error", f"the gateway could not count the request's tokens: {error}"
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
        except OSError as error:
            if hold:
                self.server.ledger.release(hold)
            raise Refused(502, "api_error", f"the gateway cannot reach the API: {error}") from None
        status = answer.getcode()
        settled: list[str] = []

        def settle(usage: dict | None) -> None:  # before the answer's last byte goes out
            if not settled:
                settled.append(self._settle(hold, status, usage))
                self._log(status, settled[0])

        with answer:
            self.send_response(status)
            for name in RETURNED_HEADERS:
                if answer.headers.get(name):
                    self.send_header(name, answer.headers[name])
            try:
                if (answer.headers.get("content-type") or "").startswith("text/event-stream"):
                    self._relay_stream(answer, settle)
                else:
                    data = answer.read()
                    settle(_json_usage(data))
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
            except OSError:  # the participant left, or the API's connection broke
                settle(None)
                self.close_connection = True

    def _settle(self, hold: Hold | None, status: int, usage: dict | None) -> str:
        """Turn the hold into what the answer used; what to log about it."""
        ledger = self.server.ledger
        if hold is None:
            return "no tokens"
        if status >= 400:
            ledger.release(hold)
            return "not billed"
        if usage is None:  # the answer was cut off: the most it could have used is spent
            total = ledger.settle(hold, hold.tokens)
            return f"usage unknown, {hold.tokens:,} tokens (the hold), {total:,} in all"
        used = usage_total(usage)
        total = ledger.settle(hold, used)
        note = f"{used:,} tokens, {total:,} of {ledger.budget:,} in all"
        if used > hold.tokens:  # the count fell short: charged, and said
            note += f" ({used - hold.tokens:,} above the hold)"
        return note

    def _relay_stream(self, answer, settle: Callable[[dict | None], None]) -> None:
        """Send server-sent events on as they come; settle with the usage they report."""
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
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
        settle(usage if finished else None)  # a stream cut off: usage unknown
        self.wfile.write(b"0\r\n\r\n")

    def _error(self, refused: Refused) -> None:
        data = refused.envelope()
        self.send_response(refused.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if not self._body_read:  # the body was not read: this connection cannot be reused
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        try:
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
        return Refused(status, str(error["type"]), str(error["message"]))
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
        super().__init__(address, GatewayHandler)


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
    parser.add_argument("--client-timeout", type=float, default=30.0, help="seconds")
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
