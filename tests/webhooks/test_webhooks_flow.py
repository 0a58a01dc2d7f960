"""Webhook delivery in process (moto, the Lambda handler): events become deliveries in
the table, the worker sends them to a loopback receiver with Forgejo's headers and
signatures, retries, dead letters, redelivery, history, tests and the SSRF refusals."""
from __future__ import annotations

import time

import pytest

from chalicelib import settings as settings_module
from tests.conftest import ADMIN
from tests.webhook_receiver import Receiver

SECRET = "s3cret"


@pytest.fixture
def hook_settings(monkeypatch):
    """Loopback receivers allowed, retries in tens of milliseconds."""
    values = {"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback",
              "NIMBUS__WEBHOOK__BACKOFF_BASE_MS": "40",
              "NIMBUS__WEBHOOK__MAX_ATTEMPTS": "4",
              "NIMBUS__WEBHOOK__DELIVER_TIMEOUT": "2"}

    def apply(**more):
        for name, value in {**values, **more}.items():
            monkeypatch.setenv(name, value)
        settings_module.reset_settings_cache()

    apply()
    yield apply
    for name in values:
        monkeypatch.delenv(name, raising=False)
    settings_module.reset_settings_cache()


@pytest.fixture
def receiver():
    with Receiver() as r:
        yield r


def pump(rounds: int = 50) -> None:
    """Relay the outbox, run the consumers, send what is due; until nothing moves."""
    from chalicelib.jobs import consumers, relay
    from chalicelib.webhooks import consumers as webhooks

    for _ in range(rounds):
        moved = relay.sweep(grace=0)
        while consumers.poll(relay.queue_url()):
            moved += 1
        moved += webhooks.deliver_due()
        if not moved:
            return


