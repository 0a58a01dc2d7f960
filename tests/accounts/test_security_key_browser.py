"""Security keys as a person meets them, in headless Chromium with Chrome's virtual
authenticator (a CTAP2 USB key that always consents) against ``python -m
chalicelib.local`` (what ``make run`` starts), served at ``localhost``: a browser
refuses WebAuthn on an IP address, so ROOT_URL names localhost and the relying party's
id is ``localhost``.  alice adds a key on the security settings (static/webauthn.js runs
the ceremony), signs out, signs in with her password and the key; the API then refuses
her password with Forgejo's message while her token works; removing the key lets the
password alone sign in again."""
from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from tests.browser_support import WAIT, Browser, require_browser
from tests.local_server import (
    ADMIN_ENV,
    ADMIN_PASSWORD,
    REPO,
    free_port,
    wait_until_answering,
)

PASSWORD = "alice-password-1"
KEYS_REFUSE = "Basic authorization is not allowed while having security keys enrolled"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The local runtime at http://localhost:<port> (ROOT_URL says so), with alice."""
    import os

    require_browser()
    data_dir = tmp_path_factory.mktemp("security-keys") / "data"
    port = free_port()
    url = f"http://localhost:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    env.update(PORT=str(port), NIMBUS_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1",
               NIMBUS__SERVER__ROOT_URL=url + "/", **ADMIN_ENV)
    output = data_dir.parent / f"server-{port}.log"
    with open(output, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "chalicelib.local"], cwd=REPO,
                                   env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_answering(process, f"http://127.0.0.1:{port}/api/v1/version", output)
        httpx.post(f"{url}/api/v1/admin/users", auth=("root", ADMIN_PASSWORD), timeout=30,
                   json={"username": "alice", "email": "alice@example.com",
                         "password": PASSWORD, "must_change_password": False}
                   ).raise_for_status()
        yield url
    finally:
        process.kill()
        process.wait()


def with_virtual_key(browser: Browser) -> str:
    from selenium.webdriver.common.virtual_authenticator import (
        Protocol,
        Transport,
        VirtualAuthenticatorOptions,
    )

    browser.driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.USB, has_resident_key=False,
        has_user_verification=False, is_user_consenting=True, is_user_verified=False))
    return browser.driver.virtual_authenticator_id


def sign_out(browser: Browser) -> None:
    browser.css("details.switch summary").click()           # the user menu holds the form
    browser.submit("form[action='/user/logout'] button")


def wait_for_path(browser: Browser, path: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser.driver, WAIT).until(lambda _: browser.path.split("?")[0] == path)


def test_add_a_key_sign_out_and_sign_in_with_password_and_key(base):
    token = httpx.post(f"{base}/api/v1/users/alice/tokens", auth=("alice", PASSWORD),
                       timeout=30, json={"name": "ci", "scopes": ["read:user"]}).json()["sha1"]
    browser = Browser(base)
    try:
        with_virtual_key(browser)
        browser.sign_in("alice", PASSWORD)
        browser.open("/user/settings/security")
        assert "No security keys." in browser.text()
        browser.fill("#key-name", "Virtual key")
        browser.submit("form[action$='request_register'] button[type=submit]")
        # The registration page runs the ceremony by itself and posts the answer.
        wait_for_path(browser, "/user/settings/security")
        assert "The security key was added." in browser.text()
        assert [s.text for s in browser.all("ul.security-keys strong")] == ["Virtual key"]
        assert len(browser.driver.get_credentials()) == 1

        # Signed out, the password leads to the key's step, which signs in with the key.
        sign_out(browser)
        browser.sign_in("alice", PASSWORD)
        wait_for_path(browser, "/")
        browser.open("/user/settings")
        assert browser.path == "/user/settings"
        assert browser.driver.get_credentials()[0].sign_count >= 1

        # The API: the password is refused as Forgejo refuses it; the token works.
        refused = httpx.get(f"{base}/api/v1/user", auth=("alice", PASSWORD), timeout=30)
        assert refused.status_code == 401 and refused.json()["message"] == KEYS_REFUSE
        assert httpx.get(f"{base}/api/v1/user", timeout=30,
                         headers={"Authorization": f"token {token}"}).status_code == 200

        # Removed, the password alone signs in again.
        browser.open("/user/settings/security")
        browser.submit("ul.security-keys form button")
        assert "The security key was removed." in browser.text()
        sign_out(browser)
        browser.sign_in("alice", PASSWORD)
        assert browser.path == "/", browser.path
    finally:
        browser.close()


def test_without_the_key_the_second_step_signs_nobody_in(base):
    """Another browser (no authenticator holds alice's key) after the right password."""
    owner = Browser(base)
    try:
        with_virtual_key(owner)
        owner.sign_in("alice", PASSWORD)
        owner.open("/user/settings/security")
        owner.fill("#key-name", "Second key")
        owner.submit("form[action$='request_register'] button[type=submit]")
        wait_for_path(owner, "/user/settings/security")
    finally:
        owner.close()
    browser = Browser(base)
    try:
        with_virtual_key(browser)               # a key, but not one of alice's
        browser.sign_in("alice", PASSWORD)
        assert browser.path == "/user/webauthn"
        from selenium.webdriver.support.ui import WebDriverWait

        status = browser.css("[data-webauthn-status]")
        WebDriverWait(browser.driver, WAIT).until(
            lambda _: "did not answer" in status.text)
        browser.open("/user/settings")
        assert browser.path.startswith("/user/login"), browser.path
    finally:
        browser.close()
