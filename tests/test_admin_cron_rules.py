"""The cron tasks' rules on the in-memory twin (the fast layer): the schedules in
Forgejo's spelling, a run's bookkeeping (one conditional write to begin, one to end),
a second run skipped while one holds the task, the records' times, and when a task is
behind."""
from __future__ import annotations

import pytest

from chalicelib import clock, instance
from chalicelib.instance import cron, cron_records, cron_store
from chalicelib.jobs import cron as jobs_cron
from tests.conftest import ADMIN

T0 = 1_800_000_000.0


def state(name: str) -> cron_store.CronState:
    return dict(cron.list_tasks())[cron.task_named(name)]


def test_schedules_are_written_as_forgejo_writes_them():
    spelled = {task.name: task.schedule for task in instance.CRON_TASKS}
    assert spelled == {"mirror_sync": "@every 10m", "pack_compaction": "@every 24h",
                       "lfs_collect": "@every 1h", "quota_check": "@every 24h",
                       "migration_resume": "@every 5m", "deleted_repo_purge": "@every 1h",
                       "audit_export": "@every 24h",
                       "outbox_sweep": "@every 5m",
                       "webhook_sweep": "@every 1m"}


def test_a_task_that_never_ran_reads_as_forgejo_s_zero_times(memory):
    task = cron.task_named("lfs_collect")
    assert cron_records.cron(task, state("lfs_collect")) == {
        "name": "lfs_collect", "schedule": "@every 1h", "next": "0001-01-01T00:00:00Z",
        "prev": "0001-01-01T00:00:00Z", "exec_times": 0}


def test_each_run_is_counted_and_a_manual_run_does_not_move_the_schedule(memory):
    task = cron.task_named("lfs_collect")
    with clock.frozen(T0) as now:
        assert jobs_cron.run_task("lfs_collect", job=lambda: 3) == 3
        scheduled = cron_records.cron(task, state("lfs_collect"))
        assert scheduled == {"name": "lfs_collect", "schedule": "@every 1h",
                             "prev": "2027-01-15T08:00:00Z", "next": "2027-01-15T09:00:00Z",
                             "exec_times": 1}
        now.advance(600)
        assert jobs_cron.run_task("lfs_collect", manual=True, job=lambda: 0) == 0
        manual = cron_records.cron(task, state("lfs_collect"))
    assert manual["exec_times"] == 2 and manual["prev"] == "2027-01-15T08:10:00Z"
    assert manual["next"] == scheduled["next"]      # the schedule's own next run
    ended = state("lfs_collect")
    assert ended.outcome == "finished" and ended.running_until == 0
    assert ended.first == T0 and ended.scheduled == T0 and ended.finished == T0 + 600


def test_a_run_is_skipped_while_another_holds_the_task(memory):
    ran = []
    with clock.frozen(T0) as now:
        held = instance.begin_cron_run("quota_check")
        assert held is not None
        # A second run meanwhile (the schedule's, or an admin's): skipped, not counted.
        assert jobs_cron.run_task("quota_check", job=lambda: ran.append(1) or 1) == 0
        assert ran == [] and state("quota_check").exec_times == 1
        instance.end_cron_run("quota_check", held)
        assert jobs_cron.run_task("quota_check", job=lambda: ran.append(1) or 1) == 1
        assert ran == [1] and state("quota_check").exec_times == 2
        # A run that died without ending holds the task until its function's timeout.
        assert instance.begin_cron_run("quota_check") is not None
        now.advance(cron.task_named("quota_check").timeout + cron.HOLD_SLACK_SECONDS - 1)
        assert instance.begin_cron_run("quota_check") is None
        now.advance(2)
        late = instance.begin_cron_run("quota_check")
        assert late is not None


def test_a_run_that_outlived_its_hold_does_not_release_the_next(memory):
    with clock.frozen(T0) as now:
        first = instance.begin_cron_run("migration_resume")
        now.advance(cron.task_named("migration_resume").timeout + cron.HOLD_SLACK_SECONDS + 1)
        second = instance.begin_cron_run("migration_resume")
        assert second is not None
        instance.end_cron_run("migration_resume", first)    # too late: not its hold now
        assert state("migration_resume").running(now())
        instance.end_cron_run("migration_resume", second)
        assert not state("migration_resume").running(now())


def test_a_failed_run_is_recorded_and_raised(memory):
    def broken() -> int:
        raise KeyError("a secret that must not be stored")

    with pytest.raises(KeyError):
        jobs_cron.run_task("mirror_sync", job=broken)
    failed = state("mirror_sync")
    assert (failed.outcome, failed.failure, failed.exec_times) == ("failed", "KeyError", 1)
    assert not failed.running(clock.now())
    assert jobs_cron.run_task("mirror_sync", job=lambda: 0) == 0
    assert state("mirror_sync").outcome == "finished" and state("mirror_sync").failure is None


def test_lateness_of_a_task():
    task = cron.task_named("outbox_sweep")          # every 5 minutes
    allowed = 2 * task.every + cron.LATE_SLACK_SECONDS
    fresh = cron_store.CronState(task.name, prev=T0)
    assert cron.lateness(task, fresh, T0 + allowed, since=T0) == ""
    assert cron.lateness(task, fresh, T0 + allowed + 1, since=T0) == \
        "its last run started 20 minutes ago (every 5 minutes)"
    running = cron_store.CronState(task.name, prev=T0, running_until=T0 + 10 * allowed)
    assert cron.lateness(task, running, T0 + allowed + 1, since=T0) == ""
    failed = cron_store.CronState(task.name, prev=T0, outcome="failed", failure="ClientError")
    assert cron.lateness(task, failed, T0 + 1, since=T0) == "its last run failed (ClientError)"
    never = cron_store.CronState(task.name)
    # Never ran: behind only once the other schedules have run long enough to tell.
    assert cron.lateness(task, never, T0 + allowed, since=T0) == ""
    assert cron.lateness(task, never, T0, since=None) == ""
    assert cron.lateness(task, never, T0 + 3 * 86400, since=T0) == \
        "it never ran, though schedules have run for 3 days"


def test_an_unknown_task_is_not_found(fast_api):
    assert fast_api.post("/admin/cron/no_such_task", auth=ADMIN).status == 404
    listed = fast_api.get("/admin/cron?limit=2&page=2", auth=ADMIN)
    assert [c["name"] for c in listed.json] == ["lfs_collect", "quota_check"]
    assert listed.headers["x-total-count"] == str(len(instance.CRON_TASKS))
