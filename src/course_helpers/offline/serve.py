"""The course model over real HTTP on loopback, for curl, other clients and ANTHROPIC_BASE_URL.

    python -m course_helpers.offline serve --port 8765
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 jupyter lab

It answers exactly what the in-process transport answers; bad requests get the API's error
envelope, oversized bodies a 413, and a client that disconnects is simply forgotten.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from course_helpers.offline.app import MAX_BODY_BYTES, CourseModelApp
from course_helpers.offline.engine import CourseModel
from course_helpers.offline.errors import ApiError
from course_helpers.offline.ids import make_id

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Not HTTP/0.9: an unparseable request line must still get a status line and headers.
    default_request_version = "HTTP/1.1"
    server_version = "course-model"
    sys_version = ""
    timeout = 30
    app: CourseModelApp  # set on the subclass made by make_server()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - name set by the base class
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def handle(self) -> None:
        try:
            super().handle()
        except _CLIENT_GONE:
            # e.g. reset while the keep-alive loop waits for the next request line
            self.close_connection = True

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def _answer(self, method: str) -> None:
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._send_error(ApiError(400, "Invalid Content-Length header."))
            return
        if length > MAX_BODY_BYTES:
            # Refuse without reading 32 MB first, and close: the rest of the body is unread.
            self.close_connection = True
            self._send_error(ApiError(413, "Request exceeds the maximum allowed number of bytes."))
            return
        try:
            body = self.rfile.read(length)
        except _CLIENT_GONE:
            self.close_connection = True
            return
        reply = self.app.dispatch(method, self.path, dict(self.headers.items()), body)
        try:
            if reply.drop_connection:
                self.close_connection = True
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.stream is None:
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("transfer-encoding", "chunked")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for chunk in reply.stream:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except _CLIENT_GONE:
            self.close_connection = True

    def _send_error(self, error: ApiError) -> None:
        request_id = make_id("req", self.requestline)
        body = json.dumps(error.envelope(request_id)).encode()
        try:
            self.send_response(error.status)
            self.send_header("content-type", "application/json")
            self.send_header("request-id", request_id)
            self.send_header("content-length", str(len(body)))
            if self.close_connection:
                self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except _CLIENT_GONE:
            self.close_connection = True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed HTTP (garbage bytes, bad request lines) still gets the API's envelope."""
        self.close_connection = True
        status = code if code in (400, 404, 413, 414, 431) else 400
        self._send_error(
            ApiError(status, message or "Bad request", error_type="invalid_request_error")
        )


@dataclass
class RunningServer:
    """A course-model server running in a background thread (used by tests and notebooks)."""

    server: ThreadingHTTPServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def make_server(
    host: str = "127.0.0.1", port: int = 0, *, app: CourseModelApp | None = None
) -> ThreadingHTTPServer:
    handler = type("CourseModelHandler", (_Handler,), {"app": app or CourseModelApp()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def start_server(
    port: int = 0, *, variant: bool = False, app: CourseModelApp | None = None
) -> RunningServer:
    """Serve a course model (a fresh one unless `app` is given) on 127.0.0.1 in a thread."""
    app = app or CourseModelApp(CourseModel(variant=variant))
    server = make_server(port=port, app=app)
    # A short poll interval lets stop() return at once instead of after up to half a second.
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name="course-model",
        daemon=True,
    )
    thread.start()
    return RunningServer(server, thread)


def serve(
    host: str = "127.0.0.1", port: int = 8765, *, variant: bool = False, verbose: bool = False
) -> None:
    """Serve in the foreground until Ctrl-C."""
    server = make_server(host, port, app=CourseModelApp(CourseModel(variant=variant)))
    server.verbose = verbose  # read by _Handler.log_message
    address = f"http://{server.server_address[0]}:{server.server_address[1]}"
    print(f"Offline course model listening on {address}", flush=True)
    print(f"Try: ANTHROPIC_BASE_URL={address} (any API key works). Ctrl-C stops it.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.", flush=True)
    finally:
        server.server_close()
