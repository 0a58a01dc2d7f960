"""/admin/cron on the local runtime (``python -m chalicelib.local``, as ``make run``): a
site admin lists the schedules and runs one, which the runtime starts in a background
thread and records as its schedules' runs; a user who is not an admin gets 403."""
from __future__ import annotations

import time

from chalicelib import instance
from tests.local_server import ADMIN_ENV, call, served

ZERO = "0001-01-01T00:00:00Z"


def cron(base: str) -> dict[str, dict]:
    status, records = call(base, "GET", "/api/v1/admin/cron")
    assert status == 200, records
    return {record["name"]: record for record in records}


def wait_for_run(base: str, name: str, runs: int) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        record = cron(base)[name]
        if record["exec_times"] >= runs:
            return record
        time.sleep(0.1)
    raise AssertionError(f"{name} did not run {runs} time(s): {cron(base)[name]}")


def test_a_site_admin_lists_the_schedules_and_runs_one(tmp_path):
    with served(tmp_path / "state", **ADMIN_ENV) as (_, base):
        listed = cron(base)
        assert list(listed) == [task.name for task in instance.CRON_TASKS]
        assert {"mirror_sync", "pack_compaction", "lfs_collect", "quota_check",
                "migration_resume", "deleted_repo_purge", "outbox_sweep",
                "webhook_sweep"} <= set(listed)
        assert listed["webhook_sweep"]["schedule"] == "@every 1m"
        assert all(r["exec_times"] == 0 and r["prev"] == ZERO for r in listed.values())

        assert call(base, "POST", "/api/v1/admin/cron/lfs_collect") == (204, None)
        ran = wait_for_run(base, "lfs_collect", 1)
        assert ran["prev"] != ZERO and ran["next"] == ZERO   # not the schedule's run
        # The outbox sweep runs the runtime's own (its outbox is its events queue).
        assert call(base, "POST", "/api/v1/admin/cron/outbox_sweep") == (204, None)
        wait_for_run(base, "outbox_sweep", 1)
        assert call(base, "POST", "/api/v1/admin/cron/nothing")[0] == 404

        status, _ = call(base, "POST", "/api/v1/admin/users", {
            "username": "alice", "password": "alice-password-1", "email": "a@example.test",
            "must_change_password": False})
        assert status == 201
        alice = ("alice", "alice-password-1")
        assert call(base, "GET", "/api/v1/admin/cron", auth=alice)[0] == 403
        assert call(base, "POST", "/api/v1/admin/cron/lfs_collect", auth=alice)[0] == 403
        assert call(base, "GET", "/api/v1/admin/cron", auth=None)[0] == 401
        assert cron(base)["lfs_collect"]["exec_times"] == 1
