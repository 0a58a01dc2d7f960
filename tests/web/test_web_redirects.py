"""Redirect targets from input (``redirect_to``) land on this site, however they are
spelled: each ``Location`` the server sends is resolved the way a browser resolves it
(leading/trailing controls and spaces stripped, tabs and newlines removed, ``\\`` read as
``/`` in http(s) URLs) and must name this host."""
from __future__ import annotations

import html
from urllib.parse import urlencode, urljoin, urlsplit

import pytest

from chalicelib.web.view import site_target
from tests.web.test_web_session import csrf_of, get, login_form, post, session_cookie

SITE = "http://nimbus.test"
CORPUS = ["//evil.example/x", "/\\evil.example/x", "/\t/evil.example/x", "/\n/evil.example/x",
          "/%09/evil.example/x", "https:evil.example", "https://evil.example/x",
          "\\\\evil.example\\x", "\\/evil.example", " //evil.example", "\t//evil.example",
          "/\u3000/evil.example", "/\uff0f/evil.example", "/\u2215evil.example",
          "\uff3c\uff3cevil.example", "javascript:alert(1)", "JaVaScRiPt:alert(1)",
          "data:text/html,x", "///evil.example", "\x00//evil.example", "/\r\n/evil.example",
          "http:/\\evil.example", "//\tevil.example"]
# Targets on this site stay what they were.
KEPT = {"/alice/proj": "/alice/proj", "/explore/repos?q=a&page=2": "/explore/repos?q=a&page=2",
        "/alice/proj/src/branch/main/a b.txt": "/alice/proj/src/branch/main/a%20b.txt"}


def browser_resolves(location: str, base: str = SITE + "/user/login") -> tuple[str, str]:
    """(scheme, host) a browser goes to for ``location``."""
    cleaned = location.strip("".join(chr(c) for c in range(0x21)))
    cleaned = cleaned.replace("\t", "").replace("\n", "").replace("\r", "")
    scheme = urlsplit(cleaned).scheme.lower()
    if scheme in ("", "http", "https"):
        cleaned = cleaned.replace("\\", "/")
    if scheme in ("http", "https") and not cleaned[len(scheme) + 1:].startswith("//"):
        # "https:host" and "http:/\host" are relative to the base when the scheme matches
        # it and an authority otherwise: either way a browser may leave the site.
        return scheme, cleaned[len(scheme) + 1:].lstrip("/")
    resolved = urlsplit(urljoin(base, cleaned))
    return resolved.scheme, resolved.netloc


def stays_on_site(location: str) -> bool:
    return browser_resolves(location) == ("http", "nimbus.test")


def test_the_check_itself_sees_each_escape():
    """The corpus leaves the site when sent back as it came (so the test can fail)."""
    leaving = [t for t in CORPUS if not stays_on_site(t)]
    assert len(leaving) >= 12, leaving
    for target in ("//evil.example/x", "/\\evil.example/x", "/\t/evil.example/x",
                   "https:evil.example", "\\\\evil.example\\x"):
        assert not stays_on_site(target), target


@pytest.mark.parametrize("target", CORPUS)
def test_site_target_keeps_every_spelling_on_this_site(target):
    location = site_target(target)
    assert stays_on_site(location), (target, location)
    assert location.isascii() and location.startswith("/") and not location.startswith("//")


@pytest.mark.parametrize("target,expected", sorted(KEPT.items()))
def test_site_paths_are_kept(target, expected):
    assert site_target(target) == expected


@pytest.fixture
def alice(api):
    api.create_user("alice")


def sign_in_to(api, target: str, cookie_and_csrf=None):
    cookie, csrf = cookie_and_csrf or login_form(api)
    return post(api, "/user/login", {"_csrf": csrf, "user_name": "alice",
                                     "password": "secret-pass-1", "redirect_to": target},
                cookie)


def test_every_redirect_after_sign_in_and_sign_out_lands_here(api, alice):
    for target in CORPUS:
        # Signing in with the target in the form.
        signed_in = sign_in_to(api, target)
        assert signed_in.status == 303, (target, signed_in)
        assert stays_on_site(signed_in.headers["location"]), (target, signed_in.headers)
        cookie = session_cookie(signed_in)
        # A signed-in visit to the sign-in form redirects at once: one link is enough.
        again = get(api, "/user/login?" + urlencode({"redirect_to": target}), cookie)
        assert again.status == 303, (target, again)
        assert stays_on_site(again.headers["location"]), (target, again.headers)
        # Signed out, the form carries the target on (in its hidden field): both the
        # form's value and where the next sign-in goes stay here.
        home = get(api, "/", cookie)
        out = post(api, "/user/logout", {"_csrf": csrf_of(home)}, cookie)
        assert out.status == 303 and stays_on_site(out.headers["location"])
        form = get(api, "/user/login?" + urlencode({"redirect_to": target}))
        assert form.status == 200
        carried = html.unescape(
            form.body.decode().split('name="redirect_to" value="', 1)[1].split('"')[0])
        assert stays_on_site(carried), (target, carried)
        after = sign_in_to(api, target, (session_cookie(form), csrf_of(form)))
        assert stays_on_site(after.headers["location"]), (target, after.headers)


def test_a_path_on_this_site_is_where_sign_in_goes(api, alice):
    signed_in = sign_in_to(api, "/alice?tab=repos")
    assert signed_in.headers["location"] == "/alice?tab=repos"
