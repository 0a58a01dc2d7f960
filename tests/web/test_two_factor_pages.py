"""Two-factor authentication in the browser: enrolling on ``/user/settings/security``
(QR code, the secret, a confirming code, recovery codes shown once, regenerating them,
turning it off), the sign-in's second step at ``/user/two_factor`` and
``/user/two_factor/scratch`` (carrying ``redirect_to`` through both steps), the pending
sign-in cookie that nothing but this browser's right password makes, the sign-in form
held back per address (429), and a site admin's reset."""
from __future__ import annotations

import re
from urllib.parse import urlencode

import pyotp
import pytest

from chalicelib import accounts, clock
from chalicelib.http import sessions
from chalicelib.local.events import build_event, read_result
from chalicelib.web import sign_in_pending
from tests.conftest import Response

PASSWORD = "secret-pass-1"
HERE, THERE = "203.0.113.7", "198.51.100.9"
T0 = 1_800_000_000.0
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
AUTHORIZE = "/login/oauth/authorize?client_id=abc&redirect_uri=http%3A%2F%2Fx.test%2Fcb&state=s1"


class Browser:
    """A cookie jar (every cookie, as a browser keeps them) from one client address."""

    def __init__(self, api, address: str = HERE):
        self.api, self.address, self.jar = api, address, {}

    def request(self, method: str, path: str, body: bytes | None = None, **headers) -> Response:
        if self.jar:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        event = build_event(method, path, list(headers.items()), body, source_ip=self.address)
        resp = Response(*read_result(self.api.app(event, None)))
        for name, value in resp.header_list:
            if name.lower() == "set-cookie":
                pair, _, attributes = value.partition(";")
                key, _, cookie = pair.partition("=")
                if cookie and "Max-Age=0" not in attributes:
                    self.jar[key] = cookie
                else:
                    self.jar.pop(key, None)
        return resp

    def get(self, path: str) -> Response:
        return self.request("GET", path)

    def csrf(self, path: str = "/user/login") -> str:
        found = re.search(r'name="_csrf" value="([^"]+)"', self.get(path).body.decode())
        assert found, f"no form token on {path}"
        return found.group(1)

    def post(self, path: str, fields: dict, csrf: str | None = "fresh", page: str = "") -> Response:
        if csrf == "fresh":
            csrf = self.csrf(page or ("/" if self.signed_in() else "/user/login"))
        pairs = list(fields.items()) + ([("_csrf", csrf)] if csrf is not None else [])
        return self.request("POST", path, urlencode(pairs).encode(), **FORM)

    def signed_in(self) -> bool:
        return self.get("/user/settings").status == 200

    def password(self, name: str = "alice", password: str = PASSWORD, target: str = "/"):
        return self.post("/user/login", {"user_name": name, "password": password,
                                         "redirect_to": target})


def text(resp: Response) -> str:
    return resp.body.decode()


def cookie_header(resp: Response, name: str) -> str:
    return next(v for k, v in resp.header_list if k.lower() == "set-cookie"
                and v.startswith(name + "="))


def enrolled(api) -> tuple[str, list[str]]:
    """alice with two-factor sign-in on (through the pages): the secret and the codes."""
    browser = Browser(api)
    assert browser.password().status == 303
    page = browser.get("/user/settings/security/two_factor/enroll")
    secret = re.search(r'id="two-factor-secret">([A-Z2-7]+)<', text(page)).group(1)
    sealed = re.search(r'name="enrolment" value="([^"]+)"', text(page)).group(1)
    done = browser.post("/user/settings/security/two_factor/enroll",
                        {"enrolment": sealed, "passcode": pyotp.TOTP(secret).at(clock.now())},
                        page="/user/settings/security")
    assert done.status == 200, done
    return secret, re.findall(r"<li>([a-z2-7]{5}-[a-z2-7]{5})</li>", text(done))


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api


@pytest.fixture
def now():
    with clock.frozen(T0) as frozen:
        yield frozen


