"""What each repository needs of its pool's Git LFS objects: recorded when a push (or a
migration, a mirror sync, a fork) brings pointers to them, released when the repository
is deleted.  Objects nobody needs are idle, and collected after a grace period
(``collect``); the owner's ``size:git:lfs`` usage counts each object their repositories
need once (``need_store``).

A push's needs are recorded *before* its refs move (``gate.admit``): if the refs then
fail to move, the repository needs a little more than it points at (kept until it is
deleted, charged meanwhile); the other order could let a collection take an object an
acknowledged push points at.  Deleting a branch releases nothing, as it frees nothing of
the packs (docs/quota.md): needs go with the repository.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping

from chalicelib import clock, quota
from chalicelib.errors import ConditionFailed
from chalicelib.lfs import need_store
from chalicelib.lfs.store import known_items, object_key
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.lfs")

# Objects per transaction: 3 writes each, plus the repository and the owner's usage,
# within DynamoDB's 100; and their three keys each within one BatchGetItem.
CHUNK = 25
ATTEMPTS = 4


def add(repo: Repo, pointers: Mapping[str, int]) -> list[str]:
    """Record that ``repo`` needs the objects ``pointers`` names (oid -> size); returns
    the ones its pool does not hold (or holds with another size, or is collecting):
    those are not recorded, and a push naming them must be refused."""
    missing: list[str] = []
    oids = sorted(pointers)
    for start in range(0, len(oids), CHUNK):
        missing += _add_chunk(repo, {oid: int(pointers[oid]) for oid in oids[start:start + CHUNK]})
    return missing


def _add_chunk(repo: Repo, pointers: dict[str, int]) -> list[str]:
    repo_id, owner_id, pool_id = int(repo.id), int(repo.owner_id), int(repo.pool_id)
    for _ in range(ATTEMPTS):
        # A unit of its own per attempt: an attempt after a race reads everything again.
        with unit_of_work.start():
            unit_of_work.prefetch([need_store.repo_need_key(repo_id, oid) for oid in pointers]
                                  + [need_store.owner_need_key(owner_id, pool_id, oid)
                                     for oid in pointers]
                                  + [object_key(pool_id, oid) for oid in pointers],
                                  consistent=True)
            held = known_items(pool_id, pointers)
            missing = [oid for oid, size in pointers.items()
                       if oid not in held or int(held[oid].size) != size]
            new = [oid for oid in pointers if oid not in missing and unit_of_work.get(
                need_store.RepoNeed, need_store.repo_need_key(repo_id, oid)) is None]
            if not new:
                return missing
            first = {oid for oid in new if unit_of_work.get(
                need_store.OwnerNeed, need_store.owner_need_key(owner_id, pool_id, oid)) is None}
            try:
                with unit_of_work.writing():
                    for oid in new:
                        need_store.stage_repo_need(repo, oid, pointers[oid])
                        need_store.stage_object_needed(held[oid], repo_id)
                        need_store.stage_owner_need(owner_id, pool_id, oid, pointers[oid],
                                                    repo_id, first=oid in first)
                    need_store.stage_repo_size(repo, sum(pointers[oid] for oid in new))
                    taken = sum(pointers[oid] for oid in first)
                    if taken:
                        quota.stage_usage(owner_id, {"git_lfs": taken})
                return missing
            except ConditionFailed as failed:
                if failed.label == need_store.REPO_GONE:
                    return missing
                # Raced with another push, a collection or a release: read again.
                log.info("lfs needs of repository %s: %s changed meanwhile; again", repo_id,
                         failed.label)
    raise ConditionFailed(need_store.OWNER_NEED)


def release(repo_id: int, owner_id: int, now: float | None = None) -> int:
    """The deleted repository ``repo_id`` (of ``owner_id``) needs nothing any more: each
    object it needed leaves its ``needed_by`` (idle once nobody is left), and the owner's
    usage drops by what none of the owner's other repositories needs.  Idempotent (a
    redelivered event finds less to do); returns how many needs were released."""
    stamp = int(now if now is not None else clock.now())
    released = 0
    for need in need_store.needs_of(repo_id):
        pool_id = int(need.pool_id)
        need_store.drop_object_need(pool_id, need.oid, repo_id, stamp)
        freed = need_store.drop_owner_need(owner_id, pool_id, need.oid, repo_id)
        if freed:
            try:
                with unit_of_work.writing():
                    need_store.stage_owner_release(owner_id, pool_id, need.oid)
                    quota.stage_usage(owner_id, {"git_lfs": -freed})
            except ConditionFailed:
                pass   # another repository of the owner needs it again
        need_store.delete_repo_need(need)
        released += 1
    return released


def inherit(fork: Repo, parent_id: int) -> int:
    """A new fork needs what its parent needed (it has the parent's refs), a page of the
    parent's needs at a time; returns how many objects."""
    batch: dict[str, int] = {}
    count = 0
    for need in need_store.needs_of(parent_id):
        batch[need.oid] = int(need.size)
        if len(batch) >= CHUNK:
            count += len(batch) - len(add(fork, batch))
            batch = {}
    if batch:
        count += len(batch) - len(add(fork, batch))
    return count
