"""The Git LFS consumer of repository events (``lfs-needs``, registered by
``chalicelib.jobs.consumers``): a new fork needs what its parent needed.  (A deleted
repository's needs are released by the repository-cleanup consumer, before it purges
the partition that lists them: ``release``.)"""
from __future__ import annotations

from chalicelib import events as domain_events
from chalicelib.lfs import needs

EVENT_TYPES = (domain_events.RepositoryForked,)


def on_event(event: domain_events.Event) -> None:
    from chalicelib import repos

    assert isinstance(event, domain_events.RepositoryForked)
    fork = repos.repo_by_id(event.repo_id)
    if fork is not None:   # deleted meanwhile: its deletion released what it needed
        needs.inherit(fork, event.parent_id)


def release(event: domain_events.RepositoryDeleted) -> None:
    needs.release(event.repo_id, int(event.repo.get("owner_id") or 0))
