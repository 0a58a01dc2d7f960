"""Notifications: a person's threads about the issues, pull requests and releases they
follow, and the issue subscriptions that decide who follows what.

Operations (``routes.py``): notifyGetList, notifyReadList, notifyNewAvailable,
notifyGetThread, notifyReadThread, notifyGetRepoList, notifyReadRepoList.
Operations (``subscription_routes.py``): issueSubscriptions, issueCheckSubscription,
issueAddSubscription, issueDeleteSubscription.

| module | what it holds |
|---|---|
| ``consumers`` | Who is notified of what: the consumer of the domain events that writes threads. |
| ``models`` | The notifications domain's items in the table: its models (and key layouts). |
| ``records`` | Notification threads -> Forgejo's NotificationThread, NotificationSubject and NotificationCount records, … |
| ``routes`` | Notifications (Forgejo's ``notification`` tag): a person's threads, all or one repository's, the ``new`` … |
| ``service`` | Notifications as the API reads and marks them, and issue subscriptions (Forgejo's … |
| ``states`` | The notifications domain's words and key layouts, without storage: thread statuses, the boxes they sit … |
| ``store`` | Notification threads, subject links and issue subscriptions in the table (the layout is ``models.py``'s). |
| ``subscription_routes`` | Issue subscriptions (Forgejo's ``issue`` tag): who watches an issue, whether I do, and subscribing or … |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``subscription_routes`` |
| records (Forgejo JSON) | ``records`` (NotificationThread, NotificationSubject, NotificationCount) |
| rules | ``service`` (lists, marking, subscriptions), ``consumers`` (who is notified of what) |
| storage | ``store`` (threads, subject links, subscriptions) |

Registered by ``chalicelib/areas.py``; ``jobs/consumers.py`` runs ``on_event`` for the
issue, comment, review and release events.  It takes repositories, access and accounts
through the faces of ``repos`` and ``accounts``, and the issue tracker's context through
``issues``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":     "consumers",
    "on_event":        "consumers",
    "wants_event":     "consumers",
    "unread_count":    "service.new_count",
    # The notifications page and the dashboard (chalicelib/web) list and mark threads.
    "ThreadQuery":     "service",
    "list_threads":    "service",
    "thread_views":    "service",
    "mark_thread":     "service",
    "mark_many":       "service",
    "thread_record":   "records.thread",
    "UNREAD":          "states",
})
