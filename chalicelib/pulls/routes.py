"""Pull requests (Forgejo's ``repository`` tag, pull routes): list, get, edit, merge,
and what a pull request shows (commits, files, diff, patch).  Opening one
(``repoCreatePullRequest``) is a reviews route: it may ask for reviews.

Like the issue routes, each reads the repository with the token, then the caller's
access, the tracker and the pull request (the issue item) in the second batch: getting
one costs those two calls, a page one Query more.  Token scope: ``repository``.
"""
from __future__ import annotations

from chalicelib import contents, repos
from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.pulls import merging as pull_merging
from chalicelib.pulls import service as pulls
from chalicelib.pulls import views as pull_views
from chalicelib.pulls.options import EditPullRequestOption, merge_option
from chalicelib.pulls.request import PULL, PullRenderer, ctx_of
from chalicelib.repos import PAGE

SIGNED = dict(PULL, signed_in=True)


def _pull_in(req: ApiRequest):
    """The context, the pull request the path names, and the repository's web and API
    addresses (which record links start with)."""
    ctx = ctx_of(req)
    item = pulls.get_pull(ctx, req.int_param("index"))
    return ctx, item, (repos.repo_html_url(ctx.view),
                       repos.repo_api_url(ctx.view.owner.login, ctx.repo.name))


@route("GET", "/repos/{owner}/{repo}/pulls", "repoListPullRequests",
       summary="List a repo's pull requests",
       query=(Param("state", "string", "State of pull request: open or closed (optional)"),
              Param("sort", "string", "Type of sort: oldest, recentupdate, recentclose, "
                                      "leastupdate, mostcomment, leastcomment, priority"),
              Param("milestone", "integer", "ID of the milestone"),
              Param("labels", "array", "Label IDs"),
              Param("poster", "string", "Filter by pull request author"), *PAGE),
       responses={200: "PullRequestList", 404: "notFound", 422: "validationError"}, **PULL)
