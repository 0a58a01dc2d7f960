"""Signing in and out of the web interface: the session cookie's attributes, failed
sign-ins that reveal nothing, CSRF on every POST, and cookies that must stop working
(tampered, expired, after a password change, for a disabled or deleted account)."""
from __future__ import annotations

import re
import time
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest

from chalicelib.http import sessions
from tests.conftest import ADMIN

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def cookies_of(resp) -> list[str]:
    return [v for k, v in resp.header_list if k.lower() == "set-cookie"]


def session_cookie(resp) -> str:
    found = [c for c in cookies_of(resp) if c.startswith(sessions.COOKIE + "=")]
    assert found, resp.header_list
    return found[-1].split(";", 1)[0]


def csrf_of(resp) -> str:
    return re.search(r'name="_csrf" value="([^"]*)"', resp.body.decode()).group(1)


def get(api, path, cookie=None):
    return api.get(path, raw=True, headers={"Cookie": cookie} if cookie else {})


def post(api, path, fields: dict, cookie=None):
    headers = dict(FORM, **({"Cookie": cookie} if cookie else {}))
    return api.post(path, raw=True, headers=headers, body=urlencode(fields).encode())


def login_form(api):
    form = get(api, "/user/login")
    assert form.status == 200
    return session_cookie(form), csrf_of(form)


def sign_in(api, name="alice", password="secret-pass-1", **extra):
    cookie, token = login_form(api)
    return post(api, "/user/login", {"_csrf": token, "user_name": name, "password": password,
                                     **extra}, cookie)


@pytest.fixture
def alice(api):
    token = (api.create_user("alice"), api.create_token("alice"))[1]
    assert api.post("/user/repos", token=token, json={"name": "secret", "private": True,
                                                      "auto_init": True}).status == 201
    return token


def test_login_form_and_cookie_attributes(api, alice):
    form = get(api, "/user/login")
    body = form.body.decode()
    assert 'for="user_name"' in body and 'for="password"' in body and 'type="password"' in body
    anonymous = [c for c in cookies_of(form) if c.startswith(sessions.COOKIE)][0]
    assert "HttpOnly" in anonymous and "SameSite=Lax" in anonymous and "Path=/" in anonymous
    done = sign_in(api, redirect_to="/alice/secret")
    assert done.status == 303 and done.headers["location"] == "/alice/secret"
    set_cookie = [c for c in cookies_of(done) if c.startswith(sessions.COOKIE)][-1]
    for attribute in ("HttpOnly", "SameSite=Lax", "Path=/", f"Max-Age={sessions.LIFETIME}"):
        assert attribute in set_cookie
    assert "Secure" not in set_cookie                  # the root URL is http here
    cookie = session_cookie(done)
    page = get(api, "/alice/secret", cookie)
    assert page.status == 200 and "alice ▾" in page.body.decode()
    assert get(api, "/alice/secret").status == 404     # without the cookie


def test_secure_cookie_behind_https(monkeypatch):
    monkeypatch.setattr(sessions, "get_settings",
                        lambda: SimpleNamespace(app_url="https://git.example/"))
    assert "; Secure" in sessions.set_cookie("x") and "; Secure" in sessions.clear_cookie()


def test_sign_in_by_email_and_safe_redirects(api, alice):
    assert sign_in(api, "alice@example.com").status == 303
    evil = sign_in(api, redirect_to="//evil.example/")
    assert evil.headers["location"] == "/"


def test_failed_sign_in_reveals_nothing(api, alice):
    wrong = sign_in(api, password="not-the-password")
    unknown = sign_in(api, name="nobody")
    for resp in (wrong, unknown):
        assert resp.status == 200
        assert "Username or password is incorrect." in resp.body.decode()
        assert not [c for c in cookies_of(resp) if c.startswith(sessions.COOKIE + "=v1.2.")]
    strip = lambda r: re.sub(r'value="[^"]*"', "", r.body.decode())  # noqa: E731
    assert strip(wrong) == strip(unknown)


def test_csrf_is_checked_on_every_post(api, alice):
    cookie, token = login_form(api)
    fields = {"user_name": "alice", "password": "secret-pass-1"}
    assert post(api, "/user/login", fields, cookie).status == 403
    assert post(api, "/user/login", {**fields, "_csrf": "forged"}, cookie).status == 403
    assert post(api, "/user/login", {**fields, "_csrf": token}).status == 403   # no cookie
    signed = session_cookie(sign_in(api))
    # The pre-sign-in token is worthless afterwards: signing in issues a new nonce.
    assert post(api, "/user/logout", {"_csrf": token}, signed).status == 403
    assert post(api, "/user/logout", {}, signed).status == 403
    # Bodies that are not url-encoded forms send the token in a header instead.
    fresh = csrf_of(get(api, "/alice/secret", signed))
    headed = api.post("/user/logout", raw=True, body=b"{}", headers={
        "Cookie": signed, "Content-Type": "application/json", "X-Csrf-Token": fresh})
    assert headed.status == 303


def test_logout_clears_the_cookie(api, alice):
    signed = session_cookie(sign_in(api))
    token = csrf_of(get(api, "/alice/secret", signed))
    out = post(api, "/user/logout", {"_csrf": token}, signed)
    assert out.status == 303 and out.headers["location"] == "/"
    cleared = [c for c in cookies_of(out) if c.startswith(sessions.COOKIE)][-1]
    assert cleared.startswith(sessions.COOKIE + "=;") and "Max-Age=0" in cleared


