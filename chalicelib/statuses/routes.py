"""Commit statuses (Forgejo's ``repository`` tag): create, list, combined status.

Every route reads the repository with the token (first batch), then the caller's access
items with the commit's status summary when the path holds a full commit id, and the
branch record a ref may name (second batch).  So the combined status of a branch or of
a full id costs those two calls and at most one GetItem (the summary), at any number of
contexts; a list costs one Query more; a create one transaction more, after reading
the commit from git (see ``services.statuses`` for how paths name commits).

Paths: the seed serves the combined status at ``/commits/{ref}/statuses``; Forgejo's
modern ``/commits/{ref}/status`` answers the same (``shared/spec/README.md``, rule 1).
The create answers 200 with the one CommitStatus (rule 2; Forgejo sends 201).  With
``[api] STATUS_ROUTES = forgejo`` both follow current Forgejo instead: ``…/statuses``
lists the statuses of the ref's commit (``repoListStatusesByRef``) and a create
answers 201.

``{ref}`` may hold slashes: Forgejo routes on the escaped path, so a branch such as
``renovate/left-pad-1.x`` arrives as ``renovate%2Fleft-pad-1.x`` in one segment (Renovate
reads its branches' statuses so); here the path arrives decoded, as API Gateway gives
it, and the parameter takes every segment up to ``/status(es)``.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, alias, route
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo, repo_preload, repo_record
from chalicelib.settings import get_settings
from chalicelib.statuses import records as status_records
from chalicelib.statuses import service as svc
from chalicelib.statuses.options import CreateStatusOption


def _sha_preload_more(req: ApiRequest, user_id: int | None) -> list:
    return svc.preload_more_keys(req.params["owner"], req.params["repo"], user_id,
                                 sha=req.params["sha"])


def _ref_preload_more(req: ApiRequest, user_id: int | None) -> list:
    return svc.preload_more_keys(req.params["owner"], req.params["repo"], user_id,
                                 ref=req.params["ref"])


BY_SHA = dict(IN_REPO, preload=repo_preload, preload_more=_sha_preload_more)
BY_REF = dict(IN_REPO, preload=repo_preload, preload_more=_ref_preload_more)
LIST_QUERY = (
    Param("sort", "string", "type of sort (oldest, recentupdate, leastupdate, leastindex, "
                            "highestindex)"),
    Param("state", "string", "type of state (pending, success, error, failure, warning)"),
    *PAGE)


@route("GET", "/repos/{owner}/{repo}/statuses/{sha}", "repoListStatuses",
       summary="Get a commit's statuses", query=LIST_QUERY,
       responses={200: "CommitStatusList", 400: "error", 404: "notFound"}, **BY_SHA)
def list_statuses(req: ApiRequest) -> ApiResponse:
    return _listed(req, req.params["sha"], by_ref=False)


def _forgejo_paths() -> bool:
    return get_settings().api.STATUS_ROUTES == "forgejo"


def _listed(req: ApiRequest, text: str, *, by_ref: bool) -> ApiResponse:
    view = current_repo(req)
    page = paging.page_of(req)
    shown, total = svc.list_statuses(view, caller(req), text,
                                     sort=(req.arg("sort") or "").strip(),
                                     state=(req.arg("state") or "").strip(),
                                     offset=page.offset, limit=page.limit, by_ref=by_ref)
    resp = ApiResponse.json([status_records.commit_status(s, view) for s in shown])
    return paging.set_headers(resp, req, page, total)


@route("POST", "/repos/{owner}/{repo}/statuses/{sha}", "repoCreateStatus",
       summary="Create a commit status", signed_in=True, body="CreateStatusOption",
       responses={200: "CommitStatus", 201: "CommitStatus", 400: "error", 403: "forbidden",
                  404: "notFound", 422: "validationError"}, **BY_SHA)
def create_status(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    shown = svc.create_status(view, caller(req), req.params["sha"],
                              req.option(CreateStatusOption))
    return ApiResponse.json(status_records.commit_status(shown, view),
                            status=201 if _forgejo_paths() else 200)


@route("GET", "/repos/{owner}/{repo}/commits/{ref:path}/statuses", "repoGetCombinedStatusByRef",
       summary="Get a commit's combined status, by branch/tag/commit reference", query=PAGE,
       responses={200: "CombinedStatus", 400: "error", 404: "notFound"}, **BY_REF)
def combined_status(req: ApiRequest) -> ApiResponse:
    if _forgejo_paths() and req.route.operation_id == "repoGetCombinedStatusByRef":
        return _listed(req, req.params["ref"], by_ref=True)
    view = current_repo(req)
    page = paging.page_of(req)
    combined = svc.combined_status(view, caller(req), req.params["ref"], offset=page.offset,
                                   limit=page.limit)
    if not combined.shown:
        return ApiResponse.json(status_records.EMPTY_COMBINED)
    resp = ApiResponse.json(status_records.combined_status(combined, view,
                                                           repo_record(req, view)))
    return paging.set_headers(resp, req, page, combined.total)


alias("GET", "/repos/{owner}/{repo}/commits/{ref:path}/status", "repoGetCombinedStatusByRefModern",
      same_as="repoGetCombinedStatusByRef")