def list_pulls(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    labels = [int(v) for v in req.query.get("labels", []) if v.strip().lstrip("-").isdigit()]
    milestone = req.arg("milestone") or "0"
    query = pulls.PullQuery(state=req.arg("state") or "open", sort=req.arg("sort") or "",
                            milestone=int(milestone) if milestone.isdigit() else 0,
                            labels=labels, poster=req.arg("poster") or "")
    found, total = pulls.list_pulls(ctx, query, page.offset, page.limit)
    render = PullRenderer(req, ctx)
    return paging.set_headers(ApiResponse.json(render.pulls(found)), req, page,
                              total)


@route("GET", "/repos/{owner}/{repo}/pulls/{index}.{diffType}", "repoDownloadPullDiffOrPatch",
       summary="Get a pull request diff or patch", produces=("text/plain",),
       query=(Param("binary", "boolean", "whether to include binary file changes"),),
       responses={200: "empty", 404: "notFound"}, **PULL)
def pull_diff(req: ApiRequest) -> ApiResponse:
    kind = req.params["diffType"]
    if kind not in ("diff", "patch") or not req.params["index"].isdigit():
        raise NotFoundError(f"unknown diff type {kind!r}")
    ctx = ctx_of(req)
    item = pulls.get_pull(ctx, int(req.params["index"]))
    return ApiResponse(status=200, body=pull_views.diff_or_patch(ctx, item, kind),
                       headers={"Content-Type": "text/plain; charset=utf-8"})


@route("GET", "/repos/{owner}/{repo}/pulls/{index}/commits", "repoGetPullRequestCommits",
       summary="Get commits for a pull request", query=PAGE,
       responses={200: "CommitList", 404: "notFound"}, **PULL)
def pull_commits(req: ApiRequest) -> ApiResponse:
    ctx, item, (html, api) = _pull_in(req)
    found = pull_views.commits(ctx, item)
    page = paging.page_of(req)
    shown = page.slice(found)
    accounts = contents.linked_accounts(shown)
    body = [contents.commit_record(c, html, api, accounts=accounts) for c in shown]
    return paging.set_headers(ApiResponse.json(body), req, page, len(found))


@route("GET", "/repos/{owner}/{repo}/pulls/{index}/files", "repoGetPullRequestFiles",
       summary="Get changed files for a pull request", query=PAGE,
       responses={200: "ChangedFileList", 404: "notFound"}, **PULL)
def pull_files(req: ApiRequest) -> ApiResponse:
    ctx, item, (html, api) = _pull_in(req)
    changes, head = pull_views.files(ctx, item)
    return paging.paged_json(req, list(changes),
                             lambda f: contents.changed_file_record(f, html, api, head))


@route("GET", "/repos/{owner}/{repo}/pulls/{index}/merge", "repoPullRequestIsMerged",
       summary="Check if a pull request has been merged",
       responses={204: "empty", 404: "notFound"}, **PULL)
def is_merged(req: ApiRequest) -> ApiResponse:
    if not pulls.is_merged(ctx_of(req), req.int_param("index")):
        raise NotFoundError("pull request has not been merged")
    return ApiResponse.empty()


@route("POST", "/repos/{owner}/{repo}/pulls/{index}/merge", "repoMergePullRequest",
       summary="Merge a pull request", body="MergePullRequestOption",
       responses={200: "empty", 201: "empty", 404: "notFound", 405: "empty", 409: "error",
                  413: "quotaExceeded", 423: "error"}, **SIGNED)
def merge_pull(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    status = pull_merging.merge_pull(ctx, req.int_param("index"), merge_option(req.json()))
    return ApiResponse(status=status, body=b"", headers={})


@route("DELETE", "/repos/{owner}/{repo}/pulls/{index}/merge", "repoCancelScheduledAutoMerge",
       summary="Cancel the scheduled auto merge for the given pull request",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 423: "error"},
       **SIGNED)
def cancel_scheduled_merge(req: ApiRequest) -> ApiResponse:
    pull_merging.cancel_scheduled(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("POST", "/repos/{owner}/{repo}/pulls/{index}/update", "repoUpdatePullRequest",
       summary="Merge PR's baseBranch into headBranch",
       query=(Param("style", "string", "how to update pull request: merge or rebase"),),
       responses={200: "empty", 403: "forbidden", 404: "notFound", 409: "error",
                  413: "quotaExceeded", 422: "validationError"}, **SIGNED)
def update_pull(req: ApiRequest) -> ApiResponse:
    pull_merging.update_head(ctx_of(req), req.int_param("index"), req.arg("style") or "")
    return ApiResponse(status=200, body=b"", headers={})


@route("GET", "/repos/{owner}/{repo}/pulls/{index}", "repoGetPullRequest",
       summary="Get a pull request", responses={200: "PullRequest", 404: "notFound"}, **PULL)
def get_pull(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(PullRenderer(req, ctx).pull(pulls.get_pull(ctx,
                                                                       req.int_param("index"))))


@route("PATCH", "/repos/{owner}/{repo}/pulls/{index}", "repoEditPullRequest",
       summary="Update a pull request", body="EditPullRequestOption",
       responses={201: "PullRequest", 403: "forbidden", 404: "notFound", 409: "error",
                  412: "error", 422: "validationError"}, **SIGNED)
def edit_pull(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    item = pulls.edit_pull(ctx, req.int_param("index"), req.option(EditPullRequestOption))
    return ApiResponse.json(PullRenderer(req, ctx).pull(item), status=201)


@route("GET", "/repos/{owner}/{repo}/pulls/{base}/{head:path}", "repoGetPullRequestByBaseHead",
       summary="Get a pull request by base and head",
       responses={200: "PullRequest", 404: "notFound"}, **PULL)
def get_by_base_head(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    item = pulls.find_by_branches(ctx, req.params["base"], req.params["head"])
    return ApiResponse.json(PullRenderer(req, ctx).pull(item))


@route("GET", "/repos/{owner}/{repo}/commits/{sha}/pull", "repoGetCommitPullRequest",
       summary="Get the pull request of the commit",
       responses={200: "PullRequest", 404: "notFound"}, **PULL)
def commit_pull(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    item = pulls.pull_of_commit(ctx.repo, req.params["sha"])
    return ApiResponse.json(PullRenderer(req, ctx).pull(item))
