"""The signed-in dashboard at ``/`` and the notifications page (chalicelib/web/
dashboard_pages.py, notification_pages.py), in-process under moto through the gateway.

alice owns ``proj`` and the organization ``acme``; an issue of ``proj`` is assigned to
her; bob, on his ``tools``, asks her to review his pull request; bob comments on her
issue, which notifies her; carol has a private repository alice cannot see.  The
event pipeline does not run here: the set-up hands the waiting events to the activity
and notifications consumers, as the worker would (the search index is kept current by
the test world itself)."""
from __future__ import annotations

import base64

import pytest

from tests.conftest import drain_outbox
from tests.web.test_web_actions import WebUser, text


def deliver_events() -> None:
    """What the event worker does for the feed and the notifications."""
    from chalicelib import activity, notifications

    for event in drain_outbox():
        for consumer in (activity, notifications):
            if consumer.wants_event(event):
                consumer.on_event(event)


@pytest.fixture
def scene(api):
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)

    def call(who, method, path, expect, **body):
        resp = api.request(method, path, token=tokens[who], json=body or None)
        assert resp.status == expect, resp
        return resp.json if resp.body else None

    call("alice", "POST", "/user/repos", 201, name="proj", auto_init=True)
    call("alice", "POST", "/orgs", 201, username="acme", full_name="Acme Works")
    issue = call("alice", "POST", "/repos/alice/proj/issues", 201,
                 title="Fix the flux capacitor", assignees=["alice"])
    call("bob", "POST", "/user/repos", 201, name="tools", auto_init=True)
    call("bob", "PUT", "/repos/bob/tools/collaborators/alice", 204, permission="write")
    call("bob", "POST", "/repos/bob/tools/contents/new.txt", 201,
         content=base64.b64encode(b"new\n").decode(), new_branch="feature")
    pull = call("bob", "POST", "/repos/bob/tools/pulls", 201, head="feature", base="main",
                title="Add the new tool")
    call("bob", "POST", f"/repos/bob/tools/pulls/{pull['number']}/requested_reviewers", 201,
         reviewers=["alice"])
    call("carol", "POST", "/user/repos", 201, name="hidden", private=True, auto_init=True)
    call("carol", "POST", "/repos/carol/hidden/issues", 201, title="Carol's secret plan",
         assignees=["carol"])
    deliver_events()
    call("bob", "POST", f"/repos/alice/proj/issues/{issue['number']}/comments", 201,
         body="Looks like a timing problem")
    deliver_events()
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol")}
    return dict(users, tokens=tokens, issue=issue["number"], pull=pull["number"],
                anonymous=WebUser(api))


def unread_threads(api, token) -> list[dict]:
    resp = api.get("/notifications?status-types=unread", token=token)
    assert resp.status == 200, resp
    return resp.json


def test_dashboard_shows_what_waits_for_the_user(api, scene):
    page = scene["alice"].get("/")
    assert page.status == 200
    body = text(page)
    assert "Explore repositories" not in body
    # Her repositories; her notifications and organizations one link away.
    assert 'href="http://nimbus.test/alice/proj"' in body or "alice/proj" in body
    assert 'href="/notifications"' in body and 'href="/alice"' in body
    # The pull request asking for her review, the issue assigned to her.
    reviews = body.split('id="dash-reviews"')[1].split("</section>")[0]
    assert "Add the new tool" in reviews and f"/bob/tools/pulls/{scene['pull']}" in reviews
    assigned = body.split('id="dash-assigned"')[1].split("</section>")[0]
    assert "Fix the flux capacitor" in assigned
    assert f"/alice/proj/issues/{scene['issue']}" in assigned
    # Her feed: what she did.
    feed = body.split('id="dash-feed"')[1].split("</section>")[0]
    assert "opened issue" in feed and f"alice/proj#{scene['issue']}" in feed
    assert "created repository" in feed
    # Someone else's private repository shows nowhere.
    assert "carol/hidden" not in body and "secret plan" not in body


def test_dashboard_of_others_and_visitors(api, scene):
    # carol sees her private repository and issue; bob's review request is not hers.
    carol = text(scene["carol"].get("/"))
    assert "carol/hidden" in carol and "Carol&#39;s secret plan" in carol
    assert "Add the new tool" not in carol and "Fix the flux capacitor" not in carol
    assert "No open issue is assigned to you." not in carol
    assert "No pull request awaits your review." in carol
    # Visitors keep the explore list, with public repositories only.
    anonymous = scene["anonymous"].get("/")
    assert anonymous.status == 200 and "Explore repositories" in text(anonymous)
    assert "alice/proj" in text(anonymous) and "carol/hidden" not in text(anonymous)
    explore = scene["alice"].get("/explore/repos")
    assert explore.status == 200 and "Explore repositories" in text(explore)


def assigned_titles(api, token, **query) -> tuple[list[str], str]:
    args = "&".join(f"{k}={v}" for k, v in {"assigned": "true", "type": "issues",
                                            "state": "open", **query}.items())
    resp = api.get(f"/repos/issues/search?{args}", token=token)
    assert resp.status == 200, resp
    return [i["title"] for i in resp.json], resp.headers.get("x-total-count", "")


