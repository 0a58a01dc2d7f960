"""Notifications (Forgejo's ``notification`` tag): a person's threads, all or one
repository's, the ``new`` count, and marking them read, unread or pinned.

A page of threads reads the person's index a page at a time (one Query), then the
threads' repositories and their owners in one batch; the count is one Query that
DynamoDB counts.  Marking many threads writes each one that changes.
"""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.notifications import records as notification_records
from chalicelib.notifications import service as svc
from chalicelib.repos import IN_REPO, PAGE, current_repo

NOTIFICATIONS = dict(tag="notification", scope="notification", signed_in=True)


def _thread_preload_more(req: ApiRequest, user_id: int | None) -> list:
    try:
        return svc.thread_preload_keys(int(req.params["id"]))
    except ValueError:
        return []       # the handler answers it


THREAD = dict(NOTIFICATIONS, preload_more=_thread_preload_more)
FILTERS = (
    Param("all", "boolean", "If true, show notifications marked as read. Default value is "
                            "false"),
    Param("status-types", "array", 'Show notifications with the provided status types. '
                                   'Options are: unread, read and/or pinned. Defaults to '
                                   'unread & pinned.'),
    Param("subject-type", "array", "filter notifications by subject type"),
    Param("since", "string", "Only show notifications updated after the given time. This "
                             "is a timestamp in RFC 3339 format"),
    Param("before", "string", "Only show notifications updated before the given time. "
                              "This is a timestamp in RFC 3339 format"),
    *PAGE)
MARKING = (
    Param("last_read_at", "string", "Describes the last point that notifications were "
                                    "checked. Anything updated since this time will not be "
                                    "updated."),
    Param("all", "boolean", "If true, mark all notifications on this repo. Default value "
                            "is false"),
    Param("status-types", "array", "Mark notifications with the provided status types. "
                                   "Options are: unread, read and/or pinned. Defaults to "
                                   "unread."),
    Param("to-status", "string", "Status to mark notifications as, Defaults to read."))


def _true(req: ApiRequest, name: str) -> bool:
    return (req.arg(name) or "").strip().lower() in ("true", "1", "t")


def _query(req: ApiRequest, repo_id: int | None = None) -> svc.ThreadQuery:
    return svc.ThreadQuery(
        statuses=svc.parse_statuses(req.query.get("status-types", []), every=_true(req, "all"),
                                    default=svc.DEFAULT_LISTED),
        subject_types=svc.parse_subject_types(req.query.get("subject-type", [])),
        since=svc.parse_time(req.arg("since"), "since"),
        before=svc.parse_time(req.arg("before"), "before"), repo_id=repo_id)


def _rendered(req: ApiRequest, threads: list) -> list[dict]:
    """Records of the threads whose repository still exists."""
    views = svc.thread_views(threads)
    return [notification_records.thread(t, views[int(t.id)], req.actor) for t in threads
            if int(t.id) in views]


def _listed(req: ApiRequest, query: svc.ThreadQuery) -> ApiResponse:
    page = paging.page_of(req)
    threads, total = svc.list_threads(req.actor, query, offset=page.offset, limit=page.limit)
    return paging.set_headers(ApiResponse.json(_rendered(req, threads)), req, page, total)


def _marked(req: ApiRequest, repo_id: int | None = None) -> ApiResponse:
    statuses = svc.parse_statuses(req.query.get("status-types", []), every=_true(req, "all"),
                                  default=svc.DEFAULT_MARKED)
    changed = svc.mark_many(req.actor, statuses=statuses, status=svc.to_status(req.arg("to-status")),
                            last_read_at=svc.parse_time(req.arg("last_read_at"), "last_read_at"),
                            repo_id=repo_id)
    return ApiResponse.json(_rendered(req, changed), status=205)


@route("GET", "/notifications", "notifyGetList",
       summary="List users's notification threads", query=FILTERS,
       responses={200: "NotificationThreadList"}, **NOTIFICATIONS)
def notify_get_list(req: ApiRequest) -> ApiResponse:
    return _listed(req, _query(req))


@route("PUT", "/notifications", "notifyReadList",
       summary="Mark notification threads as read, pinned or unread", query=MARKING,
       responses={205: "NotificationThreadList"}, **NOTIFICATIONS)
def notify_read_list(req: ApiRequest) -> ApiResponse:
    return _marked(req)


@route("GET", "/notifications/new", "notifyNewAvailable",
       summary="Check if unread notifications exist",
       responses={200: "NotificationCount"}, **NOTIFICATIONS)
def notify_new_available(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json({"new": svc.new_count(req.actor)})


@route("GET", "/notifications/threads/{id}", "notifyGetThread",
       summary="Get notification thread by ID",
       responses={200: "NotificationThread", 403: "forbidden", 404: "notFound"},
       **THREAD)
def notify_get_thread(req: ApiRequest) -> ApiResponse:
    thread = svc.thread_of(req.actor, req.int_param("id"))
    shown = _rendered(req, [thread])
    if not shown:
        raise NotFoundError("notification does not exist")
    return ApiResponse.json(shown[0])


@route("PATCH", "/notifications/threads/{id}", "notifyReadThread",
       summary="Mark notification as read",
       query=(Param("to-status", "string", "Status to mark notifications as"),),
       responses={205: "NotificationThread", 403: "forbidden", 404: "notFound"},
       **THREAD)
def notify_read_thread(req: ApiRequest) -> ApiResponse:
    thread = svc.mark_thread(req.actor, req.int_param("id"), svc.to_status(req.arg("to-status")))
    shown = _rendered(req, [thread])
    if not shown:
        raise NotFoundError("notification does not exist")
    return ApiResponse.json(shown[0], status=205)


IN_THIS_REPO = dict(IN_REPO, signed_in=True, tag="notification")


@route("GET", "/repos/{owner}/{repo}/notifications", "notifyGetRepoList",
       summary="List users's notification threads on a specific repo", query=FILTERS,
       responses={200: "NotificationThreadList"}, **IN_THIS_REPO)
def notify_get_repo_list(req: ApiRequest) -> ApiResponse:
    return _listed(req, _query(req, repo_id=int(current_repo(req).repo.id)))


@route("PUT", "/repos/{owner}/{repo}/notifications", "notifyReadRepoList",
       summary="Mark notification threads as read, pinned or unread on a specific repo",
       query=MARKING, responses={205: "NotificationThreadList"}, **IN_THIS_REPO)
def notify_read_repo_list(req: ApiRequest) -> ApiResponse:
    return _marked(req, repo_id=int(current_repo(req).repo.id))
