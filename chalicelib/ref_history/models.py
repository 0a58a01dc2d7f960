"""The ref history's items in the table: its model and key layouts.

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/ref_history/__init__.py``).

| item | pk | sk | index keys |
|---|---|---|---|
| entry | ``R#<repo id>`` | ``REFLOG#<order>`` | gsi1: ``REFLOGREF#<repo>#<short ref>`` / ``<order>``; forced or deleted only, gsi2: ``REFLOGKEEP#<repo>`` / ``<order>`` |
| entry by id | ``R#<repo id>`` | ``REFLOGID#<id>`` | |

``<order>`` is the move's time in microseconds (17 digits) and its event's id, so a
Query of the repository's ``REFLOG#`` family, newest first, is its history and a
redelivered event names the key it wrote before (the put is conditional).  The entry
lives in its repository's partition: it stays with a deleted repository that may come
back and goes when the repository is purged.  gsi1 is keyed by the short name (a
branch and a tag of one name share it), so the ``ref`` filter, short or full, is one
Query.  gsi2 lists only the entries whose old tip may be unreachable from the refs
(forced moves and deletions): the tips compaction keeps and the ``forced`` filter.
The copy by id answers a restore with one read.  Both carry ``expires`` (DynamoDB's
TTL; reads skip what is past it, since nothing expires locally).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class RefEntry(Item, discriminator="refentry"):
    id = NumberAttribute()
    repo_id = NumberAttribute()
    ref = UnicodeAttribute()
    old = UnicodeAttribute()
    new = UnicodeAttribute()
    forced = BooleanAttribute(default=False)
    action = UnicodeAttribute()              # created | updated | deleted
    via = UnicodeAttribute(default="")       # push | merge | api | mirror | system
    actor_id = NumberAttribute(default=0)
    actor_login = UnicodeAttribute(default="")
    created = NumberAttribute()              # unix seconds (the event's time)
    event_id = UnicodeAttribute()
    expires = NumberAttribute()              # unix seconds: DynamoDB's TTL attribute


class keys(shared_keys):
    """Key layouts of the ref history (docs/data-model.md)."""

    ENTRY_PREFIX = "REFLOG#"
    ID_PREFIX = "REFLOGID#"

    @staticmethod
    def order(created: float, event_id: str) -> str:
        return f"{round(created * 1_000_000):017d}#{event_id}"

    @staticmethod
    def entry(repo_id: int, order: str) -> tuple[str, str]:
        return shared_keys.repo_partition(int(repo_id)), f"REFLOG#{order}"

    @staticmethod
    def by_id(repo_id: int, entry_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(int(repo_id)), f"REFLOGID#{int(entry_id):015d}"

    @staticmethod
    def per_ref(repo_id: int, short_ref: str) -> str:
        return f"REFLOGREF#{int(repo_id)}#{short_ref}"

    @staticmethod
    def kept(repo_id: int) -> str:
        return f"REFLOGKEEP#{int(repo_id)}"
