"""Activity feeds and the heatmap end to end on the local runtime (its event pipeline
runs the consumer), through HTTP and the real pyforgejo client: alice creates a public
and a private repository and opens an issue in each, bob comments on the public one.
Each caller sees the feeds Forgejo would show them: the private repository's activities
only to who may read it, nothing of alice's once she hides her activity."""
from __future__ import annotations

import base64
import time

import httpx
import pytest
from pyforgejo import PyforgejoApi

from tests.local_server import runtime_with_events

PEOPLE = ("alice", "bob", "carol")
WAIT_SECONDS = 20


@pytest.fixture(scope="module")
def forge(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("activity")) as runtime:
        yield Forge(runtime.url)


class Forge:
    """The runtime at ``url`` through HTTP, with ``people`` made and a token each."""

    def __init__(self, url: str, people: tuple[str, ...] = PEOPLE):
        self.api, self.tokens = f"{url}/api/v1", {}
        boss = {"Authorization": "Basic " + base64.b64encode(b"boss:boss-password").decode()}
        for name in people:
            httpx.post(f"{self.api}/admin/users", headers=boss, json={
                "username": name, "email": f"{name}@example.com", "password": "pass-word-1",
                "must_change_password": False}).raise_for_status()
            basic = base64.b64encode(f"{name}:pass-word-1".encode()).decode()
            self.tokens[name] = httpx.post(f"{self.api}/users/{name}/tokens",
                                           headers={"Authorization": f"Basic {basic}"},
                                           json={"name": "t", "scopes": ["all"]}).json()["sha1"]

    def call(self, who: str | None, method: str, path: str, **kw) -> httpx.Response:
        headers = {"Authorization": f"token {self.tokens[who]}"} if who else {}
        return httpx.request(method, f"{self.api}{path}", timeout=30, headers=headers, **kw)

    def feed(self, who: str | None, path: str) -> list[dict]:
        answer = self.call(who, "GET", path)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def wait_for(self, who: str, path: str, count: int) -> list[dict]:
        """The feed once it holds ``count`` activities (the consumer runs behind)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            found = self.feed(who, path)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{path} has {len(found)} activities, expected {count}")


def test_feeds_and_heatmap_as_each_caller_sees_them(forge):
    for name, private in (("proj", False), ("secret", True)):
        assert forge.call("alice", "POST", "/user/repos", json={
            "name": name, "auto_init": True, "private": private}).status_code == 201
    assert forge.call("alice", "PUT", "/repos/alice/secret/collaborators/carol",
                      json={"permission": "read"}).status_code == 204
    issue = forge.call("alice", "POST", "/repos/alice/proj/issues",
                       json={"title": "Crash on start"}).json()
    forge.call("alice", "POST", "/repos/alice/secret/issues", json={"title": "Leak"})
    comment = forge.call("bob", "POST", f"/repos/alice/proj/issues/{issue['number']}/comments",
                         json={"body": "Seen it too"}).json()
    # proj: created, its first commit pushed, the issue, bob's comment.
    listed = forge.wait_for(None, "/repos/alice/proj/activities/feeds", 4)
    assert [a["op_type"] for a in listed] == \
        ["comment_issue", "create_issue", "commit_repo", "create_repo"]
    commented, opened = listed[0], listed[1]
    assert commented["act_user"]["login"] == "bob" and commented["act_user_id"] == \
        commented["act_user"]["id"]
    assert commented["content"] == f"{issue['number']}|Seen it too"
    assert commented["comment_id"] == comment["id"]
    assert commented["comment"]["body"] == "Seen it too"
    assert commented["comment"]["html_url"] == comment["html_url"]
    assert opened["content"] == f"{issue['number']}|Crash on start"
    assert opened["comment"] is None and opened["is_private"] is False
    assert opened["repo"]["full_name"] == "alice/proj" and opened["repo_id"] == \
        opened["repo"]["id"]
    assert listed[2]["ref_name"] == "refs/heads/main"
    assert opened["created"].endswith("Z") and opened["user_id"] == opened["repo"]["owner"]["id"]

    # The private repository: 404 to a stranger, its feed to a reader.
    assert forge.call("bob", "GET", "/repos/alice/secret/activities/feeds").status_code == 404
    secret = forge.wait_for("carol", "/repos/alice/secret/activities/feeds", 3)
    assert secret[0]["op_type"] == "create_issue" and secret[0]["is_private"] is True
    # alice's own feed: everything of hers, to her; the public part to others.
    mine = forge.wait_for("alice", "/users/alice/activities/feeds", 7)
    assert {a["repo"]["name"] for a in mine} == {"proj", "secret"}
    theirs = forge.feed("bob", "/users/alice/activities/feeds")
    assert {a["repo"]["name"] for a in theirs} == {"proj"}
    assert forge.feed("carol", "/users/alice/activities/feeds?only-performed-by=true") == \
        [a for a in theirs if a["act_user"]["login"] == "alice"]
    page = forge.call("alice", "GET", "/users/alice/activities/feeds?limit=2")
    assert len(page.json()) == 2 and 'rel="next"' in page.headers["Link"]
    assert forge.feed("alice", "/users/alice/activities/feeds?date=2001-01-01") == []

    # Through pyforgejo, as a client reads them; the heatmap in 15-minute buckets.
    client = PyforgejoApi(base_url=forge.api, api_key=forge.tokens["bob"])
    feeds = client.repository.repo_list_activity_feeds(owner="alice", repo="proj")
    assert [f.op_type for f in feeds][:2] == ["comment_issue", "create_issue"]
    assert feeds[0].comment.body == "Seen it too"
    bob_feed = client.user.list_activity_feeds(username="bob")
    assert [f.op_type for f in bob_feed] == ["comment_issue"]
    own = forge.feed("alice", "/users/alice/heatmap")
    shown = client.user.get_heatmap_data(username="alice")
    assert all(h["timestamp"] % 900 == 0 for h in own)
    assert sum(h["contributions"] for h in own) == 6        # 2 repos, 2 pushes, 2 issues…
    assert sum(h.contributions for h in shown) == 3         # … less the private ones

    # Hiding her activity empties alice's feed and heatmap to others, not to herself.
    assert forge.call("alice", "PATCH", "/user/settings",
                      json={"hide_activity": True}).status_code == 200
    assert forge.feed("bob", "/users/alice/activities/feeds") == []
    assert forge.feed("bob", "/users/alice/heatmap") == []
    assert len(forge.feed("alice", "/users/alice/activities/feeds")) == len(mine)
    assert [a["act_user"]["login"] for a in forge.feed("bob", "/repos/alice/proj/activities/feeds")] \
        == ["bob"]
    assert forge.call("bob", "GET", "/users/nobody/activities/feeds").status_code == 404
