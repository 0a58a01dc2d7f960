"""Credentials a repository keeps for talking to another server (a push mirror's
username and password, a pull mirror's the same), encrypted before they reach the table.

Sealed with the instance secret (``http.sealing``: Fernet under a key derived for this
use alone), so a stored value cannot be read or altered without it.  Replacing that
secret makes the stored credentials unreadable: a sync then fails with a clear
``last_error`` and the mirror has to be added again.
"""
from __future__ import annotations

import json

from chalicelib.errors import InvalidInput
from chalicelib.http.sealing import Sealer, Unreadable

# The derivation's name: changing it would make every stored credential unreadable.
_SEALER = Sealer(b"nimbus repository remote credentials v1")


def seal(username: str, password: str) -> str:
    """The encrypted form of a username and password ("" when both are empty)."""
    if not username and not password:
        return ""
    return _SEALER.seal(json.dumps({"u": username, "p": password}).encode())


def unseal(sealed: str) -> tuple[str, str]:
    """The username and password of ``seal``'s result; ("", "") for "".  Raises
    InvalidInput when the value cannot be read (the instance secret changed)."""
    if not sealed:
        return "", ""
    try:
        plain = json.loads(_SEALER.open(sealed))
    except (Unreadable, ValueError):
        raise InvalidInput("the stored credentials cannot be decrypted: add the mirror "
                           "again") from None
    return str(plain.get("u", "")), str(plain.get("p", ""))


def stored_credentials(stored: str) -> tuple[str, str]:
    """A pull mirror's username and password as kept on its repository: sealed, or
    the plain JSON that mirrors made before sealing wrote (read as it is, and sealed
    the next time the mirror is written)."""
    if stored.startswith("{"):
        plain = json.loads(stored)
        return str(plain.get("u", "")), str(plain.get("p", ""))
    return unseal(stored)
