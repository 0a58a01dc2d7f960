"""Notifications end to end on the local runtime (its event pipeline runs the consumer),
through HTTP and the real pyforgejo client: alice opens an issue in a repository bob
watches, mentioning carol; bob comments; dave asks carol to review his pull request.
Each gets the threads Forgejo would give, with its subjects and URLs; read and pinned
states stick; the ``new`` counts agree; unwatching stops bob's."""
from __future__ import annotations

import base64
import time
import uuid

import httpx
import pytest
from pyforgejo import PyforgejoApi

from tests.local_server import runtime_with_events

PEOPLE = ("alice", "bob", "carol", "dave")
WAIT_SECONDS = 20


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("notifications")) as runtime:
        yield runtime


@pytest.fixture
def forge(runtime):
    """Four new people for this test (``alice`` … ``dave`` are roles: their logins carry
    a suffix of the test's own), so tests share the server but nothing else."""
    return Forge(runtime.url, uuid.uuid4().hex[:8])


class Forge:
    def __init__(self, url: str, cast: str):
        self.url, self.api, self.tokens = url, f"{url}/api/v1", {}
        self.login = {role: f"{role}{cast}" for role in PEOPLE}
        boss = {"Authorization": "Basic " + base64.b64encode(b"boss:boss-password").decode()}
        for role, name in self.login.items():
            made = httpx.post(f"{self.api}/admin/users", headers=boss, json={
                "username": name, "email": f"{name}@example.com", "password": "pass-word-1",
                "must_change_password": False})
            assert made.status_code == 201, made.text
            basic = base64.b64encode(f"{name}:pass-word-1".encode()).decode()
            self.tokens[role] = httpx.post(f"{self.api}/users/{name}/tokens",
                                           headers={"Authorization": f"Basic {basic}"},
                                           json={"name": "t", "scopes": ["all"]}).json()["sha1"]
        self.repo = f"/repos/{self.login['alice']}/proj"

    def call(self, who: str, method: str, path: str, **kw) -> httpx.Response:
        return httpx.request(method, f"{self.api}{path}", timeout=30,
                             headers={"Authorization": f"token {self.tokens[who]}"}, **kw)

    def threads(self, who: str, query: str = "") -> list[dict]:
        answer = self.call(who, "GET", f"/notifications{query}")
        assert answer.status_code == 200, answer.text
        return answer.json()

    def wait_for(self, who: str, count: int) -> list[dict]:
        """The unread threads once there are ``count`` (the consumer runs in the
        background)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            found = self.threads(who, "?status-types=unread")
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{who} has {len(found)} unread threads, expected {count}")

    def client(self, who: str) -> PyforgejoApi:
        return PyforgejoApi(base_url=self.api, api_key=self.tokens[who])

    def scene(self) -> tuple[dict, dict, dict]:
        """alice's ``proj`` (dave writes to it, bob watches it); alice's issue mentioning
        carol, bob's comment on it, dave's pull request with a review asked of carol.
        (issue, comment, pull) as created."""
        assert self.call("alice", "POST", "/user/repos",
                         json={"name": "proj", "auto_init": True}).status_code == 201
        assert self.call("alice", "PUT", f"{self.repo}/collaborators/{self.login['dave']}",
                         json={"permission": "write"}).status_code == 204
        assert self.call("bob", "PUT", f"{self.repo}/subscription").status_code == 200
        issue = self.call("alice", "POST", f"{self.repo}/issues", json={
            "title": "Crash on start", "body": f"cc @{self.login['carol']}"}).json()
        self.wait_for("bob", 1)
        comment = self.call("bob", "POST", f"{self.repo}/issues/{issue['number']}/comments",
                            json={"body": "Seen it on 1.2 too"}).json()
        self.wait_for("alice", 1)
        assert self.call("dave", "POST", f"{self.repo}/contents/fix.txt", json={
            "content": base64.b64encode(b"fix\n").decode(), "new_branch": "fix",
            "message": "Fix"}).status_code == 201
        pull = self.call("dave", "POST", f"{self.repo}/pulls", json={
            "title": "Fix the crash", "head": "fix", "base": "main"}).json()
        assert self.call("dave", "POST", f"{self.repo}/pulls/{pull['number']}/requested_reviewers",
                         json={"reviewers": [self.login["carol"]]}).status_code == 201
        self.wait_for("carol", 2)
        return issue, comment, pull


def test_issue_comment_and_review_request_notify_as_forgejo_does(forge):
    issue, comment, pull = forge.scene()
    # The instance's ROOT_URL, as the issue's own URLs carry it.
    api, html = issue["url"].rsplit("/issues/", 1)[0], issue["html_url"].rsplit("/issues/", 1)[0]
    root = html[:-len(forge.repo.removeprefix("/repos/"))]
    bob = next(t for t in forge.threads("bob") if t["subject"]["type"] == "Issue")
    assert bob["subject"] == {
        "title": "Crash on start", "url": f"{api}/issues/{issue['number']}",
        "html_url": f"{html}/issues/{issue['number']}",
        # bob's own comment is the latest: his thread shows it too
        "latest_comment_url": f"{api}/issues/comments/{comment['id']}",
        "latest_comment_html_url": f"{html}/issues/{issue['number']}#issuecomment-{comment['id']}",
        "type": "Issue", "state": "open"}
    assert bob["unread"] is True and bob["pinned"] is False
    assert bob["url"] == f"{root}api/v1/notifications/threads/{bob['id']}"
    assert bob["repository"]["full_name"] == forge.repo.removeprefix("/repos/")
    (alice,) = forge.threads("alice")           # a participant now: bob commented
    assert alice["subject"]["latest_comment_url"] == f"{api}/issues/comments/{comment['id']}"
    carol = forge.threads("carol")
    assert sorted(t["subject"]["type"] for t in carol) == ["Issue", "Pull"]
    review = next(t for t in carol if t["subject"]["type"] == "Pull")
    assert review["subject"]["html_url"] == pull["html_url"]
    assert review["subject"]["url"] == f"{api}/issues/{pull['number']}"
    assert review["subject"]["state"] == "open"
    assert forge.threads("dave") == []          # dave acted (the request), watched nothing


def test_read_pinned_and_new_counts_stick_through_pyforgejo(forge):
    forge.scene()
    client = forge.client("carol")
    threads = client.notification.notify_get_list()
    assert len(threads) == 2
    assert client.notification.notify_new_available().new == 2
    first, second = threads
    client.notification.notify_read_thread(id=first.id)
    client.notification.notify_read_thread(id=second.id, to_status="pinned")
    assert client.notification.notify_new_available().new == 0
    assert [t.id for t in client.notification.notify_get_list()] == [second.id]   # pinned
    read = client.notification.notify_get_list(status_types=["read"])
    assert [t.id for t in read] == [first.id] and read[0].unread is False
    assert client.notification.notify_get_thread(id=second.id).pinned is True
    everything = client.notification.notify_get_list(all_=True)
    assert {t.id for t in everything} == {first.id, second.id}
    pulls = client.notification.notify_get_list(all_=True, subject_type=["pull"])
    assert [t.subject.type for t in pulls] == ["Pull"]
    # Someone else's thread is 403, a missing one 404.
    assert forge.call("bob", "GET", f"/notifications/threads/{first.id}").status_code == 403
    assert forge.call("bob", "GET", "/notifications/threads/999999").status_code == 404


def test_mark_all_read_and_repository_lists(forge):
    forge.scene()
    assert forge.call("alice", "PUT", "/notifications").status_code == 205
    assert forge.call("alice", "GET", "/notifications/new").json() == {"new": 0}
    listed = forge.call("carol", "GET", f"{forge.repo}/notifications?all=true")
    assert listed.status_code == 200 and len(listed.json()) == 2
    assert listed.headers["X-Total-Count"] == "2"
    pinned = listed.json()[0]["id"]
    assert forge.call("carol", "PATCH", f"/notifications/threads/{pinned}?to-status=pinned"
                      ).json()["pinned"] is True
    marked = forge.call("carol", "PUT", f"{forge.repo}/notifications?status-types=pinned"
                                        "&to-status=read")
    assert marked.status_code == 205
    assert [(t["id"], t["pinned"], t["unread"]) for t in marked.json()] == [(pinned, False, False)]
    assert forge.call("carol", "GET", "/notifications/new").json() == {"new": 1}
    bad = forge.call("carol", "GET", "/notifications?since=yesterday")
    assert bad.status_code == 422 and "message" in bad.json()
    other = forge.call("carol", "GET", "/repos/nobody/nothing/notifications")
    assert other.status_code == 404


def test_unwatching_stops_notifications_and_subscriptions_answer_as_forgejo(forge):
    forge.scene()
    client = forge.client("bob")
    assert client.issue.check_subscription(owner=forge.login["alice"], repo="proj", index=1).subscribed
    assert forge.call("bob", "DELETE",
                      f"{forge.repo}/issues/1/subscriptions/{forge.login['bob']}").status_code == 201
    assert forge.call("bob", "DELETE",
                      f"{forge.repo}/issues/1/subscriptions/{forge.login['bob']}").status_code == 200
    assert forge.call("bob", "PUT",
                      f"{forge.repo}/issues/1/subscriptions/{forge.login['carol']}").status_code == 403
    assert not client.issue.check_subscription(owner=forge.login["alice"], repo="proj", index=1).subscribed
    forge.call("bob", "PUT", "/notifications")
    assert forge.call("dave", "PUT", f"{forge.repo}/subscription").status_code == 200
    forge.call("alice", "POST", f"{forge.repo}/issues/1/comments", json={"body": "Fixed?"})
    (dave,) = forge.wait_for("dave", 1)       # the consumer has run: dave watches the repo
    assert dave["subject"]["title"] == "Crash on start"
    assert forge.threads("bob", "?status-types=unread") == []
    watchers = forge.call("bob", "GET", f"{forge.repo}/issues/1/subscriptions").json()
    assert forge.login["bob"] not in [w["login"] for w in watchers]
