"""The periodic jobs and how often they run (app.py and the local runtime read this)."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger("nimbus.jobs")


def sync_mirrors() -> int:
    from chalicelib.services import migrations

    return migrations.sync_due(time.time())


def compact_packs() -> int:
    """Repack every pool that has accumulated several packs."""
    from chalicelib.gitstore import compaction
    from chalicelib.store import repos

    compacted = 0
    for pool in repos.pools():
        try:
            if compaction.compact_pool(int(pool.pk.split("#", 1)[1]), sorted(pool.repo_ids or ())):
                compacted += 1
        except Exception:  # noqa: BLE001 - one bad pool must not stop the others
            log.exception("compaction of pool %s failed", pool.pk)
    return compacted


def check_quota() -> int:
    """Recount every account's usage and repair drift (services/quota_check.py); how
    many values were wrong (each is logged)."""
    from chalicelib.services import quota_check

    return len(quota_check.recount())


@dataclass(frozen=True)
class Schedule:
    name: str
    minutes: int
    run: Callable[[], int]


SCHEDULES = (
    Schedule("mirror_sync", 10, sync_mirrors),
    Schedule("pack_compaction", 24 * 60, compact_packs),
    Schedule("quota_check", 24 * 60, check_quota),
)
