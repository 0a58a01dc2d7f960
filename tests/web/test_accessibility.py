"""An accessibility audit of every page in the real browser: axe-core (from npm, pinned
by tests/web/axe/package-lock.json; ``make axe`` installs it) runs in headless Chromium
on each page, anonymous and signed in, against WCAG 2.1 A and AA, and no serious or
critical violation may remain.  While the pages render, no request leaves for another
host (avatars, fonts and scripts are all served by the instance itself), and in a
phone's width no page is wider than the window.

``AUDITED`` and ``SIGNED`` (tests/web/page_scene.py) name a page for every GET page
route; a page added without one fails ``test_every_page_is_audited``.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser_support import Browser, require_browser
from tests.web.page_scene import (AUDITED, NOT_PAGES, SIGNED, TIMEOUT, USERS, paths,
                                  scene_runtime)

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = {"serious", "critical"}
NARROW, WIDE = (390, 844), (1024, 768)


def require_axe() -> None:
    require_browser()
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed at {AXE}: run `make axe`", pytrace=False)


@contextmanager
def runtime_with_alice(data_dir: Path, password: str):
    """A local runtime for the audits of pages the shared scene never reaches: the site
    admin ``boss`` (password ``boss-password``) and ``alice`` with ``password``."""
    import httpx

    from chalicelib.accounts.service import ensure_admin
    from chalicelib.local.runtime import LocalRuntime

    require_axe()
    with LocalRuntime(port=0, data_dir=data_dir, access_log=False) as runtime:
        ensure_admin("boss", "boss-password", "boss@example.com")
        made = httpx.post(f"{runtime.url}/api/v1/admin/users", auth=("boss", "boss-password"),
                          json={"username": "alice", "email": "alice@example.com",
                                "password": password, "must_change_password": False},
                          timeout=TIMEOUT)
        assert made.status_code == 201, made.text
        yield runtime


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_axe()
    with scene_runtime(tmp_path_factory.mktemp("audit")) as runtime:
        yield runtime


@pytest.fixture(scope="module")
def browsers(server):
    opened: dict[str, Browser] = {}

    def get(who: str) -> Browser:
        if who not in opened:
            opened[who] = Browser(server.url)
            if who != "anonymous":
                opened[who].sign_in(who, USERS[who])
        return opened[who]
    yield get
    for browser in opened.values():
        browser.close()


def _overflow(browser: Browser, path: str) -> list[str]:
    """The page in a phone's width: nothing wider than the window (long names wrap, wide
    tables and code scroll inside their own box)."""
    driver = browser.driver
    driver.set_window_size(*NARROW)
    try:
        wide = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
    finally:
        driver.set_window_size(*WIDE)
    return [f"{path}: {wide} px wider than a {NARROW[0]} px window"] if wide > 0 else []


def axe_violations(driver) -> str:
    """axe-core's violations on the open page, as JSON (an error of axe itself is one
    critical violation)."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(TIMEOUT)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(JSON.stringify(r.violations)), e => done(JSON.stringify("
        "[{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}])));", TAGS)


def _audit(browser: Browser, path: str) -> tuple[list[str], list[str]]:
    """(serious or critical violations and overflow in a narrow window, requests that
    left for another host)."""
    browser.open(path)
    driver = browser.driver
    found = axe_violations(driver)
    violations = [
        f"{path}: {v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
                    for n in v["nodes"][:3])
        for v in json.loads(found) if v.get("impact") in BLOCKING] + _overflow(browser, path)
    origin = browser.base_url
    requested = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    elsewhere = [f"{path}: {name}" for name in requested
                 if not name.startswith(origin + "/") and not name.startswith("data:")]
    return violations, elsewhere


def test_every_page_is_audited():
    import chalicelib.areas  # noqa: F401 - every routes module, for the whole table
    from chalicelib.http.router import TABLE

    pages = {r.operation_id for r in TABLE.routes if r.tag == "web" and r.method == "GET"}
    missing = sorted(pages - set(AUDITED) - set(SIGNED) - set(NOT_PAGES))
    assert not missing, f"GET pages without a path in AUDITED or SIGNED: {missing}"


@pytest.mark.parametrize("who", ["anonymous", "alice"])
def test_pages_have_no_serious_violations(server, browsers, who):
    browser = browsers(who)
    table = AUDITED if who == "anonymous" else {**AUDITED, **SIGNED}
    problems, elsewhere = [], []
    for path in paths(server, table):
        violations, left = _audit(browser, path)
        problems += violations
        elsewhere += left
    assert not problems, "axe-core (WCAG 2.1 A/AA), serious or critical:\n" + "\n".join(problems)
    assert not elsewhere, "requests to another host:\n" + "\n".join(elsewhere)
