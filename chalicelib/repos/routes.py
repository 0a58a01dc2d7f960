"""Repositories, the reads: get, search, lists, forks.  What every route under
``/repos/{owner}/{repo}`` reads from its request is ``chalicelib.repos.request``.

The writes are ``chalicelib.repo_admin``: a cold ``GET /repos/{owner}/{repo}`` imports
only this module, so it must not import the write path.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.errors import InvalidInput
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


def _bool_arg(req: ApiRequest, name: str) -> bool | None:
    raw = req.arg(name)
    if raw is None or raw == "":
        return None
    if raw.lower() in ("true", "1"):
        return True
    if raw.lower() in ("false", "0"):
        return False
    raise InvalidInput(f"[{name}]: expected true or false")


def _int_arg(req: ApiRequest, name: str) -> int:
    raw = req.arg(name)
    try:
        return int(raw) if raw else 0
    except ValueError:
        raise InvalidInput(f"[{name}]: expected an integer") from None


@route("GET", "/repos/search", "repoSearch", summary="Search for repositories",
       query=(Param("q", "string", "keyword"),
              Param("includeDesc", "boolean", "include search of keyword within descriptions"),
              Param("uid", "integer", "search only for repos that the user with the given id "
                                       "owns or contributes to"),
              Param("private", "boolean", "include private repositories this user has access to"),
              Param("is_private", "boolean", "show only public, private or all repositories"),
              Param("template", "boolean", "include template repositories"),
              Param("archived", "boolean", "show only archived, non-archived or all repositories"),
              Param("mode", "string", "type of repository to search for: fork, source, mirror, "
                                      "collaborative"),
              Param("exclusive", "boolean", "with uid: only repositories the user owns"),
              Param("sort", "string", "alpha, created, updated, size, or id"),
              Param("order", "string", "asc or desc"), *PAGE),
       responses={200: "SearchResults", 422: "validationError"}, **REPO)
def repo_search(req: ApiRequest) -> ApiResponse:
    include_private = _bool_arg(req, "private")
    query = repos.SearchQuery(
        keyword=req.arg("q", "") or "", include_description=bool(_bool_arg(req, "includeDesc")),
        uid=_int_arg(req, "uid"), exclusive=bool(_bool_arg(req, "exclusive")),
        mode=req.arg("mode", "") or "",
        include_private=True if include_private is None else include_private,
        is_private=_bool_arg(req, "is_private"), template=_bool_arg(req, "template"),
        archived=_bool_arg(req, "archived"), sort=req.arg("sort", "alpha") or "alpha",
        order=req.arg("order", "asc") or "asc")
    if query.order not in ("asc", "desc"):
        raise InvalidInput(f'Invalid sort order: "{query.order}"')
    found = repos.search(caller(req), query)
    page = paging.page_of(req)
    body = {"ok": True, "data": [repo_record(req, v) for v in page.slice(found)]}
    return paging.set_headers(ApiResponse.json(body), req, page, len(found))


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
