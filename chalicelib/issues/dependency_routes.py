"""Issue dependencies and blocks (Forgejo's ``issue`` tag; rules in ``dependencies``).

``/dependencies`` is the path issue's side: the issues it depends on; ``/blocks`` the
other: the issues it blocks.  Every route reads the repository with the token, then the
caller's access items with the tracker and the path's issue; a list is one Query of the
path issue's edges and one BatchGetItem of the issues they name (more for the trackers
and access of other repositories); a change reads the two edge items it would write,
then writes the edge, its reverse check and both timeline events in one transaction.
Lists carry no paging headers (Forgejo's IssueListWithoutPagination).  A change answers
the path's issue, 201 for a removal too, as Forgejo's handlers do.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.issues import dependencies
from chalicelib.issues.options import IssueMeta
from chalicelib.issues.request import ISSUE, Renderer, ctx_of
from chalicelib.repos import PAGE

SIGNED = dict(ISSUE, signed_in=True)
DEPENDENCIES = "/repos/{owner}/{repo}/issues/{index}/dependencies"
BLOCKS = "/repos/{owner}/{repo}/issues/{index}/blocks"
LIST_ANSWERS = {200: "IssueList", 404: "notFound"}
CHANGE_ANSWERS = {201: "Issue", 400: "error", 404: "notFound", 409: "error",
                  422: "validationError"}


def _list(req: ApiRequest, *, of_dependencies: bool) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    found = dependencies.listed(ctx, req.int_param("index"), dependencies=of_dependencies,
                                offset=page.offset, limit=page.limit)
    renderers: dict[int, Renderer] = {}
    records = []
    for side in found:
        if side.ctx.repo_id not in renderers:
            renderers[side.ctx.repo_id] = Renderer(req, side.ctx)
        records.append(renderers[side.ctx.repo_id].issue(side.issue))
    return ApiResponse.json(records)


def _change(req: ApiRequest, change, *, path_blocked: bool) -> ApiResponse:
    ctx = ctx_of(req)
    issue = change(ctx, req.int_param("index"), req.option(IssueMeta),
                   path_blocked=path_blocked)
    return ApiResponse.json(Renderer(req, ctx).issue(issue), status=201)


@route("GET", DEPENDENCIES, "issueListIssueDependencies",
       summary="List an issue's dependencies, i.e all issues that block this issue.",
       query=PAGE, responses=LIST_ANSWERS, **ISSUE)
def list_dependencies(req: ApiRequest) -> ApiResponse:
    return _list(req, of_dependencies=True)


@route("POST", DEPENDENCIES, "issueCreateIssueDependencies",
       summary="Make the issue in the url depend on the issue in the form.", body="IssueMeta",
       responses={**CHANGE_ANSWERS, 423: "error"}, **SIGNED)
def add_dependency(req: ApiRequest) -> ApiResponse:
    return _change(req, dependencies.add, path_blocked=True)


@route("DELETE", DEPENDENCIES, "issueRemoveIssueDependencies",
       summary="Remove an issue dependency", body="IssueMeta",
       responses={**CHANGE_ANSWERS, 423: "error"}, **SIGNED)
def remove_dependency(req: ApiRequest) -> ApiResponse:
    return _change(req, dependencies.remove, path_blocked=True)


@route("GET", BLOCKS, "issueListBlocks", summary="List issues that are blocked by this issue",
       query=PAGE, responses=LIST_ANSWERS, **ISSUE)
def list_blocks(req: ApiRequest) -> ApiResponse:
    return _list(req, of_dependencies=False)


@route("POST", BLOCKS, "issueCreateIssueBlocking",
       summary="Block the issue given in the body by the issue in path", body="IssueMeta",
       responses=CHANGE_ANSWERS, **SIGNED)
def add_blocking(req: ApiRequest) -> ApiResponse:
    return _change(req, dependencies.add, path_blocked=False)


@route("DELETE", BLOCKS, "issueRemoveIssueBlocking",
       summary="Unblock the issue given in the body by the issue in path", body="IssueMeta",
       responses=CHANGE_ANSWERS, **SIGNED)
def remove_blocking(req: ApiRequest) -> ApiResponse:
    return _change(req, dependencies.remove, path_blocked=False)
