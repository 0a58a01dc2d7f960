"""Every route answers every credential as its declaration says (``Route.credentials``,
``Route.scope``; docs/security.md): a matrix generated from the route table, so a new
route is in it the day it is registered.

For each route (API, pages, downloads, git) it sends: no credential; the owner's password
(Basic: every scope); a token of each scope category at read and at write level; a
public-only token with every scope; and the owner's session cookie.  Then:

- a token the route's scope does not cover gets 403 with Forgejo's message, before the
  handler runs; a token it covers gets what the password gets (reads) or at least gets
  past the gate (writes, sent at targets that do not exist, so the matrix destroys
  nothing);
- pages take no token: a token on a page counts for nothing (the answer is the
  anonymous one) and a form posted with one is refused (401);
- the API takes no session cookie: with only the cookie the answer is the anonymous one;
- a public-only token never gets a 2xx for the private repository;
- nothing answers 5xx.
"""
from __future__ import annotations

import pytest

from chalicelib.http.router import (
    CLIENT,
    DOWNLOAD,
    GIT,
    SESSION,
    TOKEN,
    UNDECLARED,
    WRITE_METHODS,
    Route,
    RouteDeclarationError,
)
from chalicelib.http.routes import load_routes
from chalicelib.http.scopes import CATEGORIES
from tests.conftest import basic

SCOPE_REFUSED = "token does not have at least one of required scope(s)"
OWNER, PASSWORD = "alice", "secret-pass-1"
LEVELS = ("read", "write")
# Path parameters: reads name alice's private repository and what is in it; writes name
# targets that do not exist, so a token that gets through the gate changes nothing.
READ_PARAMS = {"owner": OWNER, "repo": "secret", "username": OWNER, "org": "corp", "id": "1",
               "index": "1", "sha": "main", "filepath": "README.md", "tag": "v1",
               "branch": "main", "ref": "main", "collaborator": OWNER, "attachment_id": "1",
               "delivery": "1", "quotagroup": "g", "quotarule": "r", "diffType": "diff",
               "spec": "main...main", "kind": "branch", "rest": "main/README.md",
               "archive": "main.zip", "token": "nothing", "base": "main", "head": "main",
               "uuid": "00000000-0000-0000-0000-000000000000", "basehead": "main...main",
               "upload": "nothing", "name": "nothing", "comment": "1", "key": "nothing",
               "target": OWNER, "user": OWNER, "topic": "nothing", "team": "nothing",
               "position": "1", "action": "nothing", "pageName": "nothing", "page": "nothing",
               "flag": "nothing", "template_owner": OWNER, "template_repo": "secret",
               "task": "nothing"}
WRITE_PARAMS = dict(READ_PARAMS, owner="nobody-here", username="nobody-here",
                    org="nobody-here", collaborator="nobody-here", id="999999",
                    index="999999", attachment_id="999999", delivery="999999",
                    comment="999999", user="nobody-here", template_owner="nobody-here")


def routes() -> list[Route]:
    return list(load_routes().routes)


def route_id(route: Route) -> str:
    return f"{route.method} {route.pattern}"


def path_of(route: Route) -> tuple[str, bool]:
    """(the request path, raw) for ``route``: below /api/v1 unless it is raw."""
    values = WRITE_PARAMS if route.method in WRITE_METHODS else READ_PARAMS
    path = route.pattern
    for name in route.param_names:
        path = path.replace("{" + name + ":path}", values[name]).replace(
            "{" + name + "}", values[name])
    if route.credentials == GIT and route.method == "GET":
        path += "?service=git-upload-pack"
    return path, route.raw


# Who may call what is the gateway's rule, whatever answers the AWS calls: the whole
# matrix runs on the in-memory twin (the fast layer).
pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def world():
    """alice's private ``secret`` (a README, tag v1), the org ``corp``, and her tokens:
    one per scope category and level, and a public-only one."""
    from tests import twin
    from tests.conftest import admin_client
    from tests.web.test_web_session import session_cookie, sign_in

    with twin.world():
        api = admin_client()
        api.create_user(OWNER, PASSWORD)
        tokens = {(level, category): api.create_token(
            OWNER, PASSWORD, scopes=[f"{level}:{category}"], name=f"{level}-{category}")
            for level in LEVELS for category in CATEGORIES}
        tokens["public-only"] = api.create_token(OWNER, PASSWORD, scopes=["public-only", "all"],
                                                 name="public-only")
        owner = tokens[("write", "repository")]
        assert api.post("/user/repos", token=owner, json={
            "name": "secret", "private": True, "auto_init": True}).status == 201
        assert api.post("/repos/alice/secret/tags", token=owner,
                        json={"tag_name": "v1"}).status == 201
        assert api.post("/orgs", token=tokens[("write", "organization")],
                        json={"username": "corp"}).status == 201
        cookie = session_cookie(sign_in(api, OWNER, PASSWORD))
        yield api, tokens, cookie


