"""``admin health`` on moto: nothing behind on a quiet instance (exit 0); then each kind
of backlog reported with its reason and exit status 2: events left in the outbox,
dead letters, a schedule whose last run is late or failed, or that never ran while the
others did.  The outbox is read by its shards' ranges, never scanned."""
from __future__ import annotations

import json
import time

import pytest

from chalicelib import aws, cli, clock, instance
from chalicelib.jobs import cron
from tests.conftest import admin_client, drain_outbox, moto_world


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setattr(cli, "_connect", lambda args, stack: None)
    with moto_world(twin=False):
        yield admin_client()


def health(capsys, *args: str) -> tuple[int, dict]:
    status = cli.main(["admin", "health", "--json", *args])
    report = json.loads(capsys.readouterr().out)
    return status, {f"{f['area']} {f['name']}": f for f in report["findings"]}


def test_a_quiet_instance_has_nothing_behind(api, capsys):
    drain_outbox()              # the admin's creation, relayed
    assert cli.main(["admin", "health"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("nothing is behind")
    assert "ok      outbox: no event waits" in out
    assert "ok      queue nimbus-events: 0 waiting, 0 in flight, 0 delayed; the oldest " \
           "message's age is unknown (CloudWatch has no figures)" in out
    assert "ok      dead letters nimbus-webhooks-dlq: empty" in out
    assert "ok      schedule mirror_sync: never ran (@every 10m)" in out


def test_events_left_in_the_outbox_are_behind(api, capsys):
    drain_outbox()
    api.create_user("alice")            # its event waits in the outbox: nothing relays here
    status, found = health(capsys)
    fresh = found["outbox outbox"]
    assert status == 0 and fresh["behind"] == ""
    assert fresh["summary"].startswith("the oldest event waiting was committed ")
    assert fresh["summary"].endswith(" seconds ago")
    with clock.frozen(time.time() + 20 * 60):
        assert health(capsys, "--outbox-minutes", "30")[0] == 0
        status, found = health(capsys)
    assert status == 2
    assert found["outbox outbox"] == {
        "area": "outbox", "name": "outbox",
        "summary": "the oldest event waiting was committed 20 minutes ago (UserCreated 1)",
        "behind": "1 event(s) committed more than 15 minutes ago are still waiting to be "
                  "relayed"}


def test_dead_letters_are_behind(api, capsys):
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName="nimbus-webhooks-dlq")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"lane": "hook:3"}))
    status, found = health(capsys)
    assert status == 2
    letters = found["dead letters nimbus-webhooks-dlq"]
    assert letters["summary"].endswith("(lane 1)")
    assert letters["behind"].startswith("1 message(s) dead-lettered: `admin deadletters list "
                                        "--queue webhooks`")


def test_schedules_late_failed_or_never_run_are_behind(api, capsys):
    start = time.time()
    with clock.frozen(start) as now:
        for task in instance.CRON_TASKS:
            if task.name != "pack_compaction":
                cron.run_task(task.name, job=lambda: 0)
        with pytest.raises(RuntimeError):
            cron.run_task("lfs_collect", job=lambda: (_ for _ in ()).throw(RuntimeError()))
        status, found = health(capsys)
        assert found["schedule webhook_sweep"]["behind"] == ""
        assert found["schedule lfs_collect"]["behind"] == "its last run failed (RuntimeError)"
        assert found["schedule pack_compaction"]["summary"] == "never ran (@every 24h)"
        assert found["schedule pack_compaction"]["behind"] == ""
        assert status == 2
        now.advance(3 * 3600)
        status, found = health(capsys)
    assert found["schedule webhook_sweep"]["behind"] == \
        "its last run started 3 hours ago (every 60 seconds)"
    assert found["schedule mirror_sync"]["summary"].startswith("last run started 3 hours ago, "
                                                               "finished")
    assert found["schedule quota_check"]["behind"] == ""           # daily: not yet late
    # pack_compaction never ran while the others have run for three hours: not yet two days.
    assert found["schedule pack_compaction"]["behind"] == ""
    with clock.frozen(start + 3 * 86400):
        _, found = health(capsys)
    assert found["schedule pack_compaction"]["behind"] == \
        "it never ran, though schedules have run for 3 days"
