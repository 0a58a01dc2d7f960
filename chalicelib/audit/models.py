"""The audit domain's items in the table: its models and key layouts.

Only this domain's modules import this module; other domains reach the audit log
through the domain's face (``chalicelib/audit/__init__.py``).

| item | pk | sk | index keys |
|---|---|---|---|
| entry, instance copy | ``AUDIT#<event id>`` | ``I`` | gsi1: ``AUDITU#<actor id>`` / order (when an actor); gsi2: ``AUDITALL`` / order |
| entry, scope copy | ``AUDIT#<event id>`` | ``S`` | gsi1: ``AUDITR#<repo id>`` / order (when a repository); gsi2: ``AUDITO#<owner id>`` / order (when an owner) |
| name seen | ``AUDITN#R#<owner lower>/<name lower>`` or ``AUDITN#U#<login lower>`` | ``N`` | |

order: ``<time, 17.6f>#<event id>``, so a partition reads newest first with a time
range as a sort-key condition.  Four filters, two indexes a copy: an entry is written
twice (the scope copy only when it has a repository or an owner), each copy whole, so
every list is ONE Query of one index partition a page.  Both copies and the names carry
``expires`` (the table's TTL): ``[audit] RETENTION_DAYS`` after the entry.
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item

TIME_WIDTH = 17


class keys:
    @staticmethod
    def instance_copy(event_id: str) -> tuple[str, str]:
        return f"AUDIT#{event_id}", "I"

    @staticmethod
    def scope_copy(event_id: str) -> tuple[str, str]:
        return f"AUDIT#{event_id}", "S"

    INSTANCE = "AUDITALL"

    @staticmethod
    def by_actor(actor_id: int) -> str:
        return f"AUDITU#{int(actor_id)}"

    @staticmethod
    def by_repo(repo_id: int) -> str:
        return f"AUDITR#{int(repo_id)}"

    @staticmethod
    def by_owner(owner_id: int) -> str:
        return f"AUDITO#{int(owner_id)}"

    @staticmethod
    def order(when: float, event_id: str = "") -> str:
        return f"{float(when):0{TIME_WIDTH}.6f}#{event_id}"

    @staticmethod
    def repo_name(full_name: str) -> tuple[str, str]:
        return f"AUDITN#R#{full_name.lower()}", "N"

    @staticmethod
    def actor_name(login: str) -> tuple[str, str]:
        return f"AUDITN#U#{login.lower()}", "N"


class AuditCopy(Item, discriminator="auditentry"):
    """One copy of an entry: the filter attributes, and the entry itself as JSON."""
    event_id = UnicodeAttribute()
    created = NumberAttribute()
    action = UnicodeAttribute()
    actor_id = NumberAttribute(default=0)
    repo_id = NumberAttribute(default=0)
    owner_id = NumberAttribute(default=0)
    entry = UnicodeAttribute()             # entries.Entry.as_data(), JSON
    expires = NumberAttribute()


class AuditName(Item, discriminator="auditname"):
    """The id last seen under a repository's full name or an actor's login: a filter
    names them, and they may be gone (a deleted repository, a deleted user) or renamed."""
    target_id = NumberAttribute()
    expires = NumberAttribute()
