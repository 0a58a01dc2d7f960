"""Nimbus as an OAuth2 / OpenID Connect provider, through the gateway: the applications
API, the consent pages, the token endpoint's rules (RFC 6749, RFC 7636), refresh-token
rotation and reuse detection, ID tokens checked against the JWKS with PyJWT, and the
tokens' scopes on the API."""
from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest

from chalicelib import clock
from tests.web.test_web_actions import WebUser

REDIRECT = "http://127.0.0.1:9931/callback"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    return verifier, challenge.decode()


@pytest.fixture
def scene(api):
    api.create_user("alice")
    api.create_user("bob")
    token = api.create_token("alice")
    made = api.post("/user/applications/oauth2", token=token, json={
        "name": "ci", "redirect_uris": [REDIRECT], "confidential_client": True})
    assert made.status == 201, made.json
    return {"token": token, "app": made.json, "alice": WebUser(api).sign_in("alice")}


def authorize(browser: WebUser, app: dict, *, scope="openid profile email groups",
              challenge: str | None = None, redirect=REDIRECT, state="st-1", **extra):
    query = {"response_type": "code", "client_id": app["client_id"], "redirect_uri": redirect,
             "scope": scope, "state": state, **extra}
    if challenge:
        query.update(code_challenge=challenge, code_challenge_method="S256")
    return browser.get("/login/oauth/authorize?" + urlencode(query))


def consent(browser: WebUser, page, granted="true"):
    body = page.body.decode()
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', body))
    fields = {k: v.replace("&amp;", "&").replace("&#34;", '"').replace("&#39;", "'")
              for k, v in fields.items()}
    csrf = fields.pop("_csrf")
    return browser.post("/login/oauth/grant", {**fields, "granted": granted}, csrf=csrf)


def code_from(resp) -> dict:
    assert resp.status == 303, resp
    location = urlsplit(resp.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    return {k: v[-1] for k, v in parse_qs(location.query).items()}


def token_request(api, fields: dict, auth: tuple[str, str] | None = None):
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(auth).encode()).decode()
    return api.request("POST", "/login/oauth/access_token", raw=True,
                       body=urlencode(fields).encode(), headers=headers)


def exchange(api, app, code, verifier=None, redirect=REDIRECT):
    fields = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect}
    if verifier:
        fields["code_verifier"] = verifier
    return token_request(api, fields, auth=(app["client_id"], app["client_secret"]))


def code_for(browser: WebUser, app: dict, **kw) -> tuple[str, str]:
    """A code for ``app`` from the signed-in ``browser``, and its PKCE verifier."""
    verifier, challenge = pkce()
    page = authorize(browser, app, challenge=challenge, **kw)
    if page.status == 303:      # granted before: a confidential client is not asked again
        return code_from(page)["code"], verifier
    assert page.status == 200 and "Authorize application" in page.body.decode()
    return code_from(consent(browser, page))["code"], verifier


def a_code(scene, **kw) -> tuple[str, str]:
    return code_for(scene["alice"], scene["app"], **kw)


def test_applications_api(api, scene):
    token, app = scene["token"], scene["app"]
    assert app["client_secret"].startswith("gto_") and app["confidential_client"] is True
    assert app["redirect_uris"] == [REDIRECT] and app["id"] > 0
    listed = api.get("/user/applications/oauth2", token=token)
    assert listed.status == 200 and [a["client_secret"] for a in listed.json] == [""]
    assert listed.headers["x-total-count"] == "1"
    one = api.get(f"/user/applications/oauth2/{app['id']}", token=token)
    assert one.status == 200 and one.json["client_id"] == app["client_id"]
    assert one.json["client_secret"] == ""
    edited = api.patch(f"/user/applications/oauth2/{app['id']}", token=token, json={
        "name": "ci-2", "redirect_uris": [REDIRECT, "https://ci.example/cb"],
        "confidential_client": False})
    assert edited.status == 200 and edited.json["name"] == "ci-2"
    assert edited.json["client_secret"] not in ("", app["client_secret"])
    assert edited.json["confidential_client"] is False
    # Someone else's application is not there; bad input is refused, nothing written.
    bob = api.create_token("bob")
    assert api.get(f"/user/applications/oauth2/{app['id']}", token=bob).status == 404
    assert api.delete(f"/user/applications/oauth2/{app['id']}", token=bob).status == 404
    assert api.post("/user/applications/oauth2", token=bob, json={
        "name": "x", "redirect_uris": ["javascript:alert(1)"]}).status == 400
    assert api.post("/user/applications/oauth2", token=bob, json={
        "name": "x", "redirect_uris": ["https://a.example/cb#frag"]}).status == 400
    assert api.post("/user/applications/oauth2", token=bob, json={"redirect_uris": []}).status == 422
    assert api.get("/user/applications/oauth2", token=bob).json == []
    # A token without the user scope may not; nobody anonymous may.
    repo_only = api.create_token("bob", scopes=["read:repository"], name="ro")
    assert api.get("/user/applications/oauth2", token=repo_only).status == 403
    assert api.get("/user/applications/oauth2").status == 401
    assert api.delete(f"/user/applications/oauth2/{app['id']}", token=token).status == 204
    assert api.get(f"/user/applications/oauth2/{app['id']}", token=token).status == 404


