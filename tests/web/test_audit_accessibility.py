"""The instance's audit log page, which only a site admin opens (the shared audit's
users get its 404 page: tests/web/page_scene.py), in headless Chromium with axe-core
(WCAG 2.1 A and AA: no serious or critical violation, no request to another host, no
page wider than a phone's window), with entries and with a refused filter; and an
organization's log seen by a site admin who is not a member."""
from __future__ import annotations

import httpx
import pytest

from tests.browser_support import Browser
from tests.web.page_scene import audit_recorded
from tests.web.test_accessibility import NARROW, TIMEOUT, WIDE, runtime_with_alice
from tests.web.test_two_factor_accessibility import audit

ADMIN = ("boss", "boss-password")
PASSWORD = "alice-password"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_alice(tmp_path_factory.mktemp("audit-log-audit"), PASSWORD) as runtime:
        api = httpx.Client(base_url=runtime.url + "/api/v1", auth=("alice", PASSWORD),
                           timeout=TIMEOUT)
        for method, path, body in (
                ("POST", "/orgs", {"username": "acme"}),
                ("POST", "/orgs/acme/repos", {"name": "tool"}),
                ("PATCH", "/repos/acme/tool", {"description": "x" * 200}),
                ("POST", "/repos/acme/tool/hooks", {
                    "type": "gitea", "active": False, "events": ["push"],
                    "config": {"url": "https://ci.example.com/hook", "content_type": "json",
                               "secret": "not-shown"}})):
            answer = api.request(method, path, json=body)
            assert answer.status_code < 300, (path, answer.text)
        audit_recorded()
        yield runtime


def _wider_than_a_phone(browser: Browser) -> int:
    driver = browser.driver
    driver.set_window_size(*NARROW)
    try:
        return driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
    finally:
        driver.set_window_size(*WIDE)


def test_the_audit_log_pages_as_a_site_admin(server):
    browser = Browser(server.url)
    problems = []
    try:
        browser.sign_in(*ADMIN)
        for path in ("/admin/audit", "/admin/audit?repo=acme/tool&since=later",
                     "/org/acme/settings/audit?limit=2"):
            browser.open(path)
            assert "Audit log" in browser.text(), path
            problems += audit(browser)
            wide = _wider_than_a_phone(browser)
            if wide > 0:
                problems.append(f"{path}: {wide} px wider than a {NARROW[0]} px window")
        browser.open("/admin/audit")
        assert "repository.edited" in browser.text() and "not-shown" not in browser.text()
    finally:
        browser.close()
    assert not problems, "\n".join(problems)
