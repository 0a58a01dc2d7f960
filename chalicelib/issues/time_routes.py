"""Tracked times of a repository and of the caller (repoTrackedTimes, userTrackedTimes
under the ``repository`` tag, userCurrentTrackedTimes under ``user``).

A repository's page reads the two batches of every issue route, one Query of its
index (``time_lists.py``) and the page's issues in one BatchGetItem.  The caller's own
page adds, per repository it touches, that repository as the caller sees it (the issue
records carry it); a time whose repository the caller may no longer read comes with
``issue`` null.
"""
from __future__ import annotations

from chalicelib import repos
from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.issues import context as ictx
from chalicelib.issues import records as issue_records
from chalicelib.issues import time_lists
from chalicelib.issues.request import ISSUE, Renderer, ctx_of
from chalicelib.repos import PAGE, caller

REPOSITORY = dict(ISSUE, tag="repository", scope="repository", signed_in=True)
USER = dict(tag="user", scope="user", signed_in=True)
SINCE = Param("since", "string", "Only show times updated after the given time. This is a "
                                 "timestamp in RFC 3339 format")
BEFORE = Param("before", "string", "Only show times updated before the given time. This is "
                                   "a timestamp in RFC 3339 format")
LIST_RESPONSES = {200: "TrackedTimeList", 400: "error", 403: "forbidden", 404: "notFound"}


def _time_arg(req: ApiRequest, name: str) -> int | None:
    return ictx.parse_time(req.arg(name), name.capitalize())


def _records(req: ApiRequest, found: list, ctx_for, also=()) -> list[dict]:
    """TrackedTime records with their issues: the issues in one batch (with ``also``),
    each repository's renderer made once (``ctx_for(repo id)``: its context, or None
    when unreadable)."""
    issues = time_lists.issues_of(found, also)
    renderers: dict[int, Renderer | None] = {}
    out = []
    for item in found:
        repo_id = time_lists.repo_id_of(item)
        if repo_id not in renderers:
            ctx = ctx_for(repo_id)
            renderers[repo_id] = Renderer(req, ctx) if ctx is not None else None
        render, issue = renderers[repo_id], issues.get((repo_id, int(item.issue_number)))
        out.append(issue_records.tracked_time(
            item, render.issue(issue) if render is not None and issue is not None else None))
    return out


def _repo_page(req: ApiRequest, ctx, found: list, total: int, page) -> ApiResponse:
    listed = _records(req, found, lambda repo_id: ctx)
    return paging.set_headers(ApiResponse.json(listed), req, page, total)


@route("GET", "/repos/{owner}/{repo}/times", "repoTrackedTimes",
       summary="List a repo's tracked times",
       query=(Param("user", "string", "optional filter by user (available for issue managers)"),
              SINCE, BEFORE, *PAGE),
       responses={**LIST_RESPONSES, 422: "validationError"}, **REPOSITORY)
def repo_times(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    found, total = time_lists.repo_times(ctx, req.arg("user", "") or "", _time_arg(req, "since"),
                                         _time_arg(req, "before"), page.offset, page.limit)
    return _repo_page(req, ctx, found, total, page)


@route("GET", "/repos/{owner}/{repo}/times/{user}", "userTrackedTimes",
       summary="List a user's tracked times in a repo", deprecated=True,
       responses=LIST_RESPONSES, **REPOSITORY)
def user_times(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    found, total = time_lists.user_times_in_repo(ctx, req.params["user"], page.offset,
                                                 page.limit)
    return _repo_page(req, ctx, found, total, page)


@route("GET", "/user/times", "userCurrentTrackedTimes",
       summary="List the current user's tracked times", query=(*PAGE, SINCE, BEFORE),
       responses={200: "TrackedTimeList", 401: "unauthorized", 403: "forbidden"}, **USER)
def my_times(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    found, total = time_lists.my_times(req.actor, _time_arg(req, "since"),
                                       _time_arg(req, "before"), page.offset, page.limit)
    who = caller(req)

    def ctx_for(repo_id: int):
        view = repos.find_repo_by_id(who, repo_id)
        if view is None:
            return None
        try:
            return ictx.context(who, view)
        except NotFoundError:
            return None

    # The repositories' id links come with the issues.
    links = [repos.repo_id_key(time_lists.repo_id_of(t)) for t in found]
    return paging.set_headers(ApiResponse.json(_records(req, found, ctx_for, links)), req, page,
                              total)
