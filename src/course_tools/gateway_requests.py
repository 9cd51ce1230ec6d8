"""What the workshop gateway accepts: an exact list of routes, and well-formed requests only.

Course machinery (instructor tool). Every check here raises `Refused`, which the gateway sends
back in the API's own error envelope, so a participant's SDK raises the usual exception with
a message that says what to change.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MODEL_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")
QUERY_VALUE = re.compile(r"[A-Za-z0-9_-]{1,100}")
# Query parameters each route may carry: `beta=true` is how the SDK's beta namespace calls
# the Messages API; the models list pages with limit / after_id / before_id.
MESSAGES_QUERY = ("beta",)
MODELS_QUERY = ("limit", "after_id", "before_id", "beta")
# The fields of a Messages request that count_tokens takes (the SDK's
# MessageCountTokensParams): the input, without max_tokens, stream, metadata and the like.
COUNTED_FIELDS = (
    "model",
    "messages",
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "output_config",
    "cache_control",
    "speed",
)
# Every top-level field of a Messages request the gateway forwards: the counted input, and the
# settings that change how the answer is written but not how long it can be.
BOUNDED_FIELDS = (
    *COUNTED_FIELDS,
    "max_tokens",
    "stream",
    "metadata",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "service_tier",
)


class Refused(Exception):
    """A request the gateway answers itself, with the API's error envelope."""

    def __init__(
        self,
        status: int,
        kind: str,
        message: str,
        logged: str | None = None,
        details: dict | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # seconds, sent as the retry-after header the SDK reads
        self.status = status
        self.kind = kind
        self.message = message
        self.details = details
        # What the gateway's log says: never a path or a query, where a token may have been put.
        self.logged = logged or message

    def envelope(self) -> bytes:
        error = {"type": self.kind, "message": self.message}
        if self.details:
            error["details"] = self.details
        return json.dumps({"type": "error", "error": error}).encode()


@dataclass(frozen=True)
class Route:
    name: str  # "messages", "count_tokens", "models", "model"
    upstream_path: str  # path and query, rebuilt from checked parts only


def route(method: str, raw: str) -> Route:
    """The route a request line asks for, matched exactly; anything else is refused (404)."""
    path, _, query = raw.partition("?")
    if method == "POST" and path == "/v1/messages":
        return Route("messages", path + _query(query, MESSAGES_QUERY))
    if method == "POST" and path == "/v1/messages/count_tokens":
        return Route("count_tokens", path + _query(query, MESSAGES_QUERY))
    if method == "GET" and path == "/v1/models":
        return Route("models", path + _query(query, MODELS_QUERY))
    if method == "GET" and path.startswith("/v1/models/"):
        model = path.removeprefix("/v1/models/")
        if MODEL_ID.fullmatch(model):
            return Route("model", path + _query(query, MODELS_QUERY))
    raise Refused(
        404,
        "not_found_error",
        f"this workshop gateway does not forward {method} {path}",
        logged="a path it does not forward",
    )


def _query(query: str, allowed: tuple[str, ...]) -> str:
    if not query:
        return ""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise Refused(400, "invalid_request_error", "the query string is malformed") from None
    for key, value in pairs:
        if key not in allowed or not QUERY_VALUE.fullmatch(value):
            raise Refused(
                400,
                "invalid_request_error",
                f"this workshop gateway does not forward '{key}'",
                logged="a query parameter it does not forward",
            )
    return "?" + urlencode(pairs)


def content_length(headers, limit: int) -> int:
    """The body's declared length: present, a whole number, not negative, at most `limit`."""
    if headers.get("transfer-encoding"):
        raise Refused(411, "invalid_request_error", "send the body with a Content-Length")
    declared = headers.get_all("content-length") or []
    if len(declared) > 1:
        raise Refused(400, "invalid_request_error", "more than one Content-Length header")
    text = (declared[0] if declared else "0").strip()
    if not text.isascii() or not text.isdigit():
        raise Refused(400, "invalid_request_error", "Content-Length is not a whole number")
    length = int(text)
    if length > limit:
        raise Refused(
            413,
            "request_too_large",
            f"the request body is {length:,} bytes; this workshop gateway takes {limit:,} at most",
        )
    return length


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise Refused(
                400,
                "invalid_request_error",
                f"the request body names '{key}' twice; send each field once",
                logged="a field named twice",
            )
        seen[key] = value
    return seen


def _no_constant(name: str) -> None:
    raise Refused(400, "invalid_request_error", f"the request body is not valid JSON ({name})")


def json_body(body: bytes) -> dict:
    """The request's JSON object: UTF-8, every key once, no NaN or Infinity.

    The gateway forwards its own serialisation of this object (`canonical`), never the bytes
    it received, so what it checked is exactly what the API reads.
    """
    try:
        text = body.decode("utf-8")
        request = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise Refused(400, "invalid_request_error", "the request body is not UTF-8") from None
    except ValueError:
        raise Refused(400, "invalid_request_error", "the request body is not valid JSON") from None
    except RecursionError:
        raise Refused(400, "invalid_request_error", "the request body is nested too deep") from None
    if not isinstance(request, dict):
        raise Refused(400, "invalid_request_error", "the request body is not a JSON object")
    try:
        canonical(request)  # what will be forwarded must serialise: no lone surrogate in it
    except UnicodeEncodeError:
        raise Refused(
            400, "invalid_request_error", "the request body holds an unpaired UTF-16 surrogate"
        ) from None
    except RecursionError:
        raise Refused(400, "invalid_request_error", "the request body is nested too deep") from None
    return request


def canonical(request: dict) -> bytes:
    """The bytes forwarded for a checked request: one serialisation, in UTF-8."""
    return json.dumps(request, ensure_ascii=False, allow_nan=False).encode("utf-8")


def only_bounded_fields(request: dict) -> None:
    """Refuse every top-level field whose cost the hold does not bound.

    The hold is the counted input plus `max_tokens`. A field that can make the call write or
    read more than that (a fallback model with its own max_tokens, context editing that
    compacts and bills apart from `usage`, a container, anything newer than this list) would
    be billed past the budget, so only the fields below are forwarded.
    """
    unknown = sorted(set(request) - set(BOUNDED_FIELDS))
    if unknown:
        named = ", ".join(f"`{key}`" for key in unknown)
        raise Refused(
            400,
            "invalid_request_error",
            f"this workshop gateway does not forward {named}: it forwards only the fields "
            "whose cost it can hold against your budget in advance (the input and max_tokens)",
            logged=f"fields it does not forward ({len(unknown)})",
        )


def checked_max_tokens(request: dict, cap: int) -> int:
    """The request's `max_tokens`: a whole number from 1 to the gateway's cap."""
    value = request.get("max_tokens")
    if value is None:
        raise Refused(400, "invalid_request_error", "max_tokens: Field required")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Refused(400, "invalid_request_error", "max_tokens: must be a whole number above 0")
    if value > cap:
        raise Refused(
            400,
            "invalid_request_error",
            f"max_tokens: {value:,} is above this workshop's cap of {cap:,}; "
            f"ask for {cap:,} or fewer",
        )
    return value


def no_thread(request: dict) -> None:
    """Refuse server-side threads: the input the API would add is not in the request to count.

    The rejection is the one the SDK recognises (`thread_unsupported_request`): its tool runner
    then sends the whole conversation, which the gateway can count.
    """
    if "thread" in request:
        raise Refused(
            400,
            "invalid_request_error",
            "this workshop gateway keeps no message threads: send the whole conversation "
            "without `thread`",
            details={"error_code": "thread_unsupported_request"},
        )


def no_server_tools(request: dict) -> None:
    """Refuse server tools (web search and the like) and MCP servers.

    The API runs them inside the call: their results grow the input after it was counted, and
    searches are billed per use, so no hold made in advance can bound what the call costs.
    """
    tools = request.get("tools") or []
    if not isinstance(tools, list):
        raise Refused(400, "invalid_request_error", "tools: must be a list")
    server = [
        str(tool.get("type"))
        for tool in tools
        if isinstance(tool, dict) and tool.get("type") not in (None, "custom")
    ]
    if server or request.get("mcp_servers"):
        named = ", ".join(server) or "mcp_servers"
        raise Refused(
            400,
            "invalid_request_error",
            f"this workshop gateway does not forward server tools ({named}): the API runs them "
            "inside the call, so their cost cannot be held against your budget in advance",
            logged="server tools or MCP servers",
        )


def over_budget(may_use: str | None, left: int, budget: int) -> Refused:
    """The 403 for a request whose worst case (`may_use`, in words) passes what is left; for
    a count_tokens call (`may_use` None) once the budget is spent."""
    if may_use is None:
        said = f"none of your {budget:,} tokens are left, so nothing is counted either"
    else:
        said = f"this request may use up to {may_use} and {left:,} of your {budget:,} are left"
    return Refused(403, "permission_error", f"workshop budget: {said}")


def counted_part(request: dict) -> dict:
    """The part of a Messages request that count_tokens measures: everything that is input."""
    return {key: request[key] for key in COUNTED_FIELDS if key in request}


# A participant's direct count_tokens calls, per minute. The endpoint costs no tokens, so no
# budget bounds it, but the room's key has a count_tokens rate limit of its own, which every
# Messages call through the gateway needs: one participant must not spend it for everyone.
COUNT_TOKENS_PER_MINUTE = 30


class CallRate:
    """At most `limit` calls per participant in any `window` seconds (kept in memory only)."""

    def __init__(
        self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._lock = threading.Lock()
        self._calls: dict[str, deque[float]] = {}

    def admit(self, name: str) -> float:
        """0 if `name` may make one more call now (counted), else seconds until one may."""
        with self._lock:
            now = self.clock()
            calls = self._calls.setdefault(name, deque())
            while calls and calls[0] <= now - self.window:
                calls.popleft()
            if len(calls) >= self.limit:
                return max(0.001, calls[0] + self.window - now)
            calls.append(now)
            return 0.0

    def refund(self, name: str) -> None:
        """Give back `name`'s latest call (a Messages call's count that was then served)."""
        with self._lock:
            calls = self._calls.get(name)
            if calls:
                calls.pop()

    def check(self, name: str) -> None:
        """Count one call of `name`'s, or refuse it (429, with the seconds to wait)."""
        wait = self.admit(name)
        if wait:
            raise Refused(
                429,
                "rate_limit_error",
                f"workshop gateway: at most {self.limit} count_tokens calls a minute per "
                f"participant; try again in {wait:.0f} s",
                retry_after=wait,
            )
