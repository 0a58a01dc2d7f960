"""Domain events: services publish typed facts; subscribers (webhooks, later) react.

One in-process publisher.  Subscribers run after the write has committed, and a
failing subscriber is logged, never turned into a failed request.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger("nimbus.events")


@dataclass(frozen=True)
class Event:
    actor_id: int | None


@dataclass(frozen=True)
class UserCreated(Event):
    user_id: int = 0
    login: str = ""


@dataclass(frozen=True)
class UserDeleted(Event):
    user_id: int = 0
    login: str = ""


@dataclass(frozen=True)
class UserEdited(Event):
    user_id: int = 0
    changed: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class PublicKeyAdded(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class PublicKeyDeleted(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class TokenCreated(Event):
    user_id: int = 0
    token_id: int = 0


_subscribers: list[tuple[type, Callable[[Any], None]]] = []


def subscribe(kind: type, handler: Callable[[Any], None]) -> None:
    _subscribers.append((kind, handler))


def unsubscribe(handler: Callable[[Any], None]) -> None:
    _subscribers[:] = [(k, h) for k, h in _subscribers if h is not handler]


def publish(event: Event) -> None:
    for kind, handler in list(_subscribers):
        if isinstance(event, kind):
            try:
                handler(event)
            except Exception:  # noqa: BLE001 - a subscriber must not fail the write
                log.exception("subscriber %r failed on %r", handler, event)


@dataclass(frozen=True)
class RepositoryCreated(Event):
    repo_id: int = 0


@dataclass(frozen=True)
class RepositoryForked(Event):
    repo_id: int = 0
    parent_id: int = 0


@dataclass(frozen=True)
class RepositoryDeleted(Event):
    repo_id: int = 0


@dataclass(frozen=True)
class PushedCommit:
    id: str
    message: str
    author_name: str
    author_email: str
    committer_name: str
    committer_email: str
    timestamp: int
    tz_offset: int


@dataclass(frozen=True)
class RepositoryPushed(Event):
    """One ref moved (created, updated or deleted) by a push, the API or a mirror sync."""
    repo_id: int = 0
    ref: str = ""
    before: str = ""
    after: str = ""
    commits: tuple[PushedCommit, ...] = ()
    total_commits: int = 0


@dataclass(frozen=True)
class OrganizationCreated(Event):
    org_id: int = 0


# Issue tracker (services/issues.py, services/issue_meta.py, services/issue_comments.py).
# Actions follow Forgejo's webhook payloads: issues -> opened, edited, closed, reopened,
# deleted, label_updated, label_cleared, milestoned, demilestoned, assigned, unassigned;
# issue_comment -> created, edited, deleted.

@dataclass(frozen=True)
class IssueChanged(Event):
    repo_id: int = 0
    issue_id: int = 0
    number: int = 0
    is_pull: bool = False
    action: str = ""
    # (field, previous value) pairs for "edited": title, body, ref.
    changes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IssueCommentChanged(Event):
    repo_id: int = 0
    issue_id: int = 0
    number: int = 0
    is_pull: bool = False
    comment_id: int = 0
    action: str = ""
    body_before: str = ""        # for "edited"
