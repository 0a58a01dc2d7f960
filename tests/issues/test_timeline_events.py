"""An issue's timeline events through the API (in-process, under moto): title, state,
label, milestone, assignee and deadline changes made through the API appear in order with
Forgejo's fields; a pushed "Closes #N" leaves a ``close`` naming the commit and a
``commit_ref``; a merged pull request a ``merge_pull`` and the ``close`` it causes; a
redelivered event writes nothing twice; the comments API never sees events; deleting an
issue deletes them.  The real git CLI and the page: tests/issues/test_timeline_git.py."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from chalicelib import clock as nimbus_clock
from chalicelib import events
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.issues import timeline_store
from chalicelib.jobs import consumers
from tests.conftest import drain_outbox
from tests.issues.test_issues import ISSUE_NULLABLE
from tests.pulls.test_pulls import R, branch_to, open_pull, scene  # noqa: F401
from tests.repos.test_events_repos import ZERO
from tests.accounts.test_users import assert_matches_forgejo

T0 = 1_700_000_000
NULLABLE = ("user", "old_milestone", "milestone", "tracked_time", "ref_issue", "ref_comment",
            "label", "assignee", "assignee_team", "resolve_doer", "dependent_issue")


@pytest.fixture
def clock():
    at = SimpleNamespace(now=T0)
    with nimbus_clock.driven_by(lambda: at.now):
        yield at


def timeline(api, token=None, number=1, **query) -> list[dict]:
    path = f"{R}/issues/{number}/timeline"
    if query:
        path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    r = api.get(path, token=token)
    assert r.status == 200, r
    return r.json


def kinds(entries) -> list[str]:
    return [e["type"] for e in entries]


def deliver(found=None) -> list:
    found = drain_outbox() if found is None else found
    for event in found:
        consumers.handle_message(events.to_message(event))
    return found


def check_records(entries) -> None:
    for entry in entries:
        assert set(entry) == set(schemas.RECORDS["TimelineComment"])
        for name in ("ref_issue",):
            if entry[name] is not None:
                issue = dict(entry[name], state={})
                assert_matches_forgejo(issue, "Issue", ISSUE_NULLABLE)
        assert_matches_forgejo(dict(entry, ref_issue=None), "TimelineComment", NULLABLE)


def test_api_changes_appear_in_order_with_forgejos_fields(api, scene, clock):
    alice = scene["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    other = api.post(f"{R}/labels", token=alice, json={"name": "<b>ui</b>",
                                                       "color": "#00ff00"}).json
    v1 = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    v2 = api.post(f"{R}/milestones", token=alice, json={"title": "v2"}).json
    assert api.post(f"{R}/issues", token=alice, json={"title": "Crash"}).status == 201
    steps = [
        ("PATCH", "/issues/1", {"title": "Crash on <start>"}),
        ("POST", "/issues/1/labels", {"labels": [label["id"], other["id"]]}),
        ("DELETE", f"/issues/1/labels/{other['id']}", None),
        ("PATCH", "/issues/1", {"milestone": v1["id"]}),
        ("PATCH", "/issues/1", {"milestone": v2["id"]}),
        ("PATCH", "/issues/1", {"assignees": ["bob"]}),
        ("POST", "/issues/1/comments", {"body": "looking"}),
        ("PATCH", "/issues/1", {"assignees": []}),
        ("PATCH", "/issues/1", {"due_date": "2026-03-01T00:00:00Z"}),
        ("PATCH", "/issues/1", {"state": "closed"}),
        ("PATCH", "/issues/1", {"state": "open"}),
    ]
    for offset, (method, path, body) in enumerate(steps, 1):
        clock.now = T0 + 10 * offset
        r = api.request(method, R + path, token=alice, json=body)
        assert r.status in (200, 201, 204), (path, r)
    entries = timeline(api)
    assert kinds(entries) == ["change_title", "label", "label", "label", "milestone",
                              "milestone", "assignees", "comment", "assignees",
                              "added_deadline", "close", "reopen"]
    check_records(entries)
    title, add_bug, add_ui, remove_ui, m1, m2, assign, _, unassign, due, close, reopen = entries
    assert (title["old_title"], title["new_title"]) == ("Crash", "Crash on <start>")
    assert title["user"]["login"] == "alice"
    assert (title["created_at"], title["updated_at"]) == (rfc3339(T0 + 10), rfc3339(T0 + 10))
    assert (add_bug["label"]["name"], add_bug["body"]) == ("bug", "1")
    assert (add_ui["label"]["name"], remove_ui["label"]["name"], remove_ui["body"]) == (
        "<b>ui</b>", "<b>ui</b>", "")
    assert (m1["milestone"]["title"], m1["old_milestone"]) == ("v1", None)
    assert (m2["milestone"]["title"], m2["old_milestone"]["title"]) == ("v2", "v1")
    assert (assign["assignee"]["login"], assign["removed_assignee"]) == ("bob", False)
    assert (unassign["assignee"]["login"], unassign["removed_assignee"]) == ("bob", True)
    assert due["body"] == "2026-03-01"
    assert (close["ref_commit_sha"], reopen["user"]["login"]) == ("", "alice")
    assert close["issue_url"] == "http://nimbus.test/alice/proj/issues/1"
    assert close["html_url"].endswith(f"#issuecomment-{close['id']}")
    assert len({e["id"] for e in entries}) == len(entries)
    # The comments API shows comments only; since/before and paging apply to events too.
    comments = api.get(f"{R}/issues/1/comments", token=alice).json
    assert [c["body"] for c in comments] == ["looking"]
    assert kinds(timeline(api, since=close["created_at"])) == ["close", "reopen"]
    assert kinds(timeline(api, page=2, limit=5)) == ["milestone", "assignees", "comment",
                                                     "assignees", "added_deadline"]
    # An edit that changes nothing recorded writes no event.
    assert api.patch(f"{R}/issues/1", token=alice, json={"body": "more"}).status == 201
    assert len(timeline(api)) == len(entries)


def test_created_with_labels_and_closed(api, scene, clock):
    alice = scene["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    r = api.post(f"{R}/issues", token=alice, json={"title": "t", "labels": [label["id"]],
                                                   "assignees": ["bob"], "closed": True})
    assert r.status == 201, r
    assert kinds(timeline(api)) == ["close", "label", "assignees"]
    # A deleted label takes its events with it (Forgejo deletes them).
    assert api.delete(f"{R}/labels/{label['id']}", token=alice).status == 204
    assert kinds(timeline(api)) == ["close", "assignees"]


def test_pushed_close_names_the_commit_and_redelivery_writes_nothing(api, scene, clock):
    alice = scene["alice"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "bug"}).status == 201
    clock.now = T0 + 10
    sha = branch_to(api, alice, "main", scene["base"], {"README.md": b"fixed\n"},
                    message="Fix it\n\nCloses #1")
    pushed = deliver()
    assert api.get(f"{R}/issues/1", token=alice).json["state"] == "closed"
    entries = timeline(api)
    assert kinds(entries) == ["commit_ref", "close"]
    check_records(entries)
    ref, close = entries
    assert (ref["ref_commit_sha"], ref["body"], ref["user"]["login"]) == (sha, "Fix it", "alice")
    assert (close["ref_commit_sha"], close["user"]["login"]) == (sha, "alice")
    # The same events again (a redelivery) and the reopened issue stays as it is.
    deliver([e.stamped() for e in pushed])
    assert timeline(api) == entries


def test_merged_pull_request_records_merge_and_close(api, scene, clock):
    alice = scene["alice"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "bug"}).status == 201
    clock.now = T0 + 10
    pull = open_pull(api, alice, body="Closes #1")
    deliver()
    clock.now = T0 + 20
    r = api.post(f"{R}/pulls/{pull['number']}/merge", token=alice,
                 json={"Do": "merge", "delete_branch_after_merge": True})
    assert r.status == 200, r
    merged = deliver()
    deliver()
    merge_sha = api.get(f"{R}/pulls/{pull['number']}", token=alice).json["merge_commit_sha"]
    on_pull = timeline(api, number=pull["number"])
    assert "merge_pull" in kinds(on_pull) and "delete_branch" in kinds(on_pull)
    [deleted] = [e for e in on_pull if e["type"] == "delete_branch"]
    assert deleted["old_ref"] == "feature"
    on_issue = timeline(api)
    assert kinds(on_issue) == ["pull_ref", "close"]
    check_records(on_issue)
    ref, close = on_issue
    assert (ref["ref_issue"]["number"], ref["ref_action"]) == (pull["number"], "closes")
    assert close["ref_commit_sha"] == merge_sha
    deliver([e.stamped() for e in merged])
    assert timeline(api) == on_issue


def test_deleting_the_issue_deletes_its_events(api, scene, clock):
    alice = scene["alice"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "bug"}).status == 201
    assert api.patch(f"{R}/issues/1", token=alice, json={"state": "closed"}).status == 201
    repo_id = api.get(R, token=alice).json["id"]
    assert len(timeline_store.events_of(repo_id, 1)) == 1
    assert api.delete(f"{R}/issues/1", token=alice).status == 204
    assert timeline_store.events_of(repo_id, 1) == []
