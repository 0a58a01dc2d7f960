"""The undo pages (chalicelib/web/deleted_repo_pages.py, ref_history_pages.py), in-process
under moto through the gateway: deleted repositories listed in the user's and the
organization's settings and restored by form (a taken name shown beside its row's
field, nothing written), the ref history listed with its filters and a move undone by a
writer's button; readers, strangers and plain members refused as the API refuses them,
and every form needs its CSRF token."""
from __future__ import annotations

import re

import pytest

from chalicelib import ref_history
from tests.conftest import deliver_to
from tests.web.test_web_actions import WebUser, field_error_shown, text

USER_LIST = "/user/settings/repos/deleted"


@pytest.fixture
def people(api):
    """alice, bob and carol signed in, with tokens for the API calls that check."""
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in ("alice", "bob", "carol")}
    users = {name: WebUser(api).sign_in(name) for name in ("alice", "bob", "carol")}
    return dict(users, tokens=tokens)


def make_repo(api, token: str, name: str, *, org: str | None = None, private=False) -> dict:
    path = f"/orgs/{org}/repos" if org else "/user/repos"
    made = api.post(path, token=token, json={"name": name, "auto_init": True,
                                             "private": private})
    assert made.status == 201, made
    return made.json


def delete_repo(api, token: str, full_name: str) -> None:
    assert api.delete(f"/repos/{full_name}", token=token).status == 204


def deleted_id(api, token: str, owner: str, name: str) -> int:
    listed = api.get(f"/repos/deleted?owner={owner}", token=token)
    assert listed.status == 200, listed
    return next(item["id"] for item in listed.json if item["name"] == name)


# Deleted repositories ----------------------------------------------------------------

