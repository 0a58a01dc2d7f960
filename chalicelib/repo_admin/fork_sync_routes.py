"""Fork sync (Forgejo's ``repository`` tag): where a fork's branch stands against its
parent's (its readers), and the fast-forward (its writers; ``fork_sync``)."""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import fork_sync
from chalicelib.repo_admin.fork_sync_records import sync_fork_info
from chalicelib.repos import IN_REPO, caller, current_repo

INFO = {200: "SyncForkInfo", 400: "error", 404: "notFound"}
SYNC = {204: "empty", 400: "error", 403: "forbidden", 404: "notFound", 409: "conflict",
        423: "error"}
WRITER = dict(IN_REPO, signed_in=True)


@route("GET", "/repos/{owner}/{repo}/sync_fork", "repoSyncForkDefaultInfo",
       summary="Gets information about syncing the fork default branch with the base branch",
       responses=INFO, **IN_REPO)
def sync_fork_default_info(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(sync_fork_info(fork_sync.sync_info(view, view.repo.default_branch)))


@route("POST", "/repos/{owner}/{repo}/sync_fork", "repoSyncForkDefault",
       summary="Syncs the default branch of a fork with the base branch", responses=SYNC,
       **WRITER)
def sync_fork_default(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    fork_sync.sync_branch(caller(req), view, view.repo.default_branch)
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/sync_fork/{branch:path}", "repoSyncForkBranchInfo",
       summary="Gets information about syncing a fork branch with the base branch",
       responses=INFO, **IN_REPO)
def sync_fork_branch_info(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(sync_fork_info(fork_sync.sync_info(current_repo(req),
                                                                  req.params["branch"])))


@route("POST", "/repos/{owner}/{repo}/sync_fork/{branch:path}", "repoSyncForkBranch",
       summary="Syncs a fork branch with the base branch", responses=SYNC, **WRITER)
def sync_fork_branch(req: ApiRequest) -> ApiResponse:
    fork_sync.sync_branch(caller(req), current_repo(req), req.params["branch"])
    return ApiResponse.empty()
