"""The consistent cut of a dump taken while writes run: which items are read again
after the table's Scan, which S3 objects an item names, and the bookkeeping that ties
them together (docs/operations.md, "Backups", gives the argument in full).

A Scan is not a snapshot: each page shows the items as they were when it was read.
Three rules make what it read restore to a working instance:

- **Allocators count on from where the instance is after the scan.**  An item that
  hands out numbers (an id sequence's counter, a repository's issue numbers on its
  tracker, a commit's status index) only counts up, so its number read after the
  scan is at least every number an item read during the scan holds: the restored
  instance never hands one out twice.  Only the counting attribute is taken from that
  later read; the rest of the item (a tracker's labels and counts) stays as the scan
  read it, beside the issues it counts.  (A counter is written by ``UpdateItem ADD``
  and has no ``kind``: it is known by its key, ``store/keys.py``.)
- **Object pools are read again after the scan**, whole (pack list, retired packs, Git
  LFS objects).  Every ref was read before that, and a push publishes its pack before
  it moves a ref; compaction keeps what it finds unreachable in a garbage pack for an
  hour (``gitstore/compaction.py``), so the pack list read last holds every object of
  every ref value the scan read, if the scan took less than that hour.
- **Objects are copied after the items that name them were read.**  Writers put an
  object before the item that names it and delete it only after no item names it
  (packs, attachments, avatars, LFS objects all do), so an object an item read during
  the scan names is still there when the copy lists the bucket; one deleted meanwhile
  belongs to an item that changed meanwhile, which is read again.  Extra objects (a
  push that never published its pack) are copied too and harm nothing.

Events raised but not relayed yet (outbox items) are kept apart and restored last, so
their consumers run on a complete instance.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from chalicelib import avatars, lfs
from chalicelib.backup.items import Key, key_of, kind_of, text, to_line
from chalicelib.gitstore.models import gitkeys
from chalicelib.store import attachment_objects
from chalicelib.store.keys import keys as shared_keys

# Items that hand out numbers, by kind: the attributes that count (issues' tracker,
# statuses' summary); an id sequence's counter (store/ids.py) by its key.
ALLOCATORS = {"issuetracker": ("next_number",), "statussummary": ("count",)}
COUNTER_PK, COUNTER_SK = shared_keys.counter("")
COUNTER_ATTRIBUTES = ("value",)
OUTBOX_KIND = "outbox"
POOL_PREFIX = gitkeys.pool_pk("0")[:-1]
REFS_PREFIX = gitkeys.refs_pk("0")[:-1]
PACK_FILES = ("pack", "idx")


def _number(item: dict, name: str) -> int | None:
    found = text(item, name)
    return int(found) if found not in (None, "") else None


def counting(item: dict) -> tuple[str, ...]:
    """The attributes by which ``item`` hands out numbers (none: it does not)."""
    pk, sk = key_of(item)
    if pk.startswith(COUNTER_PK) and sk == COUNTER_SK:
        return COUNTER_ATTRIBUTES
    return ALLOCATORS.get(kind_of(item) or "", ())


def counted_on(scanned: dict, later: dict) -> dict:
    """The scanned item with its counting attributes as ``later`` has them."""
    merged = dict(scanned)
    for name in counting(scanned):
        if name in later:
            merged[name] = later[name]
    return merged


def pools_of(item: dict) -> set[str]:
    """The pool partitions an item lives in or points at: its own, a repository's pool,
    and the pool of a refs partition's id (a repository's own pool and a wiki's share
    the id of its refs; a fork's is named by its repository item)."""
    pk, _ = key_of(item)
    if pk.startswith(POOL_PREFIX):
        return {pk}
    if pk.startswith(REFS_PREFIX):
        return {POOL_PREFIX + pk[len(REFS_PREFIX):]}
    pool_id = _number(item, "pool_id") if kind_of(item) == "repo" else None
    return {gitkeys.pool_pk(pool_id)} if pool_id is not None else set()


def named_objects(item: dict) -> list[str]:
    """The S3 keys whose bytes the item says exist (a presigned upload not confirmed
    yet, an LFS object being collected: none)."""
    kind, (pk, sk) = kind_of(item), key_of(item)
    if kind == "gitpack":
        pool, name = pk[len(POOL_PREFIX):], sk[len(gitkeys.PACK_PREFIX):]
        return [gitkeys.s3_key(pool, name, ext) for ext in PACK_FILES]
    if kind == "lfsobject" and not (item.get("doomed") or {}).get("BOOL"):
        return [lfs.object_key(int(pk[len(POOL_PREFIX):]), text(item, "oid"))]
    if kind == "releaseasset" and text(item, "state") == "ready" and text(item, "s3_key"):
        return [text(item, "s3_key")]
    if kind in ("issue", "comment"):
        entries = (item.get("attachments") or {}).get("M") or {}
        repo_id = _number(item, "repo_id")
        return [attachment_objects.key(repo_id, entry["M"]["uuid"]["S"])
                for entry in entries.values()
                if "pending_until" not in entry.get("M", {}) and "uuid" in entry.get("M", {})]
    if kind in ("account", "repo") and text(item, "avatar"):
        which = avatars.ACCOUNT_AVATAR if kind == "account" else avatars.REPOSITORY_AVATAR
        return [avatars.avatar_key(which, _number(item, "id"), text(item, "avatar")).object_key]
    return []


def fingerprint(item: dict) -> str:
    return hashlib.sha256(to_line(item).encode()).hexdigest()


@dataclass
class Cut:
    """What the scan met that the closing reads and the object check need."""
    allocators: dict[Key, dict] = field(default_factory=dict)   # as scanned
    pools: set[str] = field(default_factory=set)
    # Pool partition -> its scanned items' keys -> fingerprints.
    pool_items: dict[str, dict[Key, str]] = field(default_factory=dict)
    # Each item that names objects, as last read -> the S3 keys it names.
    item_names: dict[Key, list[str]] = field(default_factory=dict)
    # Items of the scan a later read replaced (or found gone).
    superseded: set[Key] = field(default_factory=set)
    changed: int = 0                        # items a later read found changed

    def met(self, item: dict) -> None:
        """Note a scanned item."""
        key = key_of(item)
        if counting(item):
            self.allocators[key] = item
        self.pools |= pools_of(item)
        if key[0].startswith(POOL_PREFIX):
            self.pool_items.setdefault(key[0], {})[key] = fingerprint(item)
        self.note_names(item)

    def count_on(self, key: Key, later: dict) -> dict:
        """The allocator at ``key`` as the scan read it, counting on from ``later``."""
        scanned = self.allocators[key]
        counted = counted_on(scanned, later)
        self.replaced(key, counted, fingerprint(scanned))
        return counted

    def note_names(self, item: dict) -> None:
        names = named_objects(item)
        if names:
            self.item_names[key_of(item)] = names
        else:
            self.item_names.pop(key_of(item), None)

    def replaced(self, key: Key, item: dict | None, before: str | None) -> None:
        """``key``'s scanned version (``before``: its fingerprint, None if the scan did
        not meet it) gives way to ``item``, read later (None: gone)."""
        if before is not None:
            self.superseded.add(key)
        self.item_names.pop(key, None)
        if item is not None:
            self.note_names(item)
        if item is None or fingerprint(item) != before:
            self.changed += 1

    def names(self) -> dict[str, list[Key]]:
        """S3 key -> the items (as last read) that name it."""
        found: dict[str, list[Key]] = {}
        for key, object_keys in self.item_names.items():
            for object_key in object_keys:
                found.setdefault(object_key, []).append(key)
        return found
