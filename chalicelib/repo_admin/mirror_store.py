"""The pull-mirror schedule: one small partition ``MIRRORS`` with an item per mirror
(``<repo id, 15 digits>``) holding the repository's key and when it is due next, so the
sync job finds due mirrors with one Query.  Writes stage into the current unit of work.

A mirror with ``lfs`` also keeps the Git LFS objects its syncs could not fetch yet
(``R#<repo id>`` / ``MIRRORLFS``: JSON oid -> size, at most ``LFS_PENDING_MAX``), so
the next sync asks for them again: a sync learns the pointers of the packs it fetched
only.  In the repository's partition, so its deletion removes it.
"""
from __future__ import annotations

import json

from chalicelib.repo_admin.models import MirrorDue, MirrorLfsPending, keys
from chalicelib.repos import Repo, repos_by_link
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = ["MirrorDue"]

LABEL = "mirror schedule"
LFS_PENDING_MAX = 1000      # about 80 KB of JSON, within an item's 400 KB


def _pending_key(repo_id: int) -> tuple[str, str]:
    return keys.repo_partition(int(repo_id)), "MIRRORLFS"


def lfs_pending(repo_id: int) -> dict[str, int]:
    """The objects earlier syncs could not fetch (oid -> size)."""
    item = unit_of_work.get(MirrorLfsPending, _pending_key(repo_id), consistent=True)
    return {oid: int(size) for oid, size in json.loads(item.objects).items()} \
        if item is not None and item.objects else {}


def stage_lfs_pending(repo_id: int, objects: dict[str, int]) -> None:
    """Keep ``objects`` for the next sync (the first ``LFS_PENDING_MAX`` by id); none:
    the item goes."""
    uow = unit_of_work.current()
    if not objects:
        uow.delete(MirrorLfsPending(*_pending_key(repo_id)), label=LABEL)
        return
    kept = dict(sorted(objects.items())[:LFS_PENDING_MAX])
    uow.put(MirrorLfsPending(*_pending_key(repo_id), objects=json.dumps(kept)), label=LABEL)


def due_repos(now: float) -> list[Repo]:
    """Mirrors whose next sync time has passed (one Query, then one BatchGet; two more
    when an owner was renamed since a schedule was written)."""
    due = [item for item in Item.query(keys.MIRROR_SCHEDULE)
           if isinstance(item, MirrorDue) and item.due and item.due <= now]
    if not due:
        return []
    return repos_by_link([(int(d.sk), d.repo_pk) for d in due])


def is_scheduled(repo_id: int) -> bool:
    return unit_of_work.get(MirrorDue, keys.mirror_due(int(repo_id)), consistent=True) is not None


def stage_schedule(repo: Repo, due: int) -> None:
    """The mirror's next sync at ``due`` (unix seconds; 0: never by itself)."""
    unit_of_work.current().put(MirrorDue(*keys.mirror_due(int(repo.id)), repo_pk=repo.pk,
                                         due=int(due)), label=LABEL)


def stage_unschedule(repo_id: int) -> None:
    unit_of_work.current().delete(MirrorDue(*keys.mirror_due(int(repo_id))), label=LABEL)