def test_code_flow_with_pkce_id_token_and_scopes(api, scene):
    app = scene["app"]
    verifier, challenge = pkce()
    page = authorize(scene["alice"], app, challenge=challenge, nonce="n-42")
    assert page.status == 200 and "ci" in page.body.decode()
    back = code_from(consent(scene["alice"], page))
    assert back["state"] == "st-1"
    issued = exchange(api, app, back["code"], verifier)
    assert issued.status == 200, issued.body
    tokens = issued.json
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
    assert issued.headers["cache-control"] == "no-store"
    # The ID token, checked as a client would: against the published key set.
    discovery = api.request("GET", "/.well-known/openid-configuration", raw=True).json
    assert discovery["code_challenge_methods_supported"] == ["plain", "S256"]
    assert discovery["jwks_uri"].endswith("/login/oauth/keys")
    key_set = api.request("GET", "/login/oauth/keys", raw=True).json
    header = jwt.get_unverified_header(tokens["id_token"])
    key = next(k for k in key_set["keys"] if k["kid"] == header["kid"])
    claims = jwt.decode(tokens["id_token"], jwt.PyJWK(key).key, algorithms=["RS256"],
                        audience=app["client_id"], issuer=discovery["issuer"])
    assert claims["preferred_username"] == "alice" and claims["nonce"] == "n-42"
    assert claims["email"] and claims["groups"] == [] and claims["sub"] == str(
        api.get("/user", token=scene["token"]).json["id"])
    # The access token works on the API as alice, with every scope (none was named).
    me = api.get("/user", headers={"Authorization": "Bearer " + tokens["access_token"]})
    assert me.status == 200 and me.json["login"] == "alice"
    info = api.request("GET", "/login/oauth/userinfo", raw=True,
                       headers={"Authorization": "Bearer " + tokens["access_token"]})
    assert info.status == 200 and info.json["preferred_username"] == "alice"
    # A personal token is not an OAuth2 token for userinfo.
    plain = api.request("GET", "/login/oauth/userinfo", raw=True,
                        headers={"Authorization": "token " + scene["token"]})
    assert plain.status == 401
    # The code is good once; a replay revokes what it gave (RFC 6749 §4.1.2).
    again = exchange(api, app, back["code"], verifier)
    assert again.status == 400 and again.json["error"] == "invalid_grant"
    assert api.get("/user", headers={"Authorization": "Bearer " + tokens["access_token"]}).status == 401


def test_token_scopes_hold(api, scene):
    code, verifier = a_code(scene, scope="openid read:repository")
    tokens = exchange(api, scene["app"], code, verifier).json
    bearer = {"Authorization": "Bearer " + tokens["access_token"]}
    assert api.get("/user", headers=bearer).status == 403           # no user scope
    assert api.post("/user/repos", headers=bearer, json={"name": "x"}).status == 403
    assert api.post("/user/repos", token=scene["token"], json={"name": "r", "private": True}).status == 201
    assert api.get("/repos/alice/r", headers=bearer).status == 200
    # Pages take no token at all.
    assert api.request("GET", "/user/settings", raw=True, headers=bearer).status in (303, 401)


def test_rules_of_the_token_endpoint(api, scene):
    app = scene["app"]
    # A wrong verifier, a missing one, a wrong redirect URI: invalid_grant (RFC 7636 §4.6,
    # RFC 6749 §4.1.3), and the code is still not spent by them.
    code, verifier = a_code(scene)
    assert exchange(api, app, code, "x" * 50).json["error"] == "invalid_grant"
    missing = exchange(api, app, code)
    assert missing.status == 400 and missing.json["error"] in ("invalid_request", "invalid_grant")
    assert exchange(api, app, code, verifier, redirect="http://127.0.0.1:9931/other").json[
        "error"] in ("invalid_grant", "invalid_request")
    # A wrong secret is invalid_client (401).
    wrong = token_request(api, {"grant_type": "authorization_code", "code": code,
                                "redirect_uri": REDIRECT, "code_verifier": verifier},
                          auth=(app["client_id"], "gto_wrong"))
    assert wrong.status == 401 and wrong.json["error"] == "invalid_client"
    assert exchange(api, app, code, verifier).status == 200
    # An expired code.
    code, verifier = a_code(scene)
    with clock.frozen(clock.now() + 601):
        late = exchange(api, app, code, verifier)
    assert late.status == 400 and late.json["error"] == "invalid_grant"
    assert token_request(api, {"grant_type": "password", "username": "alice", "password": "x"},
                         auth=(app["client_id"], app["client_secret"])).json["error"] == \
        "unsupported_grant_type"


