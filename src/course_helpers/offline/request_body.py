"""Course machinery (offline course model): read a request's body the strict way, and parse it
as the strict JSON the API reads.

Framing (what `python -m course_helpers.offline serve` accepts, as a strict HTTP/1.1 server
does, RFC 9112): a Content-Length is digits only, and two that differ are an error; the only
transfer coding is `chunked`, never together with a Content-Length; a chunk size is hex digits
only (no `0x`, no sign). Anything else is a 400 and the connection is closed.

JSON (both transports): RFC 8259 and nothing more. `NaN` and `Infinity` are not JSON; a `\\u`
escape of half a surrogate pair is refused with the API's wording ("no low surrogate in
string"); an integer too long for Python to read (over 4,300 digits) is unreadable, a 400, never
a 500. A key given twice keeps its last value (what the API does is not known: docs/models.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import BinaryIO

from course_helpers.offline.errors import ApiError

MAX_BODY_BYTES = 32 * 1024 * 1024  # the API's request size limit for the Messages API
NOT_JSON = "The request body is not valid JSON"
TOO_LARGE = "Request exceeds the maximum allowed number of bytes."
_BAD_CHUNKS = "Invalid chunked request body."
_DIGITS = re.compile(rb"[0-9]+")
_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
# A `\u` escape of a surrogate, at the start of a run of backslashes (an even run is text):
# a pair (high and low), a high half alone, or a low half alone.
_HEX = "[0-9a-fA-F]{2}"
_SURROGATE = re.compile(
    rf"(?<!\\)((?:\\\\)*)\\u(?:[dD][89abAB]{_HEX}(\\u[dD][c-fC-F]{_HEX})?|([dD][c-fC-F]{_HEX}))"
)
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def read_body(get_all: Callable[[str], list[str] | None], rfile: BinaryIO) -> bytes:
    """The body of a request whose header lines `get_all(name)` returns, read from `rfile`."""
    codings = [
        part.strip().lower()
        for line in get_all("transfer-encoding") or []
        for part in line.split(",")
    ]
    lengths = get_all("content-length") or []
    if codings:
        if codings != ["chunked"]:
            raise ApiError(400, "Unsupported Transfer-Encoding: only chunked is accepted.")
        if lengths:
            raise ApiError(400, "A request cannot have both Transfer-Encoding and Content-Length.")
        return read_chunked(rfile)
    return rfile.read(content_length(lengths)) if lengths else b""


def content_length(lines: list[str]) -> int:
    """The one length the Content-Length lines give (the same value repeated is one value)."""
    values = {part.strip() for line in lines for part in line.split(",")}
    if len(values) != 1 or not _DIGITS.fullmatch(next(iter(values)).encode("latin-1", "replace")):
        raise ApiError(400, "Invalid Content-Length header.")
    length = int(next(iter(values)))
    if length > MAX_BODY_BYTES:
        raise ApiError(413, TOO_LARGE)  # refused without reading 32 MB first
    return length


def read_chunked(rfile: BinaryIO) -> bytes:
    """A chunked body: hex sizes only, each chunk followed by CRLF, then trailers."""
    body = bytearray()
    while True:
        match = _CHUNK_LINE.fullmatch(rfile.readline(1026))
        if match is None:
            raise ApiError(400, _BAD_CHUNKS)
        size = int(match.group(1), 16)
        if size == 0:
            break
        if len(body) + size > MAX_BODY_BYTES:
            raise ApiError(413, TOO_LARGE)
        chunk = rfile.read(size)
        if len(chunk) != size or rfile.readline(3) not in (b"\r\n", b"\n"):
            raise ApiError(400, _BAD_CHUNKS)
        body += chunk
    for _ in range(100):  # optional trailer fields, then the blank line
        trailer = rfile.readline(8192)
        if trailer in (b"\r\n", b"\n", b""):
            return bytes(body)
    raise ApiError(400, _BAD_CHUNKS)


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line} column {column} (char {index})"


def _no_constant(name: str) -> float:
    raise _Constant(name)


class _Constant(Exception):
    """NaN, Infinity or -Infinity met: not JSON."""


def _lone_surrogate(text: str) -> str:
    """What is wrong with the first `\\u` escape of half a surrogate pair in `text`."""
    for match in _SURROGATE.finditer(text):
        if match.group(2):
            continue  # a pair
        start = match.start() + len(match.group(1))
        if match.group(3):
            return f"lone low surrogate in string: {_where(text, start)}"
        return f"no low surrogate in string: {_where(text, start + 6)}"
    return "no low surrogate in string"  # not reached: the encoder found one


def _has_lone_surrogate(value: object, text: str) -> bool:
    """Whether a string of the parsed body holds half a surrogate pair (encoded in C)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except RecursionError:  # as deep as the parser goes: read the escapes one by one
        return any(not m.group(2) for m in _SURROGATE.finditer(text))
    return False


def parse_json(body: bytes) -> object:
    """The body as JSON, or the 400 the API answers a body it cannot read (its wording up to
    the colon, from public reports: docs/models.md). Never a 500."""
    try:
        text = body.decode(json.detect_encoding(body))
        value = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ApiError(400, f"{NOT_JSON}: {error}") from None
    except RecursionError:
        raise ApiError(400, f"{NOT_JSON}: nested too deeply") from None
    except _Constant:
        found = next(m for m in _CONSTANT.finditer(text) if m.group(1))
        raise ApiError(400, f"{NOT_JSON}: Expecting value: {_where(text, found.start())}") from None
    except ValueError:  # an integer of more than 4,300 digits (int() refuses to read it)
        raise ApiError(400, f"{NOT_JSON}: integer too long") from None
    if "\\u" in text and _has_lone_surrogate(value, text):
        raise ApiError(400, f"{NOT_JSON}: {_lone_surrogate(text)}")
    return value
