"""The periodic jobs and how often they run.  Each run goes through ``jobs/cron.py``,
which records it for /admin/cron; ``instance/cron.py`` lists every scheduled task (these
and the two sweeps), and ``tests/test_admin_cron.py`` holds the intervals here, there
and in ``app.py`` to one another."""
from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable

from chalicelib import clock

log = logging.getLogger("nimbus.jobs")


def sync_mirrors() -> int:
    """Pull mirrors, then push mirrors, whose time has come (the push mirrors run even
    when a pull mirror's run failed)."""
    from chalicelib import repo_admin

    now = clock.now()
    try:
        return repo_admin.sync_due(now)
    finally:
        repo_admin.sync_due_push_mirrors(now)


def compact_packs() -> int:
    """Repack every pool that has accumulated several packs.  A pool that fails is
    logged and the others still run; if AWS refused a call to this function's role, the
    run then fails with that error (the role lacks a right: every later run would fail
    the same way, and only a failed invocation shows in the function's error metric)."""
    from chalicelib import aws, repos, wiki
    from chalicelib.gitstore import compaction

    compacted, denied = 0, None
    for pool in repos.every_pool():
        repo_ids = sorted(pool.repo_ids or ())
        # Each repository's wiki is a pool of its own (chalicelib/wiki/gitrepo.py).
        pool_id = int(pool.pk.split("#", 1)[1])
        runs = [(pool.pk, functools.partial(compaction.compact_pool, pool_id, repo_ids,
                                            kept_tips=_history_tips(repo_ids))),
                *((f"wiki of {repo_id}", functools.partial(wiki.compact_wiki, int(repo_id)))
                  for repo_id in repo_ids)]
        for name, run in runs:
            try:
                compacted += bool(run())
            except Exception as exc:  # noqa: BLE001 - one bad pool must not stop the others
                log.exception("compaction of pool %s failed", name)
                if aws.is_access_denied(exc):
                    denied = denied or exc
    if denied is not None:
        raise denied
    return compacted


def _history_tips(repo_ids: list) -> Iterator[str]:
    """The old tips the ref history may restore (``ref_history.kept_tips``: one Query per
    repository), read when the pool's compaction asks for them, so a failing read is
    that pool's failure."""
    from chalicelib import ref_history

    yield from ref_history.kept_tips(repo_ids)


def check_quota() -> int:
    """Recount every account's usage and repair drift (quota/check.py); how
    many values were wrong (each is logged)."""
    from chalicelib import quota

    return len(quota.recount())


def collect_lfs() -> int:
    """Remove Git LFS objects no repository has needed for the grace period
    (lfs/collect.py); how many were removed."""
    from chalicelib import lfs

    return lfs.collect_objects()


def resume_migrations() -> int:
    """Queue again the project migrations whose worker died (its lease ran out)."""
    from chalicelib import migrations

    return migrations.resume_stale(clock.now())


def purge_deleted_repos() -> int:
    """Purge the deleted repositories whose retention ran out (repo_admin/deleted_purge.py);
    how many were purged."""
    from chalicelib import repo_admin

    return repo_admin.purge_deleted_repos()


def export_audit_log() -> int:
    """Write the last full days of the audit log to the bucket as JSON lines
    (audit/export.py); how many entries were written."""
    from chalicelib import audit

    return audit.export_recent()


@dataclass(frozen=True)
class Schedule:
    name: str
    minutes: int
    run: Callable[[], int]


SCHEDULES = (
    Schedule("mirror_sync", 10, sync_mirrors),
    Schedule("pack_compaction", 24 * 60, compact_packs),
    Schedule("quota_check", 24 * 60, check_quota),
    Schedule("lfs_collect", 60, collect_lfs),
    Schedule("migration_resume", 5, resume_migrations),
    Schedule("deleted_repo_purge", 60, purge_deleted_repos),
    Schedule("audit_export", 24 * 60, export_audit_log),
)