def test_an_issue_the_user_can_no_longer_read_neither_shows_nor_shifts(api, scene):
    """alice's own list holds issues of bob's private repository after bob took her
    collaboration away: the API's pages and totals and the dashboard skip them."""
    bob, alice = scene["tokens"]["bob"], scene["tokens"]["alice"]
    assert api.post("/user/repos", token=bob, json={"name": "vault", "private": True,
                                                    "auto_init": True}).status == 201
    assert api.put("/repos/bob/vault/collaborators/alice", token=bob,
                   json={"permission": "write"}).status == 204
    for n in range(3):
        assert api.post("/repos/bob/vault/issues", token=bob,
                        json={"title": f"Vault job {n}", "assignees": ["alice"]}).status == 201
    titles, _ = assigned_titles(api, alice)
    assert titles == ["Vault job 2", "Vault job 1", "Vault job 0", "Fix the flux capacitor"]
    assert "Vault job 2" in text(scene["alice"].get("/"))
    assert api.delete("/repos/bob/vault/collaborators/alice", token=bob).status == 204
    assert assigned_titles(api, alice) == (["Fix the flux capacitor"], "1")
    assert assigned_titles(api, alice, limit=1, page=1) == (["Fix the flux capacitor"], "1")
    assert assigned_titles(api, alice, limit=1, page=2)[0] == []
    page = text(scene["alice"].get("/"))
    assigned = page.split('id="dash-assigned"')[1].split("</section>")[0]
    assert "Fix the flux capacitor" in assigned and "Vault job" not in page
    # bob, who may read them, still finds the ones he created.
    resp = api.get("/repos/issues/search?created=true&type=issues&state=open", token=bob)
    assert [i["title"] for i in resp.json][:3] == ["Vault job 2", "Vault job 1", "Vault job 0"]


def test_notifications_page_lists_and_marks_read(api, scene):
    alice, token = scene["alice"], scene["tokens"]["alice"]
    (thread,) = [t for t in unread_threads(api, token)
                 if t["subject"]["title"] == "Fix the flux capacitor"]
    page = alice.get("/notifications")
    assert page.status == 200
    body = text(page)
    assert "Fix the flux capacitor" in body and "alice/proj" in body
    assert f'href="http://nimbus.test/alice/proj/issues/{scene["issue"]}"' in body \
        or f"/alice/proj/issues/{scene['issue']}" in body
    assert f'name="notification_id" value="{thread["id"]}"' in body
    # Missing CSRF: refused, nothing changed.
    refused = alice.post("/notifications/status",
                         {"notification_id": thread["id"], "status": "read"}, csrf=None)
    assert refused.status == 403 and len(unread_threads(api, token)) == 2
    # Someone else's thread: 404, nothing changed.
    stranger = scene["carol"].post("/notifications/status",
                                   {"notification_id": thread["id"], "status": "read"})
    assert stranger.status == 404 and len(unread_threads(api, token)) == 2
    assert scene["carol"].post("/notifications/status",
                               {"notification_id": "999999", "status": "read"}).status == 404
    bad = alice.post("/notifications/status", {"notification_id": thread["id"],
                                               "status": "shouted"})
    assert bad.status == 422 and len(unread_threads(api, token)) == 2
    # Marked read: back to the list, which no longer shows it; the read tab does.
    done = alice.post("/notifications/status", {"notification_id": thread["id"],
                                                "status": "read", "type": "unread"})
    assert done.status == 303 and done.headers["location"] == "/notifications?type=unread"
    assert [t["subject"]["title"] for t in unread_threads(api, token)] == ["Add the new tool"]
    record = api.get(f"/notifications/threads/{thread['id']}", token=token).json
    assert record["unread"] is False
    unread_tab = text(alice.get("/notifications"))
    assert "Fix the flux capacitor" not in unread_tab and "Add the new tool" in unread_tab
    read_tab = text(alice.get("/notifications?type=read"))
    assert "Fix the flux capacitor" in read_tab and "Mark as unread" in read_tab
    assert "Add the new tool" not in read_tab


def test_mark_all_read(api, scene):
    alice, token = scene["alice"], scene["tokens"]["alice"]
    bob_token = scene["tokens"]["bob"]
    assert api.post(f"/repos/alice/proj/issues/{scene['issue']}/comments", token=bob_token,
                    json={"body": "@alice see also this"}).status == 201
    second = api.post("/repos/alice/proj/issues", token=bob_token,
                      json={"title": "Another one", "body": "@alice look"})
    assert second.status == 201
    deliver_events()
    assert len(unread_threads(api, token)) == 3
    assert alice.post("/notifications/purge", {}, csrf=None).status == 403
    assert len(unread_threads(api, token)) == 3
    done = alice.post("/notifications/purge", {"type": "unread"})
    assert done.status == 303 and done.headers["location"] == "/notifications?type=unread"
    assert unread_threads(api, token) == []
    assert "You have no unread notifications." in text(alice.get("/notifications"))
    assert len(api.get("/notifications?status-types=read", token=token).json) == 3


def test_visitors_are_sent_to_sign_in(api, scene):
    visitor = scene["anonymous"]
    resp = visitor.get("/notifications")
    assert resp.status == 303 and resp.headers["location"].startswith("/user/login?")
    assert visitor.post("/notifications/purge", {}).status == 303
    assert len(unread_threads(api, scene["tokens"]["alice"])) == 2
