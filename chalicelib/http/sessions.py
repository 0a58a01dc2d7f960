"""Web sessions in a signed cookie, and the CSRF token of every form.

Cookie value: ``v1.<user id>.<expires>.<nonce>.<mac>``, where ``mac`` is
HMAC-SHA256 (standard library ``hmac``; base64url, no padding) over the four fields and
the account's *fingerprint*: a hash of its password hash, its sign-in flags and its session
generation.  No server-side session table is needed, yet a session stops working when
the account is deleted (no account to read), disabled (``prohibit_login``/``active``
change the fingerprint and are checked), its password changes (the hash changes) or the
user signs out (the generation is bumped, which ends all of that user's sessions).  The
account item is read anyway to know who is signed in, so this costs no extra read.  ``hmac`` was
chosen over ``itsdangerous`` because the format is four fields and one MAC, and it keeps
the Lambda package free of another dependency.

Visitors who are not signed in get the same cookie with user id 0 once a page shows them
a form (the sign-in form): its nonce seeds their CSRF token.  Signing in issues a fresh
nonce, so a token planted before the sign-in is worthless after it.

The key: 48 random bytes kept in SSM Parameter Store (SecureString) next to the instance
signing key, made on first use (``put_parameter`` without ``Overwrite``: the loser of a
race reads the winner's key) and cached in the process.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass

from chalicelib import clock
from chalicelib.settings import get_settings

COOKIE = "nimbus_session"
CSRF_FIELD = "_csrf"
LIFETIME = 7 * 24 * 3600
VERSION = "v1"

_lock = threading.Lock()
_key: list[bytes] = []


def key_parameter(signing_parameter: str | None = None) -> str:
    """The SSM parameter of the session key: beside the instance signing key's
    (``signing_parameter``, the configured one by default; infra/iam.py grants both)."""
    signing = signing_parameter or get_settings().aws.SIGNING_KEY_PARAMETER
    return signing.rsplit("/", 1)[0] + "/web-session-key"


def signing_key() -> bytes:
    if _key:
        return _key[0]
    with _lock:
        if _key:
            return _key[0]
        from chalicelib import aws

        value = aws.kept_secret(key_parameter(), lambda: secrets.token_urlsafe(48),
                                "Nimbus web session signing key")
        _key.append(value.encode())
        return _key[0]


def reset_key_cache() -> None:
    """Forget the cached key (tests start each from a fresh moto)."""
    with _lock:
        _key.clear()


def fingerprint(account) -> str:
    """What the MAC binds a session to besides its fields."""
    if account is None:
        return "anonymous"
    state = f"{account.password_hash or ''}|{bool(account.prohibit_login)}|{bool(account.active)}"
    generation = int(account.session_generation or 0)
    if generation:
        # Left out while zero, so cookies issued before generations existed stay valid.
        state += f"|{generation}"
    return hashlib.sha256(state.encode()).hexdigest()[:32]


def _mac(fields: str, account_fingerprint: str) -> str:
    digest = hmac.new(signing_key(), f"{fields}|{account_fingerprint}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass(frozen=True)
class Session:
    user_id: int          # 0: not signed in
    expires: int
    nonce: str

    @property
    def fields(self) -> str:
        return f"{VERSION}.{self.user_id}.{self.expires}.{self.nonce}"

    def csrf_token(self) -> str:
        digest = hmac.new(signing_key(), f"csrf|{self.nonce}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_session(account=None, now: float | None = None) -> Session:
    now = clock.now() if now is None else now
    user_id = int(account.id) if account is not None else 0
    return Session(user_id, int(now) + LIFETIME, secrets.token_urlsafe(16))


def encode(session: Session, account=None) -> str:
    return f"{session.fields}.{_mac(session.fields, fingerprint(account))}"


def parse(value: str | None, now: float | None = None) -> Session | None:
    """The session's fields if well formed and not expired; the MAC is checked by
    ``verify`` once the account (its fingerprint) is known."""
    if not value:
        return None
    parts = value.split(".")
    if len(parts) != 5 or parts[0] != VERSION:
        return None
    try:
        user_id, expires = int(parts[1]), int(parts[2])
    except ValueError:
        return None
    if user_id < 0 or expires < (clock.now() if now is None else now):
        return None
    return Session(user_id, expires, parts[3])


def verify(value: str, session: Session, account) -> bool:
    mac = value.rsplit(".", 1)[-1]
    return hmac.compare_digest(mac, _mac(session.fields, fingerprint(account)))


def cookie_value(headers) -> str | None:
    """Our cookie from the Cookie header(s)."""
    raw = headers.get("cookie") or ""
    for part in raw.replace(",", ";").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value.strip() or None
    return None


def set_cookie(value: str, *, max_age: int = LIFETIME) -> str:
    """The Set-Cookie header: HttpOnly, SameSite=Lax, Path=/, Secure behind https."""
    secure = "; Secure" if get_settings().app_url.startswith("https://") else ""
    return f"{COOKIE}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"


def clear_cookie() -> str:
    secure = "; Secure" if get_settings().app_url.startswith("https://") else ""
    return (f"{COOKIE}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; "
            f"HttpOnly; SameSite=Lax{secure}")
