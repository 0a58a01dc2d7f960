"""The internal consumer that keeps open pull requests in step with their branches
(``pulls/sync.py``): pushes re-examine them, commit statuses and reviews (an approval,
a dismissed rejection, a withdrawn request) may complete a scheduled merge.  Registered as ``pull-request-sync``; idempotent (it reads the refs
as they are when it runs)."""
from __future__ import annotations

from chalicelib import events as domain_events

EVENT_TYPES = (domain_events.RepositoryPushed, domain_events.CommitStatusCreated,
               domain_events.PullReviewChanged, domain_events.ReviewRequestChanged)


def wants_event(event: domain_events.Event) -> bool:
    """Checked before the event is claimed: a tag moves no pull request."""
    return not isinstance(event, domain_events.RepositoryPushed) or \
        event.ref.startswith("refs/heads/")


def on_event(event: domain_events.Event) -> None:
    from chalicelib.pulls import sync as pull_sync

    if isinstance(event, domain_events.RepositoryPushed):
        pull_sync.on_push(event.repo_id, event.ref, event.actor_id, event.before, event.after)
    elif isinstance(event, domain_events.CommitStatusCreated):
        pull_sync.on_status(event.repo_id, event.sha)
    elif isinstance(event, (domain_events.PullReviewChanged,
                            domain_events.ReviewRequestChanged)):
        pull_sync.on_review(event.repo_id, event.number)
