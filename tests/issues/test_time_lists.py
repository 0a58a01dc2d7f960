"""Tracked-time lists of a repository and of a user: the rules on the in-memory twin
(who sees whose, the time range, paging that reads no further than the page, the
repair that indexes older times), then what a client sees."""
from __future__ import annotations

import pytest

from chalicelib import issues, repair, repos
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.issues import comments, time_lists
from chalicelib.issues import service as issue_service
from chalicelib.issues.models import TrackedTime
from chalicelib.issues.options import AddTimeOption
from tests import memory_scene as scene
from tests.conftest import alice_bob_carol

R = "/repos/alice/open"


@pytest.fixture
def shared(memory):
    """alice's ``proj``: bob writes, carol reads; issue 1; times 10, 20 (bob) and 30
    (alice) at 1000, 2000, 3000 on it."""
    people, view = scene.shared_repo("proj")

    def ctx(name):
        caller = scene.caller(people[name])
        return issues.issue_context(caller, repos.view_of(view.repo, caller))

    issue_service.create_issue(ctx("bob"), issues.CreateIssueOption(title="work"))
    for who, seconds, at in (("bob", 10, 1000), ("bob", 20, 2000), ("alice", 30, 3000)):
        comments.add_time(ctx(who), 1, AddTimeOption(
            time=seconds, created=f"1970-01-01T00:{at // 60:02d}:{at % 60:02d}Z"))
    return people, view, ctx


def seconds(found):
    return [int(t.time) for t in found[0]]


def test_writers_see_everyones_times_others_their_own(shared):
    people, view, ctx = shared
    assert seconds(time_lists.repo_times(ctx("bob"), "", None, None, 0, 10)) == [10, 20, 30]
    assert seconds(time_lists.repo_times(ctx("bob"), "alice", None, None, 0, 10)) == [30]
    assert time_lists.repo_times(ctx("carol"), "", None, None, 0, 10) == ([], 0)
    with pytest.raises(PermissionDenied):
        time_lists.repo_times(ctx("carol"), "bob", None, None, 0, 10)
    with pytest.raises(NotFoundError):
        time_lists.repo_times(ctx("bob"), "nobody", None, None, 0, 10)
    assert seconds(time_lists.repo_times(ctx("bob"), "", 2000, 3000, 0, 10)) == [20, 30]
    assert seconds(time_lists.repo_times(ctx("bob"), "", None, 1999, 0, 10)) == [10]


def test_a_page_reads_one_past_itself(shared):
    people, view, ctx = shared
    assert (seconds(time_lists.repo_times(ctx("bob"), "", None, None, 0, 1)),
            time_lists.repo_times(ctx("bob"), "", None, None, 0, 1)[1]) == ([10], 2)
    assert time_lists.repo_times(ctx("bob"), "", None, None, 1, 2)[1] == 3   # ends: exact


def test_user_times_in_a_repository_and_everywhere(shared):
    people, view, ctx = shared
    other = scene.repo(people["bob"], "mine")
    caller = scene.caller(people["bob"])
    mine = issues.issue_context(caller, repos.view_of(other.repo, caller))
    issue_service.create_issue(mine, issues.CreateIssueOption(title="elsewhere"))
    comments.add_time(mine, 1, AddTimeOption(time=40))
    assert seconds(time_lists.user_times_in_repo(ctx("bob"), "bob", 0, 10)) == [10, 20]
    assert seconds(time_lists.user_times_in_repo(ctx("alice"), "bob", 0, 10)) == [10, 20]
    with pytest.raises(PermissionDenied):          # a writer, not an admin
        time_lists.user_times_in_repo(ctx("bob"), "alice", 0, 10)
    assert seconds(time_lists.my_times(people["bob"], None, None, 0, 10)) == [10, 20, 40]
    assert seconds(time_lists.my_times(people["bob"], 1500, None, 0, 10)) == [20, 40]


def test_repair_indexes_times_written_before_the_lists(shared):
    people, view, ctx = shared
    for item in TrackedTime.gsi1.query(f"RTIMES#{view.repo.id}"):    # as older times are
        item.update(actions=[TrackedTime.gsi1pk.remove(), TrackedTime.gsi1sk.remove(),
                             TrackedTime.gsi2pk.remove(), TrackedTime.gsi2sk.remove()])
    assert time_lists.repo_times(ctx("bob"), "", None, None, 0, 10) == ([], 0)
    found = [f for f in repair.repair() if f.kind == "trackedtime"]
    assert len(found) == 3 and all(f.fixed for f in found)
    assert seconds(time_lists.repo_times(ctx("bob"), "", None, None, 0, 10)) == [10, 20, 30]
    assert [f for f in repair.repair(dry_run=True) if f.kind == "trackedtime"] == []


# Through the API ---------------------------------------------------------------------

@pytest.fixture
def people(api):
    tokens = alice_bob_carol(api)
    assert api.post(f"{R}/issues", token=tokens["carol"], json={"title": "work"}).status == 201
    for who, seconds_ in (("bob", 60), ("alice", 120), ("carol", 30)):
        assert api.post(f"{R}/issues/1/times", token=tokens[who],
                        json={"time": seconds_}).status == 200
    return tokens


def test_time_list_routes(api, people):
    from tests.issues.test_issues import assert_matches_forgejo

    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    listed = api.get(f"{R}/times", token=bob)
    assert listed.status == 200 and listed.headers["x-total-count"] == "3"
    assert [t["time"] for t in listed.json] == [60, 120, 30]
    for record in listed.json:
        assert_matches_forgejo(record, "TrackedTime")
        assert record["issue"]["number"] == 1
    page = api.get(f"{R}/times?limit=1&page=2", token=bob)
    assert [t["time"] for t in page.json] == [120] and "next" in page.headers.get("link", "")
    assert [t["user_name"] for t in api.get(f"{R}/times", token=carol).json] == ["carol"]
    assert api.get(f"{R}/times?user=bob", token=carol).status == 403
    assert api.get(f"{R}/times?user=nobody", token=bob).status == 404
    assert api.get(f"{R}/times?since=junk", token=bob).status == 422
    assert api.get(f"{R}/times").status == 401
    assert [t["time"] for t in api.get(f"{R}/times/bob", token=bob).json] == [60]
    assert api.get(f"{R}/times/alice", token=bob).status == 403
    assert [t["time"] for t in api.get(f"{R}/times/bob", token=alice).json] == [60]
    mine = api.get("/user/times", token=carol)
    assert mine.status == 200 and [t["time"] for t in mine.json] == [30]
    assert mine.json[0]["issue"]["repository"]["full_name"] == "alice/open"
    assert api.get("/user/times?since=2999-01-01T00:00:00Z", token=carol).json == []
    assert api.get("/user/times").status == 401
