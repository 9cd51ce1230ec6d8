"""Course machinery (offline course model): the course model behind HTTP: routes, auth, body
parsing, errors, faults, streaming.

`CourseModelApp.dispatch()` works on plain values (method, path, headers, body bytes) so that the
in-process transport (`handle`, `handle_async`) and the loopback server (`serve.py`) share it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote

import anthropic
import httpx2

from course_helpers.offline import sse
from course_helpers.offline.context_management import check_context_management
from course_helpers.offline.engine import CourseModel
from course_helpers.offline.errors import ApiError
from course_helpers.offline.faults import Fault, status_error
from course_helpers.offline.headers import check_headers
from course_helpers.offline.ids import make_id
from course_helpers.offline.models import CATALOGUE, model_info, models_page
from course_helpers.offline.request_body import MAX_BODY_BYTES, TOO_LARGE, parse_json
from course_helpers.offline.validation import validate_messages_request

# An in-process client still needs a key and an address: the SDK refuses to send without them.
OFFLINE_API_KEY = "offline-course-key"
OFFLINE_BASE_URL = "http://course-model.local"
ROUTES = {"/v1/messages": "messages", "/v1/messages/count_tokens": "count_tokens"}
MODELS_PATH = "/v1/models"


def header_lines(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Request headers by lower-case name. A header sent on several lines is one list (HTTP's
    rule): `anthropic-beta: a,` then `anthropic-beta: b` means "a, b" (a line's own trailing
    comma ends only that line)."""
    headers: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        earlier = headers.get(key)
        headers[key] = value if earlier is None else f"{earlier.rstrip(', ')}, {value}"
    return headers


@dataclass
class HttpReply:
    status: int
    headers: dict[str, str]
    body: bytes = b""
    stream: Iterator[bytes] | None = None
    drop_connection: bool = False
    frames_before_error: int | None = None

    def chunks(self) -> Iterator[bytes]:
        return self.stream if self.stream is not None else iter([self.body])


@dataclass
class CourseModelApp:
    model: CourseModel = field(default_factory=CourseModel)

    @property
    def faults(self):
        return self.model.faults

    # -- the HTTP surface --------------------------------------------------------------
    def dispatch(self, method: str, path: str, headers: dict[str, str], body: bytes) -> HttpReply:
        headers = {k.lower(): v for k, v in headers.items()}
        request_id = make_id("req", method, path, body.decode("utf-8", "replace"))
        if method == "HEAD":  # what GET answers, headers only
            reply = self.dispatch("GET", path, headers, body)
            return HttpReply(reply.status, reply.headers, b"")
        try:
            return self._route(method, path, headers, body, request_id)
        except ApiError as error:
            return _error_reply(error, request_id)
        except Exception as error:  # a bug in the course model must still look like the API
            bug = ApiError(500, f"Internal server error in the offline course model: {error!r}")
            bug.headers["x-should-retry"] = "false"
            return _error_reply(bug, request_id)

    def _route(
        self, method: str, target: str, headers: dict[str, str], body: bytes, request_id: str
    ) -> HttpReply:
        path, _, query = target.partition("?")
        path = path.rstrip("/")
        models = method == "GET" and (path == MODELS_PATH or path.startswith(MODELS_PATH + "/"))
        endpoint = ROUTES.get(path)
        if not models and (endpoint is None or method != "POST"):
            raise ApiError(404, "Not Found")
        if not (headers.get("x-api-key") or headers.get("authorization", "").strip()):
            raise ApiError(401, "x-api-key header is required")
        betas = check_headers(headers)
        if models:
            return _json_reply(_models_answer(path, query), request_id)
        if len(body) > MAX_BODY_BYTES:
            raise ApiError(413, TOO_LARGE)
        payload = parse_json(body)
        validate_messages_request(payload, endpoint=endpoint, betas=betas)
        check_context_management(payload, endpoint)
        if "thread" in payload:
            # The course model keeps no server-side threads. This rejection is the one the SDK
            # recognises: its tool runner then resends the whole conversation without `thread`.
            raise ApiError(
                400,
                "The offline course model does not store message threads. Send the full "
                "conversation without `thread`.",
                details={"error_code": "thread_unsupported_request"},
            )
        if endpoint == "count_tokens":
            return _json_reply(self.model.count_tokens(payload), request_id)
        fault = self._fault(headers)
        if fault is not None:
            error = status_error(fault)
            if error is not None:
                raise error
            if fault.kind == "disconnect":
                return HttpReply(0, {}, drop_connection=True)
        outcome = self.model.respond(payload, fault)
        if payload.get("stream"):
            fail_after = 6 if fault is not None and fault.kind == "stream_error" else None
            stream = sse.stream_bytes(outcome.message, outcome.partial_json, fail_after=fail_after)
            return HttpReply(
                200,
                {"content-type": "text/event-stream", "request-id": request_id},
                stream=stream,
            )
        return _json_reply(outcome.message, request_id)

    def _fault(self, headers: dict[str, str]) -> Fault | None:
        asked = headers.get("course-fault")
        if asked:
            try:
                self.model.faults.inject(asked)
            except ValueError as error:  # the client's mistake, not a bug in the model
                raise ApiError(400, f"course-fault header: {error}") from None
        return self.model.faults.next()

    # -- real SDK clients answered by this app, in-process ---------------------------------
    def client(self, **kwargs) -> anthropic.Anthropic:
        """An `anthropic.Anthropic` whose HTTP requests this app answers (no network)."""
        transport = httpx2.MockTransport(self.handle)
        kwargs.setdefault("http_client", httpx2.Client(transport=transport))
        kwargs.setdefault("api_key", OFFLINE_API_KEY)
        kwargs.setdefault("base_url", OFFLINE_BASE_URL)
        return anthropic.Anthropic(**kwargs)

    def async_client(self, **kwargs) -> anthropic.AsyncAnthropic:
        """The async twin of `client()`."""
        transport = httpx2.MockTransport(self.handle_async)
        kwargs.setdefault("http_client", httpx2.AsyncClient(transport=transport))
        kwargs.setdefault("api_key", OFFLINE_API_KEY)
        kwargs.setdefault("base_url", OFFLINE_BASE_URL)
        return anthropic.AsyncAnthropic(**kwargs)

    # -- in-process transport handlers (httpx2.MockTransport) ----------------------------
    def handle(self, request: httpx2.Request) -> httpx2.Response:
        headers = header_lines(request.headers.multi_items())
        reply = self.dispatch(
            request.method, request.url.raw_path.decode(), headers, request.content
        )
        if reply.drop_connection:
            raise httpx2.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        if reply.stream is None:
            return httpx2.Response(reply.status, headers=reply.headers, content=reply.body)
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.stream)

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        headers = header_lines(request.headers.multi_items())
        reply = self.dispatch(
            request.method, request.url.raw_path.decode(), headers, request.content
        )
        if reply.drop_connection:
            raise httpx2.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )

        async def chunks() -> AsyncIterator[bytes]:
            for chunk in reply.chunks():
                yield chunk

        return httpx2.Response(reply.status, headers=reply.headers, content=chunks())


