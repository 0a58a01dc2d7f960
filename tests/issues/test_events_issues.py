"""The events every issue tracker write emits: drive each write through the API, then
read what reached the outbox (``drain_outbox``) and check type, action, actor,
repository and the change."""
import pytest

from chalicelib import events
from tests.conftest import drain_outbox, owner_and_writer

R = "/repos/alice/open"


@pytest.fixture
def scene(api):
    """alice owns ``open``; bob is a writer there.  The outbox starts empty."""
    tokens = owner_and_writer(api)
    repo_id = api.get(R, token=tokens["alice"]).json["id"]
    drain_outbox()
    return tokens, repo_id


def tracker_events(kind=(events.IssueChanged, events.IssueCommentChanged, events.LabelChanged,
                         events.TrackedTimeChanged)) -> list:
    return [e for e in drain_outbox() if isinstance(e, kind)]


def assert_about(event, actor: str, repo_id: int) -> None:
    assert event.event_id and event.occurred_at
    assert event.actor["login"] == actor and event.actor_id == event.actor["id"]
    assert "password_hash" not in event.actor
    assert event.repo_id == repo_id and event.repo["id"] == repo_id
    assert event.repo["name"] == "open"


def test_issue_writes(api, scene):
    tokens, repo_id = scene
    bob, alice = tokens["bob"], tokens["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    milestone = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    drain_outbox()

    created = api.post(f"{R}/issues", token=bob, json={"title": "t", "body": "b", "closed": True})
    assert created.status == 201
    opened, closed = tracker_events()
    assert (type(opened), opened.action, closed.action) == (events.IssueChanged, "opened", "closed")
    assert_about(opened, "bob", repo_id)
    assert (opened.number, opened.issue_id, opened.is_pull) == (1, created.json["id"], False)
    assert opened.issue["title"] == "t" and opened.issue["state"] == "closed"

    edit = api.patch(f"{R}/issues/1", token=bob, json={
        "title": "t2", "body": "b2", "state": "open", "milestone": milestone["id"],
        "assignees": ["bob"]})
    assert edit.status == 201
    found = tracker_events()
    assert [e.action for e in found] == ["edited", "reopened", "milestoned", "assigned"]
    assert dict(found[0].changes) == {"title": "t", "body": "b"}
    assert found[-1].issue["title"] == "t2" and found[-1].issue["assignee_ids"] == [
        edit.json["assignee"]["id"]]
    api.patch(f"{R}/issues/1", token=bob, json={"milestone": 0, "assignees": []})
    assert [e.action for e in tracker_events()] == ["demilestoned", "unassigned"]
    # A due date is no Forgejo action, but it is a write: "edited" with no changes.
    api.patch(f"{R}/issues/1", token=bob, json={"due_date": "2030-01-01T00:00:00Z"})
    (due,) = tracker_events()
    assert (due.action, due.changes, due.issue["due"]) == ("edited", (), 1893456000)

    assert api.post(f"{R}/issues/1/labels", token=bob, json={"labels": [label["id"]]}).status == 200
    assert api.put(f"{R}/issues/1/labels", token=bob, json={"labels": ["bug"]}).status == 200
    assert api.delete(f"{R}/issues/1/labels/{label['id']}", token=bob).status == 204
    assert api.delete(f"{R}/issues/1/labels", token=bob).status == 204
    found = tracker_events()
    assert [e.action for e in found] == ["label_updated", "label_updated", "label_cleared",
                                         "label_cleared"]
    assert found[0].issue["label_ids"] == [label["id"]] and found[2].issue["label_ids"] == []

    assert api.delete(f"{R}/issues/1", token=alice).status == 204
    (deleted,) = tracker_events()
    assert (deleted.action, deleted.number, deleted.issue["title"]) == ("deleted", 1, "t2")
    assert_about(deleted, "alice", repo_id)


def test_refused_writes_raise_nothing(api, scene):
    tokens, _ = scene
    bob = tokens["bob"]
    assert api.post(f"{R}/issues", token=bob, json={"title": "x", "milestone": 999}).status == 422
    assert api.post(f"{R}/issues/1/comments", token=bob, json={"body": "x"}).status == 404
    assert api.delete(f"{R}/issues/1", token=tokens["alice"]).status == 404
    assert api.post(f"{R}/labels", token=bob, json={"name": "x", "color": "bad"}).status == 422
    assert tracker_events() == []
    # The refused create burnt no number.
    assert api.post(f"{R}/issues", token=bob, json={"title": "x"}).json["number"] == 1


def test_comment_writes(api, scene):
    tokens, repo_id = scene
    bob, alice = tokens["bob"], tokens["alice"]
    api.post(f"{R}/issues", token=bob, json={"title": "t"})
    drain_outbox()

    comment = api.post(f"{R}/issues/1/comments", token=bob, json={"body": "first"}).json
    (created,) = tracker_events()
    assert isinstance(created, events.IssueCommentChanged) and created.action == "created"
    assert_about(created, "bob", repo_id)
    assert (created.comment_id, created.number, created.is_pull) == (comment["id"], 1, False)
    assert created.comment["body"] == "first" and created.issue["num_comments"] == 1

    api.patch(f"{R}/issues/comments/{comment['id']}", token=bob, json={"body": "second"})
    (edited,) = tracker_events()
    assert (edited.action, edited.body_before, edited.comment["body"]) == \
        ("edited", "first", "second")
    assert edited.issue["number"] == 1
    # An edit that changes nothing writes nothing.
    api.patch(f"{R}/issues/comments/{comment['id']}", token=bob, json={"body": "second"})
    assert tracker_events() == []

    assert api.delete(f"{R}/issues/comments/{comment['id']}", token=alice).status == 204
    (deleted,) = tracker_events()
    assert (deleted.action, deleted.comment["body"], deleted.issue["num_comments"]) == \
        ("deleted", "second", 0)
    assert_about(deleted, "alice", repo_id)


def test_label_and_milestone_writes(api, scene):
    tokens, repo_id = scene
    alice = tokens["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    api.patch(f"{R}/labels/{label['id']}", token=alice, json={"name": "defect"})
    api.delete(f"{R}/labels/{label['id']}", token=alice)
    milestone = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    api.patch(f"{R}/milestones/{milestone['id']}", token=alice, json={"state": "closed"})
    api.delete(f"{R}/milestones/{milestone['id']}", token=alice)
    found = tracker_events()
    assert [(e.kind, e.action) for e in found] == [
        ("label", "created"), ("label", "edited"), ("label", "deleted"),
        ("milestone", "created"), ("milestone", "edited"), ("milestone", "deleted")]
    for event in found:
        assert isinstance(event, events.LabelChanged)
        assert_about(event, "alice", repo_id)
    assert found[0].item_id == label["id"] and found[0].item["name"] == "bug"
    assert found[1].item["name"] == "defect" and found[1].item["color"] == "#ff0000"
    assert found[4].item["state"] == "closed" and found[4].item_id == milestone["id"]


def test_tracked_time_writes(api, scene):
    tokens, repo_id = scene
    bob = tokens["bob"]
    api.post(f"{R}/issues", token=bob, json={"title": "t"})
    drain_outbox()
    added = api.post(f"{R}/issues/1/times", token=bob, json={"time": 60}).json
    api.post(f"{R}/issues/1/times", token=bob, json={"time": 30})
    assert api.delete(f"{R}/issues/1/times/{added['id']}", token=bob).status == 204
    assert api.delete(f"{R}/issues/1/times", token=bob).status == 204
    assert api.delete(f"{R}/issues/1/times", token=bob).status == 204     # nothing left
    found = tracker_events()
    assert [e.action for e in found] == ["added", "added", "deleted", "reset"]
    for event in found:
        assert isinstance(event, events.TrackedTimeChanged)
        assert_about(event, "bob", repo_id)
        assert event.number == 1 and event.user_id == event.actor_id
    assert [t["time"] for t in found[0].times] == [60]
    assert [t["id"] for t in found[2].times] == [added["id"]]
    assert [t["time"] for t in found[3].times] == [30]
