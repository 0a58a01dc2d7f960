"""Code review webhooks: the payloads Forgejo sends for a submitted review (approved,
rejected, comment) and for review requests, and their delivery to a hook that asks for
them (modules/structs/hook.go PullRequestPayload; services/webhook/notifier.go)."""
from __future__ import annotations

import json
from types import SimpleNamespace

from chalicelib.webhooks import consumers as webhook_consumers
from chalicelib.webhooks import formats as webhook_formats
from chalicelib.webhooks import payloads as webhook_payloads
from tests.conftest import drain_outbox
from tests.pulls.test_pulls import R, open_pull, scene  # noqa: F401

PULL = ["action", "number", "pull_request", "requested_reviewer", "repository", "sender",
        "commit_id", "review"]


def made(found) -> list:
    return [p for e in found for p in webhook_payloads.payloads(e)]


def _review(api, token, **body):
    r = api.post(f"{R}/pulls/1/reviews", token=token, json=body)
    assert r.status == 200, r
    return r.json


def test_submitted_reviews_send_forgejos_payloads(api, scene):
    open_pull(api, scene["carol"])
    drain_outbox()
    # A pending review sends nothing; its submit does.
    pending = _review(api, scene["bob"], body="draft")
    assert made(drain_outbox()) == []
    api.post(f"{R}/pulls/1/reviews/{pending['id']}", token=scene["bob"],
             json={"event": "APPROVED", "body": "ship it"})
    [approved] = made(drain_outbox())
    assert approved.event_type == "pull_request_review_approved"
    assert approved.event == "pull_request_approved" and approved.action == "reviewed"
    data = approved.data
    assert list(data) == PULL and data["action"] == "reviewed" and data["number"] == 1
    assert data["review"] == {"type": "pull_request_review_approved", "content": "ship it"}
    assert data["sender"]["login"] == "bob" and data["requested_reviewer"]["login"] == "bob"
    assert data["pull_request"]["number"] == 1 and data["commit_id"] == ""
    # The repository shows the poster's permission (carol: a stranger reads).
    assert data["repository"]["permissions"] == {"admin": False, "push": False, "pull": True}

    _review(api, scene["bob"], event="REQUEST_CHANGES", body="not yet")
    _review(api, scene["alice"], event="COMMENT", body="hm")
    rejected, commented = made(drain_outbox())
    assert (rejected.event_type, rejected.event) == ("pull_request_review_rejected",
                                                     "pull_request_rejected")
    assert rejected.data["review"] == {"type": "pull_request_review_rejected",
                                       "content": "not yet"}
    assert (commented.event_type, commented.event) == ("pull_request_review_comment",
                                                       "pull_request_comment")
    assert commented.data["sender"]["login"] == "alice"
    # Dismissing sends no webhook (Forgejo has none for it).
    assert api.post(f"{R}/pulls/1/reviews/{pending['id']}/dismissals", token=scene["alice"],
                    json={"message": "old"}).status == 200
    assert made(drain_outbox()) == []


def test_review_requests_send_one_payload_per_reviewer(api, scene):
    open_pull(api, scene["carol"])
    drain_outbox()
    r = api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                 json={"reviewers": ["bob", "alice"]})
    assert r.status == 201, r
    asked = made(drain_outbox())
    assert [(p.event_type, p.event, p.action) for p in asked] == \
        [("pull_request_review_request", "pull_request", "review_requested")] * 2
    assert sorted(p.data["requested_reviewer"]["login"] for p in asked) == ["alice", "bob"]
    first = asked[0].data
    assert list(first) == PULL and first["review"] is None
    assert first["sender"]["login"] == "carol"
    assert sorted(u["login"] for u in first["pull_request"]["requested_reviewers"]) == \
        ["alice", "bob"]
    assert api.delete(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                      json={"reviewers": ["bob"]}).status == 204
    [removed] = made(drain_outbox())
    assert removed.action == "review_request_removed" and removed.data["action"] == \
        "review_request_removed"
    assert removed.data["requested_reviewer"]["login"] == "bob"


def test_a_hook_for_reviews_gets_the_delivery_and_chat_hooks_a_message(api, scene):
    hook = api.post(f"{R}/hooks", token=scene["alice"], json={
        "type": "forgejo", "active": True, "events": ["pull_request_review"],
        "config": {"url": "https://ci.example.com/reviews", "content_type": "json"}})
    assert hook.status == 201, hook
    open_pull(api, scene["carol"])
    _review(api, scene["bob"], event="APPROVED", body="fine")
    for event in drain_outbox():
        webhook_consumers.on_event(event)
    listed = api.get(f"{R}/hooks/{hook.json['id']}/deliveries", token=scene["alice"]).json
    # Opening the pull request is no review: only the approval reaches this hook.
    assert [(d["event"], d["action"]) for d in listed] == [("pull_request_approved",
                                                            "reviewed")]
    detail = api.get(f"{R}/hooks/{hook.json['id']}/deliveries/{listed[0]['id']}",
                     token=scene["alice"]).json
    assert detail["request"]["payload"]["review"]["content"] == "fine"

    _review(api, scene["bob"], event="REQUEST_CHANGES", body="wait")
    [rejected] = made(drain_outbox())
    checks = {
        "slack": lambda b: "Pull request review rejected: [#1 Add a]" in b["text"]
        and b["text"].endswith("|bob>"),
        "discord": lambda b: b["embeds"][0]["title"] ==
        "[alice/proj] Pull request review rejected: #1 Add a"
        and b["embeds"][0]["description"] == "wait" and b["embeds"][0]["color"] == 0xFF3232,
        "matrix": lambda b: "Pull request review rejected: [#1 Add a](" in b["body"],
        "msteams": lambda b: "Pull request review rejected" in json.dumps(b),
    }
    for kind, check in checks.items():
        chat = SimpleNamespace(hook_type=kind, content_type="json", http_method="POST",
                               config="{}")
        request = webhook_formats.request_for(chat, rejected)
        assert request is not None and check(json.loads(request.text)), (kind, request)


def test_deleting_a_pull_request_deletes_its_reviews(api, scene):
    from chalicelib.repos import store as repo_store
    from chalicelib.reviews import store as review_store
    from tests.pulls.test_pulls import ZERO, branch_to, deliver_events

    open_pull(api, scene["carol"])
    branch_to(api, scene["alice"], "other", ZERO, {"b.txt": b"b"}, parent=scene["feature"])
    open_pull(api, scene["carol"], head="other", title="Other")
    for number, path in ((1, "a.txt"), (2, "b.txt")):
        r = api.post(f"{R}/pulls/{number}/reviews", token=scene["bob"], json={
            "event": "COMMENT", "body": "look",
            "comments": [{"path": path, "body": "here", "new_position": 1}]})
        assert r.status == 200, r
    api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
             json={"reviewers": ["alice"]})
    repo_id = int(repo_store.get("alice", "proj").id)
    assert len(review_store.reviews_of(repo_id, 1, consistent=True)) == 2
    assert api.delete(f"{R}/issues/1", token=scene["alice"]).status == 204
    deliver_events()
    assert review_store.reviews_of(repo_id, 1, consistent=True) == []
    assert review_store.comments_of(repo_id, 1, consistent=True) == []
    # The other pull request keeps its review and code comment.
    assert len(review_store.reviews_of(repo_id, 2, consistent=True)) == 1
    assert len(review_store.comments_of(repo_id, 2, consistent=True)) == 1
    assert api.get(f"{R}/pulls/1/reviews", token=scene["bob"]).status == 404
    assert api.get(f"{R}/pulls/2/reviews", token=scene["bob"]).status == 200
