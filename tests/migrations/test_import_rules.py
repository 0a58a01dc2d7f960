"""A project migration's rules on the in-memory twin, with an in-memory source: numbers
kept, counters right, authors matched by e-mail or kept as the original author, the
next number after the import, every step safe to run again, a failure recorded with
its error redacted, and nothing visible before the migration is done.  The git step is
replaced by one that fetches nothing (``test_migration_api`` fetches for real)."""
from __future__ import annotations

import pytest

from chalicelib import issues, migrations, repos
from chalicelib.errors import ConflictError, NotFoundError
from chalicelib.migrations import service, steps, store
from chalicelib.repo_admin.options import MigrateRepoOptions
from tests import memory_scene as scene
from tests.environment import settings_env
from tests.migrations.project_fakes import FakeSource, pump

ADDR = "http://127.0.0.1:9/src/proj"


@pytest.fixture
def world(memory, monkeypatch):
    # Queued at once: these tests drive the turns themselves (``pump``);
    # test_migration_inline runs the first turn in the request.
    with settings_env({"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true",
                       "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}):
        source = FakeSource()
        migrations.use_source_opener(lambda *a, **kw: source)

        def no_git(run):
            run.state["default_branch"] = "main"
            steps.commit(run, run.next_step)

        steps.STEP_RUNNERS["issues"]     # every step loaded, then git replaced
        monkeypatch.setitem(steps.STEP_RUNNERS, "git", no_git)
        alice = scene.user("alice")
        yield {"source": source, "alice": alice}
        migrations.use_source_opener(None)


def start(alice, name="proj", **parts):
    wanted = parts or {"labels": True, "milestones": True, "issues": True,
                       "pull_requests": True, "releases": True}
    option = MigrateRepoOptions(clone_addr=ADDR, repo_name=name, service="gitea",
                                auth_token="s3cret-token-value", **wanted)
    return service.start(scene.caller(alice), option)


def task(name="proj"):
    return store.get("alice", name)


def tracker_of(view):
    return issues.get_tracker(int(view.repo.id), consistent=True)


def test_whole_project_numbers_counters_authors(world):
    alice = world["alice"]
    view = start(alice)
    assert repos.repo_by_name("alice", "proj") is None     # being migrated: not visible
    pump()
    assert task().status == "done", task().error
    repo = repos.repo_by_name("alice", "proj")
    assert repo is not None and int(repo.id) == int(view.repo.id)
    issues_n, pulls_n = world["source"].numbers()
    assert int(repo.num_open_issues) == sum(1 for n in issues_n if n % 4)
    assert int(repo.num_open_pulls) == 1 and int(repo.num_releases) == 1
    tracker = tracker_of(view)
    assert tracker.next_number == max(issues_n + pulls_n)
    assert tracker.total("oc", "i") == len(issues_n) and tracker.total("oc", "p") == len(pulls_n)
    assert sorted(e["name"] for e in tracker.repo_labels.values()) == ["bug", "feature"]
    v1 = next(e for e in tracker.milestones.values() if e["title"] == "v1")
    assert (v1["o"], v1["c"]) == (1, 0)
    one = issues.issue_item(int(repo.id), 1)
    assert one.title == "issue 1" and int(one.created) == 1_700_000_001
    assert int(one.poster_id) == int(alice.id) and not one.original_author   # matched by e-mail
    two = issues.issue_item(int(repo.id), 2)
    assert two.original_author == "stranger" and int(two.original_author_id) == 77
    assert int(two.poster_id) == int(alice.id)                # the migrator stands in
    assert int(two.num_comments) == 2 and int(two.updated) == 1_700_000_012
    four = issues.issue_item(int(repo.id), 4)
    assert four.state == "closed" and int(four.closed_at) == 1_700_000_024
    assert tracker.num_comments == 2 * (len(issues_n) + len(pulls_n))
    counts = store.loads(task().counts)
    assert counts["issues"] == len(issues_n) and counts["pulls"] == len(pulls_n)
    assert counts["assets"] == 1


def test_next_issue_after_import_takes_the_next_number(world):
    start(world["alice"])
    pump()
    view = repos.view_of(repos.repo_by_name("alice", "proj"), scene.caller(world["alice"]))
    ctx = issues.issue_context(scene.caller(world["alice"]), view)
    made = issues.create_issue(ctx, issues.CreateIssueOption(title="after"))
    assert int(made.number) == max(sum(world["source"].numbers(), [])) + 1


def test_each_step_runs_again_without_duplicates(world, monkeypatch):
    """A worker that dies after each write: the next one resumes after it."""
    monkeypatch.setattr(steps, "TURN_SECONDS", 0.0)     # one record per turn
    start(world["alice"])
    turns = pump()
    assert turns > 10 and task().status == "done"
    repo = repos.repo_by_name("alice", "proj")
    issues_n, pulls_n = world["source"].numbers()
    for n in issues_n + pulls_n:
        assert len(issues.comments_of_issue(int(repo.id), n)) == 2
    tracker = issues.get_tracker(int(repo.id), consistent=True)
    assert tracker.num_comments == 2 * (len(issues_n) + len(pulls_n))
    assert store.loads(task().counts)["comments"] == 2 * (len(issues_n) + len(pulls_n))


def test_replayed_event_and_rerun_write_nothing_twice(world):
    from chalicelib import events
    from tests.conftest import drain_outbox

    start(world["alice"])
    first = [e for e in drain_outbox() if isinstance(e, events.MigrationStepDue)]
    migrations.on_event(first[0])
    migrations.on_event(first[0])              # redelivered: the version moved, no-op
    pump()
    assert task().status == "done"
    repo = repos.repo_by_name("alice", "proj")
    assert len(issues.comments_of_issue(int(repo.id), 1)) == 2


def test_failure_is_recorded_redacted_and_retry_resumes(world):
    alice = world["alice"]
    world["source"].fail_on = "comments"
    start(alice)
    pump()
    failed = task()
    assert failed.status == "failed" and "s3cret-token-value" not in failed.error
    assert "source said no" in failed.error
    assert repos.repo_by_name("alice", "proj") is None      # nothing half-visible
    status = service.status_record(failed)
    assert status["status"] == "failed" and status["step"] == "issues"
    world["source"].fail_on = ""
    service.retry(scene.caller(alice), "alice", "proj")
    pump()
    assert task().status == "done"
    assert repos.repo_by_name("alice", "proj") is not None


def test_discard_failed_migration_frees_the_name(world):
    alice = world["alice"]
    world["source"].fail_on = "releases"
    view = start(alice)
    pump()
    assert task().status == "failed"
    with pytest.raises(ConflictError):
        start(alice)                       # the name is held by the failed migration
    service.discard(scene.caller(alice), "alice", "proj")
    assert task() is None
    assert issues.get_tracker(int(view.repo.id), consistent=True).exists is False
    world["source"].fail_on = ""
    start(alice)
    pump()
    assert task().status == "done"


def test_strangers_see_no_migration(world):
    start(world["alice"])
    bob = scene.user("bob")
    with pytest.raises(NotFoundError):
        service.task_for(scene.caller(bob), "alice", "proj")


def test_name_taken_meanwhile_fails_cleanly(world):
    alice = world["alice"]
    start(alice)
    scene.repo(alice, "proj")              # created while the migration is queued
    pump()
    assert task().status == "failed" and "already exists" in task().error


def test_stale_task_is_queued_again(world):
    start(world["alice"])
    from tests.conftest import drain_outbox

    drain_outbox()                         # the event is lost with its worker
    assert migrations.resume_stale(now=10**10) == 1
    pump()
    assert task().status == "done"


def test_labels_only(world):
    start(world["alice"], labels=True)
    pump()
    assert task().status == "done"
    assert "issues" not in world["source"].calls


class Crash(BaseException):
    """The process dying: no ``except Exception`` in the worker sees it."""


def test_crash_between_finish_and_lfs_recording_is_finished_on_resume(world, monkeypatch):
    """The finish step's transaction writes the repository; the Git LFS objects are
    recorded after it.  A worker that dies between the two leaves the task running at
    finish (never done without its objects); the next turn records them and ends it."""
    from chalicelib.migrations import importer_git

    wanted = {"a" * 64: 5}

    def git_with_lfs(run):
        run.state.update(default_branch="main", lfs_stored=wanted, lfs_held=wanted)
        steps.commit(run, run.next_step)

    monkeypatch.setitem(steps.STEP_RUNNERS, "git", git_with_lfs)
    recorded: list = []

    def record(repo, stored, held):
        if not recorded:
            recorded.append(None)
            raise Crash()
        recorded.append((int(repo.id), dict(stored), dict(held)))

    monkeypatch.setattr(importer_git.repo_admin, "record_imported_lfs", record)
    view = start(world["alice"], labels=True)
    with pytest.raises(Crash):
        pump()
    crashed = task()
    assert crashed.status == "running" and crashed.step == "finish"
    assert store.loads(crashed.state)["repo_written"] is True
    assert repos.repo_by_name("alice", "proj") is not None
    with pytest.raises(ConflictError):     # the repository exists: nothing to discard
        service.discard_written(crashed)
    assert migrations.resume_stale(now=10**10) == 1
    pump()
    assert task().status == "done" and int(task().finished) > 0
    assert recorded[1:] == [(int(view.repo.id), wanted, wanted)]
