"""Who is calling, and may they call this route.

Credentials, in Forgejo's order: ``?token=``/``?access_token=`` (unless disabled),
then ``Authorization: token|bearer <t>``, then ``Authorization: Basic`` with a token as
password (or as user name with an empty/``x-oauth-basic`` password) or a real
user:password.  ``Sudo`` lets a site admin act as another user.  A Basic password is
checked by the accounts domain's sign-in rule: failed attempts are counted per address
(429 with ``Retry-After`` past the limit), and an account with two-factor sign-in needs
the ``X-Forgejo-OTP`` header's code on the API and is refused on git (tokens work).

Which of those a route takes is its declaration (``Route.credentials``,
docs/security.md): API routes take tokens and passwords and never read the session
cookie; pages take the session cookie only, so a token sent to a page counts for
nothing, and a form posted with one is refused; downloads take either, a token with
read access to the route's scope; git over HTTP takes tokens and passwords.
"""
from __future__ import annotations

import base64
import binascii
import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib.http import scopes
from chalicelib.http import sessions as web_sessions
from chalicelib.http.errors import Forbidden, PlainTextError, Unauthorized
from chalicelib.http.message import ApiRequest
from chalicelib.http.ratelimit import TooManyRequests
from chalicelib.http.router import GIT, SESSION, WRITE_METHODS, Route

if TYPE_CHECKING:
    from chalicelib.accounts import Account

REALM = 'Basic realm="Nimbus"'
# The accounts domain's answers to "whose token, whose password, which account": named,
# not imported, because the kernel lies below every domain (docs/architecture.md).
CREDENTIALS_MODULE = "chalicelib.accounts.credentials"


def _accounts():
    return importlib.import_module(CREDENTIALS_MODULE)
# Basic passwords that mean "the user name is a token" (git clients send these).
TOKEN_PLACEHOLDER_PASSWORDS = ("", "x-oauth-basic")


@dataclass
class Principal:
    user: Account
    via: str                          # "token" | "password"
    scopes: list[str] | None = None   # None for password logins and sessions: every scope
    sudo_by: Account | None = None

    @property
    def is_admin(self) -> bool:
        return bool(self.user.is_admin)


@dataclass(frozen=True)
class Credential:
    """What a request presents to authenticate, parsed once per request
    (``credential_of``): the preload plans its reads from it and ``authorize`` checks it.

    ``scheme``: "" (none), "token" (``secret`` is the token), "basic" (``username`` and
    ``secret`` the password) or "invalid" (a malformed header: 401 when authorizing).
    A Basic one also carries the client's address (its failed sign-ins are counted by
    address) and the one-time code of ``X-Forgejo-OTP``/``X-Gitea-OTP``.
    """
    scheme: str = ""
    secret: str = field(default="", repr=False)    # kept out of logs and tracebacks
    username: str = ""
    address: str = ""
    otp: str = field(default="", repr=False)

    @property
    def token_candidates(self) -> tuple[str, ...]:
        """Secrets that may be tokens, known without a read."""
        if self.scheme == "token":
            return (self.secret.strip(),)
        if self.scheme == "basic":
            if self.secret in TOKEN_PLACEHOLDER_PASSWORDS:
                return (self.username.strip(),)
            return (self.secret,)
        return ()


NO_CREDENTIAL = Credential()
INVALID_CREDENTIAL = Credential("invalid")


def _bad_credentials(message: str = "invalid username, password or token") -> Unauthorized:
    return Unauthorized(message, headers={"WWW-Authenticate": REALM})


def read_credential(req: ApiRequest, settings) -> Credential:
    """The request's credential, by Forgejo's precedence (no reads)."""
    if not settings.security.DISABLE_QUERY_AUTH_TOKEN:
        query_token = req.arg("token") or req.arg("access_token")
        if query_token:
            return Credential("token", query_token)
    header = (req.headers.get("authorization") or "").strip()
    if not header:
        return NO_CREDENTIAL
    fields = header.split()
    if len(fields) != 2:
        return INVALID_CREDENTIAL
    scheme, value = fields[0].lower(), fields[1]
    if scheme in ("token", "bearer"):
        return Credential("token", value)
    if scheme != "basic":
        return INVALID_CREDENTIAL
    try:
        username, password = base64.b64decode(value, validate=True).decode("utf-8").split(":", 1)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return INVALID_CREDENTIAL
    # Forgejo's getOtpHeader: X-Forgejo-OTP when given, else X-Gitea-OTP.
    otp = (req.headers.get("x-forgejo-otp") or req.headers.get("x-gitea-otp") or "").strip()
    return Credential("basic", password, username, address=req.source_ip, otp=otp)


def credential_of(req: ApiRequest, settings) -> Credential:
    """The request's credential, read on first use and kept on the request.  A route
    that takes no token (a page) gets none, so nothing is even read for it."""
    credential = getattr(req, "credential", None)
    if credential is None:
        credential = read_credential(req, settings)
        if req.route is not None and not req.route.accepts_tokens \
                and credential.scheme != "":
            req.refused_credential = True
            credential = NO_CREDENTIAL
        req.credential = credential
    return credential