def test_authorization_request_refusals(api, scene):
    alice, app = scene["alice"], scene["app"]
    # An unregistered redirect URI is never followed: an error page.
    bad = authorize(alice, app, redirect="https://evil.example/cb")
    assert bad.status == 400 and "location" not in bad.headers
    unknown = authorize(alice, {"client_id": "no-such-client"})
    assert unknown.status == 400
    # Other refusals go back to the client with the error.
    wrong_type = alice.get("/login/oauth/authorize?" + urlencode({
        "response_type": "token", "client_id": app["client_id"], "redirect_uri": REDIRECT,
        "state": "s"}))
    assert code_from(wrong_type)["error"] == "unsupported_response_type"
    # Saying no sends access_denied back.
    page = authorize(alice, app)
    denied = code_from(consent(alice, page, granted="false"))
    assert denied["error"] == "access_denied" and denied["state"] == "st-1"
    # A visitor signs in first and comes back to the same request.
    visitor = WebUser(api)
    first = authorize(visitor, app)
    assert first.status == 303 and first.headers["location"].startswith("/user/login?redirect_to=")
    # A public client must use PKCE.
    public = api.post("/user/applications/oauth2", token=scene["token"], json={
        "name": "cli", "redirect_uris": ["http://127.0.0.1/cb"], "confidential_client": False}).json
    refused = alice.get("/login/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": public["client_id"],
        "redirect_uri": "http://127.0.0.1:5555/cb", "state": "s"}))
    assert refused.status == 303 and "error=invalid_request" in refused.headers["location"]


def test_refresh_rotates_and_reuse_revokes(api, scene):
    app = scene["app"]
    code, verifier = a_code(scene)
    first = exchange(api, app, code, verifier).json
    auth = (app["client_id"], app["client_secret"])
    second = token_request(api, {"grant_type": "refresh_token",
                                 "refresh_token": first["refresh_token"]}, auth=auth)
    assert second.status == 200, second.body
    second = second.json
    assert second["refresh_token"] != first["refresh_token"] and "id_token" in second
    old = {"Authorization": "Bearer " + first["access_token"]}
    new = {"Authorization": "Bearer " + second["access_token"]}
    assert api.get("/user", headers=old).status == 401
    assert api.get("/user", headers=new).status == 200
    # The first refresh token again: reuse, the grant is revoked with every token.
    reused = token_request(api, {"grant_type": "refresh_token",
                                 "refresh_token": first["refresh_token"]}, auth=auth)
    assert reused.status == 400 and reused.json["error"] == "invalid_grant"
    assert api.get("/user", headers=new).status == 401
    assert token_request(api, {"grant_type": "refresh_token",
                               "refresh_token": second["refresh_token"]},
                         auth=auth).json["error"] == "invalid_grant"


def test_racing_refreshes_get_one_answer(api, scene):
    """Two requests with one refresh token: never two working token sets."""
    app = scene["app"]
    code, verifier = a_code(scene)
    first = exchange(api, app, code, verifier).json
    auth = (app["client_id"], app["client_secret"])
    answers, gate = [], threading.Barrier(2)

    def refresh():
        gate.wait()
        answers.append(token_request(api, {"grant_type": "refresh_token",
                                           "refresh_token": first["refresh_token"]}, auth=auth))

    threads = [threading.Thread(target=refresh) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    working = [a for a in answers if a.status == 200 and api.get(
        "/user", headers={"Authorization": "Bearer " + a.json["access_token"]}).status == 200]
    assert len(working) <= 1 and any(a.status == 400 for a in answers)


def test_revoking_a_grant_and_deleting_the_application(api, scene):
    app, alice = scene["app"], scene["alice"]
    code, verifier = a_code(scene)
    tokens = exchange(api, app, code, verifier).json
    bearer = {"Authorization": "Bearer " + tokens["access_token"]}
    settings = alice.get("/user/settings/applications/oauth2")
    assert settings.status == 200 and "Authorized OAuth2 applications" in settings.body.decode()
    revoked = alice.post("/user/settings/applications/oauth2/revoke", {"id": app["id"]})
    assert revoked.status == 303
    assert api.get("/user", headers=bearer).status == 401
    # A fresh grant dies with its application.
    code, verifier = a_code(scene)
    tokens = exchange(api, app, code, verifier).json
    bearer = {"Authorization": "Bearer " + tokens["access_token"]}
    assert api.get("/user", headers=bearer).status == 200
    assert api.delete(f"/user/applications/oauth2/{app['id']}", token=scene["token"]).status == 204
    assert api.get("/user", headers=bearer).status == 401
    page = alice.get("/user/settings/applications/oauth2").body.decode()
    assert "You have not let any application in." in page and "No OAuth2 applications." in page
