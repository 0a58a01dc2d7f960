"""A sign-in waiting for its second factor: the right password was given for an account
with two-factor sign-in on, and no session exists yet.

What the browser holds in between is a short-lived cookie, ``nimbus_2fa`` (``Path=/user``:
the steps are ``/user/two_factor…`` and ``/user/webauthn``; ``HttpOnly``,
``SameSite=Lax``, five minutes): ``p1.<user id>.
<expires>.<target>.<mac>``, the target being where to go after signing in (base64url).
The MAC is HMAC-SHA256 with the session key (``http.sessions``) over those fields, the
account's fingerprint (a password change or a disabled account voids it, as it voids a
session) and the nonce of the browser's visitor session (the cookie is worthless with
another browser's session).  Nothing is stored server-side; the second step reads the
account by id, as a session does.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from chalicelib import clock
from chalicelib.http import sessions
from chalicelib.settings import get_settings

COOKIE = "nimbus_2fa"
PATH = "/user"
LIFETIME = 5 * 60
VERSION = "p1"


def _mac(fields: str, account, nonce: str) -> str:
    message = f"two-factor pending|{fields}|{sessions.fingerprint(account)}|{nonce}"
    digest = hmac.new(sessions.signing_key(), message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def _unb64(text: str) -> str:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()


def _cookie(value: str, max_age: int) -> str:
    secure = "; Secure" if get_settings().app_url.startswith("https://") else ""
    return f"{COOKIE}={value}; Path={PATH}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"


def issue(account, session: sessions.Session, target: str) -> str:
    """The Set-Cookie header of a pending sign-in of ``account`` in the browser whose
    visitor session is ``session``."""
    fields = f"{VERSION}.{int(account.id)}.{clock.seconds() + LIFETIME}.{_b64(target)}"
    return _cookie(f"{fields}.{_mac(fields, account, session.nonce)}", LIFETIME)


def clear() -> str:
    return _cookie("", 0) + "; Expires=Thu, 01 Jan 1970 00:00:00 GMT"


def _value(headers) -> str:
    raw = headers.get("cookie") or ""
    for part in raw.replace(",", ";").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value.strip()
    return ""


def claimed_user(headers) -> tuple[int, int, str] | None:
    """(user id, expires, target) the cookie claims, unverified; None when malformed or
    expired."""
    parts = _value(headers).split(".")
    if len(parts) != 5 or parts[0] != VERSION:
        return None
    try:
        user_id, expires, target = int(parts[1]), int(parts[2]), _unb64(parts[3])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if user_id <= 0 or expires < clock.seconds():
        return None
    return user_id, expires, target


def verified(headers, account, session: sessions.Session | None) -> bool:
    """Whether the cookie is this account's, unaltered, from this browser's session."""
    if account is None or session is None:
        return False
    value = _value(headers)
    fields, _, mac = value.rpartition(".")
    return bool(fields) and hmac.compare_digest(mac, _mac(fields, account, session.nonce))
