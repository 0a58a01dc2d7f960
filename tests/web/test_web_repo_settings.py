"""The repository settings pages (chalicelib/web/settings_*), in-process under moto
through the gateway: options and the danger zone, collaborators, webhooks with their
deliveries, deploy keys.  Each change shows in the API afterwards; bad input is shown
beside its field with nothing written; a writer gets the 404 page everywhere with
nothing changed, a stranger the 404 page of a private repository, and every POST needs
its CSRF token."""
from __future__ import annotations

import re

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.web.test_web_actions import WebUser, error_shown, field_error_shown, text
from tests.webhooks.test_webhooks_flow import hook_settings, pump, receiver  # noqa: F401

BASE = "/alice/proj"
SECRET_BASE = "/alice/secret"


def ssh_public_key() -> str:
    return ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (a README) and private ``secret``; bob writes to
    ``proj``; carol is a stranger; dave has no part in anything until added."""
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
    token = api.create_token("alice")
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=token, json={
            "name": name, "private": private, "auto_init": True}).status == 201
    assert api.put("/repos/alice/proj/collaborators/bob", token=token,
                   json={"permission": "write"}).status == 204
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol")}
    return dict(users, token=token)


def record(api, scene, path=BASE):
    return api.get(f"/repos{path}", token=scene["token"])


def options_form(**changes) -> dict:
    fields = {"description": "", "website": "", "default_branch": "main",
              "default_merge_style": "merge", "allow_merge_commits": "on",
              "allow_rebase": "on", "allow_rebase_explicit": "on", "allow_squash_merge": "on",
              "allow_fast_forward_only_merge": "on", "has_wiki": "on"}
    fields.update(changes)
    return {k: v for k, v in fields.items() if v is not None}


def test_options_edit_shows_in_the_api(api, scene):
    alice = scene["alice"]
    page = alice.get(f"{BASE}/settings")
    assert page.status == 200
    body = text(page)
    assert 'aria-label="Settings"' in body and f'href="{BASE}/settings/hooks"' in body
    assert f'<a href="{BASE}/settings" aria-current="page">Settings</a>' in body
    assert '<option value="main" selected>main</option>' in body
    done = alice.post(f"{BASE}/settings", options_form(
        description="A <b>tidy</b> project", website="https://example.com/proj",
        private="on", template="on", allow_rebase=None, allow_squash_merge=None,
        default_merge_style="rebase-merge"))
    assert done.status == 303 and done.headers["location"] == f"{BASE}/settings?saved=1"
    got = record(api, scene).json
    assert got["description"] == "A <b>tidy</b> project" and got["private"] is True
    assert got["website"] == "https://example.com/proj" and got["template"] is True
    assert got["allow_rebase"] is False and got["allow_squash_merge"] is False
    assert got["allow_merge_commits"] is True and got["default_merge_style"] == "rebase-merge"
    assert got["has_wiki"] is True and 'name="has_wiki" checked' in text(alice.get(f"{BASE}/settings"))
    again = text(alice.get(f"{BASE}/settings?saved=1"))
    assert "Settings saved." in again and "A &lt;b&gt;tidy&lt;/b&gt; project" in again
    assert '<option value="rebase-merge" selected>' in again
    # A bad website is shown beside its field, the typed values kept, nothing written.
    bad = alice.post(f"{BASE}/settings", options_form(description="changed",
                                                      website="not a url"))
    assert bad.status == 422 and field_error_shown(bad, "website", "Url")
    assert ">changed</textarea>" in text(bad) and 'value="not a url"' in text(bad)
    assert record(api, scene).json["description"] == "A <b>tidy</b> project"
    # A default branch that does not exist: beside the select; the header still shows
    # what is stored (private), not what was typed (public).
    gone = alice.post(f"{BASE}/settings", options_form(default_branch="nope"))
    assert gone.status == 422 and field_error_shown(gone, "default_branch", "nope")
    assert '<span class="label">Private</span>' in text(gone)
    assert record(api, scene).json["default_branch"] == "main"
    assert record(api, scene).json["private"] is True


def test_the_wiki_switch(api, scene):
    alice = scene["alice"]
    off = alice.post(f"{BASE}/settings", options_form(has_wiki=None))
    assert off.status == 303 and record(api, scene).json["has_wiki"] is False
    assert alice.get(f"{BASE}/wiki").status == 404
    assert 'name="has_wiki">' in text(alice.get(f"{BASE}/settings"))
    assert alice.post(f"{BASE}/settings", options_form()).status == 303
    assert record(api, scene).json["has_wiki"] is True and alice.get(f"{BASE}/wiki").status == 200


def test_archive_then_unarchive(api, scene):
    alice = scene["alice"]
    assert "Archive this repository" in text(alice.get(f"{BASE}/settings"))
    done = alice.post(f"{BASE}/settings/archive", {"archive": "true"})
    assert done.status == 303 and record(api, scene).json["archived"] is True
    page = text(alice.get(f"{BASE}/settings"))
    assert "Unarchive this repository" in page and '<span class="label">Archived</span>' in page
    assert alice.post(f"{BASE}/settings/archive", {"archive": "false"}).status == 303
    assert record(api, scene).json["archived"] is False


def test_delete_needs_the_repository_name(api, scene):
    alice = scene["alice"]
    wrong = alice.post(f"{BASE}/settings/delete", {"repo_name": "proj2"})
    assert wrong.status == 422 and field_error_shown(wrong, "delete_repo_name", "does not match")
    assert 'value="proj2"' in text(wrong) and record(api, scene).status == 200
    empty = alice.post(f"{BASE}/settings/delete", {})
    assert empty.status == 422 and record(api, scene).status == 200
    done = alice.post(f"{BASE}/settings/delete", {"repo_name": "proj"})
    assert done.status == 303 and done.headers["location"] == "/alice"
    assert record(api, scene).status == 404


def test_collaborators_add_change_remove(api, scene):
    alice, token = scene["alice"], scene["token"]
    page = text(alice.get(f"{BASE}/settings/collaboration"))
    assert "bob" in page and re.search(r'<option value="write" selected>Write</option>', page)
    added = alice.post(f"{BASE}/settings/collaboration",
                       {"collaborator": "dave", "permission": "read"})
    assert added.status == 303
    perm = api.get("/repos/alice/proj/collaborators/dave/permission", token=token).json
    assert perm["permission"] == "read"
    assert alice.post(f"{BASE}/settings/collaboration",
                      {"collaborator": "dave", "permission": "admin"}).status == 303
    perm = api.get("/repos/alice/proj/collaborators/dave/permission", token=token).json
    assert perm["permission"] == "admin"
    assert '<option value="admin" selected>Admin</option>' in text(
        alice.get(f"{BASE}/settings/collaboration"))
    assert alice.post(f"{BASE}/settings/collaboration/delete",
                      {"collaborator": "dave"}).status == 303
    assert api.get("/repos/alice/proj/collaborators/dave", token=token).status == 404
    # An unknown user and a bad permission: beside their fields, nothing written.
    unknown = alice.post(f"{BASE}/settings/collaboration",
                         {"collaborator": "nobody-here", "permission": "write"})
    assert unknown.status == 422
    assert field_error_shown(unknown, "collaborator", "user does not exist")
    assert 'value="nobody-here"' in text(unknown)
    owner = alice.post(f"{BASE}/settings/collaboration", {"collaborator": "alice"})
    assert owner.status == 422 and field_error_shown(owner, "collaborator", "owner")
    bad = alice.post(f"{BASE}/settings/collaboration",
                     {"collaborator": "carol", "permission": "owner"})
    assert bad.status == 422 and field_error_shown(bad, "permission", "Permission")
    users = api.get("/repos/alice/proj/collaborators", token=token).json
    assert [u["login"] for u in users] == ["bob"]


def _hook_form(url: str, **changes) -> list:
    fields = {"type": "forgejo", "url": url, "content_type": "json", "secret": "s3cret",
              "mode": "choose", "branch_filter": "", "active": "on"}
    fields.update(changes)
    pairs = [(k, v) for k, v in fields.items() if v is not None and k != "events"]
    return pairs + [("events", e) for e in changes.get("events", ["issues", "push"])]


def test_hooks_create_edit_test_redeliver_delete(api, scene, hook_settings, receiver):
    alice, token = scene["alice"], scene["token"]
    pump()      # the set-up's events go before any hook exists
    assert "No webhooks yet." in text(alice.get(f"{BASE}/settings/hooks"))
    form = alice.get(f"{BASE}/settings/hooks/new?type=gitea")
    assert form.status == 200 and '<option value="gitea" selected>' in text(form)
    made = alice.post(f"{BASE}/settings/hooks/new", _hook_form(receiver.url + "/hook"))
    assert made.status == 303
    hook_path = made.headers["location"]
    hook_id = int(hook_path.rsplit("/", 1)[1])
    hook = api.get(f"/repos/alice/proj/hooks/{hook_id}", token=token).json
    assert hook["type"] == "forgejo" and hook["url"] == receiver.url + "/hook"
    assert "issues" in hook["events"] and "push" in hook["events"] and hook["active"]
    page = text(alice.get(hook_path))
    assert 'name="events" value="issues" checked' in page and "No deliveries yet." in page
    assert receiver.url + "/hook" in text(alice.get(f"{BASE}/settings/hooks"))
    # Edit: push only, inactive, a branch filter.
    edited = alice.post(hook_path, _hook_form(receiver.url + "/other", mode="push",
                                              active=None, branch_filter="main"))
    assert edited.status == 303
    hook = api.get(f"/repos/alice/proj/hooks/{hook_id}", token=token).json
    assert hook["events"] == ["push"] and hook["active"] is False
    assert hook["branch_filter"] == "main" and hook["url"] == receiver.url + "/other"
    # A test delivery goes out and is listed with its request and response.
    assert alice.post(hook_path, _hook_form(receiver.url + "/other", mode="push")).status == 303
    assert alice.post(f"{hook_path}/test", {}).status == 303
    pump()
    assert [r.path for r in receiver.accepted()] == ["/other"]
    page = text(alice.get(hook_path))
    [first] = re.findall(r'action="[^"]*/replay/(\d+)"', page)
    assert "<details>" in page and "delivered" in page and "x-forgejo-event" in page.lower()
    # Redeliver: a new delivery of the same request.
    assert alice.post(f"{hook_path}/replay/{first}", {}).status == 303
    pump()
    assert len(receiver.accepted()) == 2
    deliveries = api.get(f"/repos/alice/proj/hooks/{hook_id}/deliveries", token=token).json
    assert len(deliveries) == 2 and deliveries[0]["redelivery"] is True
    assert len(re.findall(r'/replay/\d+"', text(alice.get(hook_path)))) == 2
    # Delete.
    assert alice.post(f"{hook_path}/delete", {}).status == 303
    assert api.get(f"/repos/alice/proj/hooks/{hook_id}", token=token).status == 404
    assert alice.get(hook_path).status == 404


def test_hook_refusals_beside_the_url(api, scene, hook_settings):
    alice, token = scene["alice"], scene["token"]
    bad = alice.post(f"{BASE}/settings/hooks/new", _hook_form("not a url"))
    assert bad.status == 422 and field_error_shown(bad, "url", "")
    assert 'value="not a url"' in text(bad)
    hook_settings(NIMBUS__WEBHOOK__ALLOWED_HOST_LIST="external")
    guarded = alice.post(f"{BASE}/settings/hooks/new", _hook_form("http://127.0.0.1:9/x"))
    assert guarded.status == 422 and field_error_shown(guarded, "url", "ALLOWED_HOST_LIST")
    filt = alice.post(f"{BASE}/settings/hooks/new",
                      _hook_form("https://ci.example.com/h", branch_filter="[a"))
    assert filt.status == 422 and field_error_shown(filt, "branch_filter", "BranchFilter")
    assert api.get("/repos/alice/proj/hooks", token=token).json == []


def test_deploy_keys_add_and_delete(api, scene):
    alice, token = scene["alice"], scene["token"]
    key = ssh_public_key()
    assert "No deploy keys." in text(alice.get(f"{BASE}/settings/keys"))
    added = alice.post(f"{BASE}/settings/keys", {"title": "ci", "key": key, "write": "on"})
    assert added.status == 303
    [found] = api.get("/repos/alice/proj/keys", token=token).json
    assert found["title"] == "ci" and found["read_only"] is False
    page = text(alice.get(f"{BASE}/settings/keys"))
    assert found["fingerprint"] in page and "Read and write" in page
    invalid = alice.post(f"{BASE}/settings/keys", {"title": "junk", "key": "ssh-ed25519 AAAAnope"})
    assert invalid.status == 422 and field_error_shown(invalid, "key", "")
    assert 'value="junk"' in text(invalid)
    twice = alice.post(f"{BASE}/settings/keys", {"title": "ci", "key": ssh_public_key()})
    assert twice.status == 422 and field_error_shown(twice, "title", "same name")
    assert len(api.get("/repos/alice/proj/keys", token=token).json) == 1
    assert alice.post(f"{BASE}/settings/keys/delete", {"id": str(found["id"])}).status == 303
    assert api.get("/repos/alice/proj/keys", token=token).json == []


SETTINGS_PAGES = ("/settings", "/settings/collaboration", "/settings/hooks",
                  "/settings/hooks/new", "/settings/keys", "/settings/branches")


def test_a_writer_gets_404_everywhere_and_changes_nothing(api, scene):
    alice, bob, token = scene["alice"], scene["bob"], scene["token"]
    alice.post(f"{BASE}/settings/hooks/new", _hook_form("https://ci.example.com/h"))
    [hook] = api.get("/repos/alice/proj/hooks", token=token).json
    alice.post(f"{BASE}/settings/keys", {"title": "ci", "key": ssh_public_key()})
    [key] = api.get("/repos/alice/proj/keys", token=token).json
    assert f'href="{BASE}/settings"' not in text(bob.get(BASE))   # no Settings tab
    for path in (*SETTINGS_PAGES, f"/settings/hooks/{hook['id']}"):
        assert bob.get(BASE + path).status == 404, path
    posts = {
        "/settings": options_form(description="hacked", private="on"),
        "/settings/archive": {"archive": "true"},
        "/settings/delete": {"repo_name": "proj"},
        "/settings/collaboration": {"collaborator": "carol", "permission": "admin"},
        "/settings/collaboration/delete": {"collaborator": "bob"},
        "/settings/hooks/new": _hook_form("https://evil.example.com/h"),
        f"/settings/hooks/{hook['id']}": _hook_form("https://evil.example.com/h"),
        f"/settings/hooks/{hook['id']}/delete": {},
        f"/settings/hooks/{hook['id']}/test": {},
        "/settings/keys": {"title": "bob", "key": ssh_public_key(), "write": "on"},
        "/settings/keys/delete": {"id": str(key["id"])},
    }
    for path, fields in posts.items():
        assert bob.post(BASE + path, fields).status == 404, path
    got = record(api, scene).json
    assert got["description"] == "" and got["private"] is False and got["archived"] is False
    assert [u["login"] for u in api.get("/repos/alice/proj/collaborators", token=token).json] \
        == ["bob"]
    assert api.get("/repos/alice/proj/hooks", token=token).json == [hook]
    assert api.get("/repos/alice/proj/keys", token=token).json == [key]


def test_a_stranger_gets_404_on_a_private_repository(api, scene):
    carol = scene["carol"]
    for path in SETTINGS_PAGES:
        assert carol.get(SECRET_BASE + path).status == 404, path
    assert carol.post(f"{SECRET_BASE}/settings/delete", {"repo_name": "secret"}).status == 404
    assert record(api, scene, SECRET_BASE).status == 200
    # Signed out: the 404 page too, before any sign-in form.
    assert WebUser(api).get(f"{SECRET_BASE}/settings").status == 404


def test_posts_need_the_csrf_token(api, scene):
    alice = scene["alice"]
    for path, fields in (("/settings", options_form(description="x")),
                         ("/settings/delete", {"repo_name": "proj"}),
                         ("/settings/collaboration", {"collaborator": "dave"}),
                         ("/settings/hooks/new", _hook_form("https://ci.example.com/h")),
                         ("/settings/keys", {"title": "k", "key": ssh_public_key()})):
        assert alice.post(BASE + path, fields, csrf=None).status == 403, path
    assert record(api, scene).json["description"] == ""
    assert api.get("/repos/alice/proj/collaborators/dave", token=scene["token"]).status == 404


def test_the_protection_page_keeps_working_with_the_settings_navigation(api, scene):
    alice = scene["alice"]
    page = text(alice.get(f"{BASE}/settings/branches"))
    assert f'<a href="{BASE}/settings/branches" aria-current="page">Branches</a>' in page
    made = alice.post(f"{BASE}/settings/branches", {"rule_name": "main", "push": "all"})
    assert made.status == 303
    assert not error_shown(alice.get(f"{BASE}/settings/branches"), "")


def test_each_collaborator_row_shows_their_own_permission(api, scene):
    """Modes come from the collaboration items the list reads: each row's select holds
    that collaborator's mode, whatever the others'."""
    alice, token = scene["alice"], scene["token"]
    api.create_user("erin")
    for name, mode in (("dave", "read"), ("erin", "admin")):
        assert api.put(f"/repos/alice/proj/collaborators/{name}", token=token,
                       json={"permission": mode}).status == 204
    page = text(alice.get(f"{BASE}/settings/collaboration"))
    rows = {re.search(r'name="collaborator" value="([^"]+)"', row).group(1):
            re.search(r'<option value="(\w+)" selected>', row).group(1)
            for row in page.split('<li class="rule">')[1:]}
    assert rows == {"bob": "write", "dave": "read", "erin": "admin"}
    for name in rows:
        assert f'aria-label="Remove {name}"' in page
    api_modes = {name: api.get(f"/repos/alice/proj/collaborators/{name}/permission",
                               token=token).json["permission"] for name in rows}
    assert api_modes == rows
