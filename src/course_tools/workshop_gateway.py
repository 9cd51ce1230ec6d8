"""A shared-key gateway for a workshop: participants get workshop tokens, the real key stays here.

Run it on a machine you control, on the room's network (never on the public internet):

    ANTHROPIC_API_KEY=sk-ant-... python -m course_tools.workshop_gateway \\
        --tokens tokens.txt --host 0.0.0.0 --port 8080 --budget 500000

`tokens.txt` holds one workshop token per line (e.g. `ws-ada-7f3k`). Each participant sets

    export ANTHROPIC_BASE_URL=http://GATEWAY-HOST:8080
    export ANTHROPIC_API_KEY=ws-ada-7f3k

and restarts the kernel; the course's `make_client()` then sends every request here.

What it does with each request:
- reads the participant's token where the SDK puts it: `Authorization: Bearer <token>` (SDK 2.x),
  or `x-api-key` (curl, older clients); an unknown token gets the API's 401 error;
- refuses a participant whose tokens used so far reach `--budget` (403, permission_error);
- caps `max_tokens` at `--max-tokens`;
- forwards the body to `--upstream` with the real key (`Authorization: Bearer <key>`, as the
  SDK sends it) and the API's own headers (`anthropic-version`, `anthropic-beta`), and sends
  the answer back unchanged: JSON, or server-sent events as they arrive;
- counts every token of the answer's `usage` per participant, and prints one line per request.

Only the standard library is used, so it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FORWARDED_HEADERS = ("content-type", "accept", "anthropic-version", "anthropic-beta")
RETURNED_HEADERS = ("content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry")
PATHS = ("/v1/messages", "/v1/messages/count_tokens", "/v1/models")
USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


class Ledger:
    """Tokens used per participant, safe to update from several request threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.used: dict[str, int] = {}

    def add(self, token: str, tokens: int) -> int:
        with self._lock:
            self.used[token] = self.used.get(token, 0) + tokens
            return self.used[token]

    def spent(self, token: str) -> int:
        with self._lock:
            return self.used.get(token, 0)


def participant_token(headers) -> str:
    """The workshop token, from `Authorization: Bearer ...` (SDK 2.x) or `x-api-key`."""
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return headers.get("x-api-key", "").strip()


def usage_total(usage: dict | None) -> int:
    usage = usage or {}
    return sum(int(usage.get(name) or 0) for name in USAGE_FIELDS)


class GatewayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Gateway

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # one line per request is printed by _forward instead

    def do_POST(self) -> None:
        self._forward("POST")

    def do_GET(self) -> None:
        self._forward("GET")

    def _forward(self, method: str) -> None:
        token = participant_token(self.headers)
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        if token not in self.server.tokens:
            return self._error(401, "authentication_error", "invalid workshop token")
        path = self.path.split("?")[0].rstrip("/")
        if not any(path == p or path.startswith(p + "/") for p in PATHS):
            return self._error(404, "not_found_error", f"the gateway does not forward {path}")
        spent = self.server.ledger.spent(token)
        if spent >= self.server.budget:
            message = f"workshop budget used up: {spent:,} of {self.server.budget:,} tokens"
            return self._error(403, "permission_error", message)
        if body and path == "/v1/messages":
            request = json.loads(body)
            if int(request.get("max_tokens") or 0) > self.server.max_tokens:
                request["max_tokens"] = self.server.max_tokens
            body = json.dumps(request).encode()
        headers = {k: self.headers[k] for k in FORWARDED_HEADERS if self.headers.get(k)}
        headers["authorization"] = f"Bearer {self.server.api_key}"
        upstream = urllib.request.Request(
            self.server.upstream + self.path, data=body or None, method=method, headers=headers
        )
        try:
            answer = urllib.request.urlopen(upstream, timeout=600)
        except urllib.error.HTTPError as error:
            answer = error  # the API's own error: passed back as it is
        except OSError as error:
            return self._error(502, "api_error", f"the gateway cannot reach the API: {error}")
        status = answer.getcode()
        with answer:
            self.send_response(status)
            for name in RETURNED_HEADERS:
                if answer.headers.get(name):
                    self.send_header(name, answer.headers[name])
            if (answer.headers.get("content-type") or "").startswith("text/event-stream"):
                tokens = self._relay_stream(answer)
            else:
                data = answer.read()
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                tokens = _json_usage(data) if path == "/v1/messages" else 0
        total = self.server.ledger.add(token, tokens)
        print(f"{token}: {method} {path} {status}, {tokens:,} tokens, {total:,} in all")
        sys.stdout.flush()

    def _relay_stream(self, answer) -> int:
        """Send server-sent events on as they come; return the tokens their usage reports."""
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        usage: dict = {}
        for line in answer:  # one line at a time, as the API writes them
            self.wfile.write(f"{len(line):X}\r\n".encode() + line + b"\r\n")
            self.wfile.flush()
            if line.startswith(b"data:"):
                try:
                    event = json.loads(line[5:])
                except ValueError:
                    continue
                if event.get("type") == "message_start":
                    usage.update((event.get("message") or {}).get("usage") or {})
                elif event.get("type") == "message_delta":
                    usage.update(event.get("usage") or {})  # cumulative counts
        self.wfile.write(b"0\r\n\r\n")
        return usage_total(usage)

    def _error(self, status: int, kind: str, message: str) -> None:
        data = json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _json_usage(data: bytes) -> int:
    try:
        return usage_total(json.loads(data).get("usage"))
    except (ValueError, AttributeError):
        return 0


class Gateway(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        *,
        upstream: str,
        api_key: str,
        tokens: set[str],
        budget: int,
        max_tokens: int,
    ) -> None:
        super().__init__(address, GatewayHandler)
        self.upstream = upstream.rstrip("/")
        self.api_key = api_key
        self.tokens = {t for t in tokens if t}
        self.budget = budget
        self.max_tokens = max_tokens
        self.ledger = Ledger()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course_tools.workshop_gateway")
    parser.add_argument("--tokens", type=Path, required=True, help="file: one token per line")
    parser.add_argument("--upstream", default="https://api.anthropic.com")
    parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0 for the room's network")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--budget", type=int, default=3_000_000, help="tokens per participant")
    parser.add_argument("--max-tokens", type=int, default=16_000, help="cap on max_tokens")
    args = parser.parse_args(argv)
    api_key = os.environ.get("ANTHROPIC_API_KEY", "")
    if not api_key:
        parser.error("set ANTHROPIC_API_KEY (the real key) in the gateway's own environment")
    tokens = set(args.tokens.read_text(encoding="utf-8").split())
    gateway = Gateway(
        (args.host, args.port),
        upstream=args.upstream,
        api_key=api_key,
        tokens=tokens,
        budget=args.budget,
        max_tokens=args.max_tokens,
    )
    host, port = gateway.server_address[:2]
    print(f"Workshop gateway on http://{host}:{port} for {len(tokens)} participants", flush=True)
    try:
        gateway.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        gateway.server_close()


if __name__ == "__main__":
    main()
