"""Two-factor sign-in as a person meets it, in headless Chromium against
``python -m chalicelib.local`` (what ``make run`` starts): alice turns TOTP on from the
security settings (the QR code and the secret on the page), keeps her recovery codes;
then a sign-in stops after the password until the code is given, a wrong code is
refused, a current one signs in, a recovery code works once; and the API answers a
password without the one-time code 401 with Forgejo's message, while tokens work."""
from __future__ import annotations

import time

import httpx
import pyotp
import pytest

from tests.browser_support import Browser, require_browser
from tests.local_server import ADMIN_ENV, ADMIN_PASSWORD, served

PASSWORD = "alice-password-1"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    require_browser()
    with served(tmp_path_factory.mktemp("two-factor") / "data", **ADMIN_ENV) as (_, url):
        httpx.post(f"{url}/api/v1/admin/users", auth=("root", ADMIN_PASSWORD), timeout=30,
                   json={"username": "alice", "email": "alice@example.com",
                         "password": PASSWORD, "must_change_password": False}
                   ).raise_for_status()
        yield url


def fresh_code(totp: pyotp.TOTP, used: set[str]) -> str:
    """A current code that was not used yet (a code is good once: wait for the next)."""
    while totp.now() in used:
        time.sleep(1)
    used.add(totp.now())
    return totp.now()


def password_step(base: str) -> Browser:
    browser = Browser(base)
    browser.sign_in("alice", PASSWORD)
    assert browser.path.startswith("/user/two_factor"), browser.path
    return browser


def test_totp_in_the_browser(base):
    token = httpx.post(f"{base}/api/v1/users/alice/tokens", auth=("alice", PASSWORD),
                       timeout=30, json={"name": "ci", "scopes": ["read:user"]}).json()["sha1"]
    owner = Browser(base)
    try:
        owner.sign_in("alice", PASSWORD)
        owner.open("/user/settings/security/two_factor/enroll")
        assert owner.css("img.qr").get_attribute("src").startswith("data:image/")
        totp, used = pyotp.TOTP(owner.text("#two-factor-secret").strip()), set()
        owner.fill("#enrol-passcode", fresh_code(totp, used))
        owner.submit("form.stack button[type=submit]")
        codes = [li.text.strip() for li in owner.all(".recovery-codes li")]
        assert len(codes) >= 8 and "Two-factor authentication is on." in owner.text()
    finally:
        owner.close()

    # The password alone opens nothing; a wrong code is refused; a current one signs in.
    browser = password_step(base)
    try:
        browser.open("/user/settings")
        assert browser.path.startswith("/user/login"), browser.path
        browser.open("/user/two_factor")
        browser.fill("#two-factor-passcode", "000000" if totp.now() != "000000" else "111111")
        browser.submit("form.stack button[type=submit]")
        assert browser.path.startswith("/user/two_factor") and browser.all("[role=alert]")
        browser.fill("#two-factor-passcode", fresh_code(totp, used))
        browser.submit("form.stack button[type=submit]")
        browser.open("/user/settings")
        assert browser.path == "/user/settings"
    finally:
        browser.close()

    # A recovery code signs in once.
    for attempt, expected in ((1, "/user/settings"), (2, "/user/login")):
        browser = password_step(base)
        try:
            browser.open("/user/two_factor/scratch")
            browser.fill("#two-factor-token", codes[0])
            browser.submit("form.stack button[type=submit]")
            browser.open("/user/settings")
            assert browser.path.startswith(expected), (attempt, browser.path)
        finally:
            browser.close()

    # The API: a password needs the one-time code; a token does not.
    refused = httpx.get(f"{base}/api/v1/user", auth=("alice", PASSWORD), timeout=30)
    assert refused.status_code == 401 and refused.json()["message"] == "invalid provided OTP"
    with_code = httpx.get(f"{base}/api/v1/user", auth=("alice", PASSWORD), timeout=30,
                          headers={"X-Forgejo-OTP": totp.now()})
    assert with_code.status_code == 200 and with_code.json()["login"] == "alice"
    assert httpx.get(f"{base}/api/v1/user", timeout=30,
                     headers={"Authorization": f"token {token}"}).status_code == 200