def test_enrolling_shows_the_qr_code_and_turns_on_with_a_current_code(alice, now):
    browser = Browser(alice)
    browser.password()
    security = browser.get("/user/settings/security")
    assert security.status == 200 and "<strong>off</strong>" in text(security)
    assert 'href="/user/settings/security" aria-current="page"' in text(security)
    page = browser.get("/user/settings/security/two_factor/enroll")
    body = text(page)
    assert page.status == 200 and "<svg" not in body
    assert re.search(r'<img class="qr" src="data:image/svg\+xml[^"]+" width="200" height="200" '
                     r'alt="[^"]+">', body)
    secret = re.search(r'id="two-factor-secret">([A-Z2-7]{32})<', body).group(1)
    sealed = re.search(r'name="enrolment" value="([^"]+)"', body).group(1)
    assert secret not in sealed
    # A wrong code: the same secret again, the message beside the field, nothing on.
    wrong = browser.post("/user/settings/security/two_factor/enroll",
                         {"enrolment": sealed, "passcode": "123456"}, page="/user/settings")
    assert wrong.status == 422 and secret in text(wrong)
    assert 'id="passcode-error"' in text(wrong) and 'aria-describedby="passcode-error"' in text(wrong)
    assert not accounts.has_two_factor(accounts.account_by_name("alice"))
    # No form token: refused, nothing on.
    assert browser.post("/user/settings/security/two_factor/enroll",
                        {"enrolment": sealed, "passcode": pyotp.TOTP(secret).now()},
                        csrf=None).status == 403
    assert not accounts.has_two_factor(accounts.account_by_name("alice"))
    done = browser.post("/user/settings/security/two_factor/enroll",
                        {"enrolment": sealed, "passcode": pyotp.TOTP(secret).at(T0)},
                        page="/user/settings")
    codes = re.findall(r"<li>([a-z2-7]{5}-[a-z2-7]{5})</li>", text(done))
    assert done.status == 200 and len(set(codes)) == 10
    assert accounts.has_two_factor(accounts.account_by_name("alice"))
    after = text(browser.get("/user/settings/security"))
    assert "<strong>on</strong>" in after and "10 of 10 recovery codes left" in after
    assert not any(code in after for code in codes)                     # shown that once
    # The enrolment page of an enrolled user leads back to the settings.
    assert browser.get("/user/settings/security/two_factor/enroll").status == 303


def test_sign_in_takes_the_code_after_the_password_and_keeps_redirect_to(alice, now):
    secret, _ = enrolled(alice)
    browser = Browser(alice)
    step = browser.password(target=AUTHORIZE)
    assert step.status == 303 and step.headers["location"] == "/user/two_factor"
    pending = cookie_header(step, sign_in_pending.COOKIE)
    for attribute in ("HttpOnly", "SameSite=Lax", "Path=/user;", "Max-Age=300"):
        assert attribute in pending
    assert not browser.signed_in()                           # the password alone: no session
    form = browser.get("/user/two_factor")
    assert form.status == 200 and 'name="passcode"' in text(form)
    assert 'href="/user/two_factor/scratch"' in text(form)
    wrong = browser.post("/user/two_factor", {"passcode": "000000"}, page="/user/two_factor")
    assert wrong.status == 200 and "The code is not correct" in text(wrong)
    assert not browser.signed_in()
    now.advance(30)
    done = browser.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(clock.now())},
                        page="/user/two_factor")
    assert done.status == 303 and done.headers["location"] == AUTHORIZE
    assert sign_in_pending.COOKIE not in browser.jar and browser.signed_in()
    # The same code again, in another browser: refused (replayed).
    again = Browser(alice, THERE)
    again.password()
    replayed = again.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(clock.now())},
                          page="/user/two_factor")
    assert replayed.status == 200 and not again.signed_in()


def test_a_recovery_code_signs_in_once(alice, now):
    _, codes = enrolled(alice)
    browser = Browser(alice)
    browser.password(target="/alice")
    form = browser.get("/user/two_factor/scratch")
    assert form.status == 200 and 'name="token"' in text(form)
    done = browser.post("/user/two_factor/scratch", {"token": codes[0]}, page="/user/two_factor")
    assert done.status == 303 and done.headers["location"] == "/alice" and browser.signed_in()
    other = Browser(alice, THERE)
    other.password()
    used = other.post("/user/two_factor/scratch", {"token": codes[0]}, page="/user/two_factor")
    assert used.status == 200 and "recovery code is not correct" in text(used)
    assert not other.signed_in()
    assert "9 of 10 recovery codes left" in text(browser.get("/user/settings/security"))


def test_the_second_step_needs_this_browser_s_pending_sign_in(alice, now):
    secret, _ = enrolled(alice)
    code = pyotp.TOTP(secret)
    stranger = Browser(alice)
    assert stranger.get("/user/two_factor").headers["location"] == "/user/login"
    browser = Browser(alice)
    browser.password()
    # The pending cookie moved to another browser (its own visitor session): worthless.
    thief = Browser(alice)
    thief.csrf()
    thief.jar[sign_in_pending.COOKIE] = browser.jar[sign_in_pending.COOKIE]
    taken = thief.post("/user/two_factor", {"passcode": code.at(clock.now() + 30)},
                       page="/user/login")
    assert taken.status == 303 and taken.headers["location"] == "/user/login"
    assert not thief.signed_in()
    # Altered: another user's id in it.
    value = browser.jar[sign_in_pending.COOKIE].split(".")
    browser.jar[sign_in_pending.COOKIE] = ".".join([value[0], "1", *value[2:]])
    assert browser.get("/user/two_factor").headers["location"] == "/user/login"
    # Expired after five minutes.
    browser.password()
    now.advance(sign_in_pending.LIFETIME + 1)
    late = browser.post("/user/two_factor", {"passcode": code.at(clock.now())},
                        page="/user/login")
    assert late.headers["location"] == "/user/login" and not browser.signed_in()


