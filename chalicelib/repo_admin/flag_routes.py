"""The site admins' repository flags (Forgejo's ``repository`` tag, ``reqSiteAdmin``):
list, replace, delete all, check, add, delete one.  Anyone but a site admin gets 403;
a repository the caller cannot see is 404 first.  The rules are ``flags``'."""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import flags
from chalicelib.repo_admin.lifecycle_options import ReplaceFlagsOption
from chalicelib.repos import IN_REPO, current_repo

ADMIN_ONLY = dict(IN_REPO, signed_in=True, site_admin=True)
CHANGED = {204: "empty", 403: "forbidden", 404: "notFound", 409: "conflict",
           422: "validationError"}


@route("GET", "/repos/{owner}/{repo}/flags", "repoListFlags",
       summary="List a repository's flags",
       responses={200: "StringSlice", 403: "forbidden", 404: "notFound"}, **ADMIN_ONLY)
def list_flags(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(flags.flags_of(current_repo(req)))


@route("PUT", "/repos/{owner}/{repo}/flags", "repoReplaceAllFlags",
       summary="Replace all flags of a repository", body="ReplaceFlagsOption",
       responses=CHANGED, **ADMIN_ONLY)
def replace_all_flags(req: ApiRequest) -> ApiResponse:
    option = req.option(ReplaceFlagsOption, required=False)
    flags.replace_flags(current_repo(req),
                        option.flags if isinstance(option.flags, list) else None)
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/flags", "repoDeleteAllFlags",
       summary="Remove all flags from a repository", responses=CHANGED, **ADMIN_ONLY)
def delete_all_flags(req: ApiRequest) -> ApiResponse:
    flags.replace_flags(current_repo(req), None)
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/flags/{flag}", "repoCheckFlag",
       summary="Check if a repository has a given flag",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ADMIN_ONLY)
def check_flag(req: ApiRequest) -> ApiResponse:
    flags.require_flag(current_repo(req), req.params["flag"])
    return ApiResponse.empty()


@route("PUT", "/repos/{owner}/{repo}/flags/{flag}", "repoAddFlag",
       summary="Add a flag to a repository", responses=CHANGED, **ADMIN_ONLY)
def add_flag(req: ApiRequest) -> ApiResponse:
    flags.add_flag(current_repo(req), req.params["flag"])
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/flags/{flag}", "repoDeleteFlag",
       summary="Remove a flag from a repository", responses=CHANGED, **ADMIN_ONLY)
def delete_flag(req: ApiRequest) -> ApiResponse:
    flags.delete_flag(current_repo(req), req.params["flag"])
    return ApiResponse.empty()
