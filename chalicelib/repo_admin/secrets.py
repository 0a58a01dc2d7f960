"""Credentials a repository keeps for talking to another server (a push mirror's
username and password, a pull mirror's the same), encrypted before they reach the table.

Fernet (AES-128-CBC with an HMAC-SHA256 tag): a stored value cannot be read or altered
without the key.  The key is derived (HKDF-SHA256, its own ``info``) from the instance
secret the web sessions already keep in SSM (``http.sessions``), so no new parameter or
IAM grant is needed and nothing secret lives in the settings.  Replacing that secret
makes the stored credentials unreadable: a sync then fails with a clear ``last_error``
and the mirror has to be added again.
"""
from __future__ import annotations

import base64
import json

from chalicelib.errors import InvalidInput

_INFO = b"nimbus repository remote credentials v1"
_fernets: list = []


def _fernet():
    if _fernets:
        return _fernets[0]
    from cryptography.fernet import Fernet
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from chalicelib.http import sessions

    secret = sessions.signing_key()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret)
    _fernets.append((secret, Fernet(base64.urlsafe_b64encode(key))))
    return _fernets[0]


def _current():
    """The cipher for the current instance secret (a test's fresh secret is a new one)."""
    from chalicelib.http import sessions

    secret, fernet = _fernet()
    if secret != sessions.signing_key():
        _fernets.clear()
        secret, fernet = _fernet()
    return fernet


def seal(username: str, password: str) -> str:
    """The encrypted form of a username and password ("" when both are empty)."""
    if not username and not password:
        return ""
    plain = json.dumps({"u": username, "p": password}).encode()
    return _current().encrypt(plain).decode()


def unseal(sealed: str) -> tuple[str, str]:
    """The username and password of ``seal``'s result; ("", "") for "".  Raises
    InvalidInput when the value cannot be read (the instance secret changed)."""
    if not sealed:
        return "", ""
    from cryptography.fernet import InvalidToken

    try:
        plain = json.loads(_current().decrypt(sealed.encode()))
    except (InvalidToken, ValueError):
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
