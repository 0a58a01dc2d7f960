"""An issue's timeline through the API (issueGetCommentsAndTimeline): comments, reviews,
review requests and dismissals in order, time filters, paging, who sees what."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from chalicelib import clock as nimbus_clock

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo
from tests.pulls.test_pulls import R, open_pull, scene  # noqa: F401

T0 = 1_700_000_000
NULLABLE = ("user", "old_milestone", "milestone", "tracked_time", "ref_issue", "ref_comment",
            "label", "assignee", "assignee_team", "resolve_doer", "dependent_issue")


@pytest.fixture
def clock():
    """The time comments and reviews are stamped with, set by the test (entries made in
    one second would otherwise order by ids from two counters)."""
    at = SimpleNamespace(now=T0)
    with nimbus_clock.driven_by(lambda: at.now):
        yield at


def _stamp(offset: int) -> str:
    from chalicelib.http.formats import rfc3339
    return rfc3339(T0 + offset)


def _timeline(api, token=None, number=1, **query):
    path = f"{R}/issues/{number}/timeline"
    if query:
        path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return api.get(path, token=token)


def _history(api, scene, clock) -> dict:
    """Pull request 1: carol's comment (+10), bob asked (+20), bob approves (+30), alice
    dismisses it (+40), alice's comment (+50), alice's pending review (+60)."""
    open_pull(api, scene["carol"])
    clock.now = T0 + 10
    first = api.post(f"{R}/issues/1/comments", token=scene["carol"], json={"body": "first"})
    assert first.status == 201, first
    clock.now = T0 + 20
    assert api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                    json={"reviewers": ["bob"]}).status == 201
    clock.now = T0 + 30
    approved = api.post(f"{R}/pulls/1/reviews", token=scene["bob"],
                        json={"event": "APPROVED", "body": "lgtm"})
    assert approved.status == 200, approved
    clock.now = T0 + 40
    assert api.post(f"{R}/pulls/1/reviews/{approved.json['id']}/dismissals",
                    token=scene["alice"], json={"message": "outdated"}).status == 200
    clock.now = T0 + 50
    assert api.post(f"{R}/issues/1/comments", token=scene["alice"],
                    json={"body": "last"}).status == 201
    clock.now = T0 + 60
    pending = api.post(f"{R}/pulls/1/reviews", token=scene["alice"], json={"body": "draft"})
    assert pending.status == 200 and pending.json["state"] == "PENDING", pending
    return {"comment": first.json["id"], "review": approved.json["id"],
            "pending": pending.json["id"]}


def test_comments_reviews_requests_and_dismissals_in_order(api, scene, clock):
    made = _history(api, scene, clock)
    r = _timeline(api, scene["carol"])
    assert r.status == 200, r
    got = r.json
    assert [e["type"] for e in got] == ["comment", "review_request", "review",
                                        "dismiss_review", "comment"]
    assert r.headers["x-total-count"] == "5"
    for entry in got:
        assert set(entry) == set(schemas.RECORDS["TimelineComment"])
        assert_matches_forgejo(entry, "TimelineComment", NULLABLE)
        assert entry["pull_request_url"] == "http://nimbus.test/alice/proj/pulls/1"
        assert entry["issue_url"] == ""
    comment, asked, review, dismissal, last = got
    assert comment["id"] == made["comment"] and comment["body"] == "first"
    assert comment["user"]["login"] == "carol" and comment["created_at"] == _stamp(10)
    assert comment["review_id"] == 0 and comment["assignee"] is None
    assert asked["assignee"]["login"] == "bob" and asked["assignee_team"] is None
    assert asked["created_at"] == _stamp(20) and asked["review_id"] > 0
    assert review["review_id"] == made["review"] and review["body"] == "lgtm"
    assert review["user"]["login"] == "bob" and review["created_at"] == _stamp(30)
    assert dismissal["review_id"] == made["review"] and dismissal["created_at"] == _stamp(40)
    assert last["body"] == "last" and last["user"]["login"] == "alice"
    # The comment list still shows the comments alone.
    assert [c["body"] for c in api.get(f"{R}/issues/1/comments").json] == ["first", "last"]


def test_a_pending_review_shows_to_its_author_only(api, scene, clock):
    made = _history(api, scene, clock)
    mine = _timeline(api, scene["alice"]).json
    assert [e["type"] for e in mine][-1] == "review"
    assert mine[-1]["review_id"] == made["pending"] and mine[-1]["body"] == "draft"
    for token in (None, scene["bob"], scene["carol"]):
        others = _timeline(api, token).json
        assert made["pending"] not in [e["review_id"] for e in others]
        assert len(others) == 5


def test_time_filters_and_paging(api, scene, clock):
    _history(api, scene, clock)
    early = _timeline(api, scene["carol"], before=_stamp(25)).json
    assert [e["type"] for e in early] == ["comment", "review_request"]
    late = _timeline(api, scene["carol"], since=_stamp(45)).json
    assert [(e["type"], e["body"]) for e in late] == [("comment", "last")]
    assert _timeline(api, scene["carol"], since="yesterday").status == 422
    page = _timeline(api, scene["carol"], limit=2, page=2)
    assert page.status == 200
    assert [e["type"] for e in page.json] == ["review", "dismiss_review"]
    assert page.headers["x-total-count"] == "5"
    assert 'rel="next"' in page.headers["link"] and 'rel="prev"' in page.headers["link"]
    tail = _timeline(api, scene["carol"], limit=2, page=3).json
    assert [e["body"] for e in tail] == ["last"]


def test_an_issue_shows_its_comments_and_private_repositories_hide_it(api, scene, clock):
    assert api.post(f"{R}/issues", token=scene["carol"], json={"title": "bug"}).status == 201
    clock.now = T0 + 5
    assert api.post(f"{R}/issues/1/comments", token=scene["bob"],
                    json={"body": "seen"}).status == 201
    got = _timeline(api).json
    assert [(e["type"], e["body"]) for e in got] == [("comment", "seen")]
    assert got[0]["issue_url"] == "http://nimbus.test/alice/proj/issues/1"
    assert got[0]["pull_request_url"] == ""
    assert _timeline(api, number=9).status == 404
    assert api.patch(R, token=scene["alice"], json={"private": True}).status == 200
    assert _timeline(api, scene["carol"]).status == 404
    assert _timeline(api).status == 404
    assert [e["body"] for e in _timeline(api, scene["bob"]).json] == ["seen"]
