"""The issue tracker through the API: issues, comments, labels, milestones, times."""
import threading

import pytest

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo as _assert_matches
from tests.conftest import alice_bob_carol


ISSUE_NULLABLE = ("milestone", "assignee", "assignees", "closed_at", "due_date", "pull_request")
R = "/repos/alice/open"


@pytest.fixture
def people(api):
    """alice owns public ``open`` and private ``secret``; bob is a writer on ``open``;
    carol is a stranger."""
    tokens = alice_bob_carol(api, secret=True)
    return tokens


def assert_matches_forgejo(record: dict, definition: str, nullable=()):
    """As tests.accounts.test_users', but ``state`` is Forgejo's StateType: a $ref to a string."""
    if "state" in record:
        assert record["state"] in ("open", "closed")
        record = dict(record, state={})
    if isinstance(record.get("issue"), dict):
        assert_matches_forgejo(record["issue"], "Issue", ISSUE_NULLABLE)
    _assert_matches(record, definition, nullable)


def new_issue(api, token, title="t", repo=R, **extra):
    r = api.post(f"{repo}/issues", token=token, json={"title": title, **extra})
    assert r.status == 201, r
    return r.json


def repo_counts(api, token, repo=R):
    return api.get(repo, token=token).json["open_issues_count"]


def test_issue_lifecycle_and_record(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert api.post(f"{R}/issues", json={"title": "x"}).status == 401
    assert api.post(f"{R}/issues", token=carol, json={"body": "no title"}).status == 422
    assert api.post(f"{R}/issues", token=carol, json={"title": "  "}).status == 422
    issue = new_issue(api, carol, "Crash on start", body="it @bob crashes")
    assert_matches_forgejo(issue, "Issue", nullable=ISSUE_NULLABLE)
    assert set(issue) == set(schemas.RECORDS["Issue"])
    assert issue["number"] == 1 and issue["state"] == "open" and issue["user"]["login"] == "carol"
    assert issue["html_url"] == "http://nimbus.test/alice/open/issues/1"
    assert issue["url"] == "http://nimbus.test/api/v1/repos/alice/open/issues/1"
    assert issue["repository"] == {"id": issue["repository"]["id"], "name": "open",
                                   "owner": "alice", "full_name": "alice/open"}
    assert issue["labels"] == [] and issue["assignees"] is None and issue["closed_at"] is None
    assert repo_counts(api, alice) == 1

    got = api.get(f"{R}/issues/1")
    assert got.status == 200 and got.json["title"] == "Crash on start"
    assert api.get(f"{R}/issues/99").status == 404
    assert api.get("/repos/alice/secret/issues/1", token=carol).status == 404

    # Only the author or writers edit; edit answers 201.
    edit = api.patch(f"{R}/issues/1", token=carol, json={"title": "Crash at start"})
    assert edit.status == 201 and edit.json["title"] == "Crash at start"
    other = new_issue(api, bob, "bob's")
    assert api.patch(f"{R}/issues/{other['number']}", token=carol,
                     json={"title": "mine"}).status == 403
    closed = api.patch(f"{R}/issues/1", token=bob, json={"state": "closed"})
    assert closed.status == 201 and closed.json["state"] == "closed"
    assert closed.json["closed_at"] is not None
    assert repo_counts(api, alice) == 1
    reopened = api.patch(f"{R}/issues/1", token=carol, json={"state": "open"})
    assert reopened.json["state"] == "open" and reopened.json["closed_at"] is None
    assert repo_counts(api, alice) == 2

    # Non-writers' labels/milestones/assignees are dropped on creation.
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    dropped = new_issue(api, carol, "x", labels=[label["id"]], assignees=["bob"])
    assert dropped["labels"] == [] and dropped["assignees"] is None
    kept = new_issue(api, bob, "y", labels=[label["id"]], assignees=["bob"], closed=True)
    assert [lb["name"] for lb in kept["labels"]] == ["bug"]
    assert kept["assignee"]["login"] == "bob" and kept["state"] == "closed"
    assert api.post(f"{R}/issues", token=bob, json={"title": "z", "assignees": ["carol"]}).status == 422
    assert api.post(f"{R}/issues", token=bob, json={"title": "z", "milestone": 12345}).status == 422


def test_list_paging_state_and_filters(api, people):
    alice, bob = people["alice"], people["bob"]
    for n in range(1, 8):
        new_issue(api, bob, f"issue {n}", body="needle" if n % 2 else "hay")
    for n in (2, 4):
        assert api.patch(f"{R}/issues/{n}", token=bob, json={"state": "closed"}).status == 201
    r = api.get(f"{R}/issues?limit=2")
    assert r.status == 200 and r.headers["x-total-count"] == "5"
    assert [i["number"] for i in r.json] == [7, 6]
    assert 'rel="next"' in r.headers["link"]
    assert [i["number"] for i in api.get(f"{R}/issues?limit=2&page=3").json] == [1]
    assert api.get(f"{R}/issues?limit=2&page=9").json == []
    closed = api.get(f"{R}/issues?state=closed")
    assert [i["number"] for i in closed.json] == [4, 2] and closed.headers["x-total-count"] == "2"
    everything = api.get(f"{R}/issues?state=all&limit=3&page=2")
    assert [i["number"] for i in everything.json] == [4, 3, 2]
    assert everything.headers["x-total-count"] == "7"
    assert [i["number"] for i in api.get(f"{R}/issues?state=all&type=issues&limit=50").json] == \
        [7, 6, 5, 4, 3, 2, 1]
    assert api.get(f"{R}/issues?type=pulls").json == []
    found = api.get(f"{R}/issues?q=needle&state=all")
    assert [i["number"] for i in found.json] == [7, 5, 3, 1]
    assert found.headers["x-total-count"] == "4"
    assert api.get(f"{R}/issues?created_by=alice").json == []
    assert len(api.get(f"{R}/issues?created_by=bob&state=all").json) == 7
    assert api.get(f"{R}/issues?since=junk").status == 422
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "00ff00"}).json
    assert api.post(f"{R}/issues/3/labels", token=bob, json={"labels": [label["id"]]}).status == 200
    assert [i["number"] for i in api.get(f"{R}/issues?labels=bug").json] == [3]
    m = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    assert api.patch(f"{R}/issues/5", token=bob, json={"milestone": m["id"]}).status == 201
    assert [i["number"] for i in api.get(f"{R}/issues?milestones=v1").json] == [5]


