"""Stopwatches and deadlines of issues (Forgejo's ``issue`` tag) and the caller's
running stopwatches (``user`` tag).

The stopwatch routes read what every issue route reads (``routes.py``) and, in the same
second batch, the caller's stopwatch on the issue; a start, stop or cancel is then one
transaction (``stopwatches.py``).  The caller's list is one Query of their index, then
the issues and repositories it names, batched.
"""
from __future__ import annotations

from chalicelib import clock
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.issues import deadlines, stopwatches
from chalicelib.issues import tracking_records as records
from chalicelib.issues.options import EditDeadlineOption
from chalicelib.issues.request import ISSUE, ctx_of, issue_preload_more
from chalicelib.repos import PAGE

STOPWATCH_RESPONSES = {201: "empty", 403: "forbidden", 404: "notFound", 409: "conflict"}


def _stopwatch_preload_more(req: ApiRequest, user_id: int | None) -> list:
    """The issue route's second batch, and the caller's stopwatch on the issue."""
    found = issue_preload_more(req, user_id)
    number = req.params.get("index", "")
    partitions = [key[0] for key in found if key[1] == "ITRACKER"]
    if user_id is not None and partitions and number.isdigit():
        repo_id = int(partitions[0].split("#", 1)[1])
        found.append(stopwatches.stopwatch_key(repo_id, int(number), int(user_id)))
    return found


WATCH = dict(ISSUE, signed_in=True, preload_more=_stopwatch_preload_more)
USER = dict(tag="user", scope="user", signed_in=True)


@route("POST", "/repos/{owner}/{repo}/issues/{index}/stopwatch/start", "issueStartStopWatch",
       summary="Start stopwatch on an issue.", responses=STOPWATCH_RESPONSES, **WATCH)
def start_stopwatch(req: ApiRequest) -> ApiResponse:
    stopwatches.start(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty(status=201)


@route("POST", "/repos/{owner}/{repo}/issues/{index}/stopwatch/stop", "issueStopStopWatch",
       summary="Stop an issue's existing stopwatch.", responses=STOPWATCH_RESPONSES, **WATCH)
def stop_stopwatch(req: ApiRequest) -> ApiResponse:
    stopwatches.stop(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty(status=201)


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/stopwatch/delete",
       "issueDeleteStopWatch", summary="Delete an issue's existing stopwatch.",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 409: "conflict"}, **WATCH)
def delete_stopwatch(req: ApiRequest) -> ApiResponse:
    stopwatches.cancel(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("GET", "/user/stopwatches", "userGetStopWatches",
       summary="Get list of all existing stopwatches", query=PAGE,
       responses={200: "StopWatchList", 401: "unauthorized", 403: "forbidden"}, **USER)
def user_stopwatches(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    found, total = stopwatches.user_stopwatches(int(req.actor.id), page.offset, page.limit)
    now = clock.seconds()
    listed = [records.stopwatch(
        watch, now=now, duration=stopwatches.duration_text(now - int(watch.created)),
        title=issue.title, owner_name=repo.owner_login, repo_name=repo.name)
        for watch, issue, repo in found]
    return paging.set_headers(ApiResponse.json(listed), req, page, total)


@route("POST", "/repos/{owner}/{repo}/issues/{index}/deadline", "issueEditIssueDeadline",
       summary="Set an issue deadline. If set to null, the deadline is deleted. If using "
               "deadline only the date will be taken into account, and time of day ignored.",
       body="EditDeadlineOption",
       responses={201: "IssueDeadline", 403: "forbidden", 404: "notFound"},
       **dict(ISSUE, signed_in=True))
def edit_deadline(req: ApiRequest) -> ApiResponse:
    due = deadlines.set_deadline(ctx_of(req), req.int_param("index"),
                                 req.option(EditDeadlineOption, required=False))
    return ApiResponse.json(records.deadline(due), status=201)
