"""The two-factor pages the shared audit's users never reach, in headless Chromium with
axe-core (WCAG 2.1 A and AA, no serious or critical violation, no request to another
host), reached as a person reaches them: a sign-in's second step after the right
password of a user with two-factor authentication (the code, then the recovery code
form), the security settings with it on and the recovery codes page, and a site
admin's page for that user.  The enrolment form and the settings with it off are in the
shared audit (tests/web/page_scene.py)."""
from __future__ import annotations

import json
import time

import httpx
import pyotp
import pytest

from tests.browser_support import Browser
from tests.web.test_accessibility import BLOCKING, TIMEOUT, axe_violations, runtime_with_alice

PASSWORD = "alice-password"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_alice(tmp_path_factory.mktemp("two-factor-audit"), PASSWORD) as runtime:
        from chalicelib import accounts

        alice = accounts.account_by_name("alice")
        enrolment = accounts.start_two_factor(alice)
        accounts.enable_two_factor(alice, enrolment.sealed, pyotp.TOTP(enrolment.secret).now())
        runtime.secret, runtime.alice_id = enrolment.secret, int(alice.id)
        yield runtime


def audit(browser: Browser) -> list[str]:
    """Serious or critical violations on the open page, and requests to another host."""
    driver = browser.driver
    found = axe_violations(driver)
    where = browser.path
    problems = [f"{where}: {v['id']} ({v['impact']}): {v['help']}"
                for v in json.loads(found) if v.get("impact") in BLOCKING]
    requested = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    return problems + [f"{where}: requested {name}" for name in requested
                       if not name.startswith(browser.base_url + "/")
                       and not name.startswith("data:")]


def test_the_second_step_and_the_settings_with_two_factor_on(server):
    browser = Browser(server.url)
    problems = []
    try:
        browser.sign_in("alice", PASSWORD)
        assert browser.path == "/user/two_factor"
        problems += audit(browser)
        browser.link("Lost your device? Use a recovery code").click()
        assert browser.path == "/user/two_factor/scratch"
        problems += audit(browser)
        browser.link("Use a code from your authenticator app instead").click()
        # The next step's code (one step of skew is taken): the current one enrolled.
        browser.fill("#two-factor-passcode", pyotp.TOTP(server.secret).at(time.time() + 30))
        browser.submit("form.stack button[type=submit]")
        assert browser.path == "/", browser.path
        browser.open("/user/settings/security")
        assert "10 of 10 recovery codes left" in browser.text()
        problems += audit(browser)
        browser.submit("form[action$='regenerate_scratch'] button")
        assert len(browser.all("ul.recovery-codes li")) == 10
        problems += audit(browser)
    finally:
        browser.close()
    assert not problems, "\n".join(problems)


def test_the_admin_page_for_a_user(server):
    browser = Browser(server.url)
    try:
        browser.sign_in("boss", "boss-password")
        browser.open(f"/admin/users/{server.alice_id}/edit")
        assert "Two-factor authentication" in browser.text()
        problems = audit(browser)
    finally:
        browser.close()
    assert not problems, "\n".join(problems)


def test_the_security_key_pages(server):
    """carol adds a key: the registration page (Chromium refuses the ceremony itself on
    an IP address, which the page says), then the key registered by the software key of
    tests/soft_key.py, listed on the settings; then a sign-in stops at the key's step."""
    from chalicelib import accounts
    from chalicelib.accounts import security_keys
    from tests.soft_key import SoftKey

    made = httpx.post(f"{server.url}/api/v1/admin/users", auth=("boss", "boss-password"),
                      json={"username": "carol", "email": "carol@example.com",
                            "password": PASSWORD, "must_change_password": False},
                      timeout=TIMEOUT)
    assert made.status_code == 201, made.text
    browser = Browser(server.url)
    problems = []
    try:
        browser.sign_in("carol", PASSWORD)
        browser.open("/user/settings/security")
        browser.fill("#key-name", "Desk key")
        browser.submit("form[action$='request_register'] button[type=submit]")
        assert browser.css("form[data-webauthn='create']")
        problems += audit(browser)
        carol = accounts.account_by_name("carol")
        ceremony = accounts.start_key_registration(carol, "Desk key")
        accounts.finish_key_registration(carol, "Desk key", SoftKey().register(
            ceremony.options, security_keys.relying_party()[1]))
        browser.open("/user/settings/security")
        assert "Desk key" in browser.text()
        problems += audit(browser)
    finally:
        browser.close()
    browser = Browser(server.url)
    try:
        browser.sign_in("carol", PASSWORD)
        assert browser.path == "/user/webauthn"
        problems += audit(browser)
    finally:
        browser.close()
    assert not problems, "\n".join(problems)