def _models_answer(path: str, query: str) -> dict:
    """`GET /v1/models` (a page of the catalogue) and `GET /v1/models/{id}`."""
    if path != MODELS_PATH:
        model_id = unquote(path[len(MODELS_PATH) + 1 :])
        if model_id not in CATALOGUE or "/" in model_id:
            raise ApiError(404, f"model: {model_id}")
        return model_info(CATALOGUE[model_id])
    params = parse_qs(query)

    def first(name: str) -> str | None:
        return params[name][0] if name in params else None

    limit_text = first("limit") or "20"
    try:
        limit = int(limit_text)
    except ValueError:
        raise ApiError(400, "limit: Input should be a valid integer") from None
    if limit < 1:
        raise ApiError(400, "limit: Input should be greater than or equal to 1")
    if limit > 1000:
        raise ApiError(400, "limit: Input should be less than or equal to 1000")
    lifecycles = {
        value
        for key in ("lifecycle", "lifecycle[]")
        for item in params.get(key, [])
        for value in item.split(",")
    }
    unknown = lifecycles - {"active", "deprecated", "retired"}
    if unknown:
        raise ApiError(
            400,
            "lifecycle: Input should be 'active', 'deprecated' or 'retired'",
        )
    return models_page(
        after_id=first("after_id"),
        before_id=first("before_id"),
        limit=limit,
        lifecycles=lifecycles or None,
    )


def _json_reply(data: dict, request_id: str) -> HttpReply:
    body = json.dumps(data, ensure_ascii=False).encode()
    return HttpReply(200, {"content-type": "application/json", "request-id": request_id}, body)


def _error_reply(error: ApiError, request_id: str) -> HttpReply:
    body = json.dumps(error.envelope(request_id), ensure_ascii=False).encode()
    headers = {"content-type": "application/json", "request-id": request_id, **error.headers}
    if error.status == 400:
        headers.setdefault("x-should-retry", "false")
    return HttpReply(error.status, headers, body)
