"""Two areas of Forgejo's API that have nothing to act on in Nimbus, answered as a
Forgejo configured that way answers them, rather than as routes that do not exist.

Git hooks (``repoListGitHooks``, ``repoGetGitHook``, ``repoEditGitHook``,
``repoDeleteGitHook``): server-side hook scripts run arbitrary programs on the server,
so Forgejo ships with ``DISABLE_GIT_HOOKS = true``, and Nimbus runs no scripts at all
(its pushes are checked by its own rules: protection, quota, LFS).  Forgejo's routes
ask, in order: a signed-in caller (401), a repository the caller can see (404), a
repository admin (403), then ``CanEditGitHook`` — false for everyone while git hooks
are disabled, so 403 "must be allowed to edit Git hooks", site admins included.

Unadopted repositories (``adminUnadoptedList``, ``adminAdoptRepository``,
``adminDeleteUnadoptedRepository``): in Forgejo, git directories on disk that no
repository record claims (left by a crash, or copied in by an operator).  Nimbus keeps
git data in S3 keyed by the repository's id, written only once the record exists and
removed by the deletion's cleanup (``consumers``), so no git data can exist without its
record: the list is honestly empty, and adopting or deleting a name finds nothing to
act on (404, Forgejo's answer for a name with no unadopted files).  Site admins only
(403 for others).
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.http import paging, schemas
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.http.schema_types import B, S
from chalicelib.repos import IN_REPO, PAGE, current_repo

SCHEMAS = schemas.declare({"GitHook": {"name": S, "is_active": B, "content": S}},
                          lists=("GitHook",))
GIT_HOOKS = dict(IN_REPO, signed_in=True)
HOOKS_DISABLED = "must be allowed to edit Git hooks"
ADMIN = {"tag": "admin", "scope": "admin", "site_admin": True}


def _refuse_git_hooks(req: ApiRequest) -> None:
    view = current_repo(req)
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    raise PermissionDenied(HOOKS_DISABLED)


@route("GET", "/repos/{owner}/{repo}/hooks/git", "repoListGitHooks",
       summary="List the Git hooks in a repository",
       responses={200: "GitHookList", 401: "unauthorized", 403: "forbidden",
                  404: "notFound"}, **GIT_HOOKS)
def list_git_hooks(req: ApiRequest) -> ApiResponse:
    _refuse_git_hooks(req)
    return ApiResponse.json([])      # not reached while git hooks are disabled


@route("GET", "/repos/{owner}/{repo}/hooks/git/{id}", "repoGetGitHook",
       summary="Get a Git hook",
       responses={200: "GitHook", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **GIT_HOOKS)
def get_git_hook(req: ApiRequest) -> ApiResponse:
    _refuse_git_hooks(req)
    raise NotFoundError("hook does not exist")


@route("PATCH", "/repos/{owner}/{repo}/hooks/git/{id}", "repoEditGitHook",
       summary="Edit a Git hook in a repository", body="EditGitHookOption",
       responses={200: "GitHook", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **GIT_HOOKS)
def edit_git_hook(req: ApiRequest) -> ApiResponse:
    _refuse_git_hooks(req)
    raise NotFoundError("hook does not exist")


@route("DELETE", "/repos/{owner}/{repo}/hooks/git/{id}", "repoDeleteGitHook",
       summary="Delete a Git hook in a repository",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **GIT_HOOKS)
def delete_git_hook(req: ApiRequest) -> ApiResponse:
    _refuse_git_hooks(req)
    raise NotFoundError("hook does not exist")


@route("GET", "/admin/unadopted", "adminUnadoptedList",
       summary="List unadopted repositories",
       query=(*PAGE, Param("pattern", "string", "pattern of repositories to search for")),
       responses={200: "StringSlice", 403: "forbidden"}, **ADMIN)
def list_unadopted(req: ApiRequest) -> ApiResponse:
    return paging.paged_json(req, [], str)


def _nothing_unadopted(req: ApiRequest) -> None:
    """404 in every case: an unknown owner (as Forgejo), and for a known one, no
    unadopted files under that name (there are never any: see the module's words)."""
    owner = req.params["owner"]
    if accounts.account_by_name(owner) is None:
        raise NotFoundError(f"user does not exist [name: {owner}]")
    raise NotFoundError(f"no unadopted repository files [name: {owner}/{req.params['repo']}]")


@route("POST", "/admin/unadopted/{owner}/{repo}", "adminAdoptRepository",
       summary="Adopt unadopted files as a repository",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ADMIN)
def adopt_repository(req: ApiRequest) -> ApiResponse:
    _nothing_unadopted(req)
    return ApiResponse.empty()


@route("DELETE", "/admin/unadopted/{owner}/{repo}", "adminDeleteUnadoptedRepository",
       summary="Delete unadopted files",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ADMIN)
def delete_unadopted(req: ApiRequest) -> ApiResponse:
    _nothing_unadopted(req)
    return ApiResponse.empty()