def send(api, route: Route, *, token=None, password=False, cookie=None):
    path, raw = path_of(route)
    headers = {}
    if token:
        headers["Authorization"] = f"token {token}"
    elif password:
        headers["Authorization"] = basic(OWNER, PASSWORD)
    if cookie:
        headers["Cookie"] = cookie
    if route.method in WRITE_METHODS and route.credentials in (TOKEN, DOWNLOAD):
        headers.setdefault("Content-Type", "application/json")
        body = b"{}"
    else:
        body = None
    if route.credentials == SESSION and route.method == "POST":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        body = b"_csrf=x"
    resp = api.request(route.method, path, body=body, headers=headers, raw=raw)
    assert resp.status < 500, (route_id(route), token, resp)
    return resp


def refused_for_scope(resp) -> bool:
    return resp.status == 403 and SCOPE_REFUSED.encode() in resp.body


def covers(route: Route, level: str, category: str) -> bool:
    """Does a token with only ``level:category`` meet the route's declaration?"""
    if route.scope is None:
        return True
    needed = route.scope_level or ("write" if route.method in WRITE_METHODS else "read")
    wanted = {route.scope, *route.extra_scopes}
    return wanted == {category} and (level == "write" or needed == "read")


def test_every_route_declares_who_may_call_it():
    for route in routes():
        assert route.credentials in (TOKEN, SESSION, DOWNLOAD, GIT, CLIENT), route_id(route)
        assert route.scope is not UNDECLARED, route_id(route)
        if not route.raw:
            assert route.credentials == TOKEN, route_id(route)


def test_a_route_without_a_declaration_is_refused():
    def handler(req):
        return None
    with pytest.raises(RouteDeclarationError):
        Route("GET", "/x", "noDeclaration", handler, tag="t")            # no scope
    with pytest.raises(RouteDeclarationError):
        Route("GET", "/x", "rawNoCredentials", handler, tag="t", raw=True, scope=None)
    with pytest.raises(RouteDeclarationError):
        Route("GET", "/x", "pageWithScope", handler, tag="t", raw=True,
              credentials=SESSION, scope="repository")
    with pytest.raises(RouteDeclarationError):
        Route("GET", "/x", "downloadAnyToken", handler, tag="t", raw=True,
              credentials=DOWNLOAD, scope=None)
    assert Route("GET", "/x", "declared", handler, tag="t", scope=None).credentials == TOKEN


@pytest.mark.parametrize("route", routes(), ids=route_id)
def test_route_answers_each_credential_as_declared(world, route):
    api, tokens, cookie = world
    anonymous = send(api, route)
    if route.available is not None and not route.available():
        assert anonymous.status == 404
        return
    owner = send(api, route, password=True)
    for level in LEVELS:
        for category in CATEGORIES:
            resp = send(api, route, token=tokens[(level, category)])
            where = (route_id(route), f"{level}:{category}", resp)
            if route.credentials == SESSION:
                if route.method in WRITE_METHODS:
                    assert resp.status == 401, where
                else:
                    assert resp.status == anonymous.status, where
            elif route.credentials == CLIENT:
                # The OAuth2 client authenticates itself: a user's token is no one.
                assert resp.status == anonymous.status, where
            elif route.basic_auth_only:
                assert resp.status == 401, where      # a password, never a token
            elif not covers(route, level, category):
                assert refused_for_scope(resp), where
            else:
                assert not refused_for_scope(resp), where
                if route.method not in WRITE_METHODS and route.credentials != GIT:
                    assert resp.status == owner.status, where
    public_only = send(api, route, token=tokens["public-only"])
    if "repo" in route.param_names and route.method not in WRITE_METHODS:
        assert not 200 <= public_only.status < 300, (route_id(route), public_only)
    if route.credentials == TOKEN:
        # The API never reads the session cookie: alone it is no one.
        with_cookie = send(api, route, cookie=cookie)
        assert with_cookie.status == anonymous.status, (route_id(route), with_cookie)


def test_the_session_cookie_is_what_pages_and_downloads_take(world):
    """The other half of the matrix: the cookie the API ignores opens alice's private
    pages and raw files, where her tokens (but read:repository's, on a download) do not."""
    api, tokens, cookie = world
    for path in ("/alice/secret", "/alice/secret/src/branch/main/README.md",
                 "/alice/secret/raw/branch/main/README.md"):
        assert api.get(path, raw=True).status == 404, path
        assert api.get(path, raw=True, headers={"Cookie": cookie}).status == 200, path
        issue_token = {"Authorization": f"token {tokens[('read', 'issue')]}"}
        assert api.get(path, raw=True, headers=issue_token).status in (403, 404), path
    raw = api.get("/alice/secret/raw/branch/main/README.md", raw=True,
                  headers={"Authorization": f"token {tokens[('read', 'repository')]}"})
    assert raw.status == 200 and b"secret" in raw.body
