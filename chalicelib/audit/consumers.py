"""The audit-log consumer: every domain event that records a change becomes an entry.

Registered by ``jobs/consumers.py`` for every event type; ``wants_event`` turns away the
scheduling notes of background work (before any delivery mark is spent).  The entry is
made by the rules (``entries.entry_of``); the consumer only looks up what an event names
by id alone: a repository webhook's repository, a team's or a member's organization.
Writing is idempotent (``store.write``), and the worker's claim runs it once per event.
"""
from __future__ import annotations

from chalicelib import accounts, events, repos
from chalicelib.audit import entries, store
from chalicelib.settings import get_settings

DAY_SECONDS = 86400
EVENT_TYPES = (events.Event,)


def wants_event(event: events.Event) -> bool:
    return entries.recorded(event)


def _looked_up(event: events.Event) -> dict:
    name = type(event).__name__
    if name == "HookChanged" and getattr(event, "owner_kind", "") == "repo":
        repo = repos.repo_by_id(int(event.owner_id))
        # A repository deleted before its webhook's event ran: as the log last named it.
        return {"repo": events.snapshot(repo) if repo is not None
                else store.last_seen_repo(int(event.owner_id))}
    org_id = getattr(event, "org_id", 0)
    if name in ("TeamChanged", "MembershipChanged") and org_id:
        return {"owner": events.snapshot(accounts.account_by_id(int(org_id)))}
    if name == "HookChanged":
        return {"owner": events.snapshot(accounts.account_by_id(int(event.owner_id)))}
    return {}


def on_event(event: events.Event) -> None:
    if not entries.recorded(event):
        return
    entry = entries.entry_of(event, **_looked_up(event))
    days = get_settings().audit.RETENTION_DAYS
    store.write(entry, expires=entry.time + days * DAY_SECONDS)
