"""Scenarios for Nimbus as an OAuth2 / OpenID Connect provider (issue 40): alice's
applications through the API, and the provider's own paths — the token endpoint for a
code and for a refresh token, userinfo, the key set, discovery.  A code is had the way
the consent form gets it (the provider's approve, in-process: not counted)."""
from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlencode, urlsplit

from scene import USER, Req, Scene

REDIRECT = "http://127.0.0.1:9931/callback"
FORM = "application/x-www-form-urlencoded"
VERIFIER = "v" * 64
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(
    b"=").decode()


def new_app(s: Scene) -> dict:
    return s.must("POST", "/user/applications/oauth2", "token", {
        "name": s.unique("app "), "redirect_uris": [REDIRECT], "confidential_client": True})


def one_app(s: Scene) -> dict:
    return s.once("oauth2_app", lambda: new_app(s))


def a_code(s: Scene, app: dict) -> str:
    from chalicelib import accounts, oauth2

    params = {"response_type": "code", "client_id": app["client_id"], "redirect_uri": REDIRECT,
              "scope": "openid profile email", "state": "s", "code_challenge": CHALLENGE,
              "code_challenge_method": "S256"}
    location = oauth2.approve_authorization(params, accounts.account_by_name(USER[0]))
    return parse_qs(urlsplit(location).query)["code"][0]


def _client(app: dict) -> dict:
    return {"client_id": app["client_id"], "client_secret": app["client_secret"]}


def tokens(s: Scene, app: dict) -> dict:
    """Tokens for alice from a fresh code (not counted)."""
    import json

    from chalicelib.local.events import build_event, read_result

    body = urlencode({"grant_type": "authorization_code", "code": a_code(s, app),
                      "redirect_uri": REDIRECT, "code_verifier": VERIFIER, **_client(app)})
    status, _, out = read_result(s.app(build_event(
        "POST", "/login/oauth/access_token", [("Content-Type", FORM)], body.encode()), None))
    assert status == 200, out
    return json.loads(out)


def exchange(s: Scene) -> list[Req]:
    app = one_app(s)
    body = urlencode({"grant_type": "authorization_code", "code": a_code(s, app),
                      "redirect_uri": REDIRECT, "code_verifier": VERIFIER, **_client(app)})
    return [Req("POST", "/login/oauth/access_token", data=body.encode(), content_type=FORM,
                expect_body=b"access_token")]


def refresh(s: Scene) -> list[Req]:
    app = one_app(s)
    body = urlencode({"grant_type": "refresh_token",
                      "refresh_token": tokens(s, app)["refresh_token"], **_client(app)})
    return [Req("POST", "/login/oauth/access_token", data=body.encode(), content_type=FORM,
                expect_body=b"refresh_token")]


def userinfo(s: Scene) -> list[Req]:
    access = s.once("oauth2_tokens", lambda: tokens(s, one_app(s)))["access_token"]
    return [Req("GET", f"/login/oauth/userinfo?access_token={access}")]


def introspect(s: Scene) -> list[Req]:
    app = one_app(s)
    access = s.once("oauth2_tokens", lambda: tokens(s, app))["access_token"]
    body = urlencode({"token": access, **_client(app)})
    return [Req("POST", "/login/oauth/introspect", data=body.encode(), content_type=FORM,
                expect_body=b'"active": true')]


def authorize_page(s: Scene) -> list[Req]:
    """The consent page of a client alice has not granted yet."""
    app = new_app(s)
    s.session_cookie()      # signed in before, not while measured
    query = urlencode({"response_type": "code", "client_id": app["client_id"],
                       "redirect_uri": REDIRECT, "scope": "openid profile", "state": "s",
                       "code_challenge": CHALLENGE, "code_challenge_method": "S256"})
    return [Req("GET", f"/login/oauth/authorize?{query}", "session",
                expect_body=b"Authorize application")]


def scenarios() -> dict:
    return {
        "userGetOAuth2Applications": lambda s: (one_app(s), [
            Req("GET", "/user/applications/oauth2", "token")])[1],
        "userCreateOAuth2Application": lambda s: [Req(
            "POST", "/user/applications/oauth2", "token",
            {"name": s.unique("app "), "redirect_uris": [REDIRECT]}, 201)],
        "userGetOAuth2Application": lambda s: [Req(
            "GET", f"/user/applications/oauth2/{one_app(s)['id']}", "token")],
        "userUpdateOAuth2Application": lambda s: [Req(
            "PATCH", f"/user/applications/oauth2/{new_app(s)['id']}", "token",
            {"name": "renamed", "redirect_uris": [REDIRECT], "confidential_client": True})],
        "userDeleteOAuth2Application": lambda s: [Req(
            "DELETE", f"/user/applications/oauth2/{new_app(s)['id']}", "token", expect=204)],
        "oauthAccessToken": lambda s: exchange(s) + refresh(s),
        "oauthUserInfo": userinfo,
        "oauthUserInfoPost": lambda s: [Req("POST", r.path) for r in userinfo(s)],
        "oauthIntrospect": introspect,
        "webOAuthAuthorize": authorize_page,
        "webOAuth2Applications": lambda s: (one_app(s), [
            Req("GET", "/user/settings/applications/oauth2", "session")])[1],
        "webOAuth2ApplicationEditForm": lambda s: [Req(
            "GET", f"/user/settings/applications/oauth2/{one_app(s)['id']}", "session")],
        "oauthKeys": lambda s: [Req("GET", "/login/oauth/keys")],
        "oauthDiscovery": lambda s: [Req("GET", "/.well-known/openid-configuration")],
    }


BUDGETS = {
    ("userGetOAuth2Applications", "token"): 3,
    ("userCreateOAuth2Application", "token"): 3,
    ("userGetOAuth2Application", "token"): 2,
    ("userUpdateOAuth2Application", "token"): 3,
    ("userDeleteOAuth2Application", "token"): 4,
    ("oauthAccessToken", "anon"): 5,
    ("oauthUserInfo", "anon"): 4,
    ("oauthUserInfoPost", "anon"): 4,
    ("oauthIntrospect", "anon"): 3,
    ("webOAuthAuthorize", "session"): 3,
    ("webOAuth2Applications", "session"): 4,
    ("webOAuth2ApplicationEditForm", "session"): 2,
    ("oauthKeys", "anon"): 1,
    ("oauthDiscovery", "anon"): 0,
}

EXEMPT = {
    op: "a form POST needs a session cookie and its CSRF token (tests/oauth2/test_provider.py)"
    for op in ("webOAuthGrant", "webOAuth2ApplicationCreate", "webOAuth2ApplicationDelete",
               "webOAuth2GrantRevoke", "webOAuth2ApplicationEdit",
               "webOAuth2ApplicationNewSecret")}
