"""Telemetry under moto, as a client and an operator see it: every request writes one
JSON line with its metrics in Embedded Metric Format (namespace Nimbus, dimensions
Operation and Function), a consumer run, the relay and a webhook lane write theirs,
a streamed clone's line counts its bytes when the stream ends, and no token, password,
cookie or body ever appears in a log line."""
from __future__ import annotations

import base64
import json
import logging
from collections import Counter

import pytest

from chalicelib import aws, clock, telemetry
from tests.conftest import ADMIN, basic
from tests.webhooks.test_webhooks_flow import hook_settings, pump, receiver  # noqa: F401 - fixtures


@pytest.fixture
def lines():
    """Every telemetry line written during the test, as text."""
    got: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record.getMessage())

    handler = Keep()
    telemetry.log.addHandler(handler)
    try:
        yield got
    finally:
        telemetry.log.removeHandler(handler)


def parsed(lines: list[str], event: str | None = None) -> list[dict]:
    found = [json.loads(line) for line in lines]
    return [line for line in found if event is None or line["event"] == event]


def directives(line: dict) -> dict:
    """{dimension sets: {metric: unit}} of a line's ``_aws`` block."""
    block = line["_aws"]
    assert isinstance(block["Timestamp"], int)
    assert {d["Namespace"] for d in block["CloudWatchMetrics"]} == {"Nimbus"}
    return {tuple(map(tuple, d["Dimensions"])): {m["Name"]: m["Unit"] for m in d["Metrics"]}
            for d in block["CloudWatchMetrics"]}


BY_OPERATION = (("Operation",), ("Function",))
BY_FUNCTION = (("Function",),)
_counting = [False]
_counted: list[str] = []


def _count_independently(model=None, **_) -> None:
    if _counting[0]:
        _counted.append(model.service_model.service_name)


aws.add_call_hook(_count_independently)


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "app", "auto_init": True}).status == 201
    return token


def test_a_request_writes_one_line_with_its_metrics_and_dimensions(api, alice, lines):
    alice_id = api.get("/user", token=alice).json["id"]
    lines.clear()
    _counted.clear()
    _counting[0] = True
    try:
        resp = api.get("/repos/alice/app", token=alice)
    finally:
        _counting[0] = False
    assert resp.status == 200
    [line] = parsed(lines)
    assert line["event"] == "request" and line["Operation"] == "repoGet"
    assert (line["method"], line["route"], line["status"]) == ("GET", "/api/v1/repos/{owner}/{repo}", 200)
    assert line["request_id"] == resp.headers["x-request-id"]
    assert (line["caller_id"], line["via"], line["sudo_by"]) == (alice_id, "token", None)
    assert line["Function"] == "local"
    # Counted by the same hook as the benchmarks': telemetry itself makes none.
    assert line["aws_calls"] == len(_counted) > 0
    assert line["aws_calls_by_service"] == dict(Counter(_counted))
    assert (line["Requests"], line["Errors"], line["ClientErrors"]) == (1, 0, 0)
    assert line["Latency"] > 0
    assert directives(line) == {
        BY_OPERATION: {"Requests": "Count"},
        BY_FUNCTION: {"Errors": "Count", "ClientErrors": "Count", "Latency": "Milliseconds"}}


