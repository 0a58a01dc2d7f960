"""Push mirrors (Forgejo's ``repository`` tag): list, add, get, delete, sync now.

Repository admins only (``push_mirrors``: 403; an invisible repository is 404).  A sync
requested here pushes before answering, as Forgejo's does; a mirror that failed answers
500 with its remote name (its ``last_error`` says why).
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import push_mirror_records as records
from chalicelib.repo_admin import push_mirrors
from chalicelib.repo_admin.push_mirrors import CreatePushMirrorOption
from chalicelib.repos import IN_REPO, PAGE, current_repo

ADMIN_REPO = dict(IN_REPO, signed_in=True)
READ = {400: "error", 403: "forbidden", 404: "notFound"}


@route("GET", "/repos/{owner}/{repo}/push_mirrors", "repoListPushMirrors",
       summary="Get all push mirrors of the repository", query=PAGE,
       responses={200: "PushMirrorList", **READ}, **ADMIN_REPO)
def list_push_mirrors(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    items = push_mirrors.list_mirrors(view)
    return paging.paged_json(req, items, lambda item: records.push_mirror(item, view.repo.name))


@route("POST", "/repos/{owner}/{repo}/push_mirrors", "repoAddPushMirror",
       summary="add a push mirror to the repository", body="CreatePushMirrorOption",
       responses={200: "PushMirror", **READ, 413: "quotaExceeded", 423: "error"},
       **ADMIN_REPO)
def add_push_mirror(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    item = push_mirrors.add_mirror(view, req.option(CreatePushMirrorOption))
    return ApiResponse.json(records.push_mirror(item, view.repo.name))


@route("GET", "/repos/{owner}/{repo}/push_mirrors/{name}", "repoGetPushMirrorByRemoteName",
       summary="Get push mirror of the repository by remoteName",
       responses={200: "PushMirror", **READ}, **ADMIN_REPO)
def get_push_mirror(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    item = push_mirrors.get_mirror(view, req.params["name"])
    return ApiResponse.json(records.push_mirror(item, view.repo.name))


@route("DELETE", "/repos/{owner}/{repo}/push_mirrors/{name}", "repoDeletePushMirror",
       summary="deletes a push mirror from a repository by remoteName",
       responses={204: "empty", **READ, 423: "error"}, **ADMIN_REPO)
def delete_push_mirror(req: ApiRequest) -> ApiResponse:
    push_mirrors.delete_mirror(current_repo(req), req.params["name"])
    return ApiResponse.empty()


@route("POST", "/repos/{owner}/{repo}/push_mirrors-sync", "repoPushMirrorSync",
       summary="Sync all push mirrored repository",
       responses={200: "empty", **READ, 413: "quotaExceeded", 423: "error"},
       **ADMIN_REPO)
def sync_push_mirrors(req: ApiRequest) -> ApiResponse:
    for name, error in push_mirrors.sync_requested(current_repo(req)):
        if error:
            return ApiResponse.json(
                {"message": f"error occurred when syncing push mirror {name}", "url": ""},
                status=500)
    return ApiResponse.empty(200)
