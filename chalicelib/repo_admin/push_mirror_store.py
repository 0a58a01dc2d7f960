"""Push mirrors in the table: one item per mirror in its repository's partition
(``PUSHMIRROR#<remote name>``, so the repository's deletion takes them), and the
schedule, one small partition ``PUSHMIRRORS`` with an entry per mirror that syncs by
itself (``<due, 12 digits>#<repo id, 15 digits>#<remote name>``): the job reads only the
entries whose time has passed, with one Query.  The repository item counts the mirrors
that sync on every push (``push_mirrors_on_commit``), kept in the same transaction as
the mirrors, so a push to a repository without one reads nothing.

Writes stage into the current unit of work.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib import repos
from chalicelib.repo_admin.models import PushMirror, PushMirrorDue, keys
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = ["PushMirror"]

LABEL = "push mirror"
TAKEN = "push mirror name"
SCHEDULE = "push mirror schedule"
COUNT = "push mirror count"


@dataclass(frozen=True)
class Due:
    repo_id: int
    remote_name: str
    repo_pk: str
    due: int


def list_mirrors(repo_id: int) -> list[PushMirror]:
    """The repository's push mirrors, by remote name (one Query)."""
    return [item for item in Item.query(keys.repo_partition(int(repo_id)),
                                        Item.sk.startswith(keys.PUSH_MIRROR_PREFIX),
                                        consistent_read=True)
            if isinstance(item, PushMirror)]


def get_mirror(repo_id: int, remote_name: str) -> PushMirror | None:
    return unit_of_work.get(PushMirror, keys.push_mirror(int(repo_id), remote_name),
                            consistent=True)


def new_mirror(repo_id: int, remote_name: str, **fields) -> PushMirror:
    return PushMirror(*keys.push_mirror(int(repo_id), remote_name), **fields)


def remote_name_of(item: PushMirror) -> str:
    return item.sk[len(keys.PUSH_MIRROR_PREFIX):]


def _schedule_entry(item: PushMirror, repo_pk: str, due: int) -> PushMirrorDue:
    repo_id = int(item.pk.split("#", 1)[1])
    return PushMirrorDue(*keys.push_mirror_due(due, repo_id, remote_name_of(item)),
                         repo_pk=repo_pk)


def _count(repo: Repo, amount: int) -> None:
    repos.stage_repo_counts(repo, {"push_mirrors_on_commit": amount}, label=COUNT)


def stage_create(repo: Repo, item: PushMirror) -> None:
    """The new mirror (its name must be free), its schedule entry, its count."""
    uow = unit_of_work.current()
    uow.put(item, label=TAKEN, condition=PushMirror.pk.does_not_exist())
    if item.due:
        uow.put(_schedule_entry(item, repo.pk, int(item.due)), label=SCHEDULE)
    if item.sync_on_commit:
        _count(repo, 1)
    else:
        repos.stage_repo_exists(repo, label=COUNT)    # not on a deleted repository


def stage_schedule_entries(repo: Repo, items: list[PushMirror]) -> None:
    """The schedule entries of ``items`` as their mirrors hold them (a restored
    repository: the sync job dropped those that fell due while it was deleted)."""
    uow = unit_of_work.current()
    for item in items:
        if item.due:
            uow.put(_schedule_entry(item, repo.pk, int(item.due)), label=SCHEDULE)


def stage_delete(repo: Repo, item: PushMirror) -> None:
    """The mirror (as read: a concurrent deletion fails the write), its schedule entry
    and its count."""
    uow = unit_of_work.current()
    uow.delete(PushMirror(item.pk, item.sk), label=LABEL,
               condition=PushMirror.pk.exists() & (PushMirror.due == int(item.due or 0)))
    if item.due:
        uow.delete(_schedule_entry(item, repo.pk, int(item.due)), label=SCHEDULE)
    if item.sync_on_commit:
        _count(repo, -1)


def stage_synced(repo_pk: str, item: PushMirror, *, at: int, error: str, due: int) -> None:
    """A sync's outcome: when it ran, its error ("" for none), and the next time (its
    schedule entry moved).  On condition that the mirror still has the time that was
    read: a deletion, or another sync, meanwhile fails the write (and leaves theirs)."""
    uow = unit_of_work.current()
    old = int(item.due or 0)
    uow.update(PushMirror(item.pk, item.sk),
               [PushMirror.last_update.set(int(at)), PushMirror.last_error.set(error),
                PushMirror.due.set(int(due))],
               label=LABEL, condition=PushMirror.pk.exists() & (PushMirror.due == old))
    if old and old != due:
        uow.delete(_schedule_entry(item, repo_pk, old), label=SCHEDULE)
    if due and old != due:
        uow.put(_schedule_entry(item, repo_pk, int(due)), label=SCHEDULE)


def due_entries(now: float, limit: int = 200) -> list[Due]:
    """The schedule entries whose time has passed, oldest first (one Query, at most
    ``limit``: the rest wait for the next run)."""
    found = []
    for entry in Item.query(keys.PUSH_MIRROR_SCHEDULE,
                            Item.sk <= f"{int(now):012d}#~", limit=limit):
        if not isinstance(entry, PushMirrorDue):
            continue
        due, repo_id, name = entry.sk.split("#", 2)
        found.append(Due(int(repo_id), name, entry.repo_pk, int(due)))
    return found


def stage_unschedule(entry: Due) -> None:
    """Drop a schedule entry whose mirror or repository is gone."""
    unit_of_work.current().delete(
        PushMirrorDue(*keys.push_mirror_due(entry.due, entry.repo_id, entry.remote_name)),
        label=SCHEDULE)


def stage_forget_schedule(repo_id: int, items: list[PushMirror]) -> None:
    """The schedule entries of a deleted repository's mirrors (the mirrors themselves go
    with its partition)."""
    uow = unit_of_work.current()
    for item in items:
        if item.due:
            uow.delete(PushMirrorDue(*keys.push_mirror_due(int(item.due), int(repo_id),
                                                          remote_name_of(item))),
                       label=SCHEDULE)
