"""Search (Forgejo's ``repository`` tag): repoSearch through the repository index."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.errors import InvalidInput
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.search import repo_search


def bool_arg(req: ApiRequest, name: str) -> bool | None:
    """A boolean query parameter (absent or empty: None)."""
    raw = req.arg(name)
    if raw is None or raw == "":
        return None
    if raw.lower() in ("true", "1"):
        return True
    if raw.lower() in ("false", "0"):
        return False
    raise InvalidInput(f"[{name}]: expected true or false")


def int_arg(req: ApiRequest, name: str) -> int:
    raw = req.arg(name)
    try:
        return int(raw) if raw else 0
    except ValueError:
        raise InvalidInput(f"[{name}]: expected an integer") from None


def repo_query(req: ApiRequest) -> repos.SearchQuery:
    """repoSearch's parameters (the explore page reads the same ones)."""
    include_private = bool_arg(req, "private")
    query = repos.SearchQuery(
        keyword=req.arg("q", "") or "", include_description=bool(bool_arg(req, "includeDesc")),
        uid=int_arg(req, "uid"), exclusive=bool(bool_arg(req, "exclusive")),
        mode=req.arg("mode", "") or "",
        include_private=True if include_private is None else include_private,
        is_private=bool_arg(req, "is_private"), template=bool_arg(req, "template"),
        archived=bool_arg(req, "archived"), topic_only=bool(bool_arg(req, "topic")),
        sort=req.arg("sort", "alpha") or "alpha",
        order=req.arg("order", "asc") or "asc")
    if query.order not in ("asc", "desc"):
        raise InvalidInput(f'Invalid sort order: "{query.order}"')
    return query


@route("GET", "/repos/search", "repoSearch", summary="Search for repositories",
       query=(Param("q", "string", "keyword"),
              Param("topic", "boolean", "Limit search to repositories with keyword as topic"),
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
              Param("order", "string", "asc or desc"), *repos.PAGE),
       responses={200: "SearchResults", 422: "validationError"}, **repos.REPO)
def repo_search_route(req: ApiRequest) -> ApiResponse:
    query = repo_query(req)
    page = paging.page_of(req)
    views, total = repo_search.search(repos.caller(req), query, page.offset, page.limit)
    body = {"ok": True, "data": [repos.repo_record(req, v) for v in views]}
    return paging.set_headers(ApiResponse.json(body), req, page, total)
