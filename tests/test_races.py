"""Parallel requests through the API: no lost update, no duplicate, no spurious 409.

Requests race in threads through the in-process handler, as they would across Lambda
instances.  moto alone is not atomic under threads, so the tests run with
``serialized_mock_aws`` (chalicelib/local/aws_requests.py): each DynamoDB request is
atomic, as in AWS, and a failure here is a race in our code (read, then write).

``NIMBUS_RACE_ROUNDS`` sets how many rounds each test runs (50 to check by hand:
``NIMBUS_RACE_ROUNDS=50 .venv/bin/python -m pytest -q tests/test_races.py``).
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import Counter

import pytest

from chalicelib.local.aws_requests import serialized_mock_aws
from tests.conftest import ADMIN, owner_and_writer

ROUNDS = int(os.environ.get("NIMBUS_RACE_ROUNDS", "1"))
# Switch threads every few microseconds, so a race window of a few lines (read, then
# a conditional write) opens often, as with real parallelism.
SWITCH_INTERVAL = float(os.environ.get("NIMBUS_RACE_SWITCH", "0.0005"))
R = "/repos/alice/open"


@contextlib.contextmanager
def one_request_at_a_time(switch_interval: float = SWITCH_INTERVAL):
    """Every DynamoDB request atomic, as in AWS.  ``serialized_mock_aws`` lets reads run
    side by side, but moto's GetItem of a missing item in a table with a range key
    inserts an empty entry (``Table.items`` is a defaultdict), so a read can break a
    concurrent Query ("dictionary changed size during iteration", a 500); until that
    is covered there, one request at a time (each request still atomic, never hiding
    a race between requests, which is what these tests look for)."""
    from moto.core.botocore_stubber import BotocoreStubber

    default = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    with serialized_mock_aws():
        shared = BotocoreStubber.process_request
        lock = threading.Lock()

        def one_at_a_time(self, request):
            with lock:
                return shared(self, request)

        BotocoreStubber.process_request = one_at_a_time
        try:
            yield
        finally:
            BotocoreStubber.process_request = shared
    sys.setswitchinterval(default)


@pytest.fixture(autouse=True)
def atomic_requests():
    with one_request_at_a_time():
        yield


@pytest.fixture
def people(api):
    """alice owns ``open``; bob writes to it."""
    tokens = owner_and_writer(api)
    return tokens


def together(count: int, send) -> list:
    """Run ``send(i)`` in ``count`` threads released at once; their responses in order
    (an exception raised in a thread fails the test)."""
    start = threading.Barrier(count)
    answers: list = [None] * count

    def run(i: int) -> None:
        start.wait()
        try:
            answers[i] = send(i)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            answers[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    raised = [a for a in answers if isinstance(a, Exception)]
    assert not raised, raised[:3]
    return answers


def statuses(answers) -> Counter:
    return Counter(a.status for a in answers)


def one_winner(answers, *, loser: int) -> dict:
    """Exactly one 201; every other answer ``loser``; the winner's record."""
    seen = statuses(answers)
    assert seen == Counter({201: 1, loser: len(answers) - 1}), (seen, answers[:3])
    return next(a.json for a in answers if a.status == 201)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_label_additions_all_land(api, people, round_):
    alice, bob = people["alice"], people["bob"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "t"}).status == 201
    ids = [api.post(f"{R}/labels", token=alice, json={"name": f"l{i}", "color": "#00ff00"}).json["id"]
           for i in range(8)]
    answers = together(8, lambda i: api.post(f"{R}/issues/1/labels", token=bob,
                                             json={"labels": [ids[i]]}))
    assert statuses(answers) == Counter({200: 8}), answers
    on_issue = api.get(f"{R}/issues/1/labels", token=alice).json
    assert sorted(label["id"] for label in on_issue) == sorted(ids)
    assert sorted(label["id"] for label in api.get(f"{R}/issues/1").json["labels"]) == sorted(ids)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_edits_of_different_fields_all_land(api, people, round_):
    """Title, body, assignees and state edited at once: each edit succeeds (no 409: the
    client stated no precondition) and the issue ends with all four."""
    alice, bob = people["alice"], people["bob"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "t"}).status == 201
    edits = [{"title": "new title"}, {"body": "new body"}, {"assignees": ["bob"]},
             {"state": "closed"}]
    answers = together(4, lambda i: api.patch(f"{R}/issues/1", token=(alice, bob)[i % 2],
                                              json=edits[i]))
    assert statuses(answers) == Counter({201: 4}), answers
    issue = api.get(f"{R}/issues/1").json
    assert (issue["title"], issue["body"], issue["state"]) == ("new title", "new body", "closed")
    assert [a["login"] for a in issue["assignees"]] == ["bob"]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_comments_all_land_and_are_counted(api, people, round_):
    alice, bob = people["alice"], people["bob"]
    assert api.post(f"{R}/issues", token=alice, json={"title": "t"}).status == 201
    answers = together(32, lambda i: api.post(f"{R}/issues/1/comments", token=(alice, bob)[i % 2],
                                              json={"body": f"c{i}"}))
    assert statuses(answers) == Counter({201: 32}), answers[:3]
    ids = [a.json["id"] for a in answers]
    assert len(set(ids)) == 32
    listed = api.get(f"{R}/issues/1/comments?limit=50").json
    assert sorted(c["body"] for c in listed) == sorted(f"c{i}" for i in range(32))
    assert sorted(c["id"] for c in listed) == sorted(ids)
    assert api.get(f"{R}/issues/1").json["comments"] == 32


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_issue_creates_get_consecutive_numbers(api, people, round_):
    answers = together(16, lambda i: api.post(f"{R}/issues", token=(people["alice"], people["bob"])[i % 2],
                                              json={"title": f"p{i}"}))
    assert statuses(answers) == Counter({201: 16}), answers[:3]
    assert sorted(a.json["number"] for a in answers) == list(range(1, 17))
    assert len({a.json["id"] for a in answers}) == 16
    assert api.get(R).json["open_issues_count"] == 16
    assert api.get(f"{R}/issues?limit=50").headers["x-total-count"] == "16"


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_creates_of_one_user_name(api, round_):
    answers = together(8, lambda i: api.post("/admin/users", auth=ADMIN, json={
        "username": "dup", "password": "secret-pass-1", "email": f"dup{i}@example.com"}))
    winner = one_winner(answers, loser=422)
    found = api.get("/users/dup", auth=ADMIN).json
    assert (found["id"], found["email"]) == (winner["id"], winner["email"])
    # The losers' e-mail addresses are free: nothing of theirs was left behind.
    loser = next(i for i in range(8) if answers[i].status == 422)
    assert api.create_user("other", email=f"dup{loser}@example.com")["id"] != winner["id"]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_creates_of_distinct_users_get_distinct_ids(api, round_):
    answers = together(8, lambda i: api.post("/admin/users", auth=ADMIN, json={
        "username": f"u{i}", "password": "secret-pass-1", "email": f"u{i}@example.com"}))
    assert statuses(answers) == Counter({201: 8}), answers[:3]
    assert len({a.json["id"] for a in answers}) == 8


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_creates_of_one_repository_name(api, people, round_):
    answers = together(8, lambda i: api.post("/user/repos", token=people["alice"],
                                             json={"name": "same", "description": f"d{i}"}))
    winner = one_winner(answers, loser=409)
    found = api.get("/repos/alice/same").json
    assert (found["id"], found["description"]) == (winner["id"], winner["description"])
    names = [r["name"] for r in api.get("/users/alice/repos?limit=50").json]
    assert sorted(names) == ["open", "same"]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_label_creates_get_distinct_ids(api, people, round_):
    """Forgejo lets two labels of a repository share a name: every create lands."""
    answers = together(8, lambda i: api.post(f"{R}/labels", token=people["alice"],
                                             json={"name": f"l{i % 4}", "color": "#00ff00"}))
    assert statuses(answers) == Counter({201: 8}), answers[:3]
    created = [a.json for a in answers]
    assert len({label["id"] for label in created}) == 8
    listed = api.get(f"{R}/labels?limit=50").json
    assert sorted(label["id"] for label in listed) == sorted(label["id"] for label in created)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_creates_of_one_org_name(api, people, round_):
    answers = together(8, lambda i: api.post("/orgs", token=(people["alice"], people["bob"])[i % 2],
                                             json={"username": "acme", "full_name": f"Acme {i}"}))
    winner = one_winner(answers, loser=422)
    found = api.get("/orgs/acme").json
    assert (found["id"], found["full_name"]) == (winner["id"], winner["full_name"])
    owner = "alice" if winner["full_name"] in {f"Acme {i}" for i in range(0, 8, 2)} else "bob"
    teams = api.get("/orgs/acme/teams", token=people[owner]).json
    assert [t["name"] for t in teams] == ["Owners"]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_creates_of_one_team_name(api, people, round_):
    alice = people["alice"]
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    answers = together(8, lambda i: api.post("/orgs/acme/teams", token=alice, json={
        "name": "devs", "description": f"d{i}", "permission": "write",
        "units": ["repo.code", "repo.issues"]}))
    winner = one_winner(answers, loser=422)
    teams = api.get("/orgs/acme/teams", token=alice).json
    assert sorted(t["name"] for t in teams) == ["Owners", "devs"]
    assert next(t["id"] for t in teams if t["name"] == "devs") == winner["id"]
    assert len({t["id"] for t in teams}) == 2


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_team_member_additions_all_land(api, people, round_):
    alice = people["alice"]
    names = [f"m{i}" for i in range(8)]
    for name in names:
        api.create_user(name)
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    team = api.post("/orgs/acme/teams", token=alice, json={
        "name": "devs", "permission": "write", "units": ["repo.code"]}).json
    answers = together(8, lambda i: api.put(f"/teams/{team['id']}/members/{names[i]}",
                                            token=alice))
    assert statuses(answers) == Counter({204: 8}), answers
    members = api.get(f"/teams/{team['id']}/members?limit=50", token=alice).json
    assert sorted(m["login"] for m in members) == names
    org_members = api.get("/orgs/acme/members?limit=50", token=alice).json
    assert sorted(m["login"] for m in org_members) == sorted(["alice", *names])


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_parallel_collaborator_additions_all_land(api, people, round_):
    alice = people["alice"]
    names = [f"c{i}" for i in range(8)]
    for name in names:
        api.create_user(name)
    answers = together(8, lambda i: api.put(f"{R}/collaborators/{names[i]}", token=alice,
                                            json={"permission": "write"}))
    assert statuses(answers) == Counter({204: 8}), answers
    listed = api.get(f"{R}/collaborators?limit=50", token=alice).json
    assert sorted(c["login"] for c in listed) == sorted(["bob", *names])
