"""A team's activity feed end to end on the local runtime (its event pipeline runs the
consumer), through HTTP: alice's organization has a public and a private repository,
team devs (bob) was given the public one, team all (carol) includes every repository.
Each team's feed shows the organization's activities in its repositories, as Forgejo's
Activity records, a page at a time; a stranger to the organization gets 404."""
from __future__ import annotations

import time

import httpx
import pytest

from tests.activity import test_activity as activity_tests
from tests.local_server import runtime_with_events

PEOPLE = ("alice", "bob", "carol", "dave")
WAIT_SECONDS = 20
# Forgejo's Activity: field -> the JSON type(s) it has.
ACTIVITY_FIELDS = {"id": int, "user_id": int, "op_type": str, "act_user_id": int,
                   "act_user": dict, "repo_id": int, "repo": dict, "comment_id": int,
                   "comment": (dict, type(None)), "ref_name": str, "is_private": bool,
                   "content": str, "created": str}


class Forge(activity_tests.Forge):
    def __init__(self, url: str):
        super().__init__(url, PEOPLE)

    def must(self, who: str, method: str, path: str, status: int, **kw) -> httpx.Response:
        answer = self.call(who, method, path, **kw)
        assert answer.status_code == status, (path, answer.status_code, answer.text)
        return answer

    def wait_for(self, who: str, path: str, count: int) -> list[dict]:
        """The feed once it holds ``count`` opened issues (the consumer runs behind)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            found = self.must(who, "GET", path, 200).json()
            if sum(a["op_type"] == "create_issue" for a in found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{path} has {len(found)} activities, not {count} issues")


@pytest.fixture(scope="module")
def forge(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("team-feed")) as runtime:
        yield Forge(runtime.url)


def _team(forge: Forge, name: str, member: str, **fields) -> int:
    team = forge.must("alice", "POST", "/orgs/acme/teams", 201,
                      json={"name": name, "permission": "write", **fields}).json()
    forge.must("alice", "PUT", f"/teams/{team['id']}/members/{member}", 204)
    return int(team["id"])


def test_team_feeds_as_forgejo_shows_them(forge):
    forge.must("alice", "POST", "/orgs", 201, json={"username": "acme"})
    for name, private in (("one", False), ("two", True)):
        forge.must("alice", "POST", "/orgs/acme/repos", 201,
                   json={"name": name, "private": private})
    devs = _team(forge, "devs", "bob")
    every = _team(forge, "all", "carol", includes_all_repositories=True)
    forge.must("alice", "PUT", f"/teams/{devs}/repos/acme/one", 204)
    for repo in ("one", "two"):
        forge.must("alice", "POST", f"/repos/acme/{repo}/issues", 201,
                   json={"title": f"Issue in {repo}"})
    # The consumer may have recorded the creations before or after the teams existed:
    # the issues, opened once the teams had their repositories, are what each shows.
    everything = forge.wait_for("carol", f"/teams/{every}/activities/feeds", 2)
    opened = [a for a in everything if a["op_type"] == "create_issue"]
    assert [a["repo"]["name"] for a in opened] == ["two", "one"]
    assert opened[0]["is_private"] is True and opened[1]["is_private"] is False
    mine = [a for a in forge.wait_for("bob", f"/teams/{devs}/activities/feeds", 1)
            if a["op_type"] == "create_issue"]
    assert [(a["repo"]["name"], a["content"]) for a in mine] == [("one", "1|Issue in one")]
    assert all(a["repo"]["name"] == "one"
               for a in forge.must("bob", "GET", f"/teams/{devs}/activities/feeds", 200).json())

    # Forgejo's Activity, field for field: the organization's row, alice acting.
    record = mine[0]
    assert set(record) == set(ACTIVITY_FIELDS)
    assert all(isinstance(record[k], kind) for k, kind in ACTIVITY_FIELDS.items())
    org = forge.must("alice", "GET", "/orgs/acme", 200).json()
    assert record["user_id"] == org["id"] == record["repo"]["owner"]["id"]
    assert record["act_user"]["login"] == "alice" and record["act_user_id"] == \
        record["act_user"]["id"]
    assert record["repo_id"] == record["repo"]["id"] and record["comment"] is None
    assert record["created"].endswith("Z")

    # A page at a time, newest first; the date filter.
    first = forge.must("carol", "GET", f"/teams/{every}/activities/feeds?limit=1", 200)
    assert first.json() == everything[:1] and 'rel="next"' in first.headers["Link"]
    second = forge.must("carol", "GET", f"/teams/{every}/activities/feeds?limit=1&page=2", 200)
    assert second.json() == everything[1:2]
    assert forge.must("carol", "GET", f"/teams/{every}/activities/feeds?date=2001-01-01",
                      200).json() == []

    # Who cannot see the team finds no team; the owner sees every team's feed.
    assert forge.call("dave", "GET", f"/teams/{devs}/activities/feeds").status_code == 404
    assert forge.call("dave", "GET", "/teams/999999/activities/feeds").status_code == 404
    ids = [[a["id"] for a in forge.must(who, "GET", f"/teams/{devs}/activities/feeds",
                                        200).json()] for who in ("alice", "bob")]
    assert ids[0] == ids[1] and record["id"] in ids[0]