def test_a_wrong_password_never_reaches_the_second_step(alice, now):
    enrolled(alice)
    browser = Browser(alice)
    failed = browser.password(password="not-it")
    assert failed.status == 200 and "Username or password is incorrect." in text(failed)
    assert sign_in_pending.COOKIE not in browser.jar
    # Someone without two-factor sign-in is signed in at once, as before.
    alice.create_user("bob")
    bob = Browser(alice)
    assert bob.password("bob").headers["location"] == "/" and bob.signed_in()


def test_regenerating_and_turning_off(alice, now):
    secret, old = enrolled(alice)
    browser = Browser(alice)
    browser.password()
    now.advance(30)
    browser.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(clock.now())},
                 page="/user/two_factor")
    fresh = browser.post("/user/settings/security/two_factor/regenerate_scratch", {})
    new = re.findall(r"<li>([a-z2-7]{5}-[a-z2-7]{5})</li>", text(fresh))
    assert fresh.status == 200 and len(new) == 10 and set(new).isdisjoint(old)
    wrong = browser.post("/user/settings/security/two_factor/disable", {"passcode": "999999"})
    assert wrong.status == 422 and 'id="passcode-error"' in text(wrong)
    wrong = browser.post("/user/settings/security/two_factor/disable", {"password": "nope"})
    assert wrong.status == 422 and 'id="password-error"' in text(wrong)
    assert accounts.has_two_factor(accounts.account_by_name("alice"))
    off = browser.post("/user/settings/security/two_factor/disable", {"password": PASSWORD})
    assert off.status == 303 and off.headers["location"] == \
        "/user/settings/security?two_factor=disabled"
    assert "<strong>off</strong>" in text(browser.get(off.headers["location"]))
    plain = Browser(alice, THERE)
    assert plain.password().headers["location"] == "/" and plain.signed_in()


def test_the_sign_in_form_is_held_back_for_the_guessing_address_only(alice, now):
    guesser = Browser(alice)
    for attempt in range(10):
        assert guesser.password(password=f"guess-{attempt}").status == 200
    held = guesser.password()
    assert held.status == 429 and int(held.headers["retry-after"]) > 0
    assert "Too many failed sign-in attempts from your address" in text(held)
    assert not guesser.signed_in()
    owner = Browser(alice, THERE)
    assert owner.password().status == 303 and owner.signed_in()


def test_wrong_codes_hold_back_the_second_step(alice, now):
    enrolled(alice)
    browser = Browser(alice, THERE)
    browser.password()
    for _ in range(10):
        assert browser.post("/user/two_factor", {"passcode": "000000"},
                            page="/user/two_factor").status == 200
    held = browser.post("/user/two_factor", {"passcode": "000000"}, page="/user/two_factor")
    assert held.status == 429 and held.headers["retry-after"]


def test_a_site_admin_resets_two_factor(alice, now):
    enrolled(alice)
    user_id = accounts.account_by_name("alice").id
    page = f"/admin/users/{user_id}/edit"
    alice.create_user("bob")
    bob = Browser(alice)
    bob.password("bob")
    assert bob.get(page).status == 404
    assert bob.post(page, {"reset_2fa": "on"}).status == 404
    root = Browser(alice, THERE)
    assert root.password("root", "root-password-1").status == 303
    shown = root.get(page)
    assert shown.status == 200 and "<dd>On</dd>" in text(shown) and 'name="reset_2fa"' in text(shown)
    assert root.get("/admin/users/999999/edit").status == 404
    done = root.post(page, {"reset_2fa": "on"}, page=page)
    assert done.status == 303 and done.headers["location"] == page + "?reset=2fa"
    assert "<dd>Off</dd>" in text(root.get(done.headers["location"]))
    browser = Browser(alice)
    assert browser.password().headers["location"] == "/" and browser.signed_in()


def test_a_password_change_voids_a_pending_sign_in(alice, now):
    secret, _ = enrolled(alice)
    browser = Browser(alice)
    browser.password()
    assert alice.patch("/admin/users/alice", auth=("root", "root-password-1"), json={
        "login_name": "alice", "source_id": 0, "password": "another-pass-1"}).status == 200
    gone = browser.post("/user/two_factor", {"passcode": pyotp.TOTP(secret).at(T0 + 30)},
                        page="/user/login")
    assert gone.headers["location"] == "/user/login" and not browser.signed_in()
    assert sessions.COOKIE in browser.jar                   # the visitor session stays
