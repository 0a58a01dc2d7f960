"""Repository writes: create (own and admin), delete, fork, mirror sync, edit (a migration's
route is ``chalicelib.migrations``'s).

Apart from ``chalicelib.repos.routes`` (the reads and the helpers every repository area
shares) so that ``GET /repos/{owner}/{repo}`` on a cold start imports none of the write
path.  ``createOrgRepo`` is here too: creating a repository is one rule wherever its owner.
"""
from __future__ import annotations

from chalicelib import accounts, repos
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import alias, route
from chalicelib.orgs import ORG, current_org
from chalicelib.repo_admin import service as repo_admin
from chalicelib.repo_admin.options import (
    CreateForkOption,
    CreateRepoOption,
    EditRepoOption,
)
from chalicelib.repos import IN_REPO, REPO, caller, current_repo, repo_record


@route("POST", "/user/repos", "createCurrentUserRepo",
       summary="Create a repository", signed_in=True, body="CreateRepoOption",
       responses={201: "Repository", 400: "error", 401: "unauthorized", 403: "forbidden",
                  409: "conflict", 413: "quotaExceeded", 422: "validationError"}, **REPO)
def create_current_user_repo(req: ApiRequest) -> ApiResponse:
    view = repo_admin.create_repo(caller(req), req.actor, req.option(CreateRepoOption))
    return ApiResponse.json(repos.repository_record(view, req.actor), status=201)


@route("POST", "/admin/users/{username}/repos", "adminCreateRepo",
       summary="Create a repository on behalf of a user", body="CreateRepoOption",
       tag="admin", scope="admin", site_admin=True,
       responses={201: "Repository", 400: "error", 403: "forbidden", 404: "notFound",
                  409: "conflict", 422: "validationError"})
def admin_create_repo(req: ApiRequest) -> ApiResponse:
    owner = accounts.get_user(req.params["username"])
    view = repo_admin.create_repo(caller(req), owner, req.option(CreateRepoOption),
                                  check_quota=False)   # as Forgejo
    return ApiResponse.json(repos.repository_record(view, req.actor), status=201)


@route("DELETE", "/repos/{owner}/{repo}", "repoDelete", summary="Delete a repository",
       signed_in=True, responses={204: "empty", 403: "forbidden", 404: "notFound"}, **IN_REPO)
def repo_delete(req: ApiRequest) -> ApiResponse:
    repo_admin.delete_repo(caller(req), current_repo(req))
    return ApiResponse.empty()


@route("POST", "/repos/{owner}/{repo}/forks", "createFork", summary="Fork a repository",
       signed_in=True, body="CreateForkOption",
       responses={202: "Repository", 403: "forbidden", 404: "notFound", 409: "conflict",
                  413: "quotaExceeded", 422: "validationError"}, **IN_REPO)
def create_fork(req: ApiRequest) -> ApiResponse:
    source = current_repo(req)
    view = repo_admin.fork_repo(caller(req), source,
                                req.option(CreateForkOption, required=False))
    parent = repos.repository_record(source, req.actor)
    return ApiResponse.json(repos.repository_record(view, req.actor, parent), status=202)


@route("POST", "/repos/{owner}/{repo}/mirror-sync", "repoMirrorSync",
       summary="Sync a mirrored repository", signed_in=True,
       responses={200: "empty", 403: "forbidden", 404: "notFound", 413: "quotaExceeded"},
       **IN_REPO)
def repo_mirror_sync(req: ApiRequest) -> ApiResponse:
    from chalicelib.repo_admin import migrations

    migrations.sync_requested(caller(req), current_repo(req))
    return ApiResponse.empty(200)


@route("PATCH", "/repos/{owner}/{repo}", "repoEdit",
       summary="Edit a repository's properties. Only fields that are set will be changed.",
       signed_in=True, body="EditRepoOption",
       responses={200: "Repository", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **IN_REPO)
def repo_edit(req: ApiRequest) -> ApiResponse:
    view = repo_admin.edit_repo(caller(req), current_repo(req),
                                req.option(EditRepoOption, required=False))
    return ApiResponse.json(repo_record(req, view))


@route("POST", "/orgs/{org}/repos", "createOrgRepo",
       summary="Create a repository in an organization", signed_in=True,
       body="CreateRepoOption",
       responses={201: "Repository", 400: "error", 403: "forbidden", 404: "notFound",
                  409: "conflict", 413: "quotaExceeded", 422: "validationError"}, **ORG)
def create_org_repo(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    view = repo_admin.create_repo(caller(req), org, req.option(CreateRepoOption))
    return ApiResponse.json(repo_record(req, view), status=201)


alias("POST", "/org/{org}/repos", "createOrgRepoDeprecated", same_as="createOrgRepo",
      deprecated=True)
