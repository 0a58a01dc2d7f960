"""Notifications as the API reads and marks them, and issue subscriptions (Forgejo's
``routers/api/v1/notify`` and ``repo/issue_subscription.go`` rules).

- A list shows the caller's threads newest first: by default the unread and pinned
  ones, with ``status-types`` those statuses, with ``all`` every one; ``subject-type``
  keeps issue, pull, commit or repository subjects; ``since``/``before`` bound the time
  of the last activity.
- Marking: one thread (``to-status`` read by default; someone else's thread is 403),
  or every thread of the given statuses (unread by default, all with ``all``) last
  active at or before ``last_read_at``.
- A subscription is watching or not, said by the person (or a repository admin for
  someone else) or, when they said nothing, made by taking part.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from chalicelib import clock, repos
from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.notifications import store
from chalicelib.notifications.states import (ACTIVE_BOX, COMMIT, ISSUE, PINNED, PULL, READ,
                                             READ_BOX, RELEASE, REPOSITORY, STATUSES, UNREAD,
                                             nkeys)
from chalicelib.store import pages, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.notifications.models import Subscription, Thread

# ``subject-type`` values (Forgejo compares them without case) -> subject types.
SUBJECT_TYPES = {"issue": ISSUE, "pull": PULL, "commit": COMMIT, "repository": REPOSITORY,
                 "release": RELEASE}
DEFAULT_LISTED = (UNREAD, PINNED)
DEFAULT_MARKED = (UNREAD,)


@dataclass(frozen=True)
class ThreadQuery:
    statuses: tuple[str, ...] = DEFAULT_LISTED
    subject_types: frozenset[str] = field(default_factory=frozenset)   # empty: every type
    since: float | None = None
    before: float | None = None
    repo_id: int | None = None


def parse_statuses(values: Iterable[str], *, every: bool,
                   default: tuple[str, ...]) -> tuple[str, ...]:
    """Forgejo reads ``status-types`` leniently: unknown words are ignored, none given
    (or none known) is the default; ``all`` is every status."""
    if every:
        return STATUSES
    found = tuple(dict.fromkeys(v.strip().lower() for v in values
                                if v.strip().lower() in STATUSES))
    return found or default


def parse_subject_types(values: Iterable[str]) -> frozenset[str]:
    return frozenset(SUBJECT_TYPES[v.strip().lower()] for v in values
                     if v.strip().lower() in SUBJECT_TYPES)


def parse_time(text: str | None, name: str) -> float | None:
    """An RFC 3339 time from the query (``since``, ``before``, ``last_read_at``)."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise InvalidInput(f"{name}: parsing time {text!r} as RFC 3339 failed") from None


def _boxes(statuses: tuple[str, ...]) -> list[str]:
    boxes = []
    if UNREAD in statuses or PINNED in statuses:
        boxes.append(ACTIVE_BOX)
    if READ in statuses:
        boxes.append(READ_BOX)
    return boxes


def _matching(user: Account, query: ThreadQuery) -> Iterable[Thread]:
    for thread in store.listed(int(user.id), _boxes(query.statuses), repo_id=query.repo_id,
                               since=query.since, before=query.before):
        if thread.status not in query.statuses:
            continue
        if query.subject_types and thread.source not in query.subject_types:
            continue
        yield thread


def list_threads(user: Account, query: ThreadQuery, *, offset: int,
                 limit: int) -> tuple[list[Thread], int]:
    """One page of the caller's threads and how many match: exact when the matches end
    on this page, else the page's end plus one (a client still gets a ``next`` link),
    so a page never reads the index past itself."""
    return pages.window(_matching(user, query), offset, limit, ahead=1)


def new_count(user: Account) -> int:
    return store.unread_count(int(user.id))


def thread_preload_keys(thread_id: int) -> list:
    """The thread a path names, read with the caller's account (the gateway's batch)."""
    return [nkeys.thread(thread_id)]


