"""Course machinery (offline course model): the signatures of the thinking blocks it writes.

The API signs every thinking block and refuses one sent back altered. The course model does the
same with a signature it can check again later: a part drawn from the message id (so every
block's signature differs) and a part drawn from that part and the block's text. A block whose
text was edited, or emptied, no longer matches. Signatures the course model did not write (from
the live API, or made up by a test) cannot be checked here and are let through.
"""

from __future__ import annotations

import re

from course_helpers.offline.ids import make_id

_PREFIX = "sig_01"
_HALF = 20
_SHAPE = re.compile(rf"{_PREFIX}[0-9A-Za-z]{{{2 * _HALF}}}")


def _check_part(nonce: str, thinking: str) -> str:
    return make_id("chk", nonce, thinking, length=_HALF)[len("chk_01") :]


def sign(message_id: str, thinking: str) -> str:
    """The signature of a thinking block written in message `message_id`."""
    nonce = make_id("sig", message_id, length=_HALF)[len(_PREFIX) :]
    return f"{_PREFIX}{nonce}{_check_part(nonce, thinking)}"


def altered(block: dict) -> bool:
    """True when a thinking block the course model signed no longer matches its signature."""
    signature = block.get("signature")
    if not isinstance(signature, str) or not _SHAPE.fullmatch(signature):
        return False
    thinking = block.get("thinking")
    nonce, check = signature[len(_PREFIX) : len(_PREFIX) + _HALF], signature[-_HALF:]
    return not isinstance(thinking, str) or _check_part(nonce, thinking) != check
