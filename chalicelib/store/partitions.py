"""The partitions several domains' items share, read and purged as a whole.

Everything that belongs to a repository lives under ``R#<id>`` and everything that
belongs to an account under ``A#<id>`` (``store.keys``), whichever domain wrote it, so
deleting the repository or the account removes them with one query and no domain has
to know the others' items.  An item that owns items elsewhere (a token's lookup item,
a key's fingerprint claim) names them (``Item.owned_elsewhere``) and they go with it.
"""
from __future__ import annotations

from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

Key = tuple[str, str]


def items(partition: str) -> list[Item]:
    """Every item of the partition (a Query through every kind)."""
    return list(Item.query(partition))


def stage_purge(partition: str, *, keep: Key | None = None, label: str = "leftover",
                found: list[Item] | None = None) -> int:
    """Stage the deletion of every item of ``partition`` but ``keep``, with what each
    owns elsewhere; returns how many partition items.  ``found``: the partition already
    read."""
    uow = unit_of_work.current()
    count = 0
    for item in items(partition) if found is None else found:
        if (item.pk, item.sk) == keep:
            continue
        uow.delete(item, label=label)
        for owned in item.owned_elsewhere():
            uow.delete(owned, label=label)
        count += 1
    return count
