"""Deterministic ids: the same request always gets the same ids, so stored outputs stay stable."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def make_id(prefix: str, *parts: object, length: int = 24) -> str:
    """`prefix_01…`: characters picked from a hash of the parts, shaped like the API's ids."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=length).digest()
    return f"{prefix}_01{''.join(_ALPHABET[byte % 62] for byte in digest)}"
