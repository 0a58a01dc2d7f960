"""Issue dependencies and blocks through the API (under moto): both sides of an edge,
other repositories, private ones, refusals, the close rule and the timeline."""
import pytest

from chalicelib.http import schemas
from tests.conftest import alice_bob_carol
from tests.issues.test_issues import ISSUE_NULLABLE, assert_matches_forgejo, new_issue

R = "/repos/alice/open"
S = "/repos/alice/secret"


@pytest.fixture
def people(api):
    """alice owns public ``open`` (bob writes) and private ``secret``; carol is a
    stranger.  Issues 1, 2, 3 in ``open``, 1 in ``secret``."""
    tokens = alice_bob_carol(api, secret=True)
    for title in ("one", "two", "three"):
        new_issue(api, tokens["alice"], title)
    new_issue(api, tokens["alice"], "hidden", repo=S)
    return tokens


def meta(index, repo="open", owner="alice"):
    return {"owner": owner, "repo": repo, "index": index}


def numbers(response):
    assert response.status == 200, response
    return [(i["repository"]["full_name"], i["number"]) for i in response.json]


def test_depend_list_and_remove_from_both_sides(api, people):
    alice, bob = people["alice"], people["bob"]
    added = api.post(f"{R}/issues/1/dependencies", token=bob, json=meta(2))
    assert added.status == 201, added
    assert added.json["number"] == 1       # the path's issue
    assert_matches_forgejo(added.json, "Issue", ISSUE_NULLABLE)
    assert set(added.json) == set(schemas.RECORDS["Issue"])
    # 3 blocks 1, from the blocker's side.
    blocked = api.post(f"{R}/issues/3/blocks", token=alice, json=meta(1))
    assert blocked.status == 201 and blocked.json["number"] == 3

    assert numbers(api.get(f"{R}/issues/1/dependencies")) == [("alice/open", 2),
                                                              ("alice/open", 3)]
    assert numbers(api.get(f"{R}/issues/2/blocks")) == [("alice/open", 1)]
    assert numbers(api.get(f"{R}/issues/3/blocks", token=bob)) == [("alice/open", 1)]
    assert numbers(api.get(f"{R}/issues/1/blocks")) == []
    assert "X-Total-Count" not in api.get(f"{R}/issues/1/dependencies").headers
    # Paged: one per page.
    assert numbers(api.get(f"{R}/issues/1/dependencies?limit=1&page=2")) == [("alice/open", 3)]
    assert numbers(api.get(f"{R}/issues/1/dependencies?limit=1&page=3")) == []

    # Removed from the other side each time.
    gone = api.delete(f"{R}/issues/2/blocks", token=bob, json=meta(1))
    assert gone.status == 201 and gone.json["number"] == 2
    gone = api.delete(f"{R}/issues/1/dependencies", token=bob, json=meta(3))
    assert gone.status == 201 and gone.json["number"] == 1
    assert numbers(api.get(f"{R}/issues/1/dependencies")) == []
    assert numbers(api.get(f"{R}/issues/3/blocks")) == []
    again = api.delete(f"{R}/issues/1/dependencies", token=bob, json=meta(3))
    assert again.status == 404
    assert "issue dependency does not exist" in again.json["errors"][0]


def test_refusals(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert api.post(f"{R}/issues/1/dependencies", json=meta(2)).status == 401
    # A reader who cannot write the blocked issue's repository: 404, as Forgejo hides it.
    assert api.post(f"{R}/issues/1/dependencies", token=carol, json=meta(2)).status == 404
    assert api.post(f"{R}/issues/2/blocks", token=carol, json=meta(1)).status == 404
    self_dep = api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(1))
    assert self_dep.status == 422
    assert api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(99)).status == 404
    assert api.post(f"{R}/issues/99/dependencies", token=alice, json=meta(1)).status == 404
    assert api.post(f"{R}/issues/1/dependencies", token=alice,
                    json=meta(2, repo="nope")).status == 404
    assert api.post(f"{R}/issues/1/dependencies", token=alice, json={}).status == 404
    assert api.post(f"{R}/issues/1/dependencies", token=alice,
                    json={"index": "two"}).status == 422
    assert api.post(f"{R}/issues/1/dependencies", token=alice, body=b"[1]",
                    headers={"Content-Type": "application/json"}).status in (400, 422)

    assert api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(2)).status == 201
    duplicate = api.post(f"{R}/issues/2/blocks", token=bob, json=meta(1))
    assert duplicate.status == 409
    assert "issue dependency does already exist" in duplicate.json["message"]
    circular = api.post(f"{R}/issues/2/dependencies", token=bob, json=meta(1))
    assert circular.status == 409
    assert "circular dependencies exists" in circular.json["message"]
    assert numbers(api.get(f"{R}/issues/2/dependencies")) == []


