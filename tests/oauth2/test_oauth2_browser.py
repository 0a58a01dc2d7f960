"""The OAuth2 acceptance, as an integration meets it: ``python -m chalicelib.local`` (what
``make run`` starts), a client built on requests-oauthlib doing the authorization code
flow with PKCE, and a person in headless Chromium who signs in and consents.  The client
then calls the API, clones a private repository over git with the access token, has its
refresh token rotated, and sees a reused refresh token revoke the grant; the ID token is
checked against the published key set with PyJWT; a token's scopes hold on the API,
on the pages (which take no token) and over git."""
from __future__ import annotations

import base64
import os
import subprocess
from urllib.parse import urlsplit

import httpx
import jwt
import pytest

from tests.browser_support import Browser, require_browser
from tests.local_server import ADMIN_ENV, ADMIN_PASSWORD, served

PASSWORD = "alice-password-1"


class Callback:
    """The client's redirect URI: a loopback server that keeps what the browser brought."""

    def __init__(self):
        import http.server
        import threading

        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/callback"):     # not the browser's /favicon.ico
                    seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"signed in")

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/callback"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


CALLBACK_SERVER = Callback()
CALLBACK = CALLBACK_SERVER.url


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    require_browser()
    root = tmp_path_factory.mktemp("oauth2")
    with served(root / "data", **ADMIN_ENV) as (_, base):
        admin = ("root", ADMIN_PASSWORD)
        httpx.post(f"{base}/api/v1/admin/users", auth=admin, timeout=30, json={
            "username": "alice", "email": "alice@example.com", "password": PASSWORD,
            "must_change_password": False}).raise_for_status()
        token = httpx.post(f"{base}/api/v1/users/alice/tokens", auth=("alice", PASSWORD),
                           timeout=30, json={"name": "setup", "scopes": ["all"]}).json()["sha1"]
        headers = {"Authorization": f"token {token}"}
        httpx.post(f"{base}/api/v1/user/repos", headers=headers, timeout=30, json={
            "name": "vault", "private": True, "auto_init": True}).raise_for_status()
        app = httpx.post(f"{base}/api/v1/user/applications/oauth2", headers=headers, timeout=30,
                         json={"name": "Woodpecker", "redirect_uris": [CALLBACK],
                               "confidential_client": True})
        assert app.status_code == 201, app.text
        yield {"base": base, "app": app.json(), "root": root}


def authorize_in_browser(base: str, url: str) -> str:
    """Sign in and consent in Chromium; the URL the provider sent the browser back to."""
    browser = Browser(base)
    try:
        browser.driver.get(url)
        assert browser.path.startswith("/user/login"), browser.path
        browser.fill("#user_name", "alice")
        browser.fill("#password", PASSWORD)
        browser.submit("form.stack button[type=submit]")
        assert "Authorize Woodpecker?" in browser.text("h1")
        from selenium.webdriver.support.ui import WebDriverWait

        browser.css("#authorize-app").click()
        WebDriverWait(browser.driver, 20).until(lambda driver: CALLBACK_SERVER.seen)
        return CALLBACK.rsplit("/", 1)[0] + CALLBACK_SERVER.seen[-1]
    finally:
        browser.close()


def git(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_ASKPASS": "true"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False,
                          timeout=120)


def test_authorization_code_flow_with_a_client_library(instance, monkeypatch, tmp_path):
    from requests_oauthlib import OAuth2Session

    # The client library insists on https; this provider runs on loopback http here.
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    base, app = instance["base"], instance["app"]
    discovery = httpx.get(f"{base}/.well-known/openid-configuration").json()
    client = OAuth2Session(app["client_id"], redirect_uri=CALLBACK, pkce="S256",
                           scope=["openid", "profile", "email", "read:repository",
                                  "read:user"])
    url, _ = client.authorization_url(discovery["authorization_endpoint"])
    back = authorize_in_browser(base, url.replace(discovery["issuer"], base, 1))
    token = client.fetch_token(discovery["token_endpoint"].replace(discovery["issuer"], base, 1),
                               authorization_response=back, client_secret=app["client_secret"])
    assert token["token_type"] == "Bearer" and token["refresh_token"]

    # The ID token validates against the JWKS with PyJWT.
    keys = jwt.PyJWKClient(f"{base}/login/oauth/keys")
    claims = jwt.decode(token["id_token"], keys.get_signing_key_from_jwt(token["id_token"]).key,
                        algorithms=["RS256"], audience=app["client_id"],
                        issuer=discovery["issuer"])
    assert claims["preferred_username"] == "alice" and claims["email"] == "alice@example.com"

    # The API as alice, within the token's scopes.
    me = client.get(f"{base}/api/v1/user")
    assert me.status_code == 200 and me.json()["login"] == "alice"
    assert client.get(f"{base}/api/v1/repos/alice/vault").status_code == 200
    assert client.post(f"{base}/api/v1/user/repos", json={"name": "nope"}).status_code == 403
    # Pages take no token: the settings page sends a bearer to sign in.
    page = client.get(f"{base}/user/settings", allow_redirects=False)
    assert page.status_code in (303, 401) and "Authorize" not in page.text

    # git over HTTP with the access token: the private clone works, a push does not.
    host = urlsplit(base).netloc
    clone_url = f"http://oauth2:{token['access_token']}@{host}/alice/vault.git"
    cloned = git("clone", "-q", clone_url, str(tmp_path / "vault"))
    assert cloned.returncode == 0, cloned.stderr
    assert (tmp_path / "vault" / "README.md").exists()
    (tmp_path / "vault" / "new.txt").write_text("x\n")
    git("-c", "user.name=a", "-c", "user.email=a@example.com", "add", "new.txt",
        cwd=tmp_path / "vault")
    git("-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "x",
        cwd=tmp_path / "vault")
    pushed = git("push", "-q", "origin", "HEAD", cwd=tmp_path / "vault")
    assert pushed.returncode != 0 and "write:repository" in pushed.stderr, pushed.stderr

    # The refresh token rotates; the old access token stops; a reused refresh token
    # revokes the grant, and with it the newest tokens too.
    first = dict(token)
    refreshed = client.refresh_token(discovery["token_endpoint"].replace(discovery["issuer"], base, 1),
                                     refresh_token=first["refresh_token"],
                                     auth=(app["client_id"], app["client_secret"]))
    assert refreshed["refresh_token"] != first["refresh_token"]
    assert httpx.get(f"{base}/api/v1/user", headers={
        "Authorization": "Bearer " + first["access_token"]}).status_code == 401
    assert httpx.get(f"{base}/api/v1/user", headers={
        "Authorization": "Bearer " + refreshed["access_token"]}).status_code == 200
    basic = base64.b64encode(f"{app['client_id']}:{app['client_secret']}".encode()).decode()
    reused = httpx.post(f"{base}/login/oauth/access_token", headers={
        "Authorization": f"Basic {basic}"}, data={"grant_type": "refresh_token",
                                                  "refresh_token": first["refresh_token"]})
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    assert httpx.get(f"{base}/api/v1/user", headers={
        "Authorization": "Bearer " + refreshed["access_token"]}).status_code == 401