def test_tampered_and_expired_cookies_are_ignored(api, alice):
    signed = session_cookie(sign_in(api))
    value = signed.split("=", 1)[1]
    fields = value.split(".")
    tampered = [".".join(fields[:-1] + [fields[-1][:-2] + "AA"]),
                ".".join([fields[0], "1", *fields[2:]]),                 # another user id
                ".".join([fields[0], fields[1], str(int(fields[2]) + 999), *fields[3:]]),
                "garbage", "v1.2.x.y.z"]
    for bad in tampered:
        r = get(api, "/alice/secret", f"{sessions.COOKIE}={bad}")
        assert r.status == 404, bad
    from chalicelib.accounts import service as accounts

    account = accounts.get_user("alice")
    old = sessions.new_session(account, now=time.time() - sessions.LIFETIME - 60)
    expired = f"{sessions.COOKIE}={sessions.encode(old, account)}"
    assert get(api, "/alice/secret", expired).status == 404
    fresh = sessions.new_session(account)
    assert get(api, "/alice/secret",
               f"{sessions.COOKIE}={sessions.encode(fresh, account)}").status == 200


def test_password_change_disabling_and_deletion_end_sessions(api, alice):
    signed = session_cookie(sign_in(api))
    assert get(api, "/alice/secret", signed).status == 200
    assert api.patch("/admin/users/alice", auth=ADMIN, json={
        "login_name": "alice", "source_id": 0, "password": "another-pass-2"}).status == 200
    assert get(api, "/alice/secret", signed).status == 404
    signed = session_cookie(sign_in(api, password="another-pass-2"))
    assert get(api, "/alice/secret", signed).status == 200
    assert api.patch("/admin/users/alice", auth=ADMIN, json={
        "login_name": "alice", "source_id": 0, "prohibit_login": True}).status == 200
    assert get(api, "/alice/secret", signed).status == 404
    assert sign_in(api, password="another-pass-2").status == 200     # refused: the form again
    api.create_user("bob")
    bob = session_cookie(sign_in(api, "bob"))
    assert "bob ▾" in get(api, "/explore/repos", bob).body.decode()
    assert api.delete("/admin/users/bob", auth=ADMIN).status == 204
    after = get(api, "/explore/repos", bob).body.decode()
    assert "bob ▾" not in after and "Sign in" in after


def test_session_key_lives_in_ssm(api, alice):
    from chalicelib.aws import client

    sessions.reset_key_cache()
    sign_in(api)
    stored = client("ssm").get_parameter(Name=sessions.key_parameter(), WithDecryption=True)
    assert stored["Parameter"]["Type"] == "SecureString"
    assert sessions.signing_key() == stored["Parameter"]["Value"].encode()


def test_require_signin_view_sends_visitors_to_the_form(api, alice, monkeypatch):
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv("NIMBUS__SERVICE__REQUIRE_SIGNIN_VIEW", "true")
    reset_settings_cache()
    try:
        away = get(api, "/explore/repos")
        assert away.status == 303
        assert away.headers["location"] == "/user/login?redirect_to=%2Fexplore%2Frepos"
        assert get(api, "/user/login").status == 200
        assert get(api, "/assets/nimbus.css").status == 200
        signed = session_cookie(sign_in(api))
        assert get(api, "/explore/repos", signed).status == 200
    finally:
        monkeypatch.delenv("NIMBUS__SERVICE__REQUIRE_SIGNIN_VIEW")
        reset_settings_cache()


def test_logout_ends_the_session_server_side(api, alice):
    kept = session_cookie(sign_in(api))
    other_browser = session_cookie(sign_in(api))
    token = csrf_of(get(api, "/alice/secret", kept))
    assert get(api, "/alice/secret", other_browser).status == 200
    assert post(api, "/user/logout", {"_csrf": token}, kept).status == 303
    # The copy kept from before the sign-out is a signed-out visitor now ...
    page = get(api, "/explore/repos", kept).body.decode()
    assert "alice ▾" not in page and "Sign in" in page
    assert get(api, "/alice/secret", kept).status == 404
    # ... whose posts are refused: the form token belonged to the ended session.
    made = post(api, "/repo/create", {"_csrf": token, "repo_name": "after-logout"}, kept)
    assert made.status == 403
    assert api.get("/repos/alice/after-logout", token=alice).status == 404
    # Sign-out ends the user's other sessions too ("sign out everywhere").
    assert get(api, "/alice/secret", other_browser).status == 404
    # Signing in again works, with a new cookie only.
    again = session_cookie(sign_in(api))
    assert get(api, "/alice/secret", again).status == 200
    assert get(api, "/alice/secret", kept).status == 404


def test_logout_with_a_token_does_not_end_the_owners_sessions(api, alice):
    signed = session_cookie(sign_in(api))
    cookie, token = login_form(api)             # an anonymous visitor's form
    api.post("/user/logout", raw=True, body=urlencode({"_csrf": token}).encode(),
             headers=dict(FORM, Cookie=cookie, Authorization=f"token {alice}"))
    assert get(api, "/alice/secret", signed).status == 200
