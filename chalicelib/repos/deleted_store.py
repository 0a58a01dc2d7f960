"""Deleted repositories kept restorable, in the table (``repo_admin/deletion.py`` holds
the rules; ``[repository] DELETED_RETENTION_DAYS``).

Access patterns:
- one by id: GetItem ``DELETED#<id>`` (restore, purge)
- an owner's: Query gsi1 ``DELETEDBY#<owner id>``, newest deletion first
- every one, soonest purge first (site admins' list, the purge schedule): Query gsi2
  ``DELETED`` (a key condition ``<= now`` gives exactly those due)

A deletion stages the record in place of the repository item, its id link, its
parent's fork link and the owner's count (``stage_hide``): the name is free again and
nothing finds the repository, while its refs, ``R#<id>`` partition, pool membership
and quota charge stay as they were.  A restore stages the reverse (``stage_reveal``),
a purge the record's removal with the pool membership (``stage_forget``).  Both delete
the record on condition that it exists, so of two restores, or a restore and a purge,
exactly one commits (``DELETED``).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.repos import store
from chalicelib.repos.models import DeletedRepo, ForkLink, Pool, Repo, RepoName, keys
from chalicelib.store import unit_of_work
from chalicelib.store.attributes import values_for
from chalicelib.store.table import Item

if TYPE_CHECKING:
    from chalicelib.accounts import Account

__all__ = ["DeletedRepo"]

DELETED = "deleted repository"   # the record is gone: restored or purged meanwhile
PAGE = 100                       # records the purge schedule takes per Query


# Reads ----------------------------------------------------------------------------------

def get(repo_id: int, *, consistent: bool = True) -> DeletedRepo | None:
    return unit_of_work.get(DeletedRepo, keys.deleted_repo(int(repo_id)), consistent=consistent)


def of_owner(owner_id: int, *, page_size: int = PAGE) -> Iterator[DeletedRepo]:
    """The owner's deleted repositories, newest deletion first, read a Query page of
    ``page_size`` at a time as the caller goes on (a list stops after its page)."""
    pk = keys.deleted_by_owner_gsi(int(owner_id), 0, 0)[0]
    return (item for item in Item.gsi1.query(pk, scan_index_forward=False,
                                             page_size=max(int(page_size), 1))
            if isinstance(item, DeletedRepo))


def every(*, page_size: int = PAGE) -> Iterator[DeletedRepo]:
    """Every deleted repository, soonest purge first, read as ``of_owner`` reads."""
    return (item for item in Item.gsi2.query(keys.ALL_DELETED_GSI,
                                             page_size=max(int(page_size), 1))
            if isinstance(item, DeletedRepo))


def due(now: float) -> Iterator[list[DeletedRepo]]:
    """The records whose purge time has passed, a page (``PAGE``) at a time, soonest
    first: each page is one Query from where the last one ended."""
    bound = f"{int(now):012d}#~"
    last = None
    while True:
        query = Item.gsi2.query(keys.ALL_DELETED_GSI, Item.gsi2sk <= bound, limit=PAGE,
                                last_evaluated_key=last)
        page = [item for item in query if isinstance(item, DeletedRepo)]
        if page:
            yield page
        last = query.last_evaluated_key
        if not last:
            return


def stored_repo(record: DeletedRepo) -> Repo:
    """The repository item as it was stored when it was deleted (never saved as is)."""
    values = values_for(Repo, json.loads(record.repo_values))
    return Repo(*keys.repo(str(values["owner_login"]).lower(), str(values["lower_name"])),
                **values)


def _json_values(repo: Repo) -> str:
    values = {name: sorted(value) if isinstance(value, set) else value
              for name, value in repo.attribute_values.items()
              if name not in ("kind", "pk", "sk")}
    return json.dumps(values, sort_keys=True)


def restored_record(stored: Repo, owner: Account, name: str) -> Repo:
    """The repository item to put back (not yet written): every attribute as stored,
    under its owner's current name and ``name`` (its own, or a new one), the version
    moved on."""
    values = {key: value for key, value in stored.attribute_values.items()
              if key not in ("kind", "pk", "sk")}
    lower = name.lower()
    repo = Repo(*keys.repo(owner.lower_name, lower), **values)
    repo.name, repo.lower_name, repo.owner_login = name, lower, owner.login
    repo.gsi1pk, repo.gsi1sk = keys.repo_owner_gsi(int(owner.id), lower)
    repo.gsi2pk, repo.gsi2sk = keys.ALL_REPOS_GSI, f"{owner.lower_name}/{lower}"
    repo.version = int(stored.version or 1) + 1
    return repo


# Writes ---------------------------------------------------------------------------------

def record_of(repo: Repo, *, deleted_at: int, purge_at: int, deleted_by: Account | None,
              forks: list[int]) -> DeletedRepo:
    """The deleted-repository record of ``repo`` (not yet written)."""
    record = DeletedRepo(
        *keys.deleted_repo(int(repo.id)), repo_id=int(repo.id), owner_id=int(repo.owner_id),
        owner_login=repo.owner_login, name=repo.name, private=bool(repo.private),
        deleted_at=int(deleted_at), purge_at=int(purge_at),
        deleted_by_id=int(deleted_by.id) if deleted_by is not None else 0,
        deleted_by=deleted_by.login if deleted_by is not None else "",
        repo_values=_json_values(repo), forks={int(f) for f in forks} or None)
    record.gsi1pk, record.gsi1sk = keys.deleted_by_owner_gsi(repo.owner_id, deleted_at, repo.id)
    record.gsi2pk, record.gsi2sk = keys.deleted_by_purge_gsi(purge_at, repo.id)
    return record


def stage_hide(repo: Repo, record: DeletedRepo, *, parent: Repo | None) -> None:
    """What a restorable deletion writes: the repository item, its id link, the parent's
    fork link and count and the owner's count go (on the conditions of
    ``store.stage_delete``); the record comes (its id must not have one already)."""
    uow = unit_of_work.current()
    uow.delete(repo, label=store.REPO, condition=(Repo.version == repo.version)
               & (Repo.num_forks == repo.num_forks) & store.unchanged_quota_size(repo))
    uow.delete(RepoName(*keys.repo_name(repo.id)), label=store.REPO_ID)
    accounts.stage_repo_count(int(repo.owner_id), -1, label=store.OWNER)
    if parent is not None:
        uow.delete(ForkLink(*keys.fork_link(parent.id, repo.id)), label=store.PARENT)
        uow.update(parent, [Repo.num_forks.add(-1)], label=store.PARENT,
                   condition=Repo.pk.exists())
    uow.put(record, label=DELETED, must_not_exist=True)


def stage_reveal(record: DeletedRepo, repo: Repo, owner: Account, *,
                 parent: Repo | None) -> None:
    """What a restore writes: the record goes (it must still exist: ``DELETED``); the
    repository item (its name must be free: ``store.REPO``), its id link, the owner's
    count (the owner must still exist under the name read: ``store.OWNER``) and, with
    ``parent``, the fork link and the parent's count come back."""
    uow = unit_of_work.current()
    uow.delete(record, label=DELETED, condition=DeletedRepo.pk.exists())
    uow.put(repo, label=store.REPO, must_not_exist=True)
    uow.put(RepoName(*keys.repo_name(repo.id), repo_pk=repo.pk), label=store.REPO_ID,
            must_not_exist=True)
    accounts.stage_repo_count(int(owner.id), 1, label=store.OWNER, lower_name=owner.lower_name)
    if parent is not None:
        uow.put(ForkLink(*keys.fork_link(parent.id, repo.id), fork_pk=repo.pk),
                label=store.PARENT)
        uow.update(parent, [Repo.num_forks.add(1)], label=store.PARENT,
                   condition=(Repo.id == int(parent.id)) & (Repo.pool_id == int(repo.pool_id)))


