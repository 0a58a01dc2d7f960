"""Creating, deleting and renaming branches through the API (in-process, under moto):
what a client sees, the events each change raises, and racing creates of one name."""
from __future__ import annotations

import threading

import pytest

from chalicelib import events
from chalicelib.http import schemas
from tests.conftest import drain_outbox
from tests.repos.test_events_repos import ZERO, make_commit, push
from tests.accounts.test_users import assert_matches_forgejo

R = "/repos/alice/proj"


@pytest.fixture
def scene(api):
    """alice's ``proj`` with ``main`` (two commits) and tag ``v1`` on the first; bob may
    write, carol may only read (public repository)."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "proj"}).status == 201
    assert api.put(f"{R}/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    first, objs = make_commit(None, {"README.md": b"hello\n"}, "initial")
    second, more = make_commit(first.id.decode(), {"README.md": b"hello again\n"}, "second")
    report = push(api, tokens["alice"], "proj", [
        (ZERO, second.id.decode(), "refs/heads/main"),
        (ZERO, first.id.decode(), "refs/tags/v1")], [*objs, *more])
    assert "ok refs/heads/main" in report, report
    drain_outbox()
    return dict(tokens, first=first.id.decode(), second=second.id.decode())


def branch_names(api) -> set[str]:
    return {b["name"] for b in api.get(f"{R}/branches").json}


def test_create_from_default_ref_tag_commit_and_old_branch(api, scene):
    bob = scene["bob"]
    r = api.post(f"{R}/branches", token=bob, json={"new_branch_name": "topic"})
    assert r.status == 201 and set(r.json) == set(schemas.RECORDS["Branch"])
    assert_matches_forgejo(r.json, "Branch")
    assert r.json["name"] == "topic" and r.json["commit"]["id"] == scene["second"]
    assert api.get(f"{R}/branches/topic").json["commit"]["id"] == scene["second"]
    raised = drain_outbox()
    assert {type(e) for e in raised} >= {events.RefCreated}
    cases = {"from-tag": {"old_ref_name": "refs/tags/v1"},
             "from-commit": {"old_ref_name": scene["first"][:10]},
             "from-ref": {"old_ref_name": "refs/heads/topic"},
             "from-old": {"old_branch_name": "main"},
             "nested/name": {"old_ref_name": "v1"}}
    for name, body in cases.items():
        r = api.post(f"{R}/branches", token=bob, json={"new_branch_name": name, **body})
        assert r.status == 201, (name, r)
    assert api.get(f"{R}/branches/from-tag").json["commit"]["id"] == scene["first"]
    assert api.get(f"{R}/branches/from-commit").json["commit"]["id"] == scene["first"]
    assert api.get(f"{R}/branches/nested/name").json["commit"]["id"] == scene["first"]
    assert api.get(f"{R}/branches/from-old").json["commit"]["id"] == scene["second"]
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert f"{scene['first']} refs/heads/nested/name".encode() in refs


def test_create_refusals(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    before = branch_names(api)
    cases = [({"new_branch_name": "main"}, 409),
             ({"new_branch_name": "v1"}, 409),                       # a tag of that name
             ({"new_branch_name": "x", "old_ref_name": "nope"}, 404),
             ({"new_branch_name": "x", "old_branch_name": "nope"}, 404),
             ({"new_branch_name": ""}, 422),
             ({}, 422),
             ({"new_branch_name": "bad..name"}, 422),
             ({"new_branch_name": "x" * 300}, 422)]
    for body, status in cases:
        r = api.post(f"{R}/branches", token=alice, json=body)
        assert r.status == status, (body, r)
    assert api.post(f"{R}/branches", token=carol, json={"new_branch_name": "c"}).status == 403
    assert api.post(f"{R}/branches", json={"new_branch_name": "c"}).status == 401
    assert branch_names(api) == before


def test_racing_creates_of_one_name(api, scene):
    tokens = [scene["alice"], scene["bob"]]
    statuses = []
    barrier = threading.Barrier(2)

    def create(token):
        barrier.wait()
        statuses.append(api.post(f"{R}/branches", token=token,
                                 json={"new_branch_name": "race"}).status)

    threads = [threading.Thread(target=create, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201, 409]
    created = [e for e in drain_outbox() if isinstance(e, events.RefCreated)]
    assert len(created) == 1


def test_delete(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert api.post(f"{R}/branches", token=alice,
                    json={"new_branch_name": "gone/soon"}).status == 201
    drain_outbox()
    assert api.delete(f"{R}/branches/gone/soon", token=carol).status == 403
    assert api.delete(f"{R}/branches/gone/soon", token=alice).status == 204
    assert api.get(f"{R}/branches/gone/soon").status == 404
    assert any(isinstance(e, events.RefDeleted) for e in drain_outbox())
    assert api.delete(f"{R}/branches/gone/soon", token=alice).status == 404
    r = api.delete(f"{R}/branches/main", token=alice)
    assert r.status == 403 and "default branch" in r.json["message"]
    assert "main" in branch_names(api)


def test_rename(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    assert api.post(f"{R}/branches", token=alice, json={"new_branch_name": "old"}).status == 201
    drain_outbox()
    assert api.patch(f"{R}/branches/old", token=carol, json={"name": "new"}).status == 403
    assert api.patch(f"{R}/branches/old", token=bob, json={"name": "new"}).status == 204
    assert branch_names(api) == {"main", "new"}
    raised = drain_outbox()
    assert {type(e) for e in raised} >= {events.RefCreated, events.RefDeleted}
    assert api.patch(f"{R}/branches/old", token=bob, json={"name": "x"}).status == 404
    assert api.patch(f"{R}/branches/new", token=bob, json={"name": "main"}).status == 422
    assert api.patch(f"{R}/branches/new", token=bob, json={"name": "a..b"}).status == 422
    assert api.patch(f"{R}/branches/new", token=bob, json={}).status == 422
    # Renaming the default branch moves the repository's pointer (and HEAD) with it.
    assert api.patch(f"{R}/branches/main", token=alice, json={"name": "trunk"}).status == 204
    assert api.get(R).json["default_branch"] == "trunk"
    assert branch_names(api) == {"trunk", "new"}
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert b"symref=HEAD:refs/heads/trunk" in refs
    assert api.delete(f"{R}/branches/trunk", token=alice).status == 403
