"""Branch and tag protection (Forgejo's ``repository`` tag): list, create, get, edit,
delete a repository's rules; repository admins only.

Every route reads the repository with the token (first batch), then the caller's access
items with the repository's rules item (second batch): a read costs those two calls
plus the names of the users and teams listed (one batched read each); a write one
conditional put more.

``{name}`` may hold slashes (a rule such as ``release/*``): Forgejo routes on the
escaped path, here the path arrives decoded and the parameter takes the rest of it.
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.protection import records
from chalicelib.protection import service as svc
from chalicelib.protection.options import (CreateBranchProtectionOption, CreateTagProtectionOption,
                                           EditBranchProtectionOption, EditTagProtectionOption)
from chalicelib.repos import IN_REPO, caller, current_repo, repo_preload


def _preload_more(req: ApiRequest, user_id: int | None) -> list:
    return svc.preload_more_keys(req.params["owner"], req.params["repo"], user_id)


RULES = dict(IN_REPO, preload=repo_preload, preload_more=_preload_more, signed_in=True)
BRANCHES = "/repos/{owner}/{repo}/branch_protections"
TAGS = "/repos/{owner}/{repo}/tag_protections"
READ = {403: "forbidden", 404: "notFound"}
WRITE = {**READ, 422: "validationError", 423: "error"}


def _branch(view, rule) -> dict:
    return records.branch_protection(rule, svc.names_for(view, [rule]))


def _tag(view, rule) -> dict:
    return records.tag_protection(rule, svc.names_for(view, tag_rules=[rule]))


@route("GET", BRANCHES, "repoListBranchProtection",
       summary="List branch protections for a repository",
       responses={200: "BranchProtectionList", **READ}, **RULES)
def list_branch_protections(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rules = svc.list_branch_rules(view, caller(req))
    names = svc.names_for(view, rules)
    return ApiResponse.json([records.branch_protection(r, names) for r in rules])


@route("POST", BRANCHES, "repoCreateBranchProtection",
       summary="Create a branch protections for a repository",
       body="CreateBranchProtectionOption",
       responses={201: "BranchProtection", **WRITE}, **RULES)
def create_branch_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rule = svc.create_branch_rule(view, caller(req), req.option(CreateBranchProtectionOption))
    return ApiResponse.json(_branch(view, rule), status=201)


@route("GET", BRANCHES + "/{name:path}", "repoGetBranchProtection",
       summary="Get a specific branch protection for the repository",
       responses={200: "BranchProtection", **READ}, **RULES)
def get_branch_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(_branch(view, svc.get_branch_rule(view, caller(req),
                                                              req.params["name"])))


@route("PATCH", BRANCHES + "/{name:path}", "repoEditBranchProtection",
       summary="Edit a branch protections for a repository. Only fields that are set will "
               "be changed", body="EditBranchProtectionOption",
       responses={200: "BranchProtection", **WRITE}, **RULES)
def edit_branch_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rule = svc.edit_branch_rule(view, caller(req), req.params["name"],
                                req.option(EditBranchProtectionOption))
    return ApiResponse.json(_branch(view, rule))


@route("DELETE", BRANCHES + "/{name:path}", "repoDeleteBranchProtection",
       summary="Delete a specific branch protection for the repository",
       responses={204: "empty", **READ, 423: "error"}, **RULES)
def delete_branch_protection(req: ApiRequest) -> ApiResponse:
    svc.delete_branch_rule(current_repo(req), caller(req), req.params["name"])
    return ApiResponse.empty()


@route("GET", TAGS, "repoListTagProtection",
       summary="List tag protections for a repository",
       responses={200: "TagProtectionList", **READ}, **RULES)
def list_tag_protections(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rules = svc.list_tag_rules(view, caller(req))
    names = svc.names_for(view, tag_rules=rules)
    return ApiResponse.json([records.tag_protection(r, names) for r in rules])


@route("POST", TAGS, "repoCreateTagProtection",
       summary="Create a tag protections for a repository", body="CreateTagProtectionOption",
       responses={201: "TagProtection", **WRITE}, **RULES)
def create_tag_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rule = svc.create_tag_rule(view, caller(req), req.option(CreateTagProtectionOption))
    return ApiResponse.json(_tag(view, rule), status=201)


@route("GET", TAGS + "/{id}", "repoGetTagProtection",
       summary="Get a specific tag protection for the repository",
       responses={200: "TagProtection", **READ}, **RULES)
def get_tag_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(_tag(view, svc.get_tag_rule(view, caller(req),
                                                        req.int_param("id"))))


@route("PATCH", TAGS + "/{id}", "repoEditTagProtection",
       summary="Edit a tag protections for a repository. Only fields that are set will be "
               "changed", body="EditTagProtectionOption",
       responses={200: "TagProtection", **WRITE}, **RULES)
def edit_tag_protection(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    rule = svc.edit_tag_rule(view, caller(req), req.int_param("id"),
                             req.option(EditTagProtectionOption))
    return ApiResponse.json(_tag(view, rule))


@route("DELETE", TAGS + "/{id}", "repoDeleteTagProtection",
       summary="Delete a specific tag protection for the repository",
       responses={204: "empty", **READ, 423: "error"}, **RULES)
def delete_tag_protection(req: ApiRequest) -> ApiResponse:
    svc.delete_tag_rule(current_repo(req), caller(req), req.int_param("id"))
    return ApiResponse.empty()
