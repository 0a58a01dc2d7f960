"""Renaming users and organizations, end to end under moto: the old API, clone and profile
addresses answer 307 to the new ones (Forgejo's redirects), the renamed user's tokens,
keys, repositories, issues and forks are intact, the old name is free for someone else,
and bad names, taken names and callers without the right are refused as Forgejo does."""
from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.conftest import ADMIN, deliver_to
from tests.pulls.test_pulls import push_main_and_feature

UPLOAD = "/info/refs?service=git-upload-pack"


def ssh_key() -> str:
    public = ed25519.Ed25519PrivateKey.generate().public_key()
    return public.public_bytes(serialization.Encoding.OpenSSH,
                               serialization.PublicFormat.OpenSSH).decode()


@pytest.fixture
def alice(api):
    """alice: a token, an SSH key, public ``proj`` (pushed, one issue) that bob forked."""
    api.create_user("alice")
    api.create_user("bob")
    token, bob = api.create_token("alice"), api.create_token("bob")
    assert api.post("/user/repos", token=token, json={"name": "proj"}).status == 201
    push_main_and_feature(api, token, "proj")
    assert api.post("/repos/alice/proj/issues", token=token, json={"title": "t"}).status == 201
    assert api.post("/user/keys", token=token, json={"title": "k", "key": ssh_key()}).status == 201
    assert api.post("/repos/alice/proj/forks", token=bob, json={}).status == 202
    return token


def rename_user(api, old: str, new, **kw):
    return api.post(f"/admin/users/{old}/rename", json={"new_username": new},
                    **({"auth": ADMIN} | kw))


def test_a_renamed_user_keeps_everything_and_old_addresses_redirect(api, alice):
    assert rename_user(api, "alice", "alicia").status == 204

    me = api.get("/user", token=alice)
    assert me.status == 200 and me.json["login"] == "alicia"          # the token still works
    assert [k["title"] for k in api.get("/user/keys", token=alice).json] == ["k"]
    repo = api.get("/repos/alicia/proj", token=alice)
    assert repo.status == 200, repo
    assert repo.json["full_name"] == "alicia/proj" and repo.json["owner"]["login"] == "alicia"
    assert repo.json["clone_url"].endswith("/alicia/proj.git")
    assert api.get("/repos/alicia/proj/issues/1").json["title"] == "t"
    assert api.get("/repos/alicia/proj/branches/feature").status == 200
    fork = api.get("/repos/bob/proj").json
    assert fork["parent"]["full_name"] == "alicia/proj"
    assert [f["full_name"] for f in api.get("/repos/alicia/proj/forks").json] == ["bob/proj"]
    assert [r["full_name"] for r in api.get("/users/alicia/repos").json] == ["alicia/proj"]

    # Old addresses: the API (with the query kept), the clone URL, the profile page.
    for old, new in (("/api/v1/users/alice", "/api/v1/users/alicia"),
                     ("/api/v1/repos/alice/proj/issues?state=all&page=1",
                      "/api/v1/repos/alicia/proj/issues?state=all&page=1"),
                     ("/alice/proj.git" + UPLOAD, "/alicia/proj.git" + UPLOAD),
                     ("/alice", "/alicia"),
                     ("/alice/proj/issues/1", "/alicia/proj/issues/1")):
        moved = api.get(old, raw=True)
        assert moved.status == 307, (old, moved)
        assert moved.headers["location"] == new, (old, moved.headers)
    # 307 keeps the method: a write to the old path reaches the new one.
    write = api.post("/repos/alice/proj/issues", token=alice, json={"title": "again"})
    assert write.status == 307
    assert write.headers["location"] == "/api/v1/repos/alicia/proj/issues"
    # A git push through the old address is sent on too (and authenticates there).
    assert api.get("/alice/proj.git/info/refs?service=git-receive-pack", raw=True,
                   token=alice).status == 307
    # Nothing is under the old name any more.
    assert api.get("/repos/search?q=proj").json["data"][0]["full_name"] in ("alicia/proj",
                                                                           "bob/proj")