def session_of(req: ApiRequest) -> tuple[web_sessions.Session | None, Account | None]:
    """The session cookie's fields and its signed-in account, when the cookie is
    well formed, unexpired, correctly signed and names a live account that may sign in.
    A visitor's session (user id 0, it seeds the sign-in form's CSRF token) comes back
    with no account."""
    value = web_sessions.cookie_value(req.headers)
    found = web_sessions.parse(value)
    if found is None:
        return None, None
    account = _accounts().account_by_id(found.user_id) if found.user_id else None
    if found.user_id and (account is None or account.prohibit_login or not account.active):
        return None, None       # deleted or disabled: the cookie is ignored
    if not web_sessions.verify(value, found, account):
        return None, None
    return found, account


def session_user_id(req: ApiRequest) -> int | None:
    """The id a session cookie claims, unverified: what a preload may read ahead."""
    found = web_sessions.parse(web_sessions.cookie_value(req.headers))
    return found.user_id if found is not None and found.user_id else None


def credential_keys(credential: Credential) -> list:
    """Table keys authentication will read first: the token items, and for a Basic
    password the sign-in failure counters of its name and address."""
    found = _accounts().preload_keys(credential.token_candidates)
    if credential.scheme == "basic" and credential.secret not in TOKEN_PLACEHOLDER_PASSWORDS:
        found += _accounts().password_keys(credential.username, credential.secret,
                                           credential.address)
    return found


def caller_keys(credential: Credential) -> tuple[int | None, list]:
    """The token owner's id if the token is already known (after the first preload
    round), with the keys to read next: the owner's account."""
    user_id = _accounts().owner_id(credential.token_candidates)
    return user_id, ([_accounts().account_key(user_id)] if user_id is not None else [])


def _from_token(secret: str) -> Principal:
    found = _accounts().authenticate(secret.strip())
    if found is None:
        raise _bad_credentials()
    token, user = found
    return Principal(user=user, via="token", scopes=list(token.scopes))


def _from_basic(credential: Credential, settings, git: bool = False) -> Principal:
    if credential.secret in TOKEN_PLACEHOLDER_PASSWORDS:
        return _from_token(credential.username)
    if _accounts().lookup(credential.secret) is not None:
        return _from_token(credential.secret)
    if not settings.service.ENABLE_BASIC_AUTHENTICATION:
        raise _bad_credentials("basic authentication is disabled")
    # Throttled per address, and the second factor asked as Forgejo asks it.
    signed = _accounts().basic_sign_in(credential.username, credential.secret,
                                       address=credential.address, otp=credential.otp, git=git)
    if signed.throttled:
        message = "too many failed sign-in attempts from your address: try again later"
        headers = {"Retry-After": str(signed.retry_after)}
        raise PlainTextError(429, message, headers) if git else TooManyRequests(message,
                                                                               headers=headers)
    if signed.account is None:
        if git and signed.refusal:
            raise PlainTextError(401, signed.refusal)     # git prints it to the user
        raise _bad_credentials(signed.refusal or "invalid username, password or token")
    return Principal(user=signed.account, via="password")


def authenticate(credential: Credential, settings, route: Route | None = None) -> Principal | None:
    if credential.scheme == "":
        return None
    if credential.scheme == "token":
        return _from_token(credential.secret)
    if credential.scheme == "basic":
        return _from_basic(credential, settings, git=route is not None and route.credentials == GIT)
    raise _bad_credentials()


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
    user = _accounts().get_user(target)   # NotFoundError: 404 "user redirect does not exist"
    return Principal(user=user, via=principal.via, scopes=principal.scopes,
                     sudo_by=principal.user)


def _check_scopes(route: Route, method: str, principal: Principal) -> None:
    if principal.scopes is None or route.scope is None:
        return
    level = route.scope_level or ("write" if method in WRITE_METHODS else "read")
    required = [f"{level}:{c}" for c in (route.scope, *route.extra_scopes)]
    if not all(scopes.allows(principal.scopes, c, level) for c in (route.scope, *route.extra_scopes)):
        # git prints a plain answer as it is; a JSON body would reach the user as noise.
        raise Forbidden("token does not have at least one of required scope(s): "
                        f"[{' '.join(required)}]", plain=route.credentials == GIT)


def _session_principal(req: ApiRequest) -> Principal | None:
    req.session, account = session_of(req)
    return Principal(user=account, via="session") if account is not None else None


def authorize(req: ApiRequest, route: Route, settings) -> None:
    """Set ``req.principal`` from the credentials the route declares it takes, and
    enforce the route's requirements (401/403)."""
    credential = credential_of(req, settings)
    if req.refused_credential and route.credentials == SESSION and req.method in WRITE_METHODS:
        # A form changes things on the strength of a session and its CSRF token only:
        # a token riding along must not stand in for either.
        raise Unauthorized("API tokens are not accepted by web forms: sign in instead")
    principal = authenticate(credential, settings, route)
    if principal is None and route.accepts_session:
        principal = _session_principal(req)
    if principal is not None:
        _check_account_state(principal.user)
    if principal is None or principal.via != "session":
        principal = _apply_sudo(req, principal)     # Sudo is an API feature, not a page's
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
