"""Ref history entries in the table (the layout is ``models.py``'s).

An entry and its copy by id are one transaction, the entry put only if absent: a
redelivered event finds its key taken (``RECORDED``) and writes nothing.  Every read
leaves out entries past ``expires`` (DynamoDB deletes them some time after; locally
never), with a filter on the Query, so what a page reads is what it may show.
"""
from __future__ import annotations

from collections.abc import Iterator

from chalicelib.ref_history.models import RefEntry, keys
from chalicelib.store import ids, unit_of_work
from chalicelib.store.table import Item

RECORDED = "ref move recorded"     # ConditionFailed label: this event was recorded already
# Entries read per page of the compaction's walk (one entry is about 400 bytes).
KEPT_PAGE = 500


def new_entry_id() -> int:
    return ids.next_id("ref_history")


def new_entry(*, entry_id: int, repo_id: int, ref: str, old: str, new: str, forced: bool,
              action: str, actor_id: int, actor_login: str, created: float,
              event_id: str, expires: int, short_ref: str, via: str = "") -> RefEntry:
    """An entry, not yet written (its index keys set: the ref's, and the kept tips' for
    a move whose old tip may have left the refs' history)."""
    order = keys.order(created, event_id)
    entry = RefEntry(*keys.entry(repo_id, order), id=int(entry_id), repo_id=int(repo_id),
                     ref=ref, old=old, new=new, forced=bool(forced), action=action,
                     via=via, actor_id=int(actor_id), actor_login=actor_login, created=float(created),
                     event_id=event_id, expires=int(expires))
    entry.gsi1pk, entry.gsi1sk = keys.per_ref(repo_id, short_ref), order
    if forced or action == "deleted":
        entry.gsi2pk, entry.gsi2sk = keys.kept(repo_id), order
    return entry


def stage_recorded(entry: RefEntry) -> None:
    """Stage the entry (only if its event was not recorded before) and its copy by id."""
    uow = unit_of_work.current()
    uow.put(entry, label=RECORDED, must_not_exist=True)
    copy = RefEntry(*keys.by_id(int(entry.repo_id), int(entry.id)),
                    **{name: getattr(entry, name) for name in (
                        "id", "repo_id", "ref", "old", "new", "forced", "action", "via", "actor_id",
                        "actor_login", "created", "event_id", "expires")})
    uow.put(copy, label=RECORDED)


def entries(repo_id: int, *, now: float, short_ref: str | None = None,
            forced: bool | None = None, page_size: int = 50) -> Iterator[RefEntry]:
    """The repository's live entries, newest first, a DynamoDB page at a time: all of
    them, or those of one short ref name (``short_ref``; a branch and a tag of that
    name), or (``forced=True``) only forced moves, from the sparse index of moves that
    may have dropped commits."""
    condition = RefEntry.expires > int(now)
    if forced is not None:
        condition &= RefEntry.forced == forced
    if short_ref is not None:
        found = Item.gsi1.query(keys.per_ref(repo_id, short_ref), scan_index_forward=False,
                                filter_condition=condition, page_size=page_size)
    elif forced:
        found = Item.gsi2.query(keys.kept(repo_id), scan_index_forward=False,
                                filter_condition=condition, page_size=page_size)
    else:
        partition, _ = keys.entry(repo_id, "")
        found = Item.query(partition, Item.sk.startswith(keys.ENTRY_PREFIX),
                           scan_index_forward=False, filter_condition=condition,
                           page_size=page_size)
    for item in found:
        if isinstance(item, RefEntry):
            yield item


def entry_by_id(repo_id: int, entry_id: int, *, now: float) -> RefEntry | None:
    """The live entry with this id (one consistent read), or None."""
    if not 0 < int(entry_id) < ids.MAX_SAFE_ID:
        return None
    item = unit_of_work.get(RefEntry, keys.by_id(repo_id, entry_id), consistent=True)
    if item is None or int(item.expires) <= now:
        return None
    return item


def kept_tips(repo_id: int, *, now: float) -> set[str]:
    """The old tips of the repository's live forced moves and deletions: a Query of its
    sparse index, ``KEPT_PAGE`` entries a page."""
    return {item.old for item in Item.gsi2.query(
                keys.kept(repo_id), filter_condition=RefEntry.expires > int(now),
                page_size=KEPT_PAGE)
            if isinstance(item, RefEntry) and item.old}
