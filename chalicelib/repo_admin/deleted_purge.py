"""The purge of deleted repositories whose retention ran out (the ``deleted_repo_purge``
schedule, hourly; ``deletion.py`` keeps them restorable until then).

Each due record (``repos.deleted_repos_due``: a Query a page, soonest first) is purged
in one transaction: the record goes on condition that it still exists (a restore that
committed first wins, and the purge leaves it alone), the repository leaves its object
pool, and its quota charge leaves its owner's usage (the values the record holds), with
``RepositoryPurged``.  The repository-cleanup consumer of that event then removes the
data the deletion kept — release attachment bytes, Git LFS needs, topics, the wiki, the
mirror schedules, refs, the ``R#<id>`` partition and a pool nobody uses any more — as
it does at once when the retention is 0.  A run cut short (or failing on one record)
leaves the rest to the next hour's.
"""
from __future__ import annotations

import logging

from chalicelib import aws, clock, contents, events, quota, repos
from chalicelib.errors import ConditionFailed
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.repos")


def purge_due(now: float | None = None) -> int:
    """Purge every deleted repository due by ``now``; how many were purged.  A call AWS
    refused fails the run, after the others."""
    now = clock.now() if now is None else now
    purged, denied = 0, None
    for page in repos.deleted_repos_due(now):
        for record in page:
            try:
                purged += purge_one(record)
            except Exception as exc:    # one bad record must not stop the others
                log.exception("purge of deleted repository %s failed", record.repo_id)
                if aws.is_access_denied(exc):
                    denied = denied or exc
    if denied is not None:
        raise denied
    return purged


def purge_one(record) -> bool:
    """Purge one deleted repository; False when it was restored or purged meanwhile."""
    repo = repos.deleted_repo_stored(record)
    try:
        with unit_of_work.writing() as uow:
            repos.stage_forget_deleted(record)
            quota.stage_charge_release(repo)
            uow.raise_event(events.RepositoryPurged(**contents.push_event_fields(repo, None)))
    except ConditionFailed as failed:
        if failed.label == repos.DELETED_GONE:
            return False
        raise
    return True