def stage_reattach_fork(fork: Repo, parent_id: int) -> None:
    """A fork the deletion made independent is the restored repository's fork again,
    on condition that it is still independent in the same pool (``store.FORK``); its
    link names its key as it is now."""
    unit_of_work.current().put(ForkLink(*keys.fork_link(int(parent_id), int(fork.id)),
                                        fork_pk=fork.pk), label=store.FORK)
    unit_of_work.current().update(
        Repo(fork.pk, fork.sk),
        [Repo.fork.set(True), Repo.parent_id.set(int(parent_id)), Repo.version.add(1)],
        label=store.FORK,
        condition=(Repo.id == int(fork.id)) & (Repo.fork == False)   # a condition, not a test
        & (Repo.pool_id == int(fork.pool_id)))


def stage_drop_fork_link(parent_id: int, fork_id: int) -> None:
    """A fork link left in the restored repository's partition for a fork that is gone
    or no longer its."""
    unit_of_work.current().delete(ForkLink(*keys.fork_link(int(parent_id), int(fork_id))),
                                  label=store.FORK)


def stage_forget(record: DeletedRepo) -> None:
    """What a purge writes: the record goes (it must still exist: ``DELETED``), and the
    repository leaves its object pool (``stage_delete_pool`` removes a pool nobody uses,
    once its packs are gone)."""
    uow = unit_of_work.current()
    uow.delete(record, label=DELETED, condition=DeletedRepo.pk.exists())
    repo = stored_repo(record)
    uow.update(Pool(*keys.pool(int(repo.pool_id))),
               [Pool.members.add(-1), Pool.repo_ids.delete({int(repo.id)})], label=store.POOL,
               condition=Pool.pk.exists())
