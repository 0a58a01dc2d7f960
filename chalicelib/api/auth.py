"""Who is calling, and may they call this route.

Credentials, in Forgejo's order: ``?token=``/``?access_token=`` (unless disabled),
then ``Authorization: token|bearer <t>``, then ``Authorization: Basic`` with a token as
password (or as user name with an empty/``x-oauth-basic`` password) or a real
user:password.  ``Sudo`` lets a site admin act as another user.
"""
from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from chalicelib.api.errors import Forbidden, NotFound, Unauthorized
from chalicelib.api.http import ApiRequest
from chalicelib.api.router import WRITE_METHODS, Route
from chalicelib.services import accounts, scopes, tokens
from chalicelib.store import accounts as account_store
from chalicelib.store.table import Account

REALM = 'Basic realm="Nimbus"'


@dataclass
class Principal:
    user: Account
    via: str                          # "token" | "password"
    scopes: list[str] | None = None   # None for password logins: every scope
    sudo_by: Account | None = None

    @property
    def is_admin(self) -> bool:
        return bool(self.user.is_admin)


def _bad_credentials(message: str = "invalid username, password or token") -> Unauthorized:
    return Unauthorized(message, headers={"WWW-Authenticate": REALM})


def _from_token(secret: str) -> Principal:
    token = tokens.lookup(secret.strip())
    user = account_store.get_by_id(int(token.user_id)) if token is not None else None
    if user is None:
        raise _bad_credentials()
    return Principal(user=user, via="token", scopes=list(token.scopes))


def _from_basic(value: str, settings) -> Principal:
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
        username, password = decoded.split(":", 1)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _bad_credentials() from None
    if password in ("", "x-oauth-basic"):
        return _from_token(username)
    if tokens.lookup(password) is not None:
        return _from_token(password)
    if not settings.service.ENABLE_BASIC_AUTHENTICATION:
        raise _bad_credentials("basic authentication is disabled")
    user = accounts.check_password_login(username, password)
    if user is None:
        raise _bad_credentials()
    return Principal(user=user, via="password")


def _credentials(req: ApiRequest, settings) -> tuple[str, str] | None:
    """("token", secret), ("basic", base64 value) or None, by Forgejo's precedence."""
    if not settings.security.DISABLE_QUERY_AUTH_TOKEN:
        query_token = req.arg("token") or req.arg("access_token")
        if query_token:
            return "token", query_token
    header = (req.headers.get("authorization") or "").strip()
    if not header:
        return None
    fields = header.split()
    if len(fields) != 2:
        raise _bad_credentials()
    scheme, value = fields[0].lower(), fields[1]
    if scheme in ("token", "bearer"):
        return "token", value
    if scheme == "basic":
        return "basic", value
    raise _bad_credentials()


def _possible_tokens(req: ApiRequest, settings) -> list[str]:
    """Secrets that may be tokens, known without a read (for batching)."""
    try:
        found = _credentials(req, settings)
    except Unauthorized:
        return []
    if found is None:
        return []
    kind, value = found
    if kind == "token":
        return [value.strip()]
    try:
        username, password = base64.b64decode(value, validate=True).decode().split(":", 1)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return []
    return [username] if password in ("", "x-oauth-basic") else [password]


def credential_keys(req: ApiRequest, settings) -> list:
    """Table keys authentication will read first: the token items."""
    return [tokens.token_key(s) for s in _possible_tokens(req, settings) if tokens.looks_like(s)]


def caller_id(req: ApiRequest, settings) -> int | None:
    """The token owner's id if the token is already known (after a prefetch), else None."""
    for secret in _possible_tokens(req, settings):
        token = tokens.lookup(secret) if tokens.looks_like(secret) else None
        if token is not None:
            return int(token.user_id)
    return None


def authenticate(req: ApiRequest, settings) -> Principal | None:
    found = _credentials(req, settings)
    if found is None:
        return None
    kind, value = found
    return _from_token(value) if kind == "token" else _from_basic(value, settings)


def _check_account_state(user: Account) -> None:
    if user.prohibit_login:
        raise Forbidden("This account is prohibited from signing in, please contact your "
                        "site administrator.", plain=True)
    if not user.active:
        raise Forbidden("This account is not activated.", plain=True)


def _apply_sudo(req: ApiRequest, principal: Principal | None) -> Principal | None:
    target = req.arg("sudo") or req.headers.get("sudo")
    if not target:
        return principal
    if principal is None or not principal.is_admin:
        raise Forbidden("Only administrators allowed to sudo.", plain=True)
    from chalicelib.store.accounts import get_by_name

    user = get_by_name(target)
    if user is None or user.account_type != "user":
        raise NotFound(errors=[f"user redirect does not exist [name: {target}]"])
    return Principal(user=user, via=principal.via, scopes=principal.scopes,
                     sudo_by=principal.user)


def _check_scopes(route: Route, method: str, principal: Principal) -> None:
    if principal.scopes is None or route.scope is None:
        return
    level = "write" if method in WRITE_METHODS else "read"
    required = [f"{level}:{c}" for c in (route.scope, *route.extra_scopes)]
    if not all(scopes.allows(principal.scopes, c, level) for c in (route.scope, *route.extra_scopes)):
        raise Forbidden("token does not have at least one of required scope(s): "
                        f"[{' '.join(required)}]")


def authorize(req: ApiRequest, route: Route, settings) -> None:
    """Set ``req.principal`` and enforce the route's requirements (401/403)."""
    principal = authenticate(req, settings)
    if principal is not None:
        _check_account_state(principal.user)
    principal = _apply_sudo(req, principal)
    req.principal = principal
    if principal is None:
        if settings.service.REQUIRE_SIGNIN_VIEW and not route.raw:
            raise Forbidden("Only signed in user is allowed to call APIs.", plain=True)
        if route.signed_in or route.site_admin or route.basic_auth_only:
            raise Unauthorized("token is required")
        return
    if route.basic_auth_only and (principal.via != "password" or principal.sudo_by is not None):
        raise Unauthorized("auth method not allowed", headers={"WWW-Authenticate": REALM})
    _check_scopes(route, req.method, principal)
    if route.site_admin and not principal.is_admin:
        raise Forbidden("user should be the site admin")
