"""Course machinery (offline course model): the course model over real HTTP on loopback, for curl,
other clients and ANTHROPIC_BASE_URL.

    python -m course_helpers.offline serve --port 8765
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 jupyter lab

It answers exactly what the in-process transport answers; bad requests get the API's error
envelope, oversized bodies a 413, and a client that disconnects is simply forgotten.
"""

from __future__ import annotations

import json
import signal
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from course_helpers.offline.app import CourseModelApp, header_lines
from course_helpers.offline.engine import CourseModel
from course_helpers.offline.errors import ApiError
from course_helpers.offline.ids import make_id
from course_helpers.offline.request_body import read_body

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Not HTTP/0.9: an unparseable request line must still get a status line and headers.
    default_request_version = "HTTP/1.1"
    server_version = "course-model"
    sys_version = ""
    timeout = 30
    # Headers and body go out as separate writes: with Nagle's algorithm on, a keep-alive client
    # waits for the delayed ACK (about 40 ms) on every response.
    disable_nagle_algorithm = True
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

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def do_PUT(self) -> None:
        self._answer("PUT")

    def do_DELETE(self) -> None:
        self._answer("DELETE")

    def do_PATCH(self) -> None:
        self._answer("PATCH")

    def do_OPTIONS(self) -> None:
        self._answer("OPTIONS")

    def _answer(self, method: str) -> None:
        try:
            body = self._read_body()
        except ApiError as error:
            self.close_connection = True  # the rest of the body, if any, is unread
            self._send_error(error)
            return
        except _CLIENT_GONE:
            self.close_connection = True
            return
        lines = [(k, v) for k, v in self.headers.items() if k.lower() != "transfer-encoding"]
        headers = header_lines(lines)  # repeated lines joined into one list
        head = method == "HEAD"  # answered like GET, without the body
        reply = self.app.dispatch("GET" if head else method, self.path, headers, body)
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
                if not head:
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

    def _read_body(self) -> bytes:
        """The request body, framed strictly (`request_body.read_body`)."""
        return read_body(self.headers.get_all, self.rfile)

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
    port: int = 0,
    *,
    variant: bool = False,
    app: CourseModelApp | None = None,
    reluctant: bool = False,
) -> RunningServer:
    """Serve a course model (a fresh one unless `app` is given) on 127.0.0.1 in a thread."""
    app = app or CourseModelApp(CourseModel(variant=variant, reluctant=reluctant))
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
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    variant: bool = False,
    verbose: bool = False,
    reluctant: bool = False,
) -> None:
    """Serve in the foreground until Ctrl-C."""
    # A process started in the background by a shell inherits SIGINT *ignored*: Ctrl-C (or a
    # test's SIGINT) would then never stop the server. Python's own handler is put back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    model = CourseModel(variant=variant, reluctant=reluctant)
    server = make_server(host, port, app=CourseModelApp(model))
    server.verbose = verbose  # read by _Handler.log_message
    address = f"http://{server.server_address[0]}:{server.server_address[1]}"
    try:
        # Inside the `try`: a Ctrl-C right after the first line still stops cleanly.
        print(f"Offline course model listening on {address}", flush=True)
        print(
            f"Try: ANTHROPIC_BASE_URL={address} (any API key works). Ctrl-C stops it.", flush=True
        )
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.", flush=True)
    finally:
        server.server_close()
