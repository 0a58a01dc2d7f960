"""Audit entries in the table (the layout is ``models.py``'s).

An entry is written by the audit-log consumer in one ``BatchWriteItem``: its instance
copy, its scope copy (when it has a repository or an owner) and the names it was seen
under, every item keyed by the event or the name, so a redelivered event writes the same
items again and changes nothing.  A list reads one index partition, newest first, with
the time range as a sort-key condition and the other filters as a FilterExpression.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from chalicelib.audit.entries import Entry
from chalicelib.audit.models import AuditCopy, AuditName, keys
from chalicelib.store import pages
from chalicelib.store.table import Item


def items_of(entry: Entry, expires: float) -> list[Item]:
    """The items that record ``entry``, not yet written."""
    order = keys.order(entry.time, entry.event_id)
    values = {"event_id": entry.event_id, "created": entry.time, "action": entry.action,
              "actor_id": entry.actor_id, "repo_id": entry.repo_id,
              "owner_id": entry.owner_id, "expires": int(expires),
              "entry": json.dumps(entry.as_data(), sort_keys=True, separators=(",", ":"))}
    instance = AuditCopy(*keys.instance_copy(entry.event_id), **values)
    instance.gsi2pk, instance.gsi2sk = keys.INSTANCE, order
    if entry.actor_id:
        instance.gsi1pk, instance.gsi1sk = keys.by_actor(entry.actor_id), order
    found: list[Item] = [instance]
    if entry.repo_id or entry.owner_id:
        scope = AuditCopy(*keys.scope_copy(entry.event_id), **values)
        if entry.repo_id:
            scope.gsi1pk, scope.gsi1sk = keys.by_repo(entry.repo_id), order
        if entry.owner_id:
            scope.gsi2pk, scope.gsi2sk = keys.by_owner(entry.owner_id), order
        found.append(scope)
    if entry.repo_id and entry.repo_name:
        found.append(AuditName(*keys.repo_name(entry.repo_name), target_id=entry.repo_id,
                               expires=int(expires)))
    if entry.actor_id and entry.actor_login:
        found.append(AuditName(*keys.actor_name(entry.actor_login), target_id=entry.actor_id,
                               expires=int(expires)))
    return found


def write(entry: Entry, expires: float) -> None:
    """Record the entry (one BatchWriteItem; the same items again on a redelivery)."""
    with Item.batch_write() as batch:
        for item in items_of(entry, expires):
            batch.save(item)


def entry_of(copy: AuditCopy) -> Entry:
    return Entry.from_data(json.loads(copy.entry))


def named_id(kind: str, name: str, now: float) -> int | None:
    """The repository (``kind`` "repo", by owner/name) or actor ("actor", by login) the
    log last saw under ``name`` (one GetItem), unless that record expired."""
    key = keys.repo_name(name) if kind == "repo" else keys.actor_name(name)
    try:
        found = AuditName.get(*key)
    except AuditName.DoesNotExist:
        return None
    return int(found.target_id) if float(found.expires) > now else None


def last_seen_repo(repo_id: int) -> dict:
    """The repository as the log's newest entry about it named it ({} when none): for an
    event that names a repository gone since (one Query, one item)."""
    for found in Item.gsi1.query(keys.by_repo(repo_id), scan_index_forward=False, limit=1):
        if isinstance(found, AuditCopy):
            entry = entry_of(found)
            owner, _, name = entry.repo_name.partition("/")
            return {"id": entry.repo_id, "name": name, "owner_login": owner,
                    "owner_id": entry.owner_id}
    return {}


def entries(*, repo_id: int | None = None, actor_id: int | None = None,
            owner_id: int | None = None, action: str | None = None,
            since: float | None = None, until: float | None = None,
            newest_first: bool = True, page_size: int = 50) -> Iterator[AuditCopy]:
    """The copies that match, newest first (or oldest first), read from the most
    selective index partition: the repository's, else the actor's, else the owner's,
    else the instance's; the filters the key does not cover go in the FilterExpression.
    ``since``/``until`` bound the time, both inclusive."""
    filters = []
    if repo_id is not None:
        index, partition, sort = Item.gsi1, keys.by_repo(repo_id), Item.gsi1sk
    elif actor_id is not None:
        index, partition, sort = Item.gsi1, keys.by_actor(actor_id), Item.gsi1sk
    elif owner_id is not None:
        index, partition, sort = Item.gsi2, keys.by_owner(owner_id), Item.gsi2sk
    else:
        index, partition, sort = Item.gsi2, keys.INSTANCE, Item.gsi2sk
    if repo_id is not None and actor_id is not None:
        filters.append(AuditCopy.actor_id == int(actor_id))
    if owner_id is not None and (repo_id is not None or actor_id is not None):
        filters.append(AuditCopy.owner_id == int(owner_id))
    if action:
        # "repository" takes every repository.* action; "repository.edited" that one.
        filters.append((AuditCopy.action == action) | AuditCopy.action.startswith(f"{action}."))
    condition = None
    for one in filters:
        condition = one if condition is None else condition & one
    low = keys.order(since) if since is not None else None
    high = keys.order(until, "~") if until is not None else None
    for found in index.query(partition, pages.sort_range(sort, low, high),
                             filter_condition=condition, scan_index_forward=not newest_first,
                             page_size=page_size):
        if isinstance(found, AuditCopy):
            yield found