def thread_views(threads: list) -> dict[int, "repos.RepoView"]:
    """Each thread's repository (thread id -> the repository as a reader sees it), for
    those whose repository still exists: one batch for the page, one more for a
    repository renamed or transferred since (found by its id)."""
    from chalicelib import accounts

    store.prefetch_repos(threads)
    found = {}
    for thread in threads:
        repo = repos.repo_by_name(thread.repo_owner, thread.repo_name) \
            if thread.repo_owner else None
        if repo is not None and int(repo.id) == int(thread.repo_id):
            found[int(repo.id)] = repo
    moved = sorted({int(t.repo_id) for t in threads} - set(found))
    found.update({int(r.id): r for r in repos.repos_by_ids(moved)} if moved else {})
    owners = {int(a.id): a for a in accounts.accounts_by_ids(
        sorted({int(r.owner_id) for r in found.values()}))}
    views = {}
    for thread in threads:
        repo = found.get(int(thread.repo_id))
        owner = owners.get(int(repo.owner_id)) if repo is not None else None
        if owner is not None:
            views[int(thread.id)] = repos.RepoView(repo, owner, repos.Access.READ)
    return views


def thread_of(user: Account, thread_id: int) -> Thread:
    thread = store.thread_by_id(thread_id)
    if thread is None:
        raise NotFoundError(f"notification does not exist [id: {thread_id}]")
    if int(thread.user_id) != int(user.id):
        raise PermissionDenied("you are not the owner of this notification")
    return thread


def to_status(text: str | None, default: str = READ) -> str:
    status = (text or default).strip().lower()
    if status not in STATUSES:
        raise InvalidInput(f"invalid to-status: {text!r}")
    return status


def mark_thread(user: Account, thread_id: int, status: str) -> Thread:
    thread = thread_of(user, thread_id)
    return _set_status([thread], status)[0]


def mark_many(user: Account, *, statuses: tuple[str, ...], status: str,
              last_read_at: float | None, repo_id: int | None = None) -> list[Thread]:
    """Every thread of ``statuses`` last active at or before ``last_read_at`` (any time
    when None), set to ``status``; the changed threads, as they are now."""
    query = ThreadQuery(statuses=statuses, before=last_read_at, repo_id=repo_id)
    return _set_status(list(_matching(user, query)), status)


def _set_status(threads: list[Thread], status: str) -> list[Thread]:
    now = clock.now()
    with unit_of_work.writing():
        for thread in threads:
            store.stage_status(thread, status, now)
    for thread in threads:
        thread.status, thread.updated = status, now
        store.forget_thread(thread)
    return threads


# Issue subscriptions ---------------------------------------------------------------------

@dataclass(frozen=True)
class WatchState:
    """Whether a person watches an issue, and what they said (None: nothing)."""
    watching: bool
    said: "Subscription | None"


def watch_state(issue_id: int, repo_id: int, user_id: int, *, participant: bool) -> WatchState:
    """Forgejo's CheckIssueWatch: what the person said, else whether they take part or
    watch the repository (both read in one batch)."""
    said, watches = store.read_watch_state(issue_id, repo_id, user_id)
    if said is not None:
        return WatchState(bool(said.watching), said)
    return WatchState(participant or watches, None)


def watching_ids(issue_id: int) -> list[int]:
    return [int(s.user_id) for s in store.subscriptions_of(issue_id) if s.watching]


def set_watching(issue_id: int, repo_id: int, user_id: int, watching: bool) -> None:
    """Say whether ``user_id`` watches the issue (an explicit choice: taking part
    never overrides it)."""
    with unit_of_work.writing():
        store.stage_subscription(issue_id, repo_id, user_id, watching=watching, auto=False,
                                 now=clock.seconds())
    store.forget_subscription(issue_id, user_id)


def take_part(issue_id: int, repo_id: int, user_id: int) -> None:
    """A poster, commenter or reviewer watches the issue unless they said otherwise."""
    try:
        with unit_of_work.writing():
            store.stage_subscription(issue_id, repo_id, user_id, watching=True, auto=True,
                                     now=clock.seconds())
    except ConditionFailed:
        pass        # already said (or already taking part): nothing changes

