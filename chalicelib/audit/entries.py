"""The audit log's rules: a domain event becomes one entry, plain data, without storage.

An entry says who (``actor``), did what (``action``: the event's kind and verb, as
``repository.edited``, ``issue.closed``, ``push``), to what (``target``: its kind, id and
name), how the fields changed (``changes``: {field: {"before", "after"}}), where
(``repo``, ``owner``: the repository and the account that owns what was changed), from
which request (``request_id``, ``address``) and when.

What never enters an entry: a field whose name says secret (passwords, tokens, hashes,
key material, authorization, mirror credentials, one-time codes …), at any depth, and the
credentials of an address (``https://user:pass@host`` keeps only the host).  Texts are
cut (an issue's body is the first ``MAX_TEXT`` characters), lists and nesting bounded,
and an entry whose changes still pass ``MAX_CHANGES_BYTES`` keeps their names only: an
entry stays a few kilobytes, far below DynamoDB's 400 KB.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from chalicelib import events
from chalicelib.audit import scrub, targets



@dataclass(frozen=True)
class Entry:
    """One audit entry.  ``repo_id``/``owner_id``/``actor_id`` (0: none) are what the
    store keys it by; the rest is what a reader sees (``records.audit_entry``)."""
    event_id: str
    time: float
    action: str
    actor_id: int = 0
    actor_login: str = ""
    target: Mapping = field(default_factory=dict)
    changes: Mapping = field(default_factory=dict)
    details: Mapping = field(default_factory=dict)
    repo_id: int = 0
    repo_name: str = ""          # owner/name when it happened
    owner_id: int = 0
    owner_login: str = ""
    request_id: str = ""
    address: str = ""

    def as_data(self) -> dict:
        return {"event_id": self.event_id, "time": self.time, "action": self.action,
                "actor_id": self.actor_id, "actor_login": self.actor_login,
                "target": dict(self.target), "changes": dict(self.changes),
                "details": dict(self.details), "repo_id": self.repo_id,
                "repo_name": self.repo_name, "owner_id": self.owner_id,
                "owner_login": self.owner_login, "request_id": self.request_id,
                "address": self.address}

    @classmethod
    def from_data(cls, data: Mapping) -> Entry:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def recorded(event: events.Event) -> bool:
    """Does the audit log record this event (every change; no scheduling note)."""
    return not isinstance(event, events.WORK_ITEMS)


# Building an entry ----------------------------------------------------------------------------

def entry_of(event: events.Event, *, repo: Mapping | None = None,
             owner: Mapping | None = None) -> Entry:
    """The entry of ``event``.  ``repo``/``owner``: snapshots the consumer looked up for
    an event that names them by id only (a repository's webhook; a team's organization)."""
    shape = targets.describe(event, repo=repo or {})
    where = shape.repo if shape.repo is not None else (getattr(event, "repo", None) or {})
    repo_id = int(getattr(event, "repo_id", 0) or where.get("id") or 0)
    repo_name = f"{where.get('owner_login', '')}/{where['name']}" if where.get("name") else ""
    owner_id = int(where.get("owner_id") or shape.owner_id or 0)
    owner_login = str(where.get("owner_login") or shape.owner_login
                      or (owner or {}).get("login") or "")
    actor, origin = event.actor or {}, event.origin or {}
    return Entry(
        event_id=event.event_id, time=float(event.occurred_at or 0), action=shape.action,
        actor_id=int(event.actor_id or 0), actor_login=str(actor.get("login") or ""),
        target=scrub.scrubbed(shape.target),
        changes=scrub.bounded(scrub.scrubbed(shape.changes)),
        details=scrub.bounded(scrub.scrubbed(shape.details)),
        repo_id=repo_id, repo_name=repo_name, owner_id=owner_id, owner_login=owner_login,
        request_id=str(origin.get("request_id") or ""),
        address=str(origin.get("address") or ""))