def test_client_errors_server_errors_and_unmatched_paths_are_counted_by_operation(
        api, alice, lines, monkeypatch):
    lines.clear()
    assert api.get("/repos/alice/nothing-here", token=alice).status == 404
    assert api.get("/no/such/route").status == 404
    from chalicelib.issues import service as issues

    def explode(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(issues, "create_issue", explode)
    assert api.post("/repos/alice/app/issues", token=alice, json={"title": "t"}).status == 500
    missing, unmatched, failed = parsed(lines)
    assert (missing["Operation"], missing["ClientErrors"], missing["status"]) == ("repoGet", 1, 404)
    assert directives(missing)[BY_OPERATION] == {"Requests": "Count", "ClientErrors": "Count"}
    assert (unmatched["Operation"], unmatched["route"], unmatched["caller_id"]) == (
        "unmatched", None, None)
    assert (failed["Operation"], failed["Errors"], failed["status"]) == ("issueCreateIssue", 1, 500)
    assert directives(failed)[BY_OPERATION] == {"Requests": "Count", "Errors": "Count"}
    assert "boom" not in json.dumps(failed)


def test_sudo_names_both_accounts(api, alice, lines):
    admin_token = api.create_token(ADMIN[0], ADMIN[1], name="sudo")
    ids = {name: api.get("/user", auth=(name, password)).json["id"]
           for name, password in (ADMIN, ("alice", "secret-pass-1"))}
    lines.clear()
    assert api.get("/user", token=admin_token, headers={"Sudo": "alice"}).json["login"] == "alice"
    [line] = parsed(lines)
    assert (line["caller_id"], line["sudo_by"]) == (ids["alice"], ids[ADMIN[0]])


def test_no_token_password_cookie_or_body_reaches_any_log_line(api, alice, lines, caplog):
    from tests.web.test_web_session import session_cookie, sign_in

    caplog.set_level(logging.INFO)      # every logger's lines, not only telemetry's
    password = "pass-word-SECRET-1"
    api.create_user("bob", password=password)
    token = api.create_token("bob", password=password, name="bob-token")
    made = api.post("/users/bob/tokens", auth=("bob", password),
                    json={"name": "second", "scopes": ["all"]}).json["sha1"]
    hook_secret, authorization = "hook-SECRET-2", "Bearer auth-SECRET-3"
    assert api.get("/user", token=token).status == 200
    assert api.get(f"/user?token={token}").status == 200
    assert api.get(f"/user?access_token={made}").status == 200
    assert api.get("/user", auth=("bob", password)).status == 200
    assert api.get("/user", auth=("bob", "wrong-SECRET-4")).status == 401
    assert api.post("/user/repos", token=token, json={"name": "tools"}).status == 201
    assert api.post("/repos/bob/tools/hooks", token=token, json={
        "type": "forgejo", "active": True, "events": ["push"], "authorization_header": authorization,
        "config": {"url": "http://hooks.example/x", "content_type": "json",
                   "secret": hook_secret}}).status == 201
    info = "/bob/tools.git/info/refs?service=git-upload-pack"
    assert api.get(info, raw=True, auth=("bob", password)).status == 200
    signed_in = sign_in(api, "bob", password)
    assert signed_in.status == 303
    cookie = session_cookie(signed_in)
    assert api.get("/bob/tools", raw=True, headers={"Cookie": cookie}).status == 200
    secrets = [password, token, made, hook_secret, authorization, "auth-SECRET-3",
               "wrong-SECRET-4", cookie.split("=", 1)[1],
               base64.b64encode(f"bob:{password}".encode()).decode()]
    every_line = lines + [record.getMessage() for record in caplog.records]
    assert len(parsed(lines, "request")) >= 11
    leaked = [(secret, line) for line in every_line for secret in secrets if secret in line]
    assert leaked == []


def test_a_consumer_run_writes_its_line(api, alice, lines):
    from chalicelib import events
    from chalicelib.jobs import consumers
    from tests.conftest import drain_outbox

    drain_outbox()
    assert api.post("/repos/alice/app/issues", token=alice, json={"title": "t"}).status == 201
    [opened] = [e for e in drain_outbox() if isinstance(e, events.IssueChanged)]
    seen = []
    consumers.register("telemetry-probe", (events.IssueChanged,), seen.append)

    def refuse(event):
        raise ValueError("secret detail")
    consumers.register("telemetry-refuses", (events.IssueChanged,), refuse)
    message = events.to_message(opened)
    try:
        lines.clear()
        with pytest.raises(ValueError):
            consumers.handle_message(message)
        with pytest.raises(ValueError):
            consumers.handle_message(message)       # redelivered: the probe ran already
    finally:
        consumers.unregister("telemetry-probe")
        consumers.unregister("telemetry-refuses")
    assert seen == [opened]
    runs = parsed(lines, "consumer_run")
    probe = [line for line in runs if line["Consumer"] == "telemetry-probe"]
    assert [line["outcome"] for line in probe] == ["ok", "duplicate"]
    first = probe[0]
    assert (first["event_type"], first["event_id"]) == ("IssueChanged", opened.event_id)
    assert first["ConsumerRuns"] == 1 and first["ConsumerFailures"] == 0
    assert first["aws_calls_by_service"] == {"dynamodb": 2}      # the claim, the mark
    assert first["EventAge"] >= 0 and first["ConsumerLatency"] > 0
    assert directives(first) == {BY_FUNCTION: {
        "ConsumerRuns": "Count", "ConsumerFailures": "Count", "ConsumerLatency": "Milliseconds",
        "EventAge": "Seconds"}}
    refused = [line for line in runs if line["Consumer"] == "telemetry-refuses"]
    assert [(line["outcome"], line["error"]) for line in refused] == [("failed", "ValueError")] * 2
    assert directives(refused[0])[(("Consumer",), ("Function",))] == {"ConsumerFailures": "Count"}
    assert "secret detail" not in "".join(lines)


def test_the_relay_reports_the_age_of_the_oldest_event(api, alice, lines):
    from chalicelib.jobs import relay

    with clock.frozen() as now:
        assert api.post("/repos/alice/app/issues", token=alice, json={"title": "t"}).status == 201
        now.advance(125)
        lines.clear()
        published = relay.sweep(grace=0)
    assert published >= 1
    [line] = parsed(lines, "relay_run")
    assert (line["found"], line["EventsRelayed"], line["outcome"]) == (published, published, "ok")
    assert 125 <= line["OutboxLag"] < 200
    assert line["aws_calls_by_service"]["sqs"] >= 1
    assert directives(line)[BY_FUNCTION]["OutboxLag"] == "Seconds"
    lines.clear()
    assert relay.sweep(grace=0) == 0
    [quiet] = parsed(lines, "relay_run")
    assert (quiet["found"], quiet["OutboxLag"]) == (0, 0)
    assert "_aws" not in quiet              # an idle sweep costs no metric


def test_a_webhook_lane_counts_deliveries_failures_and_dead_letters(
        api, alice, lines, hook_settings, receiver):  # noqa: F811
    hook_settings(NIMBUS__WEBHOOK__MAX_ATTEMPTS="1")
    assert api.post("/repos/alice/app/hooks", token=alice, json={
        "type": "forgejo", "active": True, "events": ["issues"],
        "config": {"url": receiver.url + "/hook", "content_type": "json",
                   "secret": "lane-SECRET"}}).status == 201
    receiver.status = 500
    api.post("/repos/alice/app/issues", token=alice, json={"title": "first"})
    lines.clear()
    pump()
    [dead] = [line for line in parsed(lines, "webhook_lane_run") if line["sent"]]
    assert (dead["WebhookDeliveries"], dead["WebhookFailures"], dead["WebhookDeadLetters"]) == (1, 1, 1)
    assert dead["outcome"] == "ok" and dead["WebhookLaneRuns"] == 1
    receiver.status = 200
    api.post("/repos/alice/app/issues", token=alice, json={"title": "second"})
    lines.clear()
    pump()
    [delivered] = [line for line in parsed(lines, "webhook_lane_run") if line["sent"]]
    assert (delivered["WebhookDeliveries"], delivered["WebhookFailures"]) == (1, 0)
    assert "WebhookDeadLetters" not in delivered
    assert "lane-SECRET" not in "".join(lines)


def _pkt(line: str) -> bytes:
    return f"{len(line) + 4:04x}".encode() + line.encode()


def test_a_streamed_clone_is_logged_when_its_stream_ends(api, alice, lines):
    from chalicelib.local.events import build_event
    from chalicelib.streaming.handler import handle_stream_event

    head = api.get("/repos/alice/app/branches/main", token=alice).json["commit"]["id"]
    body = _pkt(f"want {head} side-band-64k thin-pack ofs-delta\n") + b"0000" + _pkt("done\n")
    event = build_event("POST", "/alice/app.git/git-upload-pack", [
        ("Content-Type", "application/x-git-upload-pack-request"),
        ("Authorization", basic("alice", "secret-pass-1"))], body)
    lines.clear()
    result = handle_stream_event(event)
    assert result.status == 200 and result.streamed, b"".join(result.chunks)
    assert lines == []                       # written when the stream ends
    sent = sum(len(chunk) for chunk in result.chunks)
    [line] = parsed(lines)
    assert line["Operation"] == "gitUploadPack" and line["route"] == "/{owner}/{repo}/git-upload-pack"
    assert (line["GitBytesIn"], line["GitBytesOut"]) == (len(body), sent) and sent > 100
    assert line["aws_calls"] > 0 and line["via"] == "password"
    assert directives(line)[BY_FUNCTION]["GitBytesOut"] == "Bytes"
