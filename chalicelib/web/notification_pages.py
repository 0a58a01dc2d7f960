"""The signed-in user's notifications at Forgejo's web URLs.

- ``GET /notifications?type=unread|read&page=``: their threads, unread (and pinned)
  ones by default, read ones with ``type=read``, newest first, a page at a time; each
  links to its issue, pull request or release.
- ``POST /notifications/status`` (``notification_id``, ``status``: read, unread or
  pinned), Forgejo's form for one thread, and ``POST /notifications/purge``, which marks
  every unread thread read.  Both go back to the list they were sent from.

The services are the API's (``notifyGetList``, ``notifyReadThread``,
``notifyReadList``): one Query of the person's index for a page and one batch for its
threads' repositories.  Someone else's thread answers 404 here: the API's 403 would tell
that the number exists.
"""
from __future__ import annotations

from urllib.parse import urlencode

from chalicelib import notifications
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.view import Web, page, pager, redirect, render

READ_TYPE, UNREAD_TYPE = "read", "unread"
# What each tab lists: the unread one keeps pinned threads in view, as Forgejo's does.
TAB_STATUSES = {UNREAD_TYPE: ("unread", "pinned"), READ_TYPE: ("read",)}
STATUSES = ("read", "unread", "pinned")


def _tab(value: str | None) -> str:
    return READ_TYPE if (value or "").strip().lower() == READ_TYPE else UNREAD_TYPE


@page("GET", "/notifications", "webNotifications", signed_in=True)
def notification_list(req: ApiRequest, web: Web) -> ApiResponse:
    tab = _tab(req.arg("type"))
    page_ = paging.page_of(req)
    threads, total = notifications.list_threads(
        web.user, notifications.ThreadQuery(statuses=TAB_STATUSES[tab]),
        offset=page_.offset, limit=page_.limit)
    views = notifications.thread_views(threads) if threads else {}
    shown = [notifications.thread_record(t, views[int(t.id)], req.actor) for t in threads
             if int(t.id) in views]
    return render(web, "notifications.html", title="Notifications", tab=tab,
                  threads=shown, pager=pager(req, total), page_number=page_.page)


def _back(req: ApiRequest) -> str:
    """The list the form was on: its tab and page."""
    fields = req.form()
    tab = _tab((fields.get("type") or [""])[-1])
    number = (fields.get("page") or ["1"])[-1]
    query = {"type": tab}
    if number.isdigit() and int(number) > 1:
        query["page"] = number
    return "/notifications?" + urlencode(query)


@page("POST", "/notifications/status", "webNotificationStatus", signed_in=True)
def set_status(req: ApiRequest, web: Web) -> ApiResponse:
    fields = req.form()
    raw_id = (fields.get("notification_id") or [""])[-1].strip()
    status = (fields.get("status") or ["read"])[-1].strip().lower()
    if not raw_id.isdigit():
        raise NotFoundError("notification does not exist")
    if status not in STATUSES:
        raise InvalidInput(f"unknown status: {status!r} (read, unread or pinned)")
    try:
        notifications.mark_thread(web.user, int(raw_id), status)
    except PermissionDenied:
        # Someone else's thread: as if it did not exist (nothing is changed).
        raise NotFoundError("notification does not exist") from None
    return redirect(_back(req))


@page("POST", "/notifications/purge", "webNotificationPurge", signed_in=True)
def mark_all_read(req: ApiRequest, web: Web) -> ApiResponse:
    notifications.mark_many(web.user, statuses=("unread",), status="read", last_read_at=None)
    return redirect(_back(req))
