"""The internal consumer that keeps each repository's language statistics in step with
its default branch (``languages/service.py``).  Registered as ``language-stats``;
idempotent: it computes for the tip as it is when it runs, and its write is a
compare-and-swap, so a redelivered or late event changes nothing newer."""
from __future__ import annotations

from chalicelib import events as domain_events

EVENT_TYPES = (domain_events.RepositoryPushed, domain_events.RepositoryEdited,
               domain_events.RepositoryMigrated)


def wants_event(event: domain_events.Event) -> bool:
    """Checked before the event is claimed: a push to the default branch (as the event's
    snapshot of the repository names it: a later change of default branch raises its
    own event), another default branch, a migration."""
    if isinstance(event, domain_events.RepositoryPushed):
        default = event.repo.get("default_branch")
        return event.ref == f"refs/heads/{default}" if default else \
            event.ref.startswith("refs/heads/")
    if isinstance(event, domain_events.RepositoryEdited):
        return any(name == "default_branch" for name, _ in event.changes)
    return isinstance(event, domain_events.RepositoryMigrated)


def on_event(event: domain_events.Event) -> None:
    from chalicelib.languages import service as languages

    if isinstance(event, domain_events.RepositoryPushed):
        languages.on_push(event.repo_id, event.ref)
    elif isinstance(event, domain_events.RepositoryEdited):
        # Another default branch: the figures follow its tip (a tree diff from the old one).
        if any(name == "default_branch" for name, _ in event.changes):
            languages.refresh(event.repo_id)
    elif isinstance(event, domain_events.RepositoryMigrated):
        languages.refresh(event.repo_id)
