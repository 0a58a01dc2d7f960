"""The audit log pages (chalicelib/web/audit_pages.py), in-process through the gateway: a
scripted session in an organization's repository (created, edited with a description
that holds markup, a webhook with a secret, a team with a plain member) whose events go
through the audit-log consumer as the worker would run it, then the two pages as each
caller may open them: the entries with actor, action, target and changes, the filters
(typed values kept; a refused one beside its field, 422), paging, who gets 403 or 404,
and nothing of the secret or of the markup as markup."""
from __future__ import annotations

import re

import pytest

from chalicelib import audit
from tests.conftest import ADMIN, deliver_to
from tests.web.test_security_key_pages import aws_calls
from tests.web.test_web_actions import WebUser, field_error_shown, text

HOOK_SECRET = "hook-s3cret-value-42"
MARKUP = "<script>alert('audit')</script>"
LONG = "a long description " * 10


@pytest.fixture
def scene(api):
    """acme (alice owns it; bob a plain member through a read team; carol a stranger),
    dave's private organization ``hidden``; the session's events recorded; everyone
    signed in to the pages (root, the site admin, too)."""
    names = ("alice", "bob", "carol", "dave")
    for name in names:
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in names}
    seen = {}

    def call(method, path, who="alice", **kw):
        resp = api.request(method, path, token=tokens[who], **kw)
        assert resp.status < 300, (method, path, resp)
        seen[f"{method} {path}"] = resp.headers["x-request-id"]
        return resp

    call("POST", "/orgs", json={"username": "acme"})
    call("POST", "/orgs/acme/repos", json={"name": "tool"})
    call("PATCH", "/repos/acme/tool", json={"description": LONG})
    call("PATCH", "/repos/acme/tool", json={"description": MARKUP})
    call("POST", "/repos/acme/tool/hooks", json={
        "type": "gitea", "active": True, "events": ["push"],
        "config": {"url": "https://ci.example.com/hook", "content_type": "json",
                   "secret": HOOK_SECRET}})
    team = call("POST", "/orgs/acme/teams", json={"name": "readers", "permission": "read"}).json
    call("PUT", f"/teams/{team['id']}/members/bob")
    call("POST", "/orgs", who="dave", json={"username": "hidden", "visibility": "private"})
    assert len(deliver_to(audit)) >= 6
    users = {name: WebUser(api).sign_in(name) for name in names}
    root = WebUser(api)
    assert root.post("/user/login", {"user_name": ADMIN[0], "password": ADMIN[1]}).status == 303
    return dict(users, root=root, anonymous=WebUser(api), seen=seen)


def rows(resp) -> list[str]:
    """The table's body rows, as HTML."""
    return re.findall(r"<tr>\s*<td class=\"audit-when\">.*?</tr>", text(resp), re.S)


def actions(resp) -> list[str]:
    return [re.search(r"<td><code>([^<]+)</code></td>", row).group(1) for row in rows(resp)]


def test_site_admins_see_every_change_with_actor_and_changes(scene):
    page = scene["root"].get("/admin/audit")
    assert page.status == 200
    shown = actions(page)
    for action in ("organization.created", "repository.created", "repository.edited",
                   "hook.created", "team.created", "team.member_added"):
        assert action in shown, (action, shown)
    assert shown.index("repository.edited") < shown.index("repository.created")   # newest first
    html = text(page)
    edited = rows(page)[shown.index("repository.edited")]
    assert '<a href="/alice">alice</a>' in edited
    assert "acme/tool" in edited and '<span class="label">repository</span>' in edited
    # Before: the long text, cut (whole in the title); after: the markup, as text.
    cut = LONG[:79] + "…"
    assert f'description: <code title="{LONG}">{cut}</code> → ' in edited
    assert "<code>&lt;script&gt;alert(&#39;audit&#39;)&lt;/script&gt;</code>" in edited
    assert scene["seen"]["PATCH /repos/acme/tool"] in edited    # the request id
    assert re.search(r'<time datetime="[^"]+" title="[^"]+">just now</time>', edited)
    hook = rows(page)[shown.index("hook.created")]
    assert "https://ci.example.com/hook" in hook
    # Nothing typed is markup here, and the secret is nowhere.
    assert MARKUP not in html and HOOK_SECRET not in html
    # The site admin's menu leads here.
    assert '<a href="/admin/audit">Audit log</a>' in html


def test_filters_narrow_the_log_and_keep_what_was_typed(scene):
    root = scene["root"]
    page = root.get("/admin/audit?repo=acme/tool&action=repository&actor=")
    assert page.status == 200
    assert set(actions(page)) == {"repository.created", "repository.edited"}
    assert 'name="repo" value="acme/tool"' in text(page)
    assert 'name="action" value="repository"' in text(page)
    assert "Clear filters" in text(page)
    bob = root.get("/admin/audit?actor=bob&repo=acme/tool")
    assert bob.status == 200 and not rows(bob)
    assert "No change matches these filters." in text(bob)
    dave = root.get("/admin/audit?actor=dave&action=organization")
    assert actions(dave) == ["organization.created"]
    later = root.get("/admin/audit?since=2999-01-01T00:00:00Z")
    assert later.status == 200 and not rows(later)
    assert 'value="2999-01-01T00:00:00Z"' in text(later)


