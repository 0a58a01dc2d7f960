"""The audit log end to end on moto: a scripted session in an organization's repository
(create it, edit it, an issue opened, edited and closed, a collaborator, a webhook with
a secret, a team member, the repository deleted), its events run through the audit-log
consumer as the worker runs it, then the two lists as each caller may read them (with
every filter and the request id each change answered with) and the daily export in the
bucket; no secret anywhere."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chalicelib import audit, clock
from chalicelib.jobs import consumers
from tests.conftest import ADMIN, drain_outbox

HOOK_SECRET = "hook-s3cret-value-42"
LATER = 1800.0          # the issue's steps happen half an hour after the first ones


def deliver() -> int:
    """Every waiting event through the consumers registered as ``audit-log`` (the
    worker's own registration), as the event pipeline would run them."""
    ran = 0
    for event in drain_outbox():
        for consumer in consumers.consumers_for(event):
            if consumer.name == "audit-log" and consumer.wants(event):
                consumer.handle(event)
                ran += 1
    return ran


@pytest.fixture
def session(api):
    """acme (alice owns it; bob a plain member; carol a collaborator; erin a stranger)
    and dave's private organization ``other``; the scripted session's answers."""
    names = ("alice", "bob", "carol", "dave", "erin")
    for name in names:
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in names}
    tokens["root"] = api.create_token(ADMIN[0], ADMIN[1])
    alice = tokens["alice"]
    start = clock.now()
    seen: dict[str, str] = {}

    def call(method, path, token=alice, status=None, **kw):
        resp = api.request(method, path, token=token, **kw)
        assert resp.status == (status or resp.status) and resp.status < 400, (path, resp)
        seen[f"{method} {path}"] = resp.headers["x-request-id"]
        return resp

    call("POST", "/orgs", json={"username": "acme"})
    call("POST", "/orgs/acme/repos", json={"name": "tool"})
    call("PATCH", "/repos/acme/tool", json={"description": "a sharper tool"})
    call("PUT", "/repos/acme/tool/collaborators/carol", json={"permission": "write"})
    hook = call("POST", "/repos/acme/tool/hooks", json={
        "type": "gitea", "active": True, "events": ["push"],
        "config": {"url": "https://ci.example.com/hook", "content_type": "json",
                   "secret": HOOK_SECRET}}).json
    team = call("POST", "/orgs/acme/teams", json={"name": "devs", "permission": "read"}).json
    call("PUT", f"/teams/{team['id']}/members/bob")
    call("POST", "/orgs", token=tokens["dave"], json={"username": "other",
                                                      "visibility": "private"})
    call("POST", "/orgs/other/repos", token=tokens["dave"], json={"name": "thing"})
    with clock.frozen(start + LATER) as frozen:
        number = call("POST", "/repos/acme/tool/issues", json={"title": "Crahs"}).json["number"]
        frozen.advance(1)
        call("PATCH", f"/repos/acme/tool/issues/{number}", json={"title": "Crash"})
        frozen.advance(1)
        call("PATCH", f"/repos/acme/tool/issues/{number}", json={"state": "closed"})
        frozen.advance(1)
        call("DELETE", "/repos/acme/tool")
        assert deliver() >= 15
    return {"tokens": tokens, "start": start, "seen": seen, "hook": hook, "number": number}


def listed(api, path, token, status=200) -> list[dict]:
    resp = api.get(path, token=token)
    assert resp.status == status, (path, resp)
    assert HOOK_SECRET.encode() not in resp.body
    return resp.json


def test_site_admins_read_every_change_with_actor_changes_and_request(api, session):
    root, seen = session["tokens"]["root"], session["seen"]
    entries = listed(api, "/admin/audit_log?limit=50", root)
    actions = [e["action"] for e in entries]
    for action in ("organization.created", "repository.created", "repository.edited",
                   "collaborator.added", "hook.created", "team.created", "team.member_added",
                   "issue.opened", "issue.edited", "issue.closed", "repository.deleted"):
        assert action in actions, action
    times = [e["created_at"] for e in entries]
    assert times == sorted(times, reverse=True)          # newest first
    by_action = {e["action"]: e for e in entries if (e["repo"] or {}).get("full_name")
                 == "acme/tool" or e["action"].startswith(("organization", "team"))}
    edited = by_action["repository.edited"]
    assert edited["actor"]["login"] == "alice"
    assert edited["changes"] == {"description": {"before": "", "after": "a sharper tool"}}
    assert edited["request_id"] == seen["PATCH /repos/acme/tool"]
    assert edited["address"]
    assert edited["target"]["kind"] == "repository" and edited["owner"]["login"] == "acme"
    assert by_action["issue.edited"]["changes"] == \
        {"title": {"before": "Crahs", "after": "Crash"}}
    assert by_action["issue.closed"]["changes"] == \
        {"state": {"before": "open", "after": "closed"}}
    assert by_action["issue.closed"]["target"]["name"] == f"acme/tool#{session['number']}"
    assert by_action["collaborator.added"]["target"]["name"] == "carol"
    assert by_action["collaborator.added"]["changes"]["permission"]["after"] == "write"
    hook = by_action["hook.created"]
    assert hook["target"] == {"kind": "hook", "id": session["hook"]["id"],
                              "name": "https://ci.example.com/hook"}
    assert hook["request_id"] == seen["POST /repos/acme/tool/hooks"]
    assert by_action["repository.deleted"]["request_id"] == seen["DELETE /repos/acme/tool"]
    for entry in entries:
        assert set(entry) == {"id", "action", "actor", "target", "changes", "details",
                              "repo", "owner", "request_id", "address", "created_at"}


