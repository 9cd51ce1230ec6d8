"""Deterministic ids: the same request always gets the same ids, so stored outputs stay stable."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def make_id(prefix: str, *parts: object, length: int = 24) -> str:
    """`prefix_01…`: base62 of a hash of the parts, shaped like the API's ids."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(length):
        number, rest = divmod(number, 62)
        chars.append(_ALPHABET[rest])
    return f"{prefix}_01{''.join(chars)}"