def test_user_lists_and_restores_a_deleted_repository(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    make_repo(api, token, "gone")
    delete_repo(api, token, "alice/gone")
    repo_id = deleted_id(api, token, "alice", "gone")
    page = alice.get(USER_LIST)
    body = text(page)
    assert page.status == 200 and "alice/gone" in body
    assert f'action="{USER_LIST}/{repo_id}/restore"' in body
    assert f'<label for="name-{repo_id}">' in body and "<time datetime=" in body
    assert 'aria-current="page">Deleted repositories</a>' in body
    # The form brings it back and lands on its page, which says so.
    done = alice.post(f"{USER_LIST}/{repo_id}/restore", {"name": ""})
    assert done.status == 303 and done.headers["location"] == "/alice/gone?restored=1"
    assert "was restored" in text(alice.get(done.headers["location"]))
    assert api.get("/repos/alice/gone", token=token).status == 200
    # Once restored, it is not deleted any more: a second restore is the 404 page.
    again = alice.post(f"{USER_LIST}/{repo_id}/restore", {"name": ""})
    assert again.status == 404 and "<html" in text(again)
    # The list is empty again, and says how long a deletion is kept.
    empty = text(alice.get(USER_LIST))
    assert "No deleted repositories" in empty and "30 days" in empty


def test_taken_name_is_shown_beside_its_field_and_a_new_name_works(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    make_repo(api, token, "twin")
    delete_repo(api, token, "alice/twin")
    repo_id = deleted_id(api, token, "alice", "twin")
    make_repo(api, token, "twin")           # its name taken meanwhile
    taken = alice.post(f"{USER_LIST}/{repo_id}/restore", {"name": ""})
    assert taken.status == 409
    assert field_error_shown(taken, f"name-{repo_id}", "already exists")
    # Nothing was written: still deleted, the new twin untouched.
    assert deleted_id(api, token, "alice", "twin") == repo_id
    assert api.get("/repos/alice/twin", token=token).json["id"] != repo_id
    bad = alice.post(f"{USER_LIST}/{repo_id}/restore", {"name": "no spaces"})
    assert bad.status == 422 and 'value="no spaces"' in text(bad)
    assert re.search(rf'id="name-{repo_id}-error"', text(bad))
    renamed = alice.post(f"{USER_LIST}/{repo_id}/restore", {"name": "twin-old"})
    assert renamed.status == 303 and renamed.headers["location"] == "/alice/twin-old?restored=1"
    assert api.get("/repos/alice/twin-old", token=token).json["id"] == repo_id


def test_others_cannot_restore_and_csrf_is_needed(api, people):
    token = people["tokens"]["alice"]
    make_repo(api, token, "mine", private=True)
    delete_repo(api, token, "alice/mine")
    repo_id = deleted_id(api, token, "alice", "mine")
    # bob's list is his own; alice's repository is not his to restore (404, as the API).
    assert "alice/mine" not in text(people["bob"].get(USER_LIST))
    assert people["bob"].post(f"{USER_LIST}/{repo_id}/restore", {"name": ""}).status == 404
    assert people["alice"].post(f"{USER_LIST}/{repo_id}/restore", {"name": ""},
                                csrf=None).status == 403
    assert people["alice"].post(f"{USER_LIST}/not-a-number/restore", {}).status == 404
    assert deleted_id(api, token, "alice", "mine") == repo_id
    # Visitors are sent to sign in.
    visitor = WebUser(api)
    assert visitor.get(USER_LIST).headers["location"].startswith("/user/login?")


def test_organization_owners_list_and_restore_members_do_not(api, people):
    token = people["tokens"]["alice"]
    assert api.post("/orgs", token=token, json={"username": "acme"}).status == 201
    team = api.post("/orgs/acme/teams", token=token, json={
        "name": "crew", "permission": "write", "units": ["repo.code"]}).json
    assert api.put(f"/teams/{team['id']}/members/bob", token=token).status == 204
    make_repo(api, token, "tool", org="acme")
    delete_repo(api, token, "acme/tool")
    repo_id = deleted_id(api, token, "acme", "tool")
    path = "/org/acme/settings/repos/deleted"
    owner = people["alice"].get(path)
    assert owner.status == 200 and "acme/tool" in text(owner)
    assert 'aria-current="page">Deleted repositories</a>' in text(owner)
    # A plain member: the API's 403; a stranger the same (acme is public).
    assert people["bob"].get(path).status == 403
    assert people["carol"].get(path).status == 403
    assert people["bob"].post(f"{path}/{repo_id}/restore", {"name": ""}).status == 404
    assert people["alice"].get("/org/nobody/settings/repos/deleted").status == 404
    done = people["alice"].post(f"{path}/{repo_id}/restore", {"name": ""})
    assert done.status == 303 and done.headers["location"] == "/acme/tool?restored=1"
    assert api.get("/repos/acme/tool", token=token).status == 200


def test_the_list_is_paged(api, people):
    alice, token = people["alice"], people["tokens"]["alice"]
    for n in range(3):
        make_repo(api, token, f"old{n}")
        delete_repo(api, token, f"alice/old{n}")
    first = text(alice.get(USER_LIST + "?limit=2"))
    assert first.count("Restore alice/old") == 2 and 'rel="next"' in first
    second = text(alice.get(USER_LIST + "?limit=2&page=2"))
    assert second.count("Restore alice/old") == 1 and 'rel="prev"' in second


# Ref history --------------------------------------------------------------------------

@pytest.fixture
def proj(api, people):
    """alice's ``proj`` (bob writes, carol reads) whose branch ``side`` was created and
    deleted, with the moves recorded by the ref history's consumer: the deletion's entry."""
    token = people["tokens"]["alice"]
    make_repo(api, token, "proj")
    for who, mode in (("bob", "write"), ("carol", "read")):
        assert api.put(f"/repos/alice/proj/collaborators/{who}", token=token,
                       json={"permission": mode}).status == 204
    assert api.post("/repos/alice/proj/branches", token=token,
                    json={"new_branch_name": "side"}).status == 201
    assert api.delete("/repos/alice/proj/branches/side", token=token).status == 204
    deliver_to(ref_history)
    found = api.get("/repos/alice/proj/activity/refs?ref=side", token=token).json
    return next(e for e in found if e["action"] == "deleted")


def test_history_lists_moves_and_a_writer_restores(api, people, proj):
    bob, token = people["bob"], people["tokens"]["alice"]
    page = bob.get("/alice/proj/activity/refs")
    body = text(page)
    assert page.status == 200 and "side" in body and "deleted" in body
    short = proj["old_sha"][:10]
    assert f'href="/alice/proj/commit/{proj["old_sha"]}">{short}</a>' in body
    assert 'href="/alice">alice</a>' in body
    action = f"/alice/proj/activity/refs/{proj['id']}/restore"
    assert f'action="{action}"' in body
    # Filters: only forced moves (none here), only this ref.
    assert "No moves match" in text(bob.get("/alice/proj/activity/refs?forced=true"))
    only = text(bob.get("/alice/proj/activity/refs?ref=main"))
    assert "side" not in only.split("<tbody>")[-1]
    assert bob.get("/alice/proj/activity/refs?forced=maybe").status == 422
    # The writer's button puts the branch back and says so.
    done = bob.post(action, {"ref": "side"})
    assert done.status == 303
    location = done.headers["location"]
    assert location.startswith("/alice/proj/activity/refs?ref=side&restored=side&tip=")
    assert f"Restored side to {short}" in text(bob.get(location))
    branch = api.get("/repos/alice/proj/branches/side", token=token)
    assert branch.status == 200 and branch.json["commit"]["id"] == proj["old_sha"]
    # Again: nothing to change, and the page says so.
    again = bob.post(action, {})
    assert again.status == 303 and "unchanged=1" in again.headers["location"]
    assert "already: nothing changed" in text(bob.get(again.headers["location"]))
    # A crafted address cannot put a sentence of its own on the page.
    crafted = text(bob.get("/alice/proj/activity/refs?restored=your+account+is+locked"
                           f"&tip={proj['old_sha']}"))
    assert "locked" not in crafted and "Restored" not in crafted


def test_readers_see_no_button_and_cannot_restore(api, people, proj):
    carol = people["carol"]
    action = f"/alice/proj/activity/refs/{proj['id']}/restore"
    page = text(carol.get("/alice/proj/activity/refs"))
    assert "side" in page and action not in page and ">Restore</button>" not in page
    assert carol.post(action, {}).status == 403
    assert people["bob"].post(action, {}, csrf=None).status == 403
    assert people["bob"].post("/alice/proj/activity/refs/999999/restore", {}).status == 404
    assert api.get("/repos/alice/proj/branches/side",
                   token=people["tokens"]["alice"]).status == 404
    # Visitors read a public repository's history, without buttons.
    assert ">Restore</button>" not in text(WebUser(api).get("/alice/proj/activity/refs"))


def test_private_history_is_404_to_strangers(api, people):
    token = people["tokens"]["alice"]
    make_repo(api, token, "hidden", private=True)
    assert api.post("/repos/alice/hidden/branches", token=token,
                    json={"new_branch_name": "gone"}).status == 201
    assert api.delete("/repos/alice/hidden/branches/gone", token=token).status == 204
    deliver_to(ref_history)
    entry = next(e for e in api.get("/repos/alice/hidden/activity/refs",
                                    token=token).json if e["action"] == "deleted")
    carol = people["carol"]
    assert carol.get("/alice/hidden/activity/refs").status == 404
    assert carol.post(f"/alice/hidden/activity/refs/{entry['id']}/restore", {}).status == 404
    assert "gone" in text(people["alice"].get("/alice/hidden/activity/refs"))


def test_a_protection_refusal_is_shown_not_a_server_error(api, people, proj):
    """main rewound by a force move, then protected against force pushes: undoing the
    move would take main off its history again, which the rule refuses (403, shown)."""
    token = people["tokens"]["alice"]
    main = api.get("/repos/alice/proj/branches/main", token=token).json["commit"]["id"]
    assert api.post("/repos/alice/proj/contents/more.txt", token=token,
                    json={"content": "bW9yZQo="}).status == 201
    deliver_to(ref_history)
    moved = next(e for e in api.get("/repos/alice/proj/activity/refs?ref=main",
                                    token=token).json if e["new_sha"] != main)
    assert api.post("/repos/alice/proj/branch_protections", token=token,
                    json={"rule_name": "main", "enable_push": True}).status == 201
    refused = people["alice"].post(f"/alice/proj/activity/refs/{moved['id']}/restore", {})
    assert refused.status == 403 and 'role="alert"' in text(refused)
    assert "protected" in text(refused)
    after = api.get("/repos/alice/proj/branches/main", token=token).json["commit"]["id"]
    assert after == moved["new_sha"]
