"""Notification threads, subject links and issue subscriptions in the table (the layout
is ``models.py``'s).

A thread's index keys follow its status and time: every write that changes either sets
all four again (``_index_actions``), so a list never finds a thread in the wrong box.
"""
from __future__ import annotations

import heapq
from typing import Iterable, Iterator

from chalicelib import repos
from chalicelib.notifications.models import SubjectLink, Subscription, Thread
from chalicelib.notifications.states import ACTIVE_BOX, READ, UNREAD, nkeys
from chalicelib.store import ids, pages, unit_of_work
from chalicelib.store.table import Item

THREAD = "thread"            # ConditionFailed label: the (subject, person) link is taken
NOTIFIED = "notified"        # ConditionFailed label: this event already notified the thread
SUBSCRIPTION = "subscription"


def new_thread_id() -> int:
    return ids.next_id("notification")


def thread_by_id(thread_id: int) -> Thread | None:
    return unit_of_work.get(Thread, nkeys.thread(thread_id))


def threads_by_id(thread_ids: Iterable[int]) -> list[Thread]:
    keys = [nkeys.thread(i) for i in thread_ids]
    unit_of_work.prefetch(keys)
    return [t for t in (unit_of_work.get(Thread, k) for k in keys) if t is not None]


def listed(user_id: int, boxes: Iterable[str], *, repo_id: int | None = None,
           since: float | None = None, before: float | None = None) -> Iterator[Thread]:
    """A person's threads in the given boxes, newest first, read a page at a time from
    each box's index partition and merged (at most two)."""
    low = nkeys.order(since, 0) if since is not None else None
    high = nkeys.order(before, 10 ** 15) if before is not None else None
    streams = [_box(user_id, box, repo_id, low, high) for box in boxes]
    key = lambda thread: thread.gsi1sk  # noqa: E731 - the merge key: (time, id) as text
    return heapq.merge(*streams, key=key, reverse=True)


def _box(user_id: int, box: str, repo_id: int | None, low: str | None,
         high: str | None) -> Iterator[Thread]:
    index, partition = (Item.gsi1, nkeys.user_box(user_id, box)) if repo_id is None else \
        (Item.gsi2, nkeys.repo_box(user_id, repo_id, box))
    sort = Item.gsi1sk if repo_id is None else Item.gsi2sk
    for found in index.query(partition, pages.sort_range(sort, low, high),
                             scan_index_forward=False, page_size=50):
        if isinstance(found, Thread):
            yield found


def unread_count(user_id: int) -> int:
    """Unread threads: the active box less the pinned ones (DynamoDB counts server-side)."""
    return Item.gsi1.count(nkeys.user_box(user_id, ACTIVE_BOX),
                           filter_condition=Thread.status == UNREAD)


def _index_actions(user_id: int, repo_id: int, status: str, updated: float,
                   thread_id: int) -> list:
    box, order = nkeys.box(status), nkeys.order(updated, thread_id)
    return [Thread.gsi1pk.set(nkeys.user_box(user_id, box)), Thread.gsi1sk.set(order),
            Thread.gsi2pk.set(nkeys.repo_box(user_id, repo_id, box)), Thread.gsi2sk.set(order)]


def index_values(thread: Thread) -> None:
    """Set a new thread's index keys from its user, repository, status and time."""
    box, order = nkeys.box(thread.status), nkeys.order(thread.updated, thread.id)
    thread.gsi1pk, thread.gsi1sk = nkeys.user_box(thread.user_id, box), order
    thread.gsi2pk, thread.gsi2sk = nkeys.repo_box(thread.user_id, thread.repo_id, box), order


def new_thread(**values) -> Thread:
    """A thread not yet written (``stage_new`` writes it), with a new id."""
    thread_id = new_thread_id()
    return Thread(*nkeys.thread(thread_id), id=thread_id, **values)


# Subject links ------------------------------------------------------------------------------

def link_of(source: str, subject_id: int, user_id: int) -> SubjectLink | None:
    return unit_of_work.get(SubjectLink, nkeys.subject_link(source, subject_id, user_id),
                            consistent=True)


def links_of(source: str, subject_id: int) -> list[SubjectLink]:
    """Everyone holding a thread on the subject."""
    return list(SubjectLink.query(nkeys.subject(source, subject_id),
                                  SubjectLink.sk.startswith("U#")))


