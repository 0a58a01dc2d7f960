"""Headless Chromium for tests/web/test_browser.py: Debian's ``chromium`` driven through
Debian's ``chromedriver`` (same version by construction) with Selenium.

Selenium is told both paths, so Selenium Manager never tries to download a driver or a
browser.  When either binary is missing the test fails with the command that installs
them (``make test`` and ``.ci/run`` run it first: the Makefile's ``browser`` target).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("NIMBUS_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("NIMBUS_CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL = "apt-get install -y --no-install-recommends chromium chromium-driver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1024,768")
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WAIT = 20


def require_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        pytest.fail(f"the browser test needs {' and '.join(missing)}: run `make browser` "
                    f"(or `{INSTALL}` as root)", pytrace=False)


class Browser:
    """One Chromium with a profile of its own (its own cookies: its own user)."""

    def __init__(self, base_url: str):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        require_browser()
        self.base_url = base_url
        self.profile = tempfile.mkdtemp(prefix="nimbus-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        self.driver = webdriver.Chrome(options=options,
                                       service=Service(executable_path=CHROMEDRIVER))
        self.driver.set_page_load_timeout(WAIT)

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    # Reading ---------------------------------------------------------------------------

    def open(self, path: str) -> None:
        self.driver.get(self.base_url + path)

    @property
    def path(self) -> str:
        url = self.driver.current_url
        return url[len(self.base_url):] if url.startswith(self.base_url) else url

    def css(self, selector: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector: str = "main") -> str:
        return self.css(selector).text

    def title(self) -> str:
        """The document's title without the site name."""
        return self.driver.title.rsplit(" · ", 1)[0]

    def link(self, text: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.LINK_TEXT, text)

    # Doing -----------------------------------------------------------------------------

    def fill(self, selector: str, value: str) -> None:
        field = self.css(selector)
        field.clear()
        field.send_keys(value)

    def choose(self, selector: str, value: str) -> None:
        from selenium.webdriver.support.ui import Select

        Select(self.css(selector)).select_by_value(value)

    def submit(self, selector: str) -> None:
        """Click a submit button and wait for the page it loads."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.support.ui import WebDriverWait

        old = self.css("html")
        self.css(selector).click()

        def replaced(driver) -> bool:
            try:
                old.is_enabled()
            except WebDriverException:
                # Stale, or, while the new document replaces it, chromedriver's "node does
                # not belong to the document": either way the old page is gone.
                return True
            return False
        WebDriverWait(self.driver, WAIT).until(replaced)

    def sign_in(self, user: str, password: str) -> None:
        self.open("/user/login")
        self.fill("#user_name", user)
        self.fill("#password", password)
        self.submit("form.stack button[type=submit]")

    def screenshot(self, name: str) -> None:
        """Into docs/screenshots only when NIMBUS_SCREENSHOTS=1: the suite leaves the tree
        as it found it."""
        if os.environ.get("NIMBUS_SCREENSHOTS") == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            self.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