def test_the_old_name_is_free_and_a_new_holder_ends_the_redirect(api, alice):
    assert rename_user(api, "alice", "alicia").status == 204
    api.create_user("alice", email="another@example.com")
    assert api.get("/users/alice").json["login"] == "alice"
    assert api.get("/repos/alice/proj").status == 404               # not alicia's any more
    # Renaming back is a rename like any other: the name is taken now.
    assert rename_user(api, "alicia", "alice").status == 422


def test_renames_refused(api, alice):
    bob = api.create_token("bob", name="other")
    assert rename_user(api, "alice", "bob").json["message"] == "user already exists [name: bob]"
    assert rename_user(api, "alice", "BOB").status == 422               # names ignore case
    assert rename_user(api, "alice", "not valid").status == 422
    assert rename_user(api, "alice", "api").status == 422               # reserved
    assert rename_user(api, "alice", None).status == 422
    assert rename_user(api, "alice", "alicia", auth=None, token=bob).status == 403
    assert rename_user(api, "nobody", "x").status == 404
    assert api.get("/users/alice").json["login"] == "alice"             # nothing changed
    assert api.get("/repos/alice/proj").status == 200
    # The same name: nothing to do.  A change of case only: no redirect is needed.
    assert rename_user(api, "alice", "alice").status == 204
    assert rename_user(api, "alice", "Alice").status == 204
    assert api.get("/repos/alice/proj").json["full_name"] == "Alice/proj"
    assert api.get("/users/Alice").json["login"] == "Alice"


def test_a_private_users_old_name_leads_anonymous_callers_nowhere(api):
    api.create_user("hidden", visibility="private")
    assert rename_user(api, "hidden", "secret").status == 204
    assert api.get("/users/hidden").status == 404
    assert api.get("/users/hidden", auth=ADMIN).status == 307


def test_an_organization_rename_moves_its_repositories(api, alice):
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=alice, json={"name": "tool"}).status == 201
    bob = api.create_token("bob", name="other")
    renamed = api.post("/orgs/acme/rename", token=bob, json={"new_name": "acme-two"})
    assert renamed.status in (403, 404)                     # not an owner (not a member: 404)
    assert api.post("/orgs/acme/rename", token=alice, json={"new_name": "alice"}).status == 422
    assert api.post("/orgs/acme/rename", token=alice, json={}).status == 422
    assert api.post("/orgs/acme/rename", token=alice, json={"new_name": "acme-two"}).status == 204
    assert api.get("/orgs/acme-two").json["username"] == "acme-two"
    assert api.get("/repos/acme-two/tool", token=alice).json["full_name"] == "acme-two/tool"
    moved = api.get("/orgs/acme/repos")
    assert moved.status == 307 and moved.headers["location"] == "/api/v1/orgs/acme-two/repos"
    assert api.get("/repos/acme/tool", token=alice).headers["location"] == \
        "/api/v1/repos/acme-two/tool"


def test_a_move_the_request_did_not_finish_is_finished_by_the_consumer(api, alice):
    """The request died after the account's rename committed: the repositories are still
    under the old name; the AccountRenamed event's consumer moves them, once."""
    from chalicelib import accounts, repos
    from chalicelib.store import unit_of_work

    class OwnerRenames:
        wants_event = staticmethod(lambda event: type(event).__name__ == "AccountRenamed")
        on_event = staticmethod(repos.on_owner_renamed)

    with unit_of_work.start():
        account = accounts.account_by_name("alice")
        accounts.rename_account(None, account, "alicia")
    assert api.get("/repos/alicia/proj").status == 404
    ran = deliver_to(OwnerRenames)
    assert [type(e).__name__ for e in ran] == ["AccountRenamed"]
    assert api.get("/repos/alicia/proj").json["full_name"] == "alicia/proj"
    with unit_of_work.start():
        assert repos.move_owned(accounts.account_by_name("alicia")) == 0     # nothing left
