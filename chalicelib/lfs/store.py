"""Git LFS objects in the table: one item per object a pool holds, written once verify
found its bytes in S3 (``s3_objects``), and which repositories need it.

| item | pk | sk | attributes | written with |
|---|---|---|---|---|
| LFS object (``lfsobject``) | ``POOL#<pool id>`` | ``LFS#<oid>`` | ``oid``, ``size``, ``verified`` (unix s), ``needed_by`` (repository ids), ``doomed``; gsi2 ``LFSIDLE`` / ``<since>#<pool>#<oid>`` while nobody needs it | a put on ``attribute_not_exists(pk)`` with a check that the pool exists |

Beside the pool's packs (``PACK#…``, gitstore/models.py): the objects of a pool are one
``Query`` on ``LFS#``, and a batch of up to 100 objects is one ``BatchGetItem`` (the
unit of work's prefetch), so a batch needs no S3 call to know which objects exist.

An object nobody needs (``needed_by`` empty: just verified, or its last repository
deleted) is listed in gsi2 under ``LFSIDLE``, ordered by when it became idle, so the
collection schedule (``collect``) reads the idle ones a page at a time and never the
whole pool.  Anything that names an idle object again (a batch, a push) takes it out
or moves its date, and the collection's conditional writes see that (``collect``).
"""
from __future__ import annotations

from collections.abc import Iterable

from pynamodb.exceptions import DeleteError, UpdateError

from chalicelib import repos
from chalicelib.lfs.models import LfsObject, keys
from chalicelib.store import unit_of_work

OBJECT = "lfs-object"   # ConditionFailed label: the object was recorded already
POOL = "lfs-pool"       # ConditionFailed label: the pool (its last repository) is gone
IDLE = "lfs-idle"       # ConditionFailed label: the idle object changed meanwhile
IDLE_INDEX = "LFSIDLE"


def idle_sort_key(since: int, pool_id: int, oid: str) -> str:
    return f"{int(since):010d}#{int(pool_id):015d}#{oid}"


def object_key(pool_id: int, oid: str) -> tuple[str, str]:
    return keys.lfs_object(int(pool_id), oid)


def known_items(pool_id: int, oids: Iterable[str], *,
                consistent: bool = False) -> dict[str, LfsObject]:
    """The items of ``oids`` the pool holds, doomed ones left out (one BatchGetItem per
    100)."""
    wanted = {oid: object_key(pool_id, oid) for oid in dict.fromkeys(oids)}
    if consistent:
        for key in wanted.values():
            unit_of_work.forget(key)
    unit_of_work.prefetch(wanted.values(), consistent=consistent)
    found = {}
    for oid, key in wanted.items():
        item = unit_of_work.get(LfsObject, key)
        if item is not None and item.usable:
            found[oid] = item
    return found


def known(pool_id: int, oids: Iterable[str]) -> dict[str, int]:
    """The recorded size of each of ``oids`` the pool holds."""
    return {oid: int(item.size) for oid, item in known_items(pool_id, oids).items()}


def stage_record(pool_id: int, oid: str, size: int, now: int) -> None:
    """Stage the object's item, idle until a push needs it:
    ``ConditionFailed(OBJECT, exists=True)`` when it is recorded already,
    ``ConditionFailed(POOL)`` when the pool is gone (its repositories were deleted
    meanwhile: nothing may point at a pool that no longer exists)."""
    uow = unit_of_work.current()
    repos.stage_pool_exists(int(pool_id), label=POOL)
    uow.put(LfsObject(*keys.lfs_object(int(pool_id), oid), oid=oid, size=int(size),
                      verified=int(now), gsi2pk=IDLE_INDEX,
                      gsi2sk=idle_sort_key(now, pool_id, oid)),
            label=OBJECT, must_not_exist=True)


def stage_touch(item: LfsObject, pool_id: int, now: int) -> None:
    """An idle object named again (a batch upload found it): its idle date moves to
    now, so a collection that read the old date fails its condition."""
    unit_of_work.current().update(
        item, [LfsObject.gsi2sk.set(idle_sort_key(now, pool_id, item.oid))], label=IDLE,
        condition=LfsObject.pk.exists() & LfsObject.doomed.does_not_exist()
        & LfsObject.gsi2pk.exists())


# The collection's steps (``collect``): each a conditional write of its own ------------------

def idle_before(since: int, page: int = 100):
    """The objects idle since before ``since`` (unix s), oldest first, a page at a time."""
    yield from LfsObject.gsi2.query(IDLE_INDEX, LfsObject.gsi2sk < idle_sort_key(since, 0, ""),
                                    page_size=page)


def pool_of(item: LfsObject) -> int:
    return int(item.pk.split("#", 1)[1])


def mark_doomed(seen: LfsObject) -> bool:
    """Mark an idle object as being collected, on condition that nobody needs it and its
    idle date is the one ``seen`` (read from the index) has; False when that changed."""
    try:
        LfsObject(seen.pk, seen.sk).update(
            actions=[LfsObject.doomed.set(True)],
            condition=LfsObject.needed_by.does_not_exist()
            & (LfsObject.gsi2sk == seen.gsi2sk) & LfsObject.doomed.does_not_exist())
        return True
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise


def delete_doomed(seen: LfsObject) -> None:
    """The collected object's item, if it is still marked."""
    try:
        LfsObject(seen.pk, seen.sk).delete(condition=LfsObject.doomed == True)  # noqa: E712
    except DeleteError as exc:
        if exc.cause_response_code != "ConditionalCheckFailedException":
            raise
