"""repoMigrate of a project as Forgejo answers it: once the migration is complete.

Forgejo's clients (tea, pyforgejo, scripts) use the repository as soon as the 201
comes, so the request runs the migration's first turn itself (``steps.run_inline``:
the same turn, lease and version rules as a queued turn) for up to ``[migrations]
INLINE_SECONDS``, well under API Gateway's 29 seconds:

- done by then: the repository as written;
- failed for good (the source refused, the name was taken): what it wrote is
  discarded, the task deleted, and the error answered, as Forgejo deletes the
  repository of a migration that failed;
- otherwise (out of time, or a failure that is tried again): the record the migration
  will write, and the rest goes on as queued work (the turn queued the next one).

The task is written without an event: a request that dies before its turn took the
task leaves it queued with its lease, which the stale-task job (or the local
runtime's restart) picks up.  ``INLINE_SECONDS = 0`` queues the first turn at once.
"""
from __future__ import annotations

from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput
from chalicelib.migrations import steps, store
from chalicelib.migrations.service import (
    NAME_TAKEN,
    discard_written,
    owner_login_of,
    record,
)
from chalicelib.repos import Caller, RepoView
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work


def migrate(caller: Caller, option) -> RepoView:
    """repoMigrate of a project: the finished repository, or the record the migration
    will write while it goes on as queued work."""
    seconds = max(0, int(get_settings().migrations.INLINE_SECONDS))
    planned, task = record(caller, option, queue=not seconds)
    if not seconds:
        return planned
    ran = steps.run_inline(task, seconds)
    if ran is not None and ran.task.status == "done" and ran.finished_repo is not None:
        return RepoView(ran.finished_repo, planned.owner, planned.access)
    with unit_of_work.detached():
        now = store.get(owner_login_of(task), task.repo_name)
        if now is None or now.status != "failed" or store.loads(now.state).get("repo_written"):
            return planned
        error = now.error or "the migration failed"
        discard_written(now)
        try:
            with unit_of_work.writing():
                store.stage_delete(now)
        except ConditionFailed:
            return planned      # retried meanwhile: someone holds it again
    if error == NAME_TAKEN:
        raise ConflictError(NAME_TAKEN)
    raise InvalidInput(f"Migration failed: {error}")
