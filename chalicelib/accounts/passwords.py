"""Password hashing with scrypt (a memory-hard KDF from OpenSSL via hashlib).

Stored form: ``scrypt$<n>$<r>$<p>$<salt b64>$<hash b64>`` so the cost can be raised
later without invalidating existing hashes.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os

_R, _P, _LEN = 8, 1, 32


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, cost: int) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=cost, r=_R, p=_P,
                            maxmem=256 * cost * _R, dklen=_LEN)
    return f"scrypt${cost}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt, digest = stored.split("$")
        if algo != "scrypt":
            return False
        n, r, p = int(n), int(r), int(p)
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(password.encode("utf-8"), salt=base64.b64decode(salt), n=n, r=r,
                             p=p, maxmem=256 * n * r, dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)
