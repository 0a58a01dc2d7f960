"""The pull-mirror schedule: one small partition ``MIRRORS`` with an item per mirror
(``<repo id, 15 digits>``) holding the repository's key and when it is due next, so the
sync job finds due mirrors with one Query.  Writes stage into the current unit of work.
"""
from __future__ import annotations

from chalicelib.store import unit_of_work
from chalicelib.store.table import Item, MirrorDue, Repo
from chalicelib.store.keys import keys

__all__ = ["MirrorDue"]

LABEL = "mirror schedule"


def due_repos(now: float) -> list[Repo]:
    """Mirrors whose next sync time has passed (one Query, then one BatchGet)."""
    due = [item for item in Item.query(keys.MIRROR_SCHEDULE)
           if isinstance(item, MirrorDue) and item.due and item.due <= now]
    if not due:
        return []
    return [r for r in Item.batch_get([(d.repo_pk, "REPO") for d in due]) if isinstance(r, Repo)]


def is_scheduled(repo_id: int) -> bool:
    return unit_of_work.get(MirrorDue, keys.mirror_due(int(repo_id)), consistent=True) is not None


def stage_schedule(repo: Repo, due: int) -> None:
    """The mirror's next sync at ``due`` (unix seconds; 0: never by itself)."""
    unit_of_work.current().put(MirrorDue(*keys.mirror_due(int(repo.id)), repo_pk=repo.pk,
                                         due=int(due)), label=LABEL)


def stage_unschedule(repo_id: int) -> None:
    unit_of_work.current().delete(MirrorDue(*keys.mirror_due(int(repo_id))), label=LABEL)
