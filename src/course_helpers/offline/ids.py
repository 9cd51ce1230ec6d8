"""Course machinery (offline course model): deterministic ids: the same request always gets the
same ids, so stored outputs stay stable."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# Byte value -> its character (value mod 62), applied to a whole digest at once.
_TABLE = bytes(ord(_ALPHABET[value % 62]) for value in range(256))


def make_id(prefix: str, *parts: object, length: int = 24) -> str:
    """`prefix_01…`: characters picked from a hash of the parts, shaped like the API's ids."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=length).digest()
    return f"{prefix}_01{digest.translate(_TABLE).decode()}"
