"""Git LFS objects in the table: one item per object a pool holds, written once verify
found its bytes in S3 (``s3_objects``).

| item | pk | sk | attributes | written with |
|---|---|---|---|---|
| LFS object (``lfsobject``) | ``POOL#<pool id>`` | ``LFS#<oid>`` | ``oid``, ``size``, ``verified`` (unix s) | a put on ``attribute_not_exists(pk)`` with a check that the pool exists |

Beside the pool's packs (``PACK#…``, gitstore/models.py): the objects of a pool are one
``Query`` on ``LFS#``, and a batch of up to 100 objects is one ``BatchGetItem`` (the
unit of work's prefetch), so a batch needs no S3 call to know which objects exist.
"""
from __future__ import annotations

from collections.abc import Iterable

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store import unit_of_work
from chalicelib.store.keys import keys
from chalicelib.store.table import Item, Pool

OBJECT = "lfs-object"   # ConditionFailed label: the object was recorded already
POOL = "lfs-pool"       # ConditionFailed label: the pool (its last repository) is gone


class LfsObject(Item, discriminator="lfsobject"):
    oid = UnicodeAttribute()
    size = NumberAttribute()
    verified = NumberAttribute()


def known(pool_id: int, oids: Iterable[str]) -> dict[str, int]:
    """The recorded size of each of ``oids`` the pool holds (one BatchGetItem per 100)."""
    wanted = {oid: keys.lfs_object(int(pool_id), oid) for oid in dict.fromkeys(oids)}
    unit_of_work.prefetch(wanted.values())
    found = {}
    for oid, key in wanted.items():
        item = unit_of_work.get(LfsObject, key)
        if item is not None:
            found[oid] = int(item.size)
    return found


def stage_record(pool_id: int, oid: str, size: int, now: int) -> None:
    """Stage the object's item: ``ConditionFailed(OBJECT, exists=True)`` when it is
    recorded already, ``ConditionFailed(POOL)`` when the pool is gone (its repositories
    were deleted meanwhile: nothing may point at a pool that no longer exists)."""
    uow = unit_of_work.current()
    uow.check(Pool(*keys.pool(int(pool_id))), Pool.pk.exists(), label=POOL)
    uow.put(LfsObject(*keys.lfs_object(int(pool_id), oid), oid=oid, size=int(size),
                      verified=int(now)), label=OBJECT, must_not_exist=True)