def settle(seconds: float = 2.0) -> None:
    """Keep pumping while retries come due."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pump()
        time.sleep(0.05)


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "app"}).status == 201
    return token


def add_hook(api, token, url, path="/repos/alice/app/hooks", **extra):
    body = {"type": "forgejo", "active": True, "events": ["issues", "issue_comment", "push",
                                                           "create", "pull_request"],
            "config": {"url": url, "content_type": "json", "secret": SECRET}, **extra}
    r = api.post(path, token=token, json=body)
    assert r.status == 201, r
    return r.json["id"]


def test_issue_and_comment_events_arrive_signed(api, alice, hook_settings, receiver):
    add_hook(api, alice, receiver.url + "/hook")
    issue = api.post("/repos/alice/app/issues", token=alice, json={"title": "Bug <1>",
                                                                    "body": "it & breaks"}).json
    api.post(f"/repos/alice/app/issues/{issue['number']}/comments", token=alice,
             json={"body": "me too"})
    pump()
    got = receiver.accepted()
    assert [r.event for r in got] == ["issues", "issue_comment"], got
    opened, comment = got
    assert opened.headers["x-forgejo-event-type"] == "issues"
    assert opened.headers["content-type"] == "application/json"
    assert opened.signature_ok(SECRET) and comment.signature_ok(SECRET)
    for family in ("forgejo", "gitea", "gogs", "github"):
        assert opened.headers[f"x-{family}-delivery"] == opened.headers["x-forgejo-delivery"]
    assert b"Bug \\u003c1\\u003e" in opened.body and b"\n  \"action\": \"opened\"" in opened.body
    payload = opened.payload
    assert list(payload) == ["action", "number", "issue", "repository", "sender", "commit_id"]
    assert payload["issue"]["title"] == "Bug <1>" and payload["sender"]["login"] == "alice"
    assert list(comment.payload) == ["action", "issue", "comment", "repository", "sender",
                                     "is_pull"]
    assert comment.payload["comment"]["body"] == "me too"


def _deliveries(api, token, hook_id, path="/repos/alice/app/hooks"):
    r = api.get(f"{path}/{hook_id}/deliveries", token=token)
    assert r.status == 200, r
    return r.json


def test_a_receiver_down_for_a_while_gets_every_event_afterwards_in_order(
        api, alice, hook_settings, receiver):
    hook_settings(NIMBUS__WEBHOOK__MAX_ATTEMPTS="50")
    hook_id = add_hook(api, alice, receiver.url + "/down")
    receiver.status = 500
    titles = [f"issue {n}" for n in range(5)]
    for title in titles:
        api.post("/repos/alice/app/issues", token=alice, json={"title": title})
    settle(1.0)
    failed = [r for r in receiver.received if r.status == 500]
    # Only the first delivery is tried while it fails: the rest wait behind it.
    assert failed and {r.payload["issue"]["title"] for r in failed} == {"issue 0"}
    history = _deliveries(api, alice, hook_id)
    assert [d["state"] for d in history] == ["pending"] * 5
    assert history[-1]["attempts"] >= 2 and history[-1]["status"] == "Invalid HTTP Response: 500"
    receiver.status = 200
    settle(2.0)
    got = [r.payload["issue"]["title"] for r in receiver.accepted()]
    assert got == titles                       # every one, in order, none twice
    assert [d["state"] for d in _deliveries(api, alice, hook_id)] == ["delivered"] * 5


def test_out_of_attempts_is_dead_and_a_4xx_is_not_retried(api, alice, hook_settings, receiver):
    hook_settings(NIMBUS__WEBHOOK__MAX_ATTEMPTS="3")
    hook_id = add_hook(api, alice, receiver.url + "/dead")
    receiver.status = 503
    api.post("/repos/alice/app/issues", token=alice, json={"title": "lost cause"})
    settle(1.5)
    [dead] = _deliveries(api, alice, hook_id)
    assert dead["state"] == "dead" and dead["attempts"] == 3
    receiver.status = 410
    api.post("/repos/alice/app/issues", token=alice, json={"title": "gone"})
    settle(0.5)
    latest = _deliveries(api, alice, hook_id)[0]
    assert latest["state"] == "failed" and latest["attempts"] == 1
    assert latest["status_code"] == 410


def test_retry_after_is_honoured(api, alice, hook_settings, receiver):
    hook_id = add_hook(api, alice, receiver.url + "/busy")
    receiver.status, receiver.headers = 429, {"Retry-After": "30"}
    api.post("/repos/alice/app/issues", token=alice, json={"title": "later"})
    pump()
    [waiting] = _deliveries(api, alice, hook_id)
    assert waiting["state"] == "pending" and waiting["attempts"] == 1
    wait = time.time() - 0
    from datetime import datetime
    due = datetime.fromisoformat(waiting["next_attempt_at"].replace("Z", "+00:00")).timestamp()
    assert 25 <= due - wait <= 31


def test_history_detail_redelivery_and_test_push(api, alice, hook_settings, receiver):
    hook_id = add_hook(api, alice, receiver.url + "/h", authorization_header="Bearer tok")
    api.post("/repos/alice/app/issues", token=alice, json={"title": "one"})
    pump()
    [first] = _deliveries(api, alice, hook_id)
    assert first["event"] == "issues" and first["action"] == "opened"
    assert first["status"] == "OK" and first["status_code"] == 200 and not first["redelivery"]
    detail = api.get(f"/repos/alice/app/hooks/{hook_id}/deliveries/{first['id']}", token=alice)
    assert detail.status == 200
    body = detail.json
    assert body["request"]["headers"]["Authorization"] == "Bearer ******"
    assert body["request"]["headers"]["X-Forgejo-Event"] == "issues"
    assert body["request"]["payload"]["issue"]["title"] == "one"
    assert body["response"]["payload"] == "ok" and len(body["attempt_history"]) == 1
    assert receiver.accepted()[0].headers["authorization"] == "Bearer tok"
    again = api.post(f"/repos/alice/app/hooks/{hook_id}/deliveries/{first['id']}/attempts",
                     token=alice)
    assert again.status == 202 and again.json["redelivery"] is True
    pump()
    sent = receiver.accepted()
    assert len(sent) == 2 and sent[1].body == sent[0].body
    assert sent[1].headers["x-forgejo-delivery"] != sent[0].headers["x-forgejo-delivery"]
    assert api.get(f"/repos/alice/app/hooks/{hook_id}/deliveries/12345",
                   token=alice).status == 404
    # The test push needs a commit: an empty repository is a 404.
    assert api.post(f"/repos/alice/app/hooks/{hook_id}/tests", token=alice).status == 404
    api.post("/user/repos", token=alice, json={"name": "full", "auto_init": True})
    full_hook = add_hook(api, alice, receiver.url + "/t", path="/repos/alice/full/hooks",
                         events=["issues"])
    assert api.post(f"/repos/alice/full/hooks/{full_hook}/tests", token=alice).status == 204
    pump()
    test = receiver.accepted("/t")[-1]
    assert test.event == "push" and test.signature_ok(SECRET)
    push = test.payload
    assert push["ref"] == "refs/heads/main" and push["before"] == push["after"]
    assert push["total_commits"] == 1 and push["commits"][0]["added"] is None
    assert push["repository"]["permissions"] == {"admin": False, "push": False, "pull": False}


def test_loopback_is_refused_at_creation_and_at_delivery_unless_allowed(api, alice, receiver,
                                                                        hook_settings):
    hook_id = add_hook(api, alice, receiver.url + "/ok")        # allowed while this is set
    hook_settings(NIMBUS__WEBHOOK__ALLOWED_HOST_LIST="external")
    r = api.post("/repos/alice/app/hooks", token=alice, json={
        "type": "gitea", "config": {"url": receiver.url + "/x", "content_type": "json"}})
    assert r.status == 422 and "ALLOWED_HOST_LIST" in r.json["message"], r
    r = api.post("/repos/alice/app/hooks", token=alice, json={
        "type": "gitea", "config": {"url": "http://10.1.2.3/x", "content_type": "json"}})
    assert r.status == 422
    api.post("/repos/alice/app/issues", token=alice, json={"title": "not sent"})
    pump()
    assert receiver.received == []
    [refused] = _deliveries(api, alice, hook_id)
    assert refused["state"] == "failed" and "ALLOWED_HOST_LIST" in refused["status"]


def test_form_content_and_gitea_short_refs(api, alice, hook_settings, receiver):
    add_hook(api, alice, receiver.url + "/form", type="gitea", events=["create", "issues"],
             config={"url": receiver.url + "/form", "content_type": "form", "secret": SECRET})
    api.post("/repos/alice/app/issues", token=alice, json={"title": "formed"})
    pump()
    [got] = receiver.accepted()
    assert got.headers["content-type"] == "application/x-www-form-urlencoded"
    assert got.body.startswith(b"payload=%7B%0A++%22action%22")
    assert got.signature_ok(SECRET) and got.payload["issue"]["title"] == "formed"


def test_system_hooks_hear_every_repository(api, alice, hook_settings, receiver):
    admin = api.create_token(ADMIN[0], ADMIN[1], name="hooks")
    r = api.post("/admin/hooks", token=admin, json={
        "type": "forgejo", "active": True, "events": ["issues"],
        "config": {"url": receiver.url + "/sys", "content_type": "json",
                   "is_system_webhook": "true"}})
    assert r.status == 201, r
    default = api.post("/admin/hooks", token=admin, json={
        "type": "forgejo", "active": True, "config": {"url": receiver.url + "/default",
                                                      "content_type": "json"}})
    assert default.status == 201
    assert [h["id"] for h in api.get("/admin/hooks", token=admin).json] == [r.json["id"]]
    assert api.get(f"/admin/hooks/{default.json['id']}", token=admin).status == 200
    assert api.get("/admin/hooks", token=alice).status == 403
    bad = api.post("/admin/hooks", token=admin, json={
        "type": "forgejo", "config": {"url": receiver.url, "content_type": "json",
                                      "is_system_webhook": "maybe"}})
    assert bad.status == 422 and bad.json["message"] == "Invalid is_system_webhook value"
    api.post("/repos/alice/app/issues", token=alice, json={"title": "everywhere"})
    pump()
    assert [r.path for r in receiver.accepted()] == ["/sys"]
    assert _deliveries(api, admin, r.json["id"], path="/admin/hooks")[0]["event"] == "issues"
