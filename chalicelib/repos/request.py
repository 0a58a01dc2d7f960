"""What every route and page under ``/repos/{owner}/{repo}`` reads from its request: the
caller, the repository (with the keys to preload it alongside the token), the Repository
record as this caller sees it, and the paging parameters."""
from __future__ import annotations

from chalicelib.repos import records
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param
from chalicelib.repos import views as repo_views
from chalicelib.http.scopes import is_public_only


PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))


REPO = dict(tag="repository", scope="repository")


def caller(req: ApiRequest) -> repo_views.Caller:
    principal = req.principal
    if principal is None:
        return repo_views.ANONYMOUS
    public_only = bool(principal.scopes and is_public_only(principal.scopes))
    return repo_views.Caller(principal.user, public_only)


def repo_preload(req: ApiRequest) -> list:
    return repo_views.preload_keys(req.params["owner"], req.params["repo"])


def repo_preload_more(req: ApiRequest, user_id: int | None) -> list:
    return repo_views.preload_more_keys(req.params["owner"], req.params["repo"], user_id)


# Every /repos/{owner}/{repo}/… route reads the repository together with the token.
IN_REPO = dict(REPO, preload=repo_preload, preload_more=repo_preload_more)


def current_repo(req: ApiRequest) -> repo_views.RepoView:
    return repo_views.find(caller(req), req.params["owner"], req.params["repo"])


def repo_record(req: ApiRequest, view: repo_views.RepoView) -> dict:
    parent = repo_views.parent_of(view, caller(req))
    parent_record = records.repository(parent, req.actor) if parent is not None else None
    return records.repository(view, req.actor, parent_record)


def repo_list(req: ApiRequest, views: list[repo_views.RepoView]) -> ApiResponse:
    return paging.paged_json(req, views, lambda v: repo_record(req, v))
