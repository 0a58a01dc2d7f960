"""Scenarios for notifications and issue subscriptions (chalicelib/notifications).

alice's threads come from an issue root opens on alice/demo mentioning her; the bench
runs no event worker, so the set-up hands that issue's events to the notifications
consumer itself (unmeasured), as the worker would.
"""
from __future__ import annotations

import time

from scenarios_pulls import DEMO
from scene import Req, Scene, after

# Signed in with a token, the gateway reads the token and then the account (two
# batches) before any route runs.  Past that: a page of threads is one Query of the
# person's index and one batch of the threads' repositories and their owners (issue 36
# asks 3 for the page: 4 with the token's two reads, 3 with a password's one); the
# count, one counting Query; one thread is read with the account (its key is in the
# path), then the batch; marking it one update more.  Marking every unread thread: the
# list's reads and the writes of the threads that change.  A repository's list and an
# issue's subscriptions read the repository and the caller's access first (the
# gateway's two batches).  Subscribing: the user named (a Query of the name index), the
# subscription and the repository watch in one batch, one write.
BUDGETS = {
    ("notifyGetList", "token"): 4,
    # A password's reads are two since sign-in throttling: the name (Query) and the
    # address's failure counters (one BatchGetItem; docs/security.md).
    ("notifyGetList", "basic"): 4,
    ("notifyNewAvailable", "token"): 3,
    ("notifyGetThread", "token"): 3,
    ("notifyReadThread", "token"): 4,
    ("notifyReadList", "token"): 5,
    ("notifyGetRepoList", "token"): 4,
    ("notifyReadRepoList", "token"): 5,
    ("issueSubscriptions", "token"): 4,
    ("issueCheckSubscription", "token"): 3,
    ("issueAddSubscription", "token"): 5,
    ("issueDeleteSubscription", "token"): 5,
    ("userListSubscriptions", "token"): 6,    # as userListStarred: the same lists
}


def _deliver_pending() -> None:
    """What the event worker would do, for the notifications consumer only."""
    from chalicelib import events, notifications
    from chalicelib.store import outbox

    for item in outbox.pending(older_than=time.time() + 3600):
        event = events.from_message(outbox.message_of(item))
        if notifications.wants_event(event):
            notifications.on_event(event)


def mentioning_issue(s: Scene) -> int:
    """An issue root opened on alice/demo mentioning alice (made once): its number."""
    def make() -> int:
        number = s.must("POST", f"{DEMO}/issues", "admin",
                        {"title": "Please look", "body": "@alice what do you think?"})["number"]
        _deliver_pending()
        return number
    return s.once("mentioning_issue", make)


def thread_id(s: Scene) -> int:
    mentioning_issue(s)
    return s.must("GET", "/notifications?all=true", "token", expect=200)[0]["id"]


def subscription(s: Scene, method: str) -> str:
    """The subscription path of alice on the mentioning issue, after an unmeasured
    ``method`` there (PUT or DELETE), so the measured opposite changes it (201)."""
    path = f"{DEMO}/issues/{mentioning_issue(s)}/subscriptions/alice"
    status, out = s.call(method, "/api/v1" + path, "token")
    assert status in (200, 201), (method, path, status, out[:200])
    return path


def unread_thread(s: Scene) -> int:
    """alice's thread, made unread again (unmeasured) so the default list shows it."""
    found = thread_id(s)
    status, out = s.call("PATCH", f"/api/v1/notifications/threads/{found}?to-status=unread",
                         "token")
    assert status == 205, (status, out[:200])
    return found


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "notifyGetList": lambda s: after(unread_thread(s), [
            Req("GET", "/notifications", "token"), Req("GET", "/notifications", "basic")]),
        "notifyNewAvailable": lambda s: after(mentioning_issue(s), [
            Req("GET", "/notifications/new", "token")]),
        "notifyGetThread": lambda s: [Req("GET", f"/notifications/threads/{thread_id(s)}",
                                          "token")],
        "notifyReadThread": lambda s: [Req("PATCH", f"/notifications/threads/{thread_id(s)}"
                                                    "?to-status=unread", "token", expect=205)],
        "notifyReadList": lambda s: after(unread_thread(s), [
            Req("PUT", "/notifications", "token", expect=205)]),
        "notifyGetRepoList": lambda s: after(unread_thread(s), [
            Req("GET", f"{DEMO}/notifications", "token")]),
        "notifyReadRepoList": lambda s: after(unread_thread(s), [
            Req("PUT", f"{DEMO}/notifications", "token", expect=205)]),
        "issueSubscriptions": lambda s: [
            Req("GET", f"{DEMO}/issues/{mentioning_issue(s)}/subscriptions", "token")],
        "issueCheckSubscription": lambda s: [
            Req("GET", f"{DEMO}/issues/{mentioning_issue(s)}/subscriptions/check", "token")],
        "issueAddSubscription": lambda s: [
            Req("PUT", subscription(s, "DELETE"), "token", expect=201)],
        "issueDeleteSubscription": lambda s: [
            Req("DELETE", subscription(s, "PUT"), "token", expect=201)],
        "userListSubscriptions": lambda s: [Req("GET", "/users/alice/subscriptions", "token")],
    }
