"""Every form of every page, sent bad input, answers a page or a redirect, never a 500.

The forms are found, not listed: each GET page of the shared scene
(tests/web/page_scene.py) is read signed in as alice (who owns the repository and the
organization: every form is hers to send), and each ``<form method="post">`` on it is
sent three ways with a valid token: every field empty, every field oversized (64 KiB),
and every field a value that names nothing (ids and names that do not exist).  None of
the three is the form as the page filled it, so no destructive form does its work;
forms with no field but the token (a button such as "Test delivery") have no input to
make bad and are left to their own tests, as are signing out and archiving.

What each form says beside which field, and that nothing was half-written, is asserted
by the tests of its area (tests/web/test_web_*.py); this sweep is the net under them.
"""
from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from tests.web.page_scene import AUDITED, SIGNED, TIMEOUT, USERS, paths, scene_runtime

OVERSIZED = "x" * (64 * 1024)
UNKNOWN = "999999999"
UNKNOWN_NAME = "nobody-here"
# Signing out, and archiving (a toggle: any value of its one field archives or restores,
# and the forms after it would meet an archived repository's 423, not their own checks).
NOT_SENT = ("/user/logout", "/settings/archive")


class Forms(HTMLParser):
    """The POST forms of a page: action, enctype and their fields (name, type)."""

    def __init__(self):
        super().__init__()
        self.found: list[dict] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._open = {"action": a.get("action") or "", "fields": [],
                          "multipart": "multipart" in (a.get("enctype") or "")}
            self.found.append(self._open)
        elif self._open is not None and tag in ("input", "textarea", "select") \
                and a.get("name"):
            kind = (a.get("type") or tag).lower()
            if kind not in ("submit", "button", "reset", "image"):
                self._open["fields"].append((a["name"], kind))

    def handle_endtag(self, tag):
        if tag == "form":
            self._open = None


def _variants(fields: list[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    named = [(n, k) for n, k in fields if n != "_csrf" and k != "file"]

    def unknown(name: str) -> str:
        return UNKNOWN if any(part in name for part in ("id", "number", "index", "milestone",
                                                        "labels", "delivery")) \
            else UNKNOWN_NAME
    return {"empty": [(n, "") for n, _ in named],
            "oversized": [(n, OVERSIZED) for n, _ in named],
            "unknown": [(n, unknown(n)) for n, _ in named]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with scene_runtime(tmp_path_factory.mktemp("forms")) as runtime:
        yield runtime


def _signed_in(server) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=server.url, timeout=TIMEOUT, follow_redirects=False)
    form = client.get("/user/login").text
    csrf = form.split('name="_csrf" value="', 1)[1].split('"', 1)[0]
    signed = client.post("/user/login", data={"_csrf": csrf, "user_name": "alice",
                                              "password": USERS["alice"]})
    assert signed.status_code == 303, signed.text[:500]
    page = client.get("/user/settings").text
    return client, page.split('name="_csrf" value="', 1)[1].split('"', 1)[0]


def test_every_form_answers_bad_input_without_a_server_error(server):
    client, csrf = _signed_in(server)
    forms: dict[str, dict] = {}
    for path in paths(server, {**AUDITED, **SIGNED}):
        parser = Forms()
        parser.feed(client.get(path).text)
        for form in parser.found:
            action = urlsplit(urljoin(server.url + path, form["action"])).path
            if not action.endswith(NOT_SENT) and any(n != "_csrf" for n, _ in form["fields"]):
                forms.setdefault(action, form)
    # The scene's pages carry this many forms; fewer means the sweep lost sight of some.
    assert len(forms) >= 40, sorted(forms)
    broken = []
    for action, form in sorted(forms.items()):
        for variant, fields in _variants(form["fields"]).items():
            data: dict[str, list[str]] = {"_csrf": [csrf]}
            for name, value in fields:
                data.setdefault(name, []).append(value)
            if form["multipart"]:
                answer = client.post(action, data=data, files={
                    "files": ("bad.bin", b"\x00not an image"),
                    "avatar": ("bad.bin", b"\x00not an image")})
            else:
                answer = client.post(action, data=data)
            page = answer.headers.get("content-type", "").startswith("text/html")
            if answer.status_code >= 500 or not (page or answer.status_code in (302, 303)):
                broken.append(f"{action} ({variant}): {answer.status_code} "
                              f"{answer.headers.get('content-type')}")
    assert not broken, "forms that broke on bad input:\n" + "\n".join(broken)
