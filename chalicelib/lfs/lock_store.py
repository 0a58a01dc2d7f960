"""Git LFS locks in the table: two items per lock, in the repository's partition (the
repository-cleanup consumer purges ``R#<id>``, so its locks go with it).

| item | pk | sk | attributes | written with |
|---|---|---|---|---|
| lock (``lfslock``) | ``R#<repo>`` | ``LFSLOCK#<id, 15 digits>`` | ``id``, ``path``, ``owner_id``, ``owner_name``, ``created`` (unix s) | a put on ``attribute_not_exists(pk)`` |
| path claim (``lfslock``) | ``R#<repo>`` | ``LFSPATH#<lower-case path>`` | the same | a put on ``attribute_not_exists(pk)``: one lock per path |

Both items, and ``Repo.lfs_locks`` (ADD 1 / ADD -1, on condition that the repository
still exists), are one transaction: the claim's condition is what makes two creates of
one path at once end with one lock, and the count is what lets a push to a repository
without locks read none.  Locks never change once made, so the claim carries the whole
lock: a lookup by path is one GetItem, by id one GetItem, a page of the list one Query
(ordered by id, which is the cursor).  ``owner_name`` is the owner's login when the
lock was made, for the push refusal's message; answers show the current login.
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib import repos
from chalicelib.lfs.models import LfsLock, keys
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work

LOCK = "lfs-lock"         # ConditionFailed label: the lock is gone (deleted meanwhile)
PATH = "lfs-lock-path"    # ConditionFailed label: the path is locked already
REPO = "lfs-lock-repo"    # ConditionFailed label: the repository is gone

# A sort key holds at most 1024 bytes; the claim's is "LFSPATH#" and the path.
MAX_PATH_BYTES = 1000
_LAST_ID = 10 ** 15 - 1


def new(repo_id: int, lock_id: int, path: str, owner_id: int, owner_name: str,
        created: int) -> LfsLock:
    return LfsLock(*keys.lfs_lock(int(repo_id), int(lock_id)), id=int(lock_id), path=path,
                   owner_id=int(owner_id), owner_name=owner_name, created=int(created))


def _claim_of(repo_id: int, lock: LfsLock) -> LfsLock:
    return LfsLock(*keys.lfs_lock_path(int(repo_id), lock.path.lower()), id=int(lock.id),
                   path=lock.path, owner_id=int(lock.owner_id), owner_name=lock.owner_name,
                   created=int(lock.created))


def get(repo_id: int, lock_id: int) -> LfsLock | None:
    """The repository's lock ``lock_id`` (strongly consistent: an unlock right after the
    lock finds it)."""
    if not 0 < int(lock_id) <= _LAST_ID:
        return None
    return unit_of_work.get(LfsLock, keys.lfs_lock(int(repo_id), int(lock_id)),
                            consistent=True)


def at_path(repo_id: int, path: str) -> LfsLock | None:
    """The lock on ``path`` (compared without case, as Forgejo does)."""
    return unit_of_work.get(LfsLock, keys.lfs_lock_path(int(repo_id), path.lower()),
                            consistent=True)


def at_paths(repo_id: int, paths: Iterable[str]) -> list[LfsLock]:
    """The locks on any of ``paths`` (one BatchGetItem per 100 paths)."""
    wanted = [keys.lfs_lock_path(int(repo_id), p.lower()) for p in dict.fromkeys(paths)]
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(LfsLock, key) for key in wanted)
    return [lock for lock in found if lock is not None]


def page(repo_id: int, after: int, limit: int) -> tuple[list[LfsLock], bool]:
    """Up to ``limit`` locks with an id above ``after``, by id, and whether more follow:
    one Query (of ``limit`` + 1 items, so a last full page is known to be the last)."""
    first, last = keys.lfs_lock(int(repo_id), int(after) + 1), keys.lfs_lock(int(repo_id), _LAST_ID)
    found = list(LfsLock.query(first[0], LfsLock.sk.between(first[1], last[1]),
                               consistent_read=True, limit=limit + 1, page_size=limit + 1))
    return found[:limit], len(found) > limit


def every(repo_id: int) -> list[LfsLock]:
    """Every lock of the repository (a Query, DynamoDB's pages as needed)."""
    pk = keys.repo_partition(int(repo_id))
    return list(LfsLock.query(pk, LfsLock.sk.startswith(keys.LFS_LOCK_PREFIX),
                              consistent_read=True))


def _count(repo: Repo, amount: int) -> None:
    repos.stage_repo_counts(repo, {"lfs_locks": amount}, label=REPO, same_id=True)


def stage_create(repo: Repo, lock: LfsLock) -> None:
    """Stage the lock, its path's claim (``ConditionFailed(PATH)`` when the path is
    locked) and the repository's count (``ConditionFailed(REPO)`` when it is gone)."""
    uow = unit_of_work.current()
    uow.put(lock, label=LOCK, must_not_exist=True)
    uow.put(_claim_of(int(repo.id), lock), label=PATH, must_not_exist=True)
    _count(repo, 1)


def stage_delete(repo: Repo, lock: LfsLock) -> None:
    """Stage the lock's removal: ``ConditionFailed(LOCK)`` when it is gone already (two
    unlocks at once: one succeeds, and the count drops once)."""
    uow = unit_of_work.current()
    uow.delete(LfsLock(*keys.lfs_lock(int(repo.id), int(lock.id))), label=LOCK,
               condition=LfsLock.pk.exists())
    uow.delete(_claim_of(int(repo.id), lock), label=PATH, condition=LfsLock.id == int(lock.id))
    _count(repo, -1)
