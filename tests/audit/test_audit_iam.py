"""The audit log on the rendered roles, IAM enforced under moto (tests/iam_harness.py):
the event worker writes entries, the API's function reads both lists, and the export's
own function (``AuditExport``) reads the index and writes the day's file; nothing is
denied, and the export's role holds no right it did not use."""
from __future__ import annotations

import pytest

from chalicelib import clock
from tests.conftest import ADMIN, drain_outbox
from tests.iam_harness import Authorizer, Stack, rendered_roles, schedule_event


@pytest.fixture
def stack(api, monkeypatch, tmp_path):
    authorizer = Authorizer()
    authorizer.install(monkeypatch)
    return Stack(authorizer, rendered_roles(), tmp_path)


def test_each_function_does_its_part_on_its_own_policy(api, stack):
    from app import audit_export
    from chalicelib import audit

    api.create_user("alice")
    alice = api.create_token("alice")
    root = api.create_token(*ADMIN)
    yesterday = clock.now() - 86400
    with clock.frozen(yesterday):
        assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
        assert api.post("/orgs/acme/repos", token=alice, json={"name": "tool"}).status == 201
    with stack.run_as("EventWorker"):
        for event in drain_outbox():
            if audit.wants_event(event):
                audit.on_event(event)
    with stack.run_as("APIHandler"):
        everything = api.get("/admin/audit_log?repo=acme/tool", token=root)
        mine = api.get("/orgs/acme/audit_log?actor=alice", token=alice)
    assert everything.status == 200 and everything.json
    assert mine.status == 200 and mine.json
    with stack.run_as("AuditExport"):
        assert audit_export(schedule_event(), None)["exported"] >= len(everything.json)
    assert not stack.authorizer.denied, stack.authorizer.denied
    used = {action for action, _ in stack.authorizer.used("AuditExport")}
    assert {"dynamodb:Query", "s3:PutObject"} <= used
