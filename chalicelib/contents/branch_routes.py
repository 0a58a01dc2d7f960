"""Creating, deleting and renaming branches (Forgejo's ``repository`` tag): each one
compare-and-swap of refs with its branch records and events (services/branch_admin).
Write access is required.  Token scope: ``repository``.

Route order: ``repoGetBranch`` (``/branches/{branch:path}``) answers GET only, and the
router matches the method as well as the path, so it does not take these; DELETE and
PATCH take the branch as a greedy parameter too, so names with slashes reach them.
"""
from __future__ import annotations

from chalicelib import protection
from chalicelib.contents import branch_admin, branch_records, branches
from chalicelib.contents.options import CreateBranchRepoOption, UpdateBranchRepoOption
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, caller, current_repo

WRITE = dict(IN_REPO, signed_in=True)


@route("POST", "/repos/{owner}/{repo}/branches", "repoCreateBranch",
       summary="Create a branch", body="CreateBranchRepoOption",
       responses={201: "Branch", 403: "forbidden", 404: "notFound", 409: "conflict",
                  413: "quotaExceeded", 423: "error"}, **WRITE)
def create_branch(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    info = branch_admin.create_branch(caller(req), view, req.option(CreateBranchRepoOption))
    return ApiResponse.json(branch_records.branch(
        info, view, usernames=branches.usernames_for([info]),
        guard=protection.branch_guard(view, caller(req))), status=201)


@route("DELETE", "/repos/{owner}/{repo}/branches/{branch:path}", "repoDeleteBranch",
       summary="Delete a specific branch from a repository",
       responses={204: "empty", 403: "error", 404: "notFound", 423: "error"}, **WRITE)
def delete_branch(req: ApiRequest) -> ApiResponse:
    branch_admin.delete_branch(caller(req), current_repo(req), req.params["branch"])
    return ApiResponse.empty()


@route("PATCH", "/repos/{owner}/{repo}/branches/{branch:path}", "repoUpdateBranch",
       summary="Update a branch", body="UpdateBranchRepoOption",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **WRITE)
def rename_branch(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    branch_admin.rename_branch(caller(req), view, req.params["branch"],
                               req.option(UpdateBranchRepoOption))
    return ApiResponse.empty()
