"""Issue subscriptions (Forgejo's ``issue`` tag): who watches an issue, whether I do,
and subscribing or unsubscribing someone (oneself, or anyone for a site admin).

Subscribing answers 201 when it changed the watch state and 200 when it already held,
as Forgejo does; the state it compares with is what the person said, else whether
they take part in the issue or watch its repository.
"""
from __future__ import annotations

from chalicelib import accounts, issues, repos
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.issues import ISSUE
from chalicelib.notifications import records as notification_records
from chalicelib.notifications import service as svc
from chalicelib.repos import PAGE

SUBSCRIPTIONS = dict(ISSUE)


def _issue(req: ApiRequest):
    ctx = issues.issue_ctx_of(req)
    return ctx, issues.get_issue(ctx, req.int_param("index"))


def _watching(issue, user) -> bool:
    return svc.watch_state(int(issue.id), int(issue.repo_id), int(user.id),
                           participant=int(issue.poster_id) == int(user.id)).watching


@route("GET", "/repos/{owner}/{repo}/issues/{index}/subscriptions", "issueSubscriptions",
       summary="Get users who subscribed on an issue.", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **SUBSCRIPTIONS)
def issue_subscriptions(req: ApiRequest) -> ApiResponse:
    _, issue = _issue(req)
    watchers = accounts.accounts_by_ids(svc.watching_ids(int(issue.id)))
    return paging.paged_json(req, watchers, lambda a: accounts.user_record(a, req.actor))


@route("GET", "/repos/{owner}/{repo}/issues/{index}/subscriptions/check",
       "issueCheckSubscription", summary="Check if user is subscribed to an issue",
       signed_in=True, responses={200: "WatchInfo", 404: "notFound"}, **SUBSCRIPTIONS)
def issue_check_subscription(req: ApiRequest) -> ApiResponse:
    ctx, issue = _issue(req)
    api = repos.repo_api_url(ctx.view.owner.login, ctx.view.repo.name)
    return ApiResponse.json(notification_records.watch_info(
        _watching(issue, req.actor), issue.created, f"{api}/issues/{int(issue.number)}", api))


def _subscribe(req: ApiRequest, watching: bool) -> ApiResponse:
    _, issue = _issue(req)
    user = accounts.account_by_name(req.params["user"])
    if user is None or repos.is_org(user):
        raise NotFoundError(f"user does not exist [name: {req.params['user']}]")
    if int(user.id) != int(req.actor.id) and not req.actor.is_admin:
        raise PermissionDenied(f"user can only {'' if watching else 'un'}subscribe itself")
    if _watching(issue, user) == watching:
        return ApiResponse.empty(200)
    svc.set_watching(int(issue.id), int(issue.repo_id), int(user.id), watching)
    return ApiResponse.empty(201)


@route("PUT", "/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}",
       "issueAddSubscription", summary="Subscribe user to issue", signed_in=True,
       responses={200: "empty", 201: "empty", 304: "empty", 404: "notFound"},
       **SUBSCRIPTIONS)
def issue_add_subscription(req: ApiRequest) -> ApiResponse:
    return _subscribe(req, True)


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}",
       "issueDeleteSubscription", summary="Unsubscribe user from issue", signed_in=True,
       responses={200: "empty", 201: "empty", 304: "empty", 404: "notFound"},
       **SUBSCRIPTIONS)
def issue_delete_subscription(req: ApiRequest) -> ApiResponse:
    return _subscribe(req, False)