def test_private_repositories_and_cross_repo(api, people):
    alice, bob = people["alice"], people["bob"]
    # bob cannot see alice/secret: naming its issue is a 404, and so is its path.
    assert api.post(f"{R}/issues/1/dependencies", token=bob,
                    json=meta(1, repo="secret")).status == 404
    assert api.get(f"{S}/issues/1/dependencies", token=bob).status == 404
    assert api.get(f"{S}/issues/1/blocks").status == 404
    # alice makes open#1 depend on secret#1: across repositories.
    added = api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(1, repo="secret"))
    assert added.status == 201, added
    assert numbers(api.get(f"{R}/issues/1/dependencies", token=alice)) == [("alice/secret", 1)]
    assert numbers(api.get(f"{S}/issues/1/blocks", token=alice)) == [("alice/open", 1)]
    # Others read open#1 but not what it depends on.
    assert numbers(api.get(f"{R}/issues/1/dependencies", token=bob)) == []
    assert numbers(api.get(f"{R}/issues/1/dependencies")) == []
    # Closing open#1 is refused while secret#1 is open, for bob too.
    refused = api.patch(f"{R}/issues/1", token=bob, json={"state": "closed"})
    assert refused.status == 412
    assert refused.json["message"] == \
        "cannot close this issue because it still has open dependencies"
    # Removed from the blocker's side, in the private repository.
    assert api.delete(f"{S}/issues/1/blocks", token=alice,
                      json=meta(1, repo="open")).status == 201
    assert numbers(api.get(f"{R}/issues/1/dependencies", token=alice)) == []


def test_close_refused_while_dependencies_are_open(api, people):
    alice = people["alice"]
    assert api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(2)).status == 201
    refused = api.patch(f"{R}/issues/1", token=alice, json={"state": "closed", "title": "new"})
    assert refused.status == 412
    issue = api.get(f"{R}/issues/1").json
    assert issue["state"] == "open" and issue["title"] == "one"   # nothing half-written
    # The blocker may close; then the blocked one may.
    assert api.patch(f"{R}/issues/2", token=alice, json={"state": "closed"}).status == 201
    assert api.patch(f"{R}/issues/1", token=alice, json={"state": "closed"}).status == 201
    # Reopening is never refused.
    assert api.patch(f"{R}/issues/2", token=alice, json={"state": "open"}).status == 201


def test_timeline_and_record_flag(api, people):
    alice = people["alice"]
    repo = api.get(R, token=alice).json
    assert repo["internal_tracker"]["enable_issue_dependencies"] is True
    assert api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(2)).status == 201
    assert api.delete(f"{R}/issues/1/dependencies", token=alice, json=meta(2)).status == 201
    for number, other in ((1, 2), (2, 1)):
        found = api.get(f"{R}/issues/{number}/timeline", token=alice)
        assert found.status == 200
        events = [e for e in found.json if e["type"] in ("add_dependency", "remove_dependency")]
        assert [e["type"] for e in events] == ["add_dependency", "remove_dependency"]
        for event in events:
            assert event["dependent_issue"]["number"] == other
            assert event["user"]["login"] == "alice"
            assert_matches_forgejo(event["dependent_issue"], "Issue", ISSUE_NULLABLE)
    # The issue's page says it in words, naming the other issue (escaped).
    page = api.get("/alice/open/issues/1", raw=True).body.decode()
    assert "added a new dependency" in page and "removed a dependency" in page
    assert "alice/open#2 two" in page


def test_deleted_issue_leaves_the_lists(api, people):
    alice = people["alice"]
    assert api.post(f"{R}/issues/1/dependencies", token=alice, json=meta(2)).status == 201
    assert api.delete(f"{R}/issues/2", token=alice).status == 204
    assert numbers(api.get(f"{R}/issues/1/dependencies")) == []
    assert api.patch(f"{R}/issues/1", token=alice, json={"state": "closed"}).status == 201
