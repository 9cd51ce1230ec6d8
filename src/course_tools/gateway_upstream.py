"""How the workshop gateway talks to the API: the count, the call, the answer relayed, the hold settled.

Course machinery (instructor tool). `GatewayHandler` (in `workshop_gateway`) checks a request,
then uses these methods: the input is counted by the API's count_tokens, the request goes on
with the real key (never to where a redirect points), and the answer, whole or streamed, is
relayed while the hold is turned into what the answer says it used, before its last byte.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Callable

from course_tools import gateway_requests as checks
from course_tools.gateway_ledger import Hold
from course_tools.gateway_requests import Refused, Route

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


def usage_total(usage: dict | None) -> int:
    """Every token a `usage` reports, cache reads and writes at full weight."""
    usage = usage or {}
    return sum(int(usage.get(name) or 0) for name in USAGE_FIELDS)


class UpstreamRelay:
    """The part of the gateway's request handler that faces the API (a mixin)."""

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
