"""A project migration's steps, run as queued work that resumes.

Order: git (branches, tags, ``refs/pull/*/head``; Git LFS objects if asked), wiki,
labels, milestones, issues (page by page, each with its comments and reactions), pull
requests (the same, with their fields and head refs), releases (each with its
attachments), finish (the repository record, its counters, the tracker's next number
and the task's ``done``, in one transaction).

How a step runs (``run``, the consumer of ``MigrationStepDue``): the event names the
task's version; the worker takes the task by moving it to the next version with a
lease (``LEASE_SECONDS``), conditional on that version, so a redelivered or duplicated
event finds the version moved and does nothing.  Every write of records goes in one
transaction with the task's new cursor (``Run.advance``), conditional on the version
the worker holds: a crash loses at most the write in flight, and the next worker
starts after the last record written.  A turn stops after ``TURN_SECONDS`` and queues
the next one (well under Lambda's 15 minutes); a worker that died leaves its lease to
run out, and ``resume_stale`` (a schedule) queues its task again.

A step that fails on the source's or the input's account (``ServiceError``: the
source refused, a name is taken) marks the task failed at once; anything else is tried
again up to ``[migrations] MAX_ATTEMPTS`` turns.  The error kept is redacted (no
credentials, no token).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib import clock, netguard
from chalicelib.errors import ConditionFailed, ServiceError
from chalicelib.migrations import store
from chalicelib.migrations.service import (
    LEASE_SECONDS,
    credentials,
    open_source,
    owner_login_of,
    step_event,
)
from chalicelib.migrations.turn import Run, Stale, commit
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.migrations.models import MigrationTask

log = logging.getLogger("nimbus.migrations")

TURN_SECONDS = 60.0


def _take(owner_login: str, repo_name: str, version: int) -> MigrationTask | None:
    task = store.get(owner_login, repo_name)
    if task is None or task.status not in store.ACTIVE or int(task.version) != version:
        return None
    try:
        with unit_of_work.writing():
            return store.stage_change(task, status="running", updated=clock.seconds(),
                                      lease_until=clock.seconds() + LEASE_SECONDS)
    except ConditionFailed:
        return None


def run(owner_login: str, repo_name: str, version: int, *,
        turn_seconds: float | None = None) -> str:
    """One turn of the task at ``version``; its status after the turn ("" when the task
    was not this worker's to run)."""
    return _turn(owner_login, repo_name, version, turn_seconds)[0]


def run_inline(task: MigrationTask, seconds: float) -> Run | None:
    """The first turn of a task just written, run in the request that wrote it (for at
    most ``seconds`` of records; a step's unit of work is not cut): the same turn, lease
    and version rules as a queued one, in a unit of work of its own.  The turn when it
    ran (a turn out of time has queued the next; a failed one has recorded why), None
    when someone else took the task first."""
    with unit_of_work.detached():
        return _turn(owner_login_of(task), task.repo_name, int(task.version), seconds)[1]


def _turn(owner_login: str, repo_name: str, version: int,
          turn_seconds: float | None) -> tuple[str, Run | None]:
    task = _take(owner_login, repo_name, version)
    if task is None:
        return "", None
    username, password, token = credentials(task)
    secrets = tuple(s for s in (password, token) if s)
    turn = TURN_SECONDS if turn_seconds is None else turn_seconds
    current = None
    try:
        source = open_source(task.service, task.clone_addr, token=token, username=username,
                             password=password,
                             pull_offset=store.loads(task.state).get("pull_offset"))
        current = Run(task, source, turn_seconds=turn)
        if task.service == "gitlab" and "pull_offset" not in current.state:
            # Numbers of merge requests never shift between turns: the offset found now
            # is kept with the first records written (every write stages the state).
            current.state["pull_offset"] = int(source.pull_offset())
        while True:     # at least one unit of work per turn, however short the turn
            STEP_RUNNERS[current.task.step](current)
            if current.task.status != "running" or current.out_of_time():
                break
        if current.task.status == "running":    # out of time: queue the next turn
            commit(current, lambda: _queue_next(current))
    except Stale:
        return "", None
    except Exception as exc:  # noqa: BLE001 - the task records why it stopped
        held = current.task if current is not None else task
        return _failed(held, exc, secrets), current
    return current.task.status, current


def _queue_next(current: Run) -> None:
    current.advance()
    unit_of_work.current().raise_event(step_event(current.task))


def _failed(task: MigrationTask, exc: Exception, secrets: tuple[str, ...]) -> str:
    text = netguard.redact(str(exc) or type(exc).__name__, secrets)
    attempts = int(task.attempts or 0) + 1
    final = isinstance(exc, ServiceError) or \
        attempts >= max(1, get_settings().migrations.MAX_ATTEMPTS)
    log.warning("migration of %s/%s: step %s failed (attempt %d): %s",
                task.pk, task.repo_name, task.step, attempts, text)
    fields = dict(error=text, attempts=attempts, updated=clock.seconds())
    if final:
        fields.update(status="failed", lease_until=0)
    try:
        with unit_of_work.writing() as uow:
            task = store.stage_change(task, **fields)
            if not final:
                uow.raise_event(step_event(task))
    except ConditionFailed:
        return ""
    return task.status


def resume_stale(now: float | None = None) -> int:
    """Queue again every task whose worker's lease ran out (it died); how many."""
    now = clock.now() if now is None else now
    return _queue_again(store.stale(now), now)


def resume_after_restart(now: float | None = None) -> int:
    """At the start of a runtime that alone runs its migrations (the local one, on its
    data dir): every queued or running task's worker died with the previous process,
    whatever its lease says, so each is queued again at once; how many.  The version
    moves on, so the old event, replayed from the outbox, finds nothing to do (and its
    delivery mark, still leased to the dead process, does not matter)."""
    return _queue_again(store.active(), clock.now() if now is None else now)


def _queue_again(tasks: list, now: float) -> int:
    kicked = 0
    for task in tasks:
        try:
            with unit_of_work.writing() as uow:
                task = store.stage_change(task, lease_until=int(now) + LEASE_SECONDS)
                uow.raise_event(step_event(task))
            kicked += 1
        except ConditionFailed:
            continue        # moved meanwhile: someone runs it
    return kicked


def _step_runners() -> dict[str, Callable[[Run], None]]:
    from chalicelib.migrations import importer_git, importer_releases, importer_tracker

    return {"git": importer_git.git, "wiki": importer_git.wiki,
            "labels": importer_tracker.labels, "milestones": importer_tracker.milestones,
            "issues": importer_tracker.issues_step, "pulls": importer_tracker.pulls_step,
            "releases": importer_releases.releases_step, "finish": importer_git.finish}


class _Runners(dict):
    def __missing__(self, key):
        self.update(_step_runners())
        return dict.__getitem__(self, key)


STEP_RUNNERS: dict[str, Callable[[Run], None]] = _Runners()