def test_filters_by_repository_actor_action_and_time(api, session):
    root, start = session["tokens"]["root"], session["start"]
    in_repo = listed(api, "/admin/audit_log?repo=acme/tool&limit=50", root)
    assert in_repo and {e["repo"]["full_name"] for e in in_repo} == {"acme/tool"}
    assert "repository.deleted" in [e["action"] for e in in_repo]   # found though gone
    by_dave = listed(api, "/admin/audit_log?actor=dave&limit=50", root)
    assert by_dave and {e["actor"]["login"] for e in by_dave} == {"dave"}
    issues = listed(api, "/admin/audit_log?action=issue&repo=acme/tool", root)
    assert [e["action"] for e in issues] == ["issue.closed", "issue.edited", "issue.opened"]
    one = listed(api, "/admin/audit_log?action=issue.edited&actor=alice", root)
    assert [e["action"] for e in one] == ["issue.edited"]
    middle = datetime.fromtimestamp(start + LATER / 2, tz=UTC)
    later = listed(api, f"/admin/audit_log?since={middle:%Y-%m-%dT%H:%M:%SZ}&limit=50", root)
    assert {e["action"] for e in later} == {"issue.opened", "issue.edited", "issue.closed",
                                            "repository.deleted"}
    earlier = listed(api, f"/admin/audit_log?until={int(start + LATER / 2)}&limit=50", root)
    assert not {e["action"] for e in earlier} & {e["action"] for e in later}
    assert listed(api, "/admin/audit_log?actor=nobody-at-all", root) == []
    assert listed(api, "/admin/audit_log?since=yesterday", root, status=422)
    page = api.get("/admin/audit_log?repo=acme/tool&limit=2", token=root)
    assert len(page.json) == 2 and 'rel="next"' in page.headers["link"]


def test_organization_owners_read_their_organization_s_log_and_nobody_else(api, session):
    tokens = session["tokens"]
    mine = listed(api, "/orgs/acme/audit_log?limit=50", tokens["alice"])
    assert {"organization.created", "repository.edited", "team.member_added",
            "issue.closed"} <= {e["action"] for e in mine}
    assert all(e["owner"]["login"] == "acme" for e in mine)
    assert not [e for e in mine if e["actor"]["login"] == "dave"]
    in_repo = listed(api, "/orgs/acme/audit_log?repo=tool&limit=50", tokens["alice"])
    assert {e["repo"]["full_name"] for e in in_repo} == {"acme/tool"}
    # Another organization's repository is not the owner's to read.
    assert listed(api, "/orgs/acme/audit_log?repo=other/thing", tokens["alice"]) == []
    assert listed(api, "/orgs/other/audit_log", tokens["root"])     # site admins: any
    assert api.get("/orgs/acme/audit_log", token=tokens["bob"]).status == 403   # member
    assert api.get("/orgs/acme/audit_log", token=tokens["erin"]).status == 403  # can see it
    assert api.get("/orgs/other/audit_log", token=tokens["erin"]).status == 404  # cannot
    assert api.get("/orgs/acme/audit_log").status == 401
    assert api.get("/admin/audit_log", token=tokens["alice"]).status == 403
    narrow = api.create_token("alice", name="narrow", scopes=("read:repository",))
    assert api.get("/orgs/acme/audit_log", token=narrow).status == 403


def test_the_daily_export_writes_the_day_as_json_lines_without_secrets(api, session):
    from chalicelib import aws
    from chalicelib.settings import get_settings

    root = session["tokens"]["root"]
    day_start = int(session["start"]) // 86400 * 86400
    wanted = [e for e in listed(api, "/admin/audit_log?limit=50", root)
              if int(datetime.fromisoformat(e["created_at"])
                     .timestamp()) // 86400 * 86400 == day_start]
    assert audit.export_recent(now=day_start + 86400 + 60) >= len(wanted) > 0
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    key = f"audit/{datetime.fromtimestamp(day_start, tz=UTC):%Y/%m/%d}.jsonl"
    first = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    lines = [json.loads(line) for line in first.decode().splitlines()]
    assert [e["id"] for e in lines] == [e["id"] for e in reversed(wanted)]   # oldest first
    assert HOOK_SECRET.encode() not in first
    for token in session["tokens"].values():
        assert token.encode() not in first
    audit.export_day(day_start)
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == first     # idempotent
    # The day before had nothing: its file is empty.
    before = datetime.fromtimestamp(day_start - 86400, tz=UTC)
    assert s3.get_object(Bucket=bucket, Key=f"audit/{before:%Y/%m/%d}.jsonl")["Body"] \
        .read() == b""


def test_a_redelivered_event_writes_no_second_entry(api, session):
    from chalicelib import events

    root = session["tokens"]["root"]
    before = listed(api, "/admin/audit_log?limit=50", root)
    made = events.TokenCreated(actor_id=1, user_id=1, token_id=99).stamped()
    audit.on_event(made)
    audit.on_event(made)
    after = listed(api, "/admin/audit_log?limit=50", root)
    assert len(after) == len(before) + 1
    found = listed(api, "/admin/audit_log?action=token.created", root)
    assert [e["target"] for e in found if e["id"] == made.event_id] == \
        [{"kind": "token", "id": 99}]
    # Scheduling notes of background work are not changes.
    assert not audit.wants_event(events.MigrationStepDue(actor_id=None, repo_id=1))
