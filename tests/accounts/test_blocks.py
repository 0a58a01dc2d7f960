"""Blocking through the API, end to end under moto: a blocked user's issue, comment,
pull request, star, watch, follow and collaboration are refused with Forgejo's 403 and
message, and unblocking restores them; a block ends follows; the lists and their
records; organizations."""
from __future__ import annotations

import pytest

from chalicelib import clock
from chalicelib.http import schemas
from tests.pulls.test_pulls import push_main_and_feature

R = "/repos/alice/proj"
BLOCKED = "user is blocked by the poster or repository owner"


@pytest.fixture
def people(api):
    """alice owns public ``proj`` (``main`` and ``feature``) with carol's issue #1; bob is
    the one she will block."""
    tokens, ids = {}, {}
    for name in ("alice", "bob", "carol"):
        ids[name] = api.create_user(name)["id"]
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "proj"}).status == 201
    push_main_and_feature(api, tokens["alice"], "proj")
    assert api.post(f"{R}/issues", token=tokens["carol"], json={"title": "c"}).status == 201
    return tokens, ids


def bobs_actions(api, tokens):
    """Each action a block refuses, as (name, response)."""
    bob, alice = tokens["bob"], tokens["alice"]
    return [
        ("issue", api.post(f"{R}/issues", token=bob, json={"title": "hello"})),
        ("comment", api.post(f"{R}/issues/1/comments", token=bob, json={"body": "hi"})),
        ("pull", api.post(f"{R}/pulls", token=bob, json={"head": "feature", "base": "main",
                                                          "title": "add a"})),
        ("star", api.put("/user/starred/alice/proj", token=bob)),
        ("watch", api.put(f"{R}/subscription", token=bob)),
        ("collaborator", api.put(f"{R}/collaborators/bob", token=alice,
                                 json={"permission": "write"})),
        ("follow", api.put("/user/following/alice", token=bob)),
    ]


def test_a_block_refuses_and_an_unblock_restores(api, people):
    tokens, ids = people
    assert api.put("/user/following/alice", token=tokens["bob"]).status == 204
    assert api.put("/user/block/bob", token=tokens["alice"]).status == 204
    assert api.get("/users/bob/following").json == []        # the block ended it
    for name, resp in bobs_actions(api, tokens):
        assert resp.status == 403, (name, resp)
        assert resp.json["message"] == BLOCKED, (name, resp)
    assert api.get(f"{R}/issues/1/comments").json == []
    assert api.get("/repos/alice/proj/stargazers").json == []
    assert api.get(f"{R}/collaborators", token=tokens["alice"]).json == []

    assert api.put("/user/unblock/bob", token=tokens["alice"]).status == 204
    done = dict(bobs_actions(api, tokens))
    assert {name: r.status for name, r in done.items()} == {
        "issue": 201, "comment": 201, "pull": 201, "star": 204, "watch": 200,
        "collaborator": 204, "follow": 204}


def test_the_list_its_records_and_paging(api, people):
    tokens, ids = people
    alice = tokens["alice"]
    with clock.frozen() as now:      # in the order they were made, a second apart
        for name in ("carol", "bob", "bob"):
            assert api.put(f"/user/block/{name}", token=alice).status == 204
            now.advance(1)
    listed = api.get("/user/list_blocked", token=alice)
    assert listed.status == 200
    assert [r["block_id"] for r in listed.json] == [ids["carol"], ids["bob"]]
    assert all(set(r) == set(schemas.RECORDS["BlockedUser"]) for r in listed.json)
    assert listed.json[0]["created_at"].endswith("Z")
    assert listed.headers["x-total-count"] == "2"
    page = api.get("/user/list_blocked?limit=1&page=2", token=alice).json
    assert [r["block_id"] for r in page] == [ids["bob"]]
    assert api.get("/user/list_blocked", token=tokens["bob"]).json == []


def test_bad_requests_answer_forgejo_shapes(api, people):
    tokens, _ = people
    alice = tokens["alice"]
    assert api.put("/user/block/bob").status == 401
    assert api.get("/user/list_blocked").status == 401
    missing = api.put("/user/block/nobody", token=alice)
    assert missing.status == 404 and "message" in missing.json
    for name in ("alice", "root"):
        refused = api.put(f"/user/block/{name}", token=alice)
        assert refused.status == 422 and refused.json["message"], refused
    assert api.put("/user/unblock/carol", token=alice).status == 204    # not blocked


def test_an_organization_blocks_for_its_repositories(api, people):
    tokens, ids = people
    alice, bob, carol = tokens["alice"], tokens["bob"], tokens["carol"]
    assert api.post("/orgs", token=alice, json={"username": "corp"}).status == 201
    assert api.post("/orgs/corp/repos", token=alice, json={"name": "tool"}).status == 201
    refused = api.put("/orgs/corp/block/bob", token=carol)
    assert refused.status == 403 and refused.json["message"] == "Must be an organization owner"
    assert api.get("/orgs/corp/list_blocked", token=carol).status == 403
    assert api.put("/orgs/nowhere/block/bob", token=alice).status == 404
    assert api.put("/orgs/corp/block/corp", token=alice).status == 422

    assert api.put("/orgs/corp/block/bob", token=alice).status == 204
    assert [r["block_id"] for r in api.get("/orgs/corp/list_blocked", token=alice).json] == \
        [ids["bob"]]
    starred = api.put("/user/starred/corp/tool", token=bob)
    assert starred.status == 403 and starred.json["message"] == BLOCKED
    assert api.put("/user/starred/alice/proj", token=bob).status == 204   # alice did not
    assert api.put("/orgs/corp/unblock/bob", token=alice).status == 204
    assert api.get("/orgs/corp/list_blocked", token=alice).json == []
    assert api.put("/user/starred/corp/tool", token=bob).status == 204
