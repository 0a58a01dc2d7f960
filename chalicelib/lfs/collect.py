"""The schedule that removes Git LFS objects no repository needs (``lfs_collect``).

An object is idle from the moment verify recorded it until a push points at it, and
again once the last repository needing it is deleted (``needs``); idle objects are
listed in gsi2 under ``LFSIDLE`` by the date they became idle, so a run reads the ones
idle for longer than ``[server] LFS_GRACE_PERIOD`` a page at a time.  Each is collected
in three steps, each conditional, so a push or a batch naming the object meanwhile wins:

1. the item is marked ``doomed`` on condition that nobody needs it and its idle date is
   the one read (a batch that named it moved the date; a push that needs it removed
   it): from here batches treat it as absent and pushes refuse it;
2. its bytes are deleted from S3;
3. its item is deleted (on condition that it is still doomed).

A run that stops after 1 or 2 leaves a doomed item, still listed: the next run finishes
it.  Uploads never verified (left under ``lfs/incoming/``) older than the grace period are
deleted too; listing that prefix reads only uploads in flight or abandoned.
"""
from __future__ import annotations

import logging

from chalicelib import clock
from chalicelib.lfs import s3_objects, store
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.lfs")


def collect(now: float | None = None) -> int:
    """One run: how many objects and abandoned uploads were removed."""
    now = clock.now() if now is None else now
    before = int(now) - int(get_settings().server.LFS_GRACE_PERIOD)
    removed = 0
    for item in store.idle_before(before):
        if _collect_one(item):
            removed += 1
    return removed + s3_objects.delete_keys(s3_objects.stale_incoming(before))


def _collect_one(seen: store.LfsObject) -> bool:
    # The index may lag the table: the conditions read the item itself.  A doomed item
    # is one a run stopped collecting: this one finishes it.
    if not seen.doomed and not store.mark_doomed(seen):
        return False   # needed or named again since it was listed
    pool_id = store.pool_of(seen)
    s3_objects.delete(pool_id, seen.oid)
    store.delete_doomed(seen)
    log.info("collected Git LFS object %s of pool %s (%s bytes)", seen.oid, pool_id, seen.size)
    return True
