"""What the ref history records: the consumer of ``RepositoryPushed`` (every ref move
goes through ``contents.pushes``, which raises one per ref: a git push, a merge, the
API, a mirror sync) that writes one entry per move of a branch or tag.

Once each: the entry is keyed by its event (time and id) and put only if absent, in
one transaction with its copy by id, so a redelivered event writes nothing.  Entries
expire after ``[repository] REF_HISTORY_DAYS`` days (at least 1).
"""
from __future__ import annotations

import logging

from chalicelib import events as domain_events
from chalicelib.errors import ConditionFailed
from chalicelib.ref_history import service, store
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.ref_history")

EVENT_TYPES = (domain_events.RepositoryPushed,)
DAY_SECONDS = 86400


def wants_event(event: domain_events.Event) -> bool:
    return (isinstance(event, domain_events.RepositoryPushed)
            and event.ref.startswith((service.HEADS, service.TAGS))
            and event.before != event.after)


def action_of(before: str, after: str) -> str:
    if before == service.ZERO:
        return "created"
    if after == service.ZERO:
        return "deleted"
    return "updated"


def on_event(event: domain_events.Event) -> None:
    if not wants_event(event):
        return
    when = float(event.occurred_at)
    days = get_settings().repository.REF_HISTORY_DAYS
    actor = dict(event.actor or {})
    entry = store.new_entry(
        entry_id=store.new_entry_id(), repo_id=int(event.repo_id), ref=event.ref,
        old=event.before, new=event.after, forced=bool(event.forced),
        action=action_of(event.before, event.after), via=event.via,
        actor_id=int(event.actor_id or 0),
        actor_login=str(actor.get("login") or ""), created=when, event_id=event.event_id,
        expires=int(when + days * DAY_SECONDS), short_ref=service.short_name(event.ref))
    try:
        with unit_of_work.writing():
            store.stage_recorded(entry)
    except ConditionFailed as failed:
        if failed.label != store.RECORDED:
            raise
        log.info("ref move of event %s already recorded", event.event_id)
