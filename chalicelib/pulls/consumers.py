"""The internal consumer that keeps open pull requests in step with their branches
(``pulls/sync.py``): pushes re-examine them, commit statuses may complete a
scheduled merge.  Registered as ``pull-request-sync``; idempotent (it reads the refs
as they are when it runs)."""
from __future__ import annotations

from chalicelib import events as domain_events

EVENT_TYPES = (domain_events.RepositoryPushed, domain_events.CommitStatusCreated)


def on_event(event: domain_events.Event) -> None:
    from chalicelib.pulls import sync as pull_sync

    if isinstance(event, domain_events.RepositoryPushed):
        pull_sync.on_push(event.repo_id, event.ref, event.actor_id, event.before, event.after)
    elif isinstance(event, domain_events.CommitStatusCreated):
        pull_sync.on_status(event.repo_id, event.sha)
