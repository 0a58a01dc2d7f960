"""Followers and following (Forgejo's ``user`` tag): the lists, the checks, follow and
unfollow.

A follow is the caller's token and account, the followed user by name (one Query of
the name index), and one transaction; a list page is the named user (or the caller),
one Query of that user's follows as far as the page reaches, and one batched read of
the page's accounts.
"""
from __future__ import annotations

from chalicelib.accounts import follows
from chalicelib.accounts import records as account_records
from chalicelib.http import paging
from chalicelib.http.errors import NotFound
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
USER = dict(tag="user", scope="user")
LIST_ANSWERS = {200: "UserList", 401: "unauthorized", 403: "forbidden"}
YES_NO = {204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"}


def _listed(req: ApiRequest, lister, user) -> ApiResponse:
    page = paging.page_of(req)
    found = lister(req.actor, user, page.offset, page.limit)
    resp = ApiResponse.json([account_records.user(a, req.actor) for a in found.shown])
    return paging.set_headers(resp, req, page, found.total)


def _yes_no(answer: bool) -> ApiResponse:
    if not answer:
        raise NotFound()
    return ApiResponse.empty()


@route("GET", "/users/{username}/followers", "userListFollowers",
       summary="List the given user's followers", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **USER)
def list_followers(req: ApiRequest) -> ApiResponse:
    user = follows.visible_user(req.actor, req.params["username"])
    return _listed(req, follows.followers, user)


@route("GET", "/users/{username}/following", "userListFollowing",
       summary="List the users that the given user is following", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **USER)
def list_following(req: ApiRequest) -> ApiResponse:
    user = follows.visible_user(req.actor, req.params["username"])
    return _listed(req, follows.following, user)


@route("GET", "/users/{username}/following/{target}", "userCheckFollowing",
       summary="Check if one user is following another user",
       responses={204: "empty", 404: "notFound"}, **USER)
def check_following(req: ApiRequest) -> ApiResponse:
    return _yes_no(follows.is_following(req.actor, req.params["username"],
                                        req.params["target"]))


@route("GET", "/user/followers", "userCurrentListFollowers",
       summary="List the authenticated user's followers", signed_in=True, query=PAGE,
       responses=LIST_ANSWERS, **USER)
def list_my_followers(req: ApiRequest) -> ApiResponse:
    return _listed(req, follows.followers, req.actor)


@route("GET", "/user/following", "userCurrentListFollowing",
       summary="List the users that the authenticated user is following", signed_in=True,
       query=PAGE, responses=LIST_ANSWERS, **USER)
def list_my_following(req: ApiRequest) -> ApiResponse:
    return _listed(req, follows.following, req.actor)


@route("GET", "/user/following/{username}", "userCurrentCheckFollowing",
       summary="Check whether a user is followed by the authenticated user", signed_in=True,
       responses=YES_NO, **USER)
def check_my_following(req: ApiRequest) -> ApiResponse:
    return _yes_no(follows.am_following(req.actor, req.params["username"]))


@route("PUT", "/user/following/{username}", "userCurrentPutFollow", summary="Follow a user",
       signed_in=True, responses=YES_NO, **USER)
def put_follow(req: ApiRequest) -> ApiResponse:
    follows.follow(req.actor, req.params["username"])
    return ApiResponse.empty()


@route("DELETE", "/user/following/{username}", "userCurrentDeleteFollow",
       summary="Unfollow a user", signed_in=True, responses=YES_NO, **USER)
def delete_follow(req: ApiRequest) -> ApiResponse:
    follows.unfollow(req.actor, req.params["username"])
    return ApiResponse.empty()