@pytest.mark.parametrize("query, field, message", [
    ("since=2026-13-45T00:00:00Z", "since", "parsing time"),
    ("until=yesterday", "until", "parsing time"),
    ("since=2026-01-01T00:00:00", "since", "names no zone"),
    ("since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", "since", "must not be after"),
    ("repo=tool", "repo", "must be owner/name"),
])
def test_a_refused_filter_is_shown_beside_its_field(scene, query, field, message):
    page = scene["root"].get(f"/admin/audit?{query}&action=repository")
    assert page.status == 422, page
    assert field_error_shown(page, field, message)
    assert 'name="action" value="repository"' in text(page)       # what was typed stays
    assert not rows(page)


def test_pages_of_the_log(scene):
    root = scene["root"]
    first = root.get("/admin/audit?limit=2")
    assert len(rows(first)) == 2 and 'rel="next"' in text(first)
    assert 'rel="prev"' not in text(first)
    second = root.get("/admin/audit?limit=2&page=2")
    assert len(rows(second)) == 2 and 'rel="prev"' in text(second)
    assert not set(rows(first)) & set(rows(second))


def test_only_site_admins_open_the_instance_log(scene):
    for name in ("alice", "bob", "carol"):
        assert scene[name].get("/admin/audit").status == 404
    visitor = scene["anonymous"].get("/admin/audit")
    assert visitor.status == 303 and visitor.headers["location"].startswith("/user/login?")
    assert '/admin/audit' not in text(scene["alice"].get("/"))


def test_organization_owners_read_its_log(scene):
    page = scene["alice"].get("/org/acme/settings/audit")
    assert page.status == 200
    shown = actions(page)
    assert {"repository.created", "repository.edited", "hook.created",
            "team.member_added"} <= set(shown)
    assert "organization.created" in shown
    html = text(page)
    assert HOOK_SECRET not in html and MARKUP not in html
    assert "hidden" not in " ".join(rows(page))                 # dave's organization
    assert 'aria-label="Organization settings"' in html
    # Within the organization a repository's name is enough.
    tool = scene["alice"].get("/org/acme/settings/audit?repo=tool&action=hook")
    assert tool.status == 200 and actions(tool) == ["hook.created"]
    assert 'name="repo" value="tool"' in text(tool)
    bad = scene["alice"].get("/org/acme/settings/audit?until=soon")
    assert bad.status == 422 and field_error_shown(bad, "until", "parsing time")
    # The settings page links here; a site admin reads it too.
    settings = text(scene["alice"].get("/org/acme/settings"))
    assert 'href="/org/acme/settings/audit"' in settings
    assert scene["root"].get("/org/acme/settings/audit").status == 200


def test_members_and_strangers_are_refused_as_the_api_refuses(scene, api):
    assert scene["bob"].get("/org/acme/settings/audit").status == 403      # a plain member
    assert scene["carol"].get("/org/acme/settings/audit").status == 403    # acme is public
    assert scene["carol"].get("/org/hidden/settings/audit").status == 404  # private to her
    assert scene["alice"].get("/org/hidden/settings/audit").status == 404
    assert scene["dave"].get("/org/hidden/settings/audit").status == 200
    assert scene["carol"].get("/org/nobody/settings/audit").status == 404
    visitor = scene["anonymous"].get("/org/acme/settings/audit")
    assert visitor.status == 303
    # The API answers them alike.
    carol = api.create_token("carol", name="check")
    assert api.get("/orgs/acme/audit_log", token=carol).status == 403
    assert api.get("/orgs/hidden/audit_log", token=carol).status == 404


def test_the_pages_cost_a_few_aws_calls(scene):
    """The session's account, then one Query (the admin's); the organization by name and
    the caller's membership before it (the owner's); one GetItem more for a filter's
    name.  bench/scenarios_web.py measures the owner's; the bench's sessions are not a
    site admin's, so the admin's is counted here."""
    def calls(user, path) -> list[str]:
        answers = []
        made = aws_calls(lambda: answers.append(user.get(path)))
        assert answers[0].status == 200, (path, answers[0])
        return made
    assert len(calls(scene["root"], "/admin/audit")) <= 2
    assert len(calls(scene["root"], "/admin/audit?repo=acme/tool&actor=alice")) <= 4
    assert len(calls(scene["alice"], "/org/acme/settings/audit")) <= 4
    assert len(calls(scene["alice"], "/org/acme/settings/audit?repo=tool")) <= 5
