"""A game night is reached by its players only: its invite link (``?night=<uid>``) or its short
join code, never by a list of every night on the server.

The join code is derived from the night's uid (122 random bits, the link's secret): the first
40 bits of ``SHA-256("reptile-tank join " + uid)`` in Crockford's base 32, shown ``ABCD-EFGH``.
It is typed on another phone (case, spaces, dashes and the look-alikes ``O``/``I``/``L`` do not
matter) and matched against the nights of the server; nothing new is stored.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from typing import Any, TypeVar

#: Crockford's base 32 (no I, L, O, U): what a phone keyboard cannot get wrong.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_CHARS = 8
_LOOKALIKES = str.maketrans({"O": "0", "I": "1", "L": "1", "U": "V"})

T = TypeVar("T")


def join_code(uid: str) -> str:
    """The night's join code, ``ABCD-EFGH`` (8 characters of base 32, 40 bits)."""
    digest = hashlib.sha256(f"reptile-tank join {uid}".encode()).digest()
    number = int.from_bytes(digest[:5], "big")
    chars = [ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(CODE_CHARS))]
    return "".join(chars[:4]) + "-" + "".join(chars[4:])


def normalise_code(text: Any) -> str | None:
    """A typed code as 8 base-32 characters, or ``None`` when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    cleaned = "".join(ch for ch in text.upper() if ch not in " -_.\t").translate(_LOOKALIKES)
    if len(cleaned) != CODE_CHARS or any(ch not in ALPHABET for ch in cleaned):
        return None
    return cleaned


def find_by_code(nights: Iterable[T], code: Any) -> T | None:
    """The night (anything with a ``uid``) whose join code is ``code``, else ``None``."""
    wanted = normalise_code(code)
    if wanted is None:
        return None
    for night in nights:
        mine = join_code(night.uid).replace("-", "")
        if hmac.compare_digest(mine, wanted):
            return night
    return None


def passphrase_matches(given: Any, expected: str) -> bool:
    """True when ``given`` is the club's passphrase (compared in constant time)."""
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given.strip().encode(), expected.strip().encode())


def invite_qr_png(link: str, *, scale: int = 6) -> bytes:
    """The invite link as a QR code (PNG bytes), for a phone's camera to open.

    Error correction level M, a 4-module quiet zone; ``scale`` pixels per module. A link over
    2,000 characters is refused (``ValueError``): a night's link is about 80.
    """
    import io

    import segno

    if not isinstance(link, str) or not link or len(link) > 2000:
        raise ValueError("an invite link is 1-2000 characters")
    buffer = io.BytesIO()
    segno.make_qr(link, error="m").save(buffer, kind="png", scale=scale, border=4)
    return buffer.getvalue()
