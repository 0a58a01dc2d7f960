"""Repositories, the reads: get, search, lists, forks.  What every route under
``/repos/{owner}/{repo}`` reads from its request is ``chalicelib.repos.request``.

The writes are ``chalicelib.repo_admin``: a cold ``GET /repos/{owner}/{repo}`` imports
only this module, so it must not import the write path.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import service as repos
from chalicelib.repos.request import (IN_REPO, PAGE, REPO, caller, current_repo, repo_list,
                                      repo_record)


@route("GET", "/repos/{owner}/{repo}", "repoGet", summary="Get a repository",
       responses={200: "Repository", 404: "notFound"}, **IN_REPO)
def repo_get(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(repo_record(req, current_repo(req)))


@route("GET", "/user/repos", "userCurrentListRepos",
       summary="List the repos that the authenticated user owns or may access", signed_in=True,
       query=(*PAGE, Param("order_by", "string", "order the repositories by name (default), "
                                                  "id, newest, oldest, recentupdate, leastupdate, "
                                                  "reversealphabetically, alphabetically, size")),
       responses={200: "RepositoryList", 401: "unauthorized", 403: "forbidden",
                  422: "validationError"}, **REPO)
def current_user_repos(req: ApiRequest) -> ApiResponse:
    views = repos.accessible_to(caller(req))
    return repo_list(req, repos.order(views, req.arg("order_by")))


@route("GET", "/users/{username}/repos", "userListRepos",
       summary="List the repos owned by the given user", query=PAGE,
       responses={200: "RepositoryList", 404: "notFound"}, **REPO)
def user_repos(req: ApiRequest) -> ApiResponse:
    owner = accounts.get_visible_user(req.actor, req.params["username"])
    return repo_list(req, repos.order(repos.owned_by(caller(req), owner), "name"))


@route("GET", "/repos/{owner}/{repo}/forks", "listForks", summary="List a repository's forks",
       query=PAGE, responses={200: "RepositoryList", 404: "notFound"}, **IN_REPO)
def list_forks(req: ApiRequest) -> ApiResponse:
    return repo_list(req, repos.forks(caller(req), current_repo(req)))
