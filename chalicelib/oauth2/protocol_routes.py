"""The provider at Forgejo's paths (routers/web/auth/oauth.go), outside /api/v1:

- ``POST /login/oauth/access_token``: codes and refresh tokens for tokens.  The client
  authenticates itself here (``CLIENT`` credentials: no user credential is read);
- ``GET|POST /login/oauth/userinfo``: the user an OAuth2 access token belongs to;
- ``POST /login/oauth/introspect``: RFC 7662, for the token's own client;
- ``GET /login/oauth/keys``: the JWKS ID tokens are signed with;
- ``GET /.well-known/openid-configuration``: OpenID discovery.

The authorization endpoint and the consent form are pages (chalicelib/web/oauth2_pages.py).
``[oauth2] ENABLED = false`` makes all of them unknown (404).
"""
from __future__ import annotations

import json

from chalicelib import accounts
from chalicelib.http import auth
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import CLIENT, TOKEN, route
from chalicelib.oauth2 import claims, issuing, jwt_keys, provider
from chalicelib.settings import get_settings

PROTOCOL = dict(tag="oauth2", raw=True, in_swagger=False,
                available=lambda: get_settings().oauth2.ENABLED)
PUBLIC = dict(PROTOCOL, credentials=TOKEN, scope=None)


def _no_authorization(scheme: str) -> ApiResponse:
    answer = ApiResponse.text("no valid authorization", status=401)
    answer.headers["WWW-Authenticate"] = f'{scheme} realm=""'
    return answer


@route("POST", "/login/oauth/access_token", "oauthAccessToken", credentials=CLIENT,
       scope=None, consumes=("application/x-www-form-urlencoded",), **PROTOCOL)
def access_token(req: ApiRequest) -> ApiResponse:
    status, headers, body = provider.token_response(req.body, req.headers)
    return ApiResponse(status=status, body=body.encode(), headers=headers)


def _oauth_token(req: ApiRequest):
    """The OAuth2 access token the request was authenticated with, or None."""
    principal = req.principal
    if principal is None or principal.via != "token":
        return None
    for secret in auth.credential_of(req, get_settings()).token_candidates:
        token = accounts.find_token(secret)
        if token is not None and token.grant:
            return token
    return None


def userinfo(req: ApiRequest) -> ApiResponse:
    token = _oauth_token(req)
    if token is None:
        return _no_authorization("Bearer")
    return ApiResponse.json(claims.userinfo(req.actor, list(token.scopes)))


route("GET", "/login/oauth/userinfo", "oauthUserInfo", **PUBLIC)(userinfo)
route("POST", "/login/oauth/userinfo", "oauthUserInfoPost", **PUBLIC)(userinfo)


@route("POST", "/login/oauth/introspect", "oauthIntrospect", credentials=CLIENT, scope=None,
       consumes=("application/x-www-form-urlencoded",), **PROTOCOL)
def introspect(req: ApiRequest) -> ApiResponse:
    form = {name: values[-1] for name, values in req.form().items() if values}
    sent = issuing.basic_client(req.headers) or (
        (form["client_id"], form.get("client_secret", "")) if form.get("client_id") else None)
    client = issuing.authenticated_client(*sent) if sent else None
    if client is None:
        return _no_authorization("Basic")
    secret = form.get("token", "")
    token = accounts.find_token(secret)
    answer: dict = {"active": False}
    if token is not None and token.grant and token.grant.split(":")[1] == str(int(client.id)) \
            and not accounts.token_expired(token):
        owner = accounts.account_by_id(int(token.user_id))
        answer = {"active": True, "scope": " ".join(token.scopes),
                  "client_id": client.client_id, "token_type": "Bearer",
                  "exp": int(token.expires), "iat": int(token.created),
                  "iss": get_settings().app_url.rstrip("/"), "aud": [client.client_id],
                  "sub": str(int(token.user_id)),
                  "username": owner.login if owner is not None else ""}
    return ApiResponse(status=200, body=json.dumps(answer).encode(),
                       headers={"Content-Type": "application/json", "Cache-Control": "no-store"})


@route("GET", "/login/oauth/keys", "oauthKeys", **PUBLIC)
def keys(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(jwt_keys.key_set())


@route("GET", "/.well-known/openid-configuration", "oauthDiscovery", **PUBLIC)
def discovery(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(provider.discovery())
