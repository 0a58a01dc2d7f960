"""Stopwatches and deadlines: the rules on the in-memory twin (who may, one stopwatch per
user and issue, a stop writes one time even when two race), then what a client sees."""
from __future__ import annotations

import pytest

from chalicelib import clock, issues, repos
from chalicelib.errors import ConflictError, PermissionDenied
from chalicelib.issues import comment_store, stopwatch_store, stopwatches
from chalicelib.issues import service as issue_service
from chalicelib.issues.stopwatches import duration_text
from tests import memory_scene as scene
from tests.conftest import alice_bob_carol

R = "/repos/alice/open"


@pytest.fixture
def shared(memory):
    """alice's ``proj``: bob writes, carol reads, dave is a stranger; issue 1 by carol."""
    people, view = scene.shared_repo("proj", others=("dave",))

    def ctx(name):
        caller = scene.caller(people[name])
        return issues.issue_context(caller, repos.view_of(view.repo, caller))

    issue_service.create_issue(ctx("carol"), issues.CreateIssueOption(title="work"))
    return people, view, ctx


def test_writers_alone_use_stopwatches(shared):
    people, view, ctx = shared
    for name in ("carol", "dave"):      # the author who only reads; a stranger
        with pytest.raises(PermissionDenied):
            stopwatches.start(ctx(name), 1)
    stopwatches.start(ctx("bob"), 1)
    with pytest.raises(ConflictError, match="already exists"):
        stopwatches.start(ctx("bob"), 1)
    stopwatches.start(ctx("alice"), 1)          # another user's own stopwatch


def test_stop_writes_the_elapsed_seconds_and_cancel_writes_nothing(shared):
    people, view, ctx = shared
    with clock.frozen(1_700_000_000) as now:
        stopwatches.start(ctx("bob"), 1)
        now.advance(95)
        item = stopwatches.stop(ctx("bob"), 1)
    assert int(item.time) == 95 and item.user_name == "bob"
    times = comment_store.times_of(int(view.repo.id), 1)
    assert [int(t.time) for t in times] == [95]
    assert (times[0].gsi1pk, times[0].gsi2pk) == (f"RTIMES#{view.repo.id}",
                                                  f"UTIMES#{people['bob'].id}")
    for act, text in ((stopwatches.stop, "stop a non existent"),
                      (stopwatches.cancel, "cancel a non existent")):
        with pytest.raises(ConflictError, match=text):
            act(ctx("bob"), 1)
    stopwatches.start(ctx("bob"), 1)
    stopwatches.cancel(ctx("bob"), 1)
    assert len(comment_store.times_of(int(view.repo.id), 1)) == 1
    assert stopwatches.user_stopwatches(int(people["bob"].id), 0, 10) == ([], 0)


def test_two_starts_at_once_make_one_stopwatch(shared, monkeypatch):
    """The second start lands between the first one's read of the issue and its put:
    the put's condition refuses it."""
    people, view, ctx = shared
    original = stopwatch_store.stage_start
    raced = []

    def racing(item):
        if not raced:
            raced.append(1)
            stopwatches.start(ctx("bob"), 1)         # the other request wins
        original(item)

    monkeypatch.setattr(stopwatch_store, "stage_start", racing)
    with pytest.raises(ConflictError):
        stopwatches.start(ctx("bob"), 1)
    listed, total = stopwatches.user_stopwatches(int(people["bob"].id), 0, 10)
    assert total == 1 and len(listed) == 1


def test_two_stops_at_once_write_one_time(shared, monkeypatch):
    """Both stops read the running stopwatch; the one that commits second finds it gone
    (its delete's condition) and writes no time."""
    people, view, ctx = shared
    stopwatches.start(ctx("bob"), 1)
    original = stopwatch_store.stage_finish
    raced = []

    def racing(item):
        if not raced:
            raced.append(1)
            stopwatches.stop(ctx("bob"), 1)          # the other stop commits first
        original(item)

    monkeypatch.setattr(stopwatch_store, "stage_finish", racing)
    with pytest.raises(ConflictError):
        stopwatches.stop(ctx("bob"), 1)
    assert len(comment_store.times_of(int(view.repo.id), 1)) == 1


def test_duration_reads_as_forgejo_writes_it():
    assert duration_text(0) == ""
    assert duration_text(66) == "1 minute 6 seconds"
    assert duration_text(52410) == "14 hours 33 minutes"
    assert duration_text(563418) == "6 days 12 hours"
    assert duration_text(1563418) == "2 weeks 4 days"


# Through the API ---------------------------------------------------------------------

@pytest.fixture
def people(api):
    tokens = alice_bob_carol(api)
    assert api.post(f"{R}/issues", token=tokens["carol"], json={"title": "work"}).status == 201
    return tokens


def test_stopwatch_routes(api, people):
    from tests.issues.test_issues import assert_matches_forgejo

    bob, carol = people["bob"], people["carol"]
    watch = f"{R}/issues/1/stopwatch"
    assert api.post(f"{watch}/start", token=carol).status == 403
    assert api.post(f"{watch}/start").status == 401
    assert api.post(f"{R}/issues/9/stopwatch/start", token=bob).status == 404
    assert api.post(f"{watch}/stop", token=bob).status == 409
    assert api.delete(f"{watch}/delete", token=bob).status == 409
    assert api.post(f"{watch}/start", token=bob).status == 201
    assert api.post(f"{watch}/start", token=bob).status == 409
    listed = api.get("/user/stopwatches", token=bob)
    assert listed.status == 200 and listed.headers["x-total-count"] == "1"
    record = listed.json[0]
    assert_matches_forgejo(record, "StopWatch")
    assert (record["issue_index"], record["issue_title"], record["repo_owner_name"],
            record["repo_name"]) == (1, "work", "alice", "open")
    assert api.get("/user/stopwatches", token=carol).json == []
    assert api.get("/user/stopwatches").status == 401
    assert api.post(f"{watch}/stop", token=bob).status == 201
    times = api.get(f"{R}/issues/1/times", token=bob).json
    assert len(times) == 1 and times[0]["user_name"] == "bob"
    assert api.post(f"{watch}/start", token=bob).status == 201
    assert api.delete(f"{watch}/delete", token=bob).status == 204
    assert api.get("/user/stopwatches", token=bob).json == []
    assert len(api.get(f"{R}/issues/1/times", token=bob).json) == 1


def test_deadline(api, people):
    from tests.issues.test_issues import assert_matches_forgejo

    bob, carol = people["bob"], people["carol"]
    url = f"{R}/issues/1/deadline"
    assert api.post(url, token=carol, json={"due_date": "2030-01-02T10:00:00Z"}).status == 403
    assert api.post(f"{R}/issues/9/deadline", token=bob, json={"due_date": None}).status == 404
    set_ = api.post(url, token=bob, json={"due_date": "2030-01-02T10:00:00Z"})
    assert set_.status == 201
    assert_matches_forgejo(set_.json, "IssueDeadline")
    assert set_.json == {"due_date": "2030-01-02T23:59:59Z"}
    assert api.get(f"{R}/issues/1").json["due_date"] == "2030-01-02T23:59:59Z"
    assert api.post(url, token=bob, json={"due_date": "not a time"}).status == 422
    cleared = api.post(url, token=bob, json={"due_date": None})
    assert cleared.status == 201 and cleared.json == {"due_date": "0001-01-01T00:00:00Z"}
    assert api.get(f"{R}/issues/1").json["due_date"] is None
