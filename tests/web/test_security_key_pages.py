"""Security keys in the browser's pages (the software key of tests/soft_key.py plays the
authenticator and its answers are posted as static/webauthn.js posts them): adding a key
on ``/user/settings/security`` (a name, the page carrying the ceremony's options, the
answer), listing and removing it; the sign-in's second step at ``/user/webauthn``
(carrying ``redirect_to``; a wrong, replayed or stale answer refused; links to the code
forms when TOTP is on too); Basic with the password refused on the API and git with
Forgejo's message while tokens work; and a site admin's reset removing the keys."""
from __future__ import annotations

import html
import json
import re

import pytest

from chalicelib import accounts, clock
from chalicelib.accounts import security_keys
from chalicelib.web import sign_in_pending
from tests.soft_key import SoftKey
from tests.web.test_two_factor_pages import (
    AUTHORIZE,
    HERE,
    PASSWORD,
    T0,
    THERE,
    Browser,
    text,
)

SECURITY = "/user/settings/security"
KEYS_REFUSE = "Basic authorization is not allowed while having security keys enrolled"


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api


@pytest.fixture
def now():
    with clock.frozen(T0) as frozen:
        yield frozen


def options_of(page) -> str:
    found = re.search(r'data-webauthn-options="([^"]+)"', text(page))
    assert found, "no ceremony on the page"
    return html.unescape(found.group(1))


def origin() -> str:
    return security_keys.relying_party()[1]


def signed_in_browser(api, address: str = HERE) -> Browser:
    browser = Browser(api, address)
    assert browser.password().status == 303
    return browser


def add_key(browser: Browser, name: str = "yubikey", key: SoftKey | None = None) -> SoftKey:
    key = key or SoftKey()
    page = browser.post(f"{SECURITY}/webauthn/request_register", {"name": name}, page=SECURITY)
    assert page.status == 200, page
    done = browser.post(f"{SECURITY}/webauthn/register",
                        {"name": name, "credential": key.register(options_of(page), origin())},
                        page=SECURITY)
    assert done.status == 303 and done.headers["location"] == SECURITY + "?webauthn=added", done
    return key


def test_adding_listing_and_removing_a_key(alice, now):
    browser = signed_in_browser(alice)
    security = browser.get(SECURITY)
    assert security.status == 200 and "No security keys." in text(security)
    # The registration page: the options for the browser, the script from /assets/ only.
    page = browser.post(f"{SECURITY}/webauthn/request_register", {"name": "YubiKey"},
                        page=SECURITY)
    options = json.loads(options_of(page))
    assert options["rp"]["id"] == security_keys.relying_party()[0]
    assert options["user"]["name"] == "alice" and options["challenge"]
    assert re.search(r'<script src="/assets/webauthn\.js\?v=[0-9a-f]{12}"></script>', text(page))
    assert "<script>" not in text(page)
    assert "script-src 'self'" in page.headers["content-security-policy"]
    key = SoftKey()
    done = browser.post(f"{SECURITY}/webauthn/register",
                        {"name": "YubiKey", "credential": key.register(json.dumps(options),
                                                                       origin())},
                        page=SECURITY)
    assert done.status == 303
    listed = text(browser.get(done.headers["location"]))
    assert "The security key was added." in listed and "<strong>YubiKey</strong>" in listed
    assert "added 2027-01-15" in listed
    assert accounts.has_security_keys(accounts.account_by_name("alice"))
    # Removed with its own button.
    key_id = re.search(r'name="id" value="([0-9a-f]{32})"', listed).group(1)
    removed = browser.post(f"{SECURITY}/webauthn/delete", {"id": key_id}, page=SECURITY)
    assert removed.status == 303 and removed.headers["location"] == SECURITY + "?webauthn=deleted"
    assert "No security keys." in text(browser.get(SECURITY))
    assert not accounts.has_security_keys(accounts.account_by_name("alice"))
    assert browser.post(f"{SECURITY}/webauthn/delete", {"id": key_id}, page=SECURITY).status == 404


