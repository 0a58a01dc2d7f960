"""A pull mirror converted to a normal repository (``repoConvert``) against C git's own
HTTP server on loopback: afterwards the repository takes pushes through the API,
its sync is refused, and it is off the mirror schedule — in the same write; only its
admins may convert; a repository that is no mirror is 422; and without permission to
reach local networks, the mirror is never made."""
from __future__ import annotations

import pytest

from chalicelib.repo_admin import mirror_store
from tests.repo_admin.test_migrations import alice, local_networks_allowed, remote  # noqa: F401


def make_mirror(api, token, source, name="mirror"):
    r = api.post("/repos/migrate", token=token, json={
        "clone_addr": source["url"], "repo_name": name, "mirror": True,
        "mirror_interval": "10m", "auth_username": "u", "auth_password": "p"})
    assert r.status == 201, r
    return r.json


def test_a_mirror_becomes_a_normal_repository(api, alice, remote, local_networks_allowed):  # noqa: F811
    made = make_mirror(api, alice, remote)
    assert mirror_store.is_scheduled(made["id"])
    r = api.post("/repos/alice/mirror/convert", token=alice)
    assert r.status == 200, r
    assert (r.json["mirror"], r.json["mirror_interval"], r.json["full_name"]) == \
        (False, "", "alice/mirror")
    assert r.json["original_url"] == remote["url"]
    assert not mirror_store.is_scheduled(made["id"])
    from chalicelib import repos
    stored = repos.repo_by_name("alice", "mirror")
    assert stored.mirror_auth == "" and stored.mirror_interval == 0
    # A normal repository now: a sync is refused, a file can be written.
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 400
    put = api.post("/repos/alice/mirror/contents/added.txt", token=alice, json={
        "content": "YWRkZWQK", "message": "add"})
    assert put.status == 201, put
    # Converting again: no mirror any more.
    again = api.post("/repos/alice/mirror/convert", token=alice)
    assert again.status == 422 and "not a mirror" in again.json["message"]


def test_only_admins_convert(api, alice, remote, local_networks_allowed):  # noqa: F811
    made = make_mirror(api, alice, remote, "guarded")
    api.create_user("bob")
    bob = api.create_token("bob")
    assert api.post("/repos/alice/guarded/convert", token=bob).status == 403
    assert api.post("/repos/alice/guarded/convert").status == 401
    assert api.post("/repos/alice/nothing/convert", token=alice).status == 404
    assert api.get("/repos/alice/guarded").json["mirror"] is True
    assert mirror_store.is_scheduled(made["id"])


def test_without_local_networks_no_mirror_is_made(api, alice, remote):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "refused", "mirror": True})
    assert 400 <= r.status < 500
    assert api.post("/repos/alice/refused/convert", token=alice).status == 404


@pytest.mark.fast
def test_a_repository_that_is_no_mirror_is_refused(fast_api):
    fast_api.create_user("carol")
    carol = fast_api.create_token("carol")
    assert fast_api.post("/user/repos", token=carol, json={"name": "plain"}).status == 201
    r = fast_api.post("/repos/carol/plain/convert", token=carol)
    assert r.status == 422 and r.json["message"] == "Repository is not a mirror"
