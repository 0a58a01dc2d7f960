"""The provider's endpoints, as oauthlib applies the protocol: an authorization request
checked and turned into a consent (or an error for the client), a consent turned into a
code, a token request answered.  oauthlib is imported here only, on the OAuth2 paths.

oauthlib reads parameters from a URI; it is handed an ``https://`` one built from the
request's path and query because API Gateway serves only https, and the local runtime
listens on loopback only — the scheme is not what the rules depend on.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from urllib.parse import urlencode

from chalicelib.oauth2 import scopes
from chalicelib.settings import get_settings

_lock = threading.Lock()
_built: dict = {}
PROTOCOL_HOST = "https://nimbus.invalid"


@dataclass
class AuthorizationError(Exception):
    """A request the provider will not serve: ``redirect`` (the client's URI carrying
    ``error``) when the client may be told, else a description for an error page."""
    error: str
    description: str
    redirect: str = ""


@dataclass
class Consent:
    """A checked authorization request, waiting for the user's answer."""
    client: object
    redirect_uri: str
    scope: list[str]
    state: str = ""
    params: dict = field(default_factory=dict)    # what the consent form sends back

    @property
    def grants_everything(self) -> bool:
        return scopes.api_scopes(self.scope) == ["all"]

    @property
    def token_scopes(self) -> list[str]:
        return scopes.api_scopes(self.scope)


def _endpoints():
    if _built:
        return _built["authorize"], _built["token"]
    with _lock:
        if not _built:
            from oauthlib.oauth2.rfc6749.endpoints import (
                AuthorizationEndpoint,
                TokenEndpoint,
            )
            from oauthlib.oauth2.rfc6749.tokens import BearerToken
            from oauthlib.openid.connect.core.grant_types import (
                AuthorizationCodeGrant,
                RefreshTokenGrant,
            )

            from chalicelib.oauth2 import issuing
            from chalicelib.oauth2.validator import NimbusValidator

            checks = NimbusValidator()
            bearer = BearerToken(checks, token_generator=issuing.new_access_token,
                                 expires_in=lambda request: issuing.lifetimes()[0],
                                 refresh_token_generator=issuing.new_refresh_token)
            code = AuthorizationCodeGrant(checks)
            refresh = RefreshTokenGrant(checks)
            _built["authorize"] = AuthorizationEndpoint(
                default_response_type="code", default_token_type=bearer,
                response_types={"code": code})
            _built["token"] = TokenEndpoint(
                default_grant_type="authorization_code", default_token_type=bearer,
                grant_types={"authorization_code": code, "refresh_token": refresh})
    return _built["authorize"], _built["token"]


# The authorization request's parameters the consent form carries back.
REQUEST_PARAMS = ("response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
                  "code_challenge", "code_challenge_method", "prompt")


def _uri(path: str, params: dict) -> str:
    query = urlencode([(k, v) for k, v in params.items() if v is not None])
    return f"{PROTOCOL_HOST}{path}?{query}"


def _refusal(exc) -> AuthorizationError:
    from oauthlib.oauth2.rfc6749 import errors

    if isinstance(exc, errors.FatalClientError) or not getattr(exc, "redirect_uri", None):
        return AuthorizationError(exc.error, exc.description or exc.error)
    return AuthorizationError(exc.error, exc.description or exc.error,
                              redirect=exc.in_uri(exc.redirect_uri))


def check_request(params: dict) -> Consent:
    """Check an authorization request (``GET /login/oauth/authorize``'s query)."""
    from oauthlib.oauth2.rfc6749 import errors

    authorize, _ = _endpoints()
    wanted = {k: params[k] for k in REQUEST_PARAMS if params.get(k)}
    try:
        asked, found = authorize.validate_authorization_request(
            _uri("/login/oauth/authorize", wanted), http_method="GET")
    except errors.OAuth2Error as exc:
        raise _refusal(exc) from None
    request = found["request"]
    return Consent(client=request.client, redirect_uri=found.get("redirect_uri") or "",
                   scope=list(asked or []), state=found.get("state") or "", params=wanted)


def approve(params: dict, user) -> str:
    """The user said yes: the grant and a code; returns where the browser goes next."""
    from oauthlib.oauth2.rfc6749 import errors

    authorize, _ = _endpoints()
    wanted = {k: params[k] for k in REQUEST_PARAMS if params.get(k)}
    try:
        asked, _ = authorize.validate_authorization_request(
            _uri("/login/oauth/authorize", wanted), http_method="GET")
        headers, _, _ = authorize.create_authorization_response(
            _uri("/login/oauth/authorize", wanted), http_method="GET", scopes=asked,
            credentials={"user": user})
    except errors.OAuth2Error as exc:
        raise _refusal(exc) from None
    return headers["Location"]


def deny(consent: Consent) -> str:
    """The user said no: RFC 6749 §4.1.2.1's ``access_denied`` back to the client."""
    from oauthlib.oauth2.rfc6749 import errors

    refusal = errors.AccessDeniedError(description="the request is denied", state=consent.state)
    return refusal.in_uri(consent.redirect_uri)


def token_response(body: bytes, headers) -> tuple[int, dict, str]:
    """``POST /login/oauth/access_token``: the status, headers and JSON body."""
    from chalicelib.oauth2.issuing import TokensRevoked

    _, tokens = _endpoints()
    sent = {"Content-Type": "application/x-www-form-urlencoded"}
    if headers.get("authorization"):
        sent["Authorization"] = headers.get("authorization")
    try:
        answer_headers, answer, status = tokens.create_token_response(
            f"{PROTOCOL_HOST}/login/oauth/access_token", http_method="POST",
            body=body.decode("utf-8", "replace"), headers=sent)
    except TokensRevoked as exc:
        answer_headers, status = {}, 400
        answer = json.dumps({"error": "invalid_grant", "error_description": str(exc)})
    answer_headers = {**answer_headers, "Content-Type": "application/json",
                      "Cache-Control": "no-store", "Pragma": "no-cache"}
    return status, answer_headers, answer


def discovery() -> dict:
    """``/.well-known/openid-configuration``: what this provider does."""
    from chalicelib.http import scopes as token_scopes

    base = get_settings().app_url
    words = [*scopes.OPENID_WORDS, token_scopes.ALL, token_scopes.PUBLIC_ONLY,
             *(f"{level}:{category}" for category in token_scopes.CATEGORIES
               for level in ("read", "write"))]
    return {
        "issuer": base.rstrip("/"),
        "authorization_endpoint": base + "login/oauth/authorize",
        "token_endpoint": base + "login/oauth/access_token",
        "jwks_uri": base + "login/oauth/keys",
        "userinfo_endpoint": base + "login/oauth/userinfo",
        "introspection_endpoint": base + "login/oauth/introspect",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": words,
        "claims_supported": ["aud", "exp", "iat", "iss", "sub", "nonce", "at_hash", "name",
                             "preferred_username", "profile", "picture", "website", "locale",
                             "updated_at", "email", "email_verified", "groups"],
        "code_challenge_methods_supported": ["plain", "S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post",
                                                  "none"],
        "request_parameter_supported": False,
    }