def test_numbers_are_distinct_and_consecutive_under_parallel_creation(api, people):
    """32 threads create issues at once through the in-process handler.  moto's DynamoDB
    backend has no locking of its own, so the test serialises moto's request handling
    (not ours) with a lock: the counter's atomicity is DynamoDB's, which moto models per
    request."""
    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.Lock()
    original = BotocoreStubber.__call__

    def serialised(self, *args, **kwargs):
        with lock:
            return original(self, *args, **kwargs)

    BotocoreStubber.__call__ = serialised
    results, errors = [], []
    try:
        def create(i):
            try:
                r = api.post(f"{R}/issues", token=people["bob"], json={"title": f"p{i}"})
                (results if r.status == 201 else errors).append(r.json["number"] if r.status == 201 else r)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=create, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        BotocoreStubber.__call__ = original
    assert not errors, errors[:3]
    assert sorted(results) == list(range(1, 33))
    assert repo_counts(api, people["alice"]) == 32
    assert api.get(f"{R}/issues").headers["x-total-count"] == "32"


def test_comments(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    new_issue(api, carol, "a")
    new_issue(api, carol, "b")
    assert api.post(f"{R}/issues/1/comments", token=carol, json={}).status == 422
    assert api.post(f"{R}/issues/9/comments", token=carol, json={"body": "x"}).status == 404
    c1 = api.post(f"{R}/issues/1/comments", token=carol, json={"body": "first"})
    assert c1.status == 201
    assert_matches_forgejo(c1.json, "Comment")
    assert set(c1.json) == set(schemas.RECORDS["Comment"])
    assert c1.json["issue_url"] == "http://nimbus.test/alice/open/issues/1"
    assert c1.json["html_url"].endswith(f"/issues/1#issuecomment-{c1.json['id']}")
    c2 = api.post(f"{R}/issues/2/comments", token=bob, json={"body": "second"}).json
    api.post(f"{R}/issues/1/comments", token=bob, json={"body": "third"})
    assert api.get(f"{R}/issues/1").json["comments"] == 2
    listed = api.get(f"{R}/issues/1/comments")
    assert [c["body"] for c in listed.json] == ["first", "third"]
    assert api.get(f"{R}/issues/7/comments").status == 404
    repo_wide = api.get(f"{R}/issues/comments?limit=2")
    assert [c["body"] for c in repo_wide.json] == ["first", "second"]
    assert repo_wide.headers["x-total-count"] == "3"
    assert api.get(f"{R}/issues/comments?since=2000-01-01T00:00:00Z").headers["x-total-count"] == "3"
    assert api.get(f"{R}/issues/comments?before=2000-01-01T00:00:00Z").json == []
    assert api.get(f"{R}/issues/comments/{c2['id']}").json["body"] == "second"

    cid = c1.json["id"]
    assert api.patch(f"{R}/issues/comments/{cid}", token=bob, json={"body": "hack"}).status == 403
    edited = api.patch(f"{R}/issues/comments/{cid}", token=carol, json={"body": "edited"})
    assert edited.status == 200 and edited.json["body"] == "edited"
    # The deprecated route ignores {index}.
    assert api.patch(f"{R}/issues/999/comments/{cid}", token=alice,
                     json={"body": "by admin"}).json["body"] == "by admin"
    assert api.delete(f"{R}/issues/comments/{cid}", token=bob).status == 403
    assert api.delete(f"{R}/issues/55/comments/{cid}", token=alice).status == 204
    assert api.delete(f"{R}/issues/comments/{cid}", token=alice).status == 404
    assert api.get(f"{R}/issues/1").json["comments"] == 1
    assert api.get(f"{R}/issues/comments").headers["x-total-count"] == "2"


def test_labels(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert api.post(f"{R}/labels", token=carol, json={"name": "x", "color": "#000000"}).status == 403
    for color in ("red", "#12345", "1234567", "#gg0000", ""):
        assert api.post(f"{R}/labels", token=alice, json={"name": "x", "color": color}).status == 422
    assert api.post(f"{R}/labels", token=alice, json={"color": "#000000"}).status == 422
    bug = api.post(f"{R}/labels", token=bob, json={"name": "bug", "color": "#EE0701",
                                                   "description": "broken"})
    assert bug.status == 201 and bug.json["color"] == "ee0701"
    assert_matches_forgejo(bug.json, "Label")
    assert set(bug.json) == set(schemas.RECORDS["Label"])
    high = api.post(f"{R}/labels", token=alice, json={"name": "prio/high", "color": "ff0000",
                                                      "exclusive": True}).json
    low = api.post(f"{R}/labels", token=alice, json={"name": "prio/low", "color": "00ff00",
                                                     "exclusive": True}).json
    assert [lb["name"] for lb in api.get(f"{R}/labels").json] == ["bug", "prio/high", "prio/low"]
    assert api.get(f"{R}/labels/{high['id']}").json["exclusive"] is True
    assert api.get(f"{R}/labels/424242").status == 404
    assert api.patch(f"{R}/labels/{bug.json['id']}", token=alice,
                     json={"color": "nope"}).status == 422
    renamed = api.patch(f"{R}/labels/{bug.json['id']}", token=alice, json={"name": "defect"})
    assert renamed.status == 200 and renamed.json["name"] == "defect"

    new_issue(api, carol, "i")
    assert api.get(f"{R}/issues/5/labels").status == 404
    assert api.post(f"{R}/issues/1/labels", token=carol, json={"labels": [high["id"]]}).status == 403
    added = api.post(f"{R}/issues/1/labels", token=bob, json={"labels": [high["id"], "defect"]})
    assert added.status == 200 and {lb["name"] for lb in added.json} == {"defect", "prio/high"}
    # Exclusive scope: prio/low replaces prio/high.
    swapped = api.post(f"{R}/issues/1/labels", token=bob, json={"labels": [low["id"]]})
    assert {lb["name"] for lb in swapped.json} == {"defect", "prio/low"}
    replaced = api.put(f"{R}/issues/1/labels", token=bob, json={"labels": [high["id"]]})
    assert [lb["name"] for lb in replaced.json] == ["prio/high"]
    assert api.delete(f"{R}/issues/1/labels/777777", token=bob).status == 422
    assert api.delete(f"{R}/issues/1/labels/{high['id']}", token=bob).status == 204
    assert api.get(f"{R}/issues/1/labels").json == []
    api.post(f"{R}/issues/1/labels", token=bob, json={"labels": [low["id"], bug.json["id"]]})
    assert api.delete(f"{R}/labels/{low['id']}", token=carol).status == 403
    assert api.delete(f"{R}/labels/{low['id']}", token=alice).status == 204
    assert [lb["name"] for lb in api.get(f"{R}/issues/1").json["labels"]] == ["defect"]
    assert api.delete(f"{R}/issues/1/labels", token=bob).status == 204
    assert api.get(f"{R}/issues/1/labels").json == []


def test_milestones_and_their_counts(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert api.post(f"{R}/milestones", token=carol, json={"title": "v1"}).status == 403
    m = api.post(f"{R}/milestones", token=alice, json={"title": "v1", "description": "first",
                                                       "due_on": "2030-01-02T03:04:05Z"})
    assert m.status == 201
    assert_matches_forgejo(m.json, "Milestone", nullable=("closed_at", "due_on"))
    assert set(m.json) == set(schemas.RECORDS["Milestone"])
    assert m.json["due_on"] == "2030-01-02T03:04:05Z" and m.json["closed_at"] is None
    mid = m.json["id"]
    for title in ("a", "b", "c"):
        new_issue(api, bob, title, milestone=mid)
    api.patch(f"{R}/issues/2", token=bob, json={"state": "closed"})
    got = api.get(f"{R}/milestones/{mid}").json
    assert (got["open_issues"], got["closed_issues"]) == (2, 1)
    assert api.get(f"{R}/milestones/v1").json["id"] == mid
    assert api.get(f"{R}/issues/1").json["milestone"]["open_issues"] == 2
    api.patch(f"{R}/issues/1", token=bob, json={"milestone": 0})
    got = api.get(f"{R}/milestones/{mid}").json
    assert (got["open_issues"], got["closed_issues"]) == (1, 1)
    closed = api.patch(f"{R}/milestones/{mid}", token=alice, json={"state": "closed"})
    assert closed.status == 200 and closed.json["state"] == "closed"
    assert closed.json["open_issues"] == 1 and closed.json["closed_at"] is not None
    assert api.get(f"{R}/milestones").json == []
    assert [x["title"] for x in api.get(f"{R}/milestones?state=closed").json] == ["v1"]
    assert len(api.get(f"{R}/milestones?state=all").json) == 1
    assert api.delete(f"{R}/milestones/{mid}", token=carol).status == 403
    assert api.delete(f"{R}/milestones/{mid}", token=alice).status == 204
    assert api.get(f"{R}/milestones/{mid}").status == 404
    assert api.get(f"{R}/issues/3").json["milestone"] is None
    assert api.patch(f"{R}/issues/3", token=bob, json={"state": "closed"}).status == 201


def test_tracked_times(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    new_issue(api, bob, "work")
    url = f"{R}/issues/1/times"
    assert api.post(url, token=carol, json={"time": 60}).status == 403
    for bad in (-5, 0, "ten", 1.5):
        assert api.post(url, token=bob, json={"time": bad}).status == 400, bad
    added = api.post(url, token=bob, json={"time": 3600})
    assert added.status == 200
    assert_matches_forgejo(added.json, "TrackedTime")
    assert set(added.json) == set(schemas.RECORDS["TrackedTime"])
    assert added.json["time"] == 3600 and added.json["user_name"] == "bob"
    assert added.json["issue"]["number"] == 1
    api.post(url, token=alice, json={"time": 60})
    listed = api.get(url, token=bob)
    assert listed.status == 200 and listed.headers["x-total-count"] == "2"
    assert [t["user_name"] for t in api.get(url + "?user=alice", token=alice).json] == ["alice"]
    assert api.get(url, token=carol).json == []            # only their own
    assert api.get(url + "?user=bob", token=carol).status == 403
    assert api.delete(f"{url}/{added.json['id']}", token=carol).status == 403
    assert api.delete(f"{url}/999999", token=bob).status == 404
    assert api.delete(f"{url}/{added.json['id']}", token=bob).status == 204
    assert api.delete(url, token=alice).status == 204
    assert api.get(url, token=alice).json == []


def test_delete_issue_and_events(api, people):
    from chalicelib import events
    from tests.conftest import drain_outbox

    alice, bob = people["alice"], people["bob"]
    drain_outbox()
    new_issue(api, bob, "doomed")
    api.post(f"{R}/issues/1/comments", token=bob, json={"body": "c"})
    api.patch(f"{R}/issues/1", token=bob, json={"title": "doomed!", "state": "closed"})
    assert api.delete(f"{R}/issues/1", token=bob).status == 403
    assert api.delete(f"{R}/issues/1", token=alice).status == 204
    assert api.get(f"{R}/issues/1").status == 404
    assert api.get(f"{R}/issues/comments").json == []
    assert api.get(f"{R}/issues?state=all").headers["x-total-count"] == "0"
    assert new_issue(api, bob, "next")["number"] == 2
    seen = [("issues" if isinstance(e, events.IssueChanged) else "comment", e.action)
            for e in drain_outbox()
            if isinstance(e, (events.IssueChanged, events.IssueCommentChanged))]
    assert seen == [("issues", "opened"), ("comment", "created"), ("issues", "edited"),
                    ("issues", "closed"), ("issues", "deleted"), ("issues", "opened")]


def test_private_repository_and_scopes(api, people):
    alice, carol = people["alice"], people["carol"]
    assert api.get("/repos/alice/secret/issues", token=carol).status == 404
    assert api.post("/repos/alice/secret/issues", token=carol, json={"title": "x"}).status == 404
    assert api.get("/repos/alice/secret/issues", token=alice).json == []
    read_only = api.create_token("carol", scopes=("read:issue", "read:repository"), name="ro")
    assert api.get(f"{R}/issues", token=read_only).status == 200
    assert api.post(f"{R}/issues", token=read_only, json={"title": "x"}).status == 403


def test_lists_keep_creation_order_across_id_blocks(api, people, monkeypatch):
    """Ids come from per-process blocks, so a later comment may have a smaller id (another
    Lambda instance's block): lists that promise creation order sort by creation time,
    then id, and comments stored before the time was in the index key still come first."""
    from chalicelib import clock
    from chalicelib.store import ids
    from chalicelib.issues.store import ikeys
    from chalicelib.issues.models import Comment

    bob = people["bob"]
    repo_id = api.get(R, token=bob).json["id"]
    new_issue(api, bob, "a")
    new_issue(api, bob, "b")
    legacy = api.post(f"{R}/issues/2/comments", token=bob, json={"body": "legacy"}).json
    # As written before the creation time led the index key: the bare id.
    Comment(*ikeys.comment(repo_id, 2, legacy["id"])).update(
        actions=[Comment.gsi1sk.set(f"{legacy['id']:015d}")])

    original = ids.next_id
    handed = iter([900, 500, 100])     # a high block first, then lower ones
    monkeypatch.setattr(ids, "next_id",
                        lambda seq: next(handed) if seq == "comment" else original(seq))
    with clock.frozen(2_000_000_000) as instant:     # one second between comments
        for number, body in ((1, "first"), (2, "second"), (1, "third")):
            assert api.post(f"{R}/issues/{number}/comments", token=bob,
                            json={"body": body}).status == 201
            instant.advance(1)
    assert [c["body"] for c in api.get(f"{R}/issues/1/comments").json] == ["first", "third"]
    assert [c["body"] for c in api.get(f"{R}/issues/comments").json] == \
        ["legacy", "first", "second", "third"]
    assert [c["body"] for c in api.get(f"{R}/issues/comments?limit=2&page=2").json] == \
        ["second", "third"]

    times = f"{R}/issues/1/times"
    for seconds, created in ((1, "2024-01-02T00:00:00Z"), (2, "2024-01-01T00:00:00Z")):
        assert api.post(times, token=bob, json={"time": seconds, "created": created}).status == 200
    listed = api.get(times, token=bob).json
    assert [t["time"] for t in listed] == [2, 1] and listed[0]["id"] > listed[1]["id"]
