"""Course machinery (offline course model): text a program quoted as a JSON or Python string
literal, read back as the person wrote it ('\\n' is a line, '\\u00e9' is é).

    unescape(r'Say \\"hi\\"\\n')   # 'Say "hi"' and a new line
"""

from __future__ import annotations

import re

# A `\\u` escape of a surrogate pair is one character; half a pair is left as written (it is
# no character, and an answer that quotes it could not be sent as UTF-8).
_ESCAPE = re.compile(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|u([0-9a-fA-F]{4})|([nrt])|(['\"\\]))"
)


def unescape(value: str) -> str:
    """Text a program quoted as a JSON or Python string literal, read back ('\\n' is a line)."""

    def decode(match: re.Match) -> str:
        high, low, code, control, literal = match.groups()
        if high:
            return (
                (chr(int(high, 16)) + chr(int(low, 16)))
                .encode("utf-16", "surrogatepass")
                .decode("utf-16")
            )
        if code:
            number = int(code, 16)
            return match.group(0) if 0xD800 <= number <= 0xDFFF else chr(number)
        if control:
            return {"n": "\n", "r": "", "t": " "}[control]
        return literal

    return _ESCAPE.sub(decode, value)
