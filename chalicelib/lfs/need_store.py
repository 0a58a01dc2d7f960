"""Which repositories need which Git LFS objects, in the table.

| item | pk | sk | attributes |
|---|---|---|---|
| repository need (``lfsreponeed``) | ``R#<repo id>`` | ``LFSNEED#<oid>`` | ``oid``, ``size``, ``pool_id`` |
| owner need (``lfsownerneed``) | ``A#<owner id>`` | ``LFSNEED#<pool id>#<oid>`` | ``size``, ``repo_ids`` |

and on the object's own item (``store.LfsObject``) ``needed_by``, the repositories that
need it.  A repository's needs live in its partition, so they go with it; the owner's
item exists while any of the owner's repositories needs the object, so the owner's
``size:git:lfs`` usage counts each object once, however many of its repositories (a
repository and its forks) point at it.  Sets make every step idempotent: adding a
repository to ``needed_by`` twice is adding it once, which a redelivered event relies on.
"""
from __future__ import annotations

from typing import Iterator

from pynamodb.exceptions import DeleteError, UpdateError

from chalicelib import repos
from chalicelib.lfs.models import OwnerNeed, RepoNeed, keys
from chalicelib.lfs.store import IDLE_INDEX, LfsObject, idle_sort_key
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work

REPO_NEED = "lfs-repo-need"     # the repository needs the object already
OWNER_NEED = "lfs-owner-need"   # the owner's item appeared or went meanwhile
OBJECT_GONE = "lfs-object-gone"  # the object is being collected, or was
REPO_GONE = "lfs-repo-gone"     # the repository was deleted meanwhile


def repo_need_key(repo_id: int, oid: str) -> tuple[str, str]:
    return keys.lfs_repo_need(int(repo_id), oid)


def owner_need_key(owner_id: int, pool_id: int, oid: str) -> tuple[str, str]:
    return keys.lfs_owner_need(int(owner_id), int(pool_id), oid)


def needs_of(repo_id: int, page: int = 100) -> Iterator[RepoNeed]:
    """A repository's needs, a page (one Query) at a time."""
    yield from RepoNeed.query(f"R#{int(repo_id)}", RepoNeed.sk.startswith(keys.LFS_NEED_PREFIX),
                              page_size=page)


# Staged writes (adding a need) ---------------------------------------------------------------

def stage_repo_need(repo: Repo, oid: str, size: int) -> None:
    unit_of_work.current().put(
        RepoNeed(*repo_need_key(repo.id, oid), oid=oid, size=int(size), pool_id=int(repo.pool_id)),
        label=REPO_NEED, must_not_exist=True)


def stage_object_needed(item: LfsObject, repo_id: int) -> None:
    """The object is needed by the repository: out of the idle listing."""
    unit_of_work.current().update(
        item, [LfsObject.needed_by.add({int(repo_id)}), LfsObject.gsi2pk.remove(),
               LfsObject.gsi2sk.remove()],
        label=OBJECT_GONE, condition=LfsObject.pk.exists() & LfsObject.doomed.does_not_exist())


def stage_owner_need(owner_id: int, pool_id: int, oid: str, size: int, repo_id: int, *,
                     first: bool) -> None:
    """``first``: the owner needs the object from now on (its item is new): the caller
    counts its size in the owner's usage in the same unit."""
    uow = unit_of_work.current()
    key = owner_need_key(owner_id, pool_id, oid)
    if first:
        uow.put(OwnerNeed(*key, size=int(size), repo_ids={int(repo_id)}), label=OWNER_NEED,
                must_not_exist=True)
    else:
        uow.update(OwnerNeed(*key), [OwnerNeed.repo_ids.add({int(repo_id)})], label=OWNER_NEED,
                   condition=OwnerNeed.pk.exists())


def stage_repo_size(repo: Repo, amount: int) -> None:
    repos.stage_repo_counts(repo, {"lfs_size": int(amount)}, label=REPO_GONE)


# Releasing a need (the repository was deleted): one idempotent step at a time -------------------

def drop_object_need(pool_id: int, oid: str, repo_id: int, now: int) -> None:
    """The repository no longer needs the object; the last one leaving makes it idle."""
    item = LfsObject(*keys.lfs_object(int(pool_id), oid))
    try:
        item.update(actions=[LfsObject.needed_by.delete({int(repo_id)})],
                    condition=LfsObject.pk.exists())
    except UpdateError as exc:
        if _condition_failed(exc):
            return   # collected already
        raise
    if item.needed_by:
        return
    try:
        item.update(actions=[LfsObject.gsi2pk.set(IDLE_INDEX),
                             LfsObject.gsi2sk.set(idle_sort_key(now, pool_id, oid))],
                    condition=LfsObject.pk.exists() & LfsObject.needed_by.does_not_exist()
                    & LfsObject.gsi2pk.does_not_exist())
    except UpdateError as exc:
        if not _condition_failed(exc):
            raise   # else: needed again meanwhile, or idle already


def drop_owner_need(owner_id: int, pool_id: int, oid: str, repo_id: int) -> int:
    """The repository no longer needs the object for its owner; returns the bytes the
    owner stops using (the object's size when this was the owner's last repository
    needing it, else 0) once the owner's item is gone."""
    item = OwnerNeed(*owner_need_key(owner_id, pool_id, oid))
    try:
        item.update(actions=[OwnerNeed.repo_ids.delete({int(repo_id)})],
                    condition=OwnerNeed.pk.exists())
    except UpdateError as exc:
        if _condition_failed(exc):
            return 0
        raise
    return 0 if item.repo_ids else int(item.size)


def stage_owner_release(owner_id: int, pool_id: int, oid: str) -> None:
    """Delete the owner's item if still nobody of theirs needs it (the caller moves the
    usage in the same unit)."""
    unit_of_work.current().delete(OwnerNeed(*owner_need_key(owner_id, pool_id, oid)),
                                  label=OWNER_NEED,
                                  condition=OwnerNeed.repo_ids.does_not_exist())


def delete_repo_need(need: RepoNeed) -> None:
    try:
        need.delete()
    except DeleteError as exc:
        if not _condition_failed(exc):
            raise


def _condition_failed(exc: Exception) -> bool:
    cause = getattr(exc, "cause_response_code", None)
    return cause == "ConditionalCheckFailedException"