def test_bad_names_and_answers_are_shown_on_the_form(alice, now):
    browser = signed_in_browser(alice)
    empty = browser.post(f"{SECURITY}/webauthn/request_register", {"name": "  "}, page=SECURITY)
    assert empty.status == 422 and 'id="key_name-error"' in text(empty)
    assert 'aria-invalid="true"' in text(empty)
    add_key(browser, "usb")
    taken = browser.post(f"{SECURITY}/webauthn/request_register", {"name": "USB"}, page=SECURITY)
    assert taken.status == 422 and "exists already" in text(taken) and 'value="USB"' in text(taken)
    page = browser.post(f"{SECURITY}/webauthn/request_register", {"name": "nfc"}, page=SECURITY)
    foreign = SoftKey().register(options_of(page), "https://evil.example")
    refused = browser.post(f"{SECURITY}/webauthn/register",
                           {"name": "nfc", "credential": foreign}, page=SECURITY)
    assert refused.status == 422 and "could not be verified" in text(refused)
    junk = browser.post(f"{SECURITY}/webauthn/register", {"name": "nfc", "credential": "{}"},
                        page=SECURITY)
    assert junk.status == 422 and "expired" in text(junk)
    assert [k.name for k in accounts.two_factor_state(
        accounts.account_by_name("alice")).security_keys] == ["usb"]


def test_the_forms_need_the_session_and_its_token(alice, now):
    browser = signed_in_browser(alice)
    for path in ("request_register", "register", "delete"):
        refused = browser.post(f"{SECURITY}/webauthn/{path}", {"name": "x"}, csrf=None)
        assert refused.status == 403, path
    visitor = Browser(alice)
    sent_away = visitor.post(f"{SECURITY}/webauthn/request_register", {"name": "x"})
    assert sent_away.status == 303 and sent_away.headers["location"].startswith("/user/login")
    # bob cannot remove alice's key: it is not his (404).
    add_key(browser)
    alice.create_user("bob")
    bob = Browser(alice, THERE)
    bob.password("bob")
    key_id = security_keys.security_key_store.key_id("yubikey")
    assert bob.post(f"{SECURITY}/webauthn/delete", {"id": key_id}, page=SECURITY).status == 404
    assert accounts.has_security_keys(accounts.account_by_name("alice"))


def test_sign_in_with_the_key_after_the_password_keeps_redirect_to(alice, now):
    key = add_key(signed_in_browser(alice))
    browser = Browser(alice)
    step = browser.password(target=AUTHORIZE)
    assert step.status == 303 and step.headers["location"] == "/user/webauthn"
    assert not browser.signed_in()
    page = browser.get("/user/webauthn")
    assert page.status == 200 and 'data-webauthn="get"' in text(page)
    assert "/user/two_factor" not in text(page)                  # no TOTP: no code forms
    options = options_of(page)
    assert json.loads(options)["allowCredentials"][0]["id"] == security_keys.b64url(
        key.credential_id)
    # A tampered answer: refused, with a fresh ceremony on the page.
    wrong = browser.post("/user/webauthn", {"credential": key.sign_in(options, origin(),
                                                                      tamper=True)},
                         page="/user/webauthn")
    assert wrong.status == 200 and "did not sign you in" in text(wrong)
    assert not browser.signed_in()
    fresh = options_of(wrong)
    answer = key.sign_in(fresh, origin())
    done = browser.post("/user/webauthn", {"credential": answer}, page="/user/webauthn")
    assert done.status == 303 and done.headers["location"] == AUTHORIZE
    assert sign_in_pending.COOKIE not in browser.jar and browser.signed_in()
    # The same answer replayed in another browser after its password: refused.
    other = Browser(alice, THERE)
    other.password()
    replayed = other.post("/user/webauthn", {"credential": answer}, page="/user/webauthn")
    assert replayed.status == 200 and not other.signed_in()
    # A stale page's challenge: refused too.
    late = options_of(other.get("/user/webauthn"))
    now.advance(security_keys.CHALLENGE_SECONDS + 1)
    other.password()
    stale = other.post("/user/webauthn", {"credential": key.sign_in(late, origin())},
                       page="/user/webauthn")
    assert stale.status == 200 and not other.signed_in()


def test_the_key_step_needs_this_browser_s_pending_sign_in(alice, now):
    add_key(signed_in_browser(alice))
    stranger = Browser(alice)
    assert stranger.get("/user/webauthn").headers["location"] == "/user/login"
    assert stranger.post("/user/webauthn", {"credential": "{}"}).headers["location"] == \
        "/user/login"