# Writes -------------------------------------------------------------------------------------

def stage_new(thread: Thread) -> None:
    """Fails with ``THREAD`` when the person got a thread on the subject meanwhile."""
    uow = unit_of_work.current()
    index_values(thread)
    uow.put(SubjectLink(*nkeys.subject_link(thread.source, thread.subject_id, thread.user_id),
                        thread_id=thread.id, user_id=thread.user_id),
            label=THREAD, must_not_exist=True)
    uow.put(thread, label="thread item")


def stage_notify(thread: Thread, *, now: float, actor_id: int, reason: str, event_id: str,
                 fields: dict) -> None:
    """New activity on the thread's subject: unread again unless pinned, newest first,
    its subject fields refreshed.  Fails with ``NOTIFIED`` when the event already did it
    (a redelivery)."""
    status = UNREAD if thread.status == READ else thread.status
    actions = [Thread.status.set(status), Thread.updated.set(now),
               Thread.updated_by.set(actor_id), Thread.reason.set(reason),
               Thread.last_event.set(event_id),
               *_index_actions(thread.user_id, thread.repo_id, status, now, thread.id),
               *[getattr(Thread, name).set(value) for name, value in fields.items()]]
    unit_of_work.current().update(
        Thread(*nkeys.thread(thread.id)), actions, label=NOTIFIED,
        condition=Thread.pk.exists() & (Thread.last_event != event_id))


def stage_refresh(thread_id: int, fields: dict) -> None:
    """The subject changed (title, state, latest comment) for someone not notified."""
    if fields:
        unit_of_work.current().update(
            Thread(*nkeys.thread(thread_id)),
            [getattr(Thread, name).set(value) for name, value in fields.items()],
            label="refresh", condition=Thread.pk.exists())


def stage_status(thread: Thread, status: str, now: float) -> None:
    unit_of_work.current().update(
        Thread(*nkeys.thread(thread.id)),
        [Thread.status.set(status), Thread.updated.set(now),
         *_index_actions(thread.user_id, thread.repo_id, status, now, thread.id)],
        label="thread", condition=Thread.pk.exists())


# Subscriptions ----------------------------------------------------------------------------

def subscription(issue_id: int, user_id: int) -> Subscription | None:
    return unit_of_work.get(Subscription, nkeys.subscription(issue_id, user_id),
                            consistent=True)


def read_watch_state(issue_id: int, repo_id: int, user_id: int) -> tuple[Subscription | None,
                                                                        bool]:
    """(what the person said of the issue, whether they watch its repository), both
    read in one strongly consistent batch."""
    key = nkeys.subscription(issue_id, user_id)
    unit_of_work.prefetch([key, repos.repo_watch_key(repo_id, user_id)], consistent=True)
    return (unit_of_work.get(Subscription, key),
            repos.repo_watched_by(repo_id, user_id, consistent=False))


def forget_subscription(issue_id: int, user_id: int) -> None:
    unit_of_work.current().forget(nkeys.subscription(issue_id, user_id))


def prefetch_repos(threads: list) -> None:
    """The repositories where the threads last saw them and their owners, in one batch."""
    from chalicelib import accounts

    unit_of_work.prefetch([key for t in threads if t.repo_owner
                           for key in repos.repo_preload_keys(t.repo_owner, t.repo_name)]
                          + [accounts.account_key(int(t.owner_id)) for t in threads
                             if t.owner_id])


def forget_thread(thread) -> None:
    unit_of_work.current().forget(nkeys.thread(int(thread.id)))


def subscriptions_of(issue_id: int) -> list[Subscription]:
    """Watching and not, in user id order of their keys."""
    return list(Subscription.query(nkeys.watchers(issue_id), Subscription.sk.startswith("U#")))


def stage_subscription(issue_id: int, repo_id: int, user_id: int, *, watching: bool,
                       auto: bool, now: int) -> None:
    """``auto``: only where the person has said nothing yet (fails with
    ``SUBSCRIPTION``, exists=True, otherwise): taking part never overrides an explicit
    unsubscription."""
    unit_of_work.current().put(
        Subscription(*nkeys.subscription(issue_id, user_id), issue_id=issue_id,
                     repo_id=repo_id, user_id=user_id, watching=watching, auto=auto,
                     created=now),
        label=SUBSCRIPTION, must_not_exist=auto)