def test_with_totp_too_both_second_steps_are_offered(alice, now):
    import pyotp

    from tests.web.test_two_factor_pages import enrolled

    secret, _ = enrolled(alice)
    browser = Browser(alice)
    browser.password()
    now.advance(30)
    browser.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(clock.now())},
                 page="/user/two_factor")
    assert browser.signed_in()
    add_key(browser)
    other = Browser(alice, THERE)
    assert other.password().headers["location"] == "/user/webauthn"
    page = text(other.get("/user/webauthn"))
    assert 'href="/user/two_factor"' in page and 'href="/user/two_factor/scratch"' in page
    totp_form = text(other.get("/user/two_factor"))
    assert 'href="/user/webauthn"' in totp_form
    now.advance(30)
    done = other.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(clock.now())},
                      page="/user/two_factor")
    assert done.status == 303 and other.signed_in()


def test_basic_with_the_password_is_refused_on_the_api_and_git_tokens_work(alice, now):
    token = alice.create_token("alice")
    assert alice.post("/user/repos", token=token,
                      json={"name": "proj", "private": True, "auto_init": True}).status == 201
    add_key(signed_in_browser(alice))
    refused = alice.get("/user", auth=("alice", PASSWORD))
    assert refused.status == 401 and refused.json["message"] == KEYS_REFUSE
    assert alice.get("/user", token=token).json["login"] == "alice"
    git = alice.get("/alice/proj.git/info/refs?service=git-upload-pack",
                    auth=("alice", PASSWORD), raw=True)
    assert git.status == 401 and git.body.decode().startswith(KEYS_REFUSE)
    assert alice.get("/alice/proj.git/info/refs?service=git-upload-pack",
                     auth=("alice", token), raw=True).status == 200
    wrong = alice.get("/user", auth=("alice", "not-it"))
    assert wrong.status == 401 and wrong.json["message"] != KEYS_REFUSE


def test_a_site_admin_reset_removes_the_keys(alice, now):
    add_key(signed_in_browser(alice))
    user_id = accounts.account_by_name("alice").id
    page = f"/admin/users/{user_id}/edit"
    root = Browser(alice, THERE)
    assert root.password("root", "root-password-1").status == 303
    assert "<dd>On</dd>" in text(root.get(page))
    done = root.post(page, {"reset_2fa": "on"}, page=page)
    assert done.status == 303
    assert "<dd>Off</dd>" in text(root.get(done.headers["location"]))
    browser = Browser(alice)
    assert browser.password().headers["location"] == "/" and browser.signed_in()
    assert "No security keys." in text(browser.get(SECURITY))
    assert alice.get("/user", auth=("alice", PASSWORD)).status == 200


def test_the_script_is_served_as_an_asset(alice):
    served = alice.get("/assets/webauthn.js", raw=True)
    assert served.status == 200 and served.headers["content-type"].startswith("text/javascript")
    assert b"navigator.credentials" in served.body


_RECORDING: list[list[str]] = []


def _record(model=None, **_):
    for calls in _RECORDING:
        calls.append(getattr(model, "name", "?"))


def aws_calls(action) -> list[str]:
    """The AWS API calls ``action()`` makes (botocore's operation names)."""
    from chalicelib import aws

    if _record not in aws._hooks:
        aws.add_call_hook(_record)
    calls: list[str] = []
    _RECORDING.append(calls)
    try:
        action()
    finally:
        _RECORDING.remove(calls)
    return calls


def test_the_key_step_costs_a_few_aws_calls(alice, now):
    """The page budget (six calls at most) for the key's step, which the bench cannot
    reach (it needs a pending sign-in): the account, its keys, the challenge stored; and
    the answer's."""
    key = add_key(signed_in_browser(alice))
    browser = Browser(alice)
    browser.password()
    shown = []
    calls = aws_calls(lambda: shown.append(browser.get("/user/webauthn")))
    assert shown[0].status == 200 and calls == ["GetItem", "Query", "PutItem"], calls
    answer = key.sign_in(options_of(shown[0]), origin())
    token = re.search(r'name="_csrf" value="([^"]+)"', text(shown[0])).group(1)
    done = []
    calls = aws_calls(lambda: done.append(browser.post("/user/webauthn", {"credential": answer},
                                                       csrf=token)))
    # The account, the address's failed sign-ins, the challenge used up, the keys, the
    # key's count moved.
    assert done[0].status == 303 and calls == [
        "GetItem", "BatchGetItem", "DeleteItem", "Query", "UpdateItem"], calls
