"""Webhooks of repositories and organizations (the records; delivery is elsewhere).

Repository hooks need repo admin (403; an invisible repository is 404), organization
hooks an organization owner (403; an invisible organization is 404), system and
default hooks (``/admin/hooks``) a site admin.  Deliveries and ``repoTestHook`` are in
``webhooks/delivery_routes.py``.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, PAGE, current_repo
from chalicelib.webhooks import hook_records
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.options import CreateHookOption, EditHookOption, hook_option

REPO_HOOKS = dict(IN_REPO, signed_in=True)
ORG_HOOKS = dict(tag="organization", scope="organization", signed_in=True)
ONE = {403: "forbidden", 404: "notFound"}
WRITE = {**ONE, 422: "validationError"}


def repo_scope(req: ApiRequest) -> hooks.Scope:
    return hooks.repo_scope(current_repo(req))


def org_scope(req: ApiRequest) -> hooks.Scope:
    return hooks.org_scope(req.actor, req.params["org"])


def _list(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    return paging.paged_json(req, hooks.list_hooks(scope), hook_records.hook)


def _create(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    option = hook_option(CreateHookOption, req.json())
    return ApiResponse.json(hook_records.hook(hooks.create_hook(req.actor, scope, option)),
                            status=201)


def _get(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    return ApiResponse.json(hook_records.hook(hooks.get_hook(scope, req.int_param("id"))))


def _edit(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    hook_id = req.int_param("id")
    option = hook_option(EditHookOption, req.json(required=False))
    hook = hooks.edit_hook(req.actor, scope, hook_id, option)
    return ApiResponse.json(hook_records.hook(hook))


def _delete(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    hooks.delete_hook(req.actor, scope, req.int_param("id"))
    return ApiResponse.empty()


# --- repository hooks ----------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/hooks", "repoListHooks",
       summary="List the hooks in a repository", query=PAGE,
       responses={200: "HookList", **ONE}, **REPO_HOOKS)
def repo_list_hooks(req: ApiRequest) -> ApiResponse:
    return _list(req, repo_scope(req))


@route("POST", "/repos/{owner}/{repo}/hooks", "repoCreateHook", summary="Create a hook",
       body="CreateHookOption", responses={201: "Hook", 400: "error", **WRITE}, **REPO_HOOKS)
def repo_create_hook(req: ApiRequest) -> ApiResponse:
    return _create(req, repo_scope(req))


@route("GET", "/repos/{owner}/{repo}/hooks/{id}", "repoGetHook", summary="Get a hook",
       responses={200: "Hook", **ONE}, **REPO_HOOKS)
def repo_get_hook(req: ApiRequest) -> ApiResponse:
    return _get(req, repo_scope(req))


@route("PATCH", "/repos/{owner}/{repo}/hooks/{id}", "repoEditHook",
       summary="Edit a hook in a repository", body="EditHookOption",
       responses={200: "Hook", 400: "error", **WRITE}, **REPO_HOOKS)
def repo_edit_hook(req: ApiRequest) -> ApiResponse:
    return _edit(req, repo_scope(req))


@route("DELETE", "/repos/{owner}/{repo}/hooks/{id}", "repoDeleteHook",
       summary="Delete a hook in a repository", responses={204: "empty", **ONE}, **REPO_HOOKS)
def repo_delete_hook(req: ApiRequest) -> ApiResponse:
    return _delete(req, repo_scope(req))


# --- organization hooks --------------------------------------------------------------
# The seed serves orgCreateHook at /orgs/{org}/hooks/ (trailing slash); the router drops
# trailing slashes before matching, so this one route answers both spellings.

@route("GET", "/orgs/{org}/hooks", "orgListHooks", summary="List an organization's webhooks",
       query=PAGE, responses={200: "HookList", **ONE}, **ORG_HOOKS)
def org_list_hooks(req: ApiRequest) -> ApiResponse:
    return _list(req, org_scope(req))


@route("POST", "/orgs/{org}/hooks", "orgCreateHook", summary="Create a hook",
       body="CreateHookOption", responses={201: "Hook", 400: "error", **WRITE}, **ORG_HOOKS)
def org_create_hook(req: ApiRequest) -> ApiResponse:
    return _create(req, org_scope(req))


@route("GET", "/orgs/{org}/hooks/{id}", "orgGetHook", summary="Get a hook",
       responses={200: "Hook", **ONE}, **ORG_HOOKS)
def org_get_hook(req: ApiRequest) -> ApiResponse:
    return _get(req, org_scope(req))


@route("PATCH", "/orgs/{org}/hooks/{id}", "orgEditHook", summary="Update a hook",
       body="EditHookOption", responses={200: "Hook", 400: "error", **WRITE}, **ORG_HOOKS)
def org_edit_hook(req: ApiRequest) -> ApiResponse:
    return _edit(req, org_scope(req))


@route("DELETE", "/orgs/{org}/hooks/{id}", "orgDeleteHook", summary="Delete a hook",
       responses={204: "empty", **ONE}, **ORG_HOOKS)
def org_delete_hook(req: ApiRequest) -> ApiResponse:
    return _delete(req, org_scope(req))


# --- system and default hooks (Forgejo's /admin/hooks) -------------------------------
# config.is_system_webhook "true" makes a system hook (every repository's events);
# otherwise a default hook, which Forgejo copies into new repositories (not done here:
# they are kept and served, never fired).

ADMIN_HOOKS = dict(tag="admin", scope="admin", site_admin=True)


def system_scope(req: ApiRequest) -> hooks.Scope:
    return hooks.system_scope(req.actor)


@route("GET", "/admin/hooks", "adminListHooks", summary="List system's webhooks", query=PAGE,
       responses={200: "HookList"}, **ADMIN_HOOKS)
def admin_list_hooks(req: ApiRequest) -> ApiResponse:
    return _list(req, system_scope(req))


@route("POST", "/admin/hooks", "adminCreateHook", summary="Create a hook",
       body="CreateHookOption", responses={201: "Hook", 400: "error", **WRITE}, **ADMIN_HOOKS)
def admin_create_hook(req: ApiRequest) -> ApiResponse:
    return _create(req, system_scope(req))


@route("GET", "/admin/hooks/{id}", "adminGetHook", summary="Get a hook",
       responses={200: "Hook", **ONE}, **ADMIN_HOOKS)
def admin_get_hook(req: ApiRequest) -> ApiResponse:
    return _get(req, system_scope(req))


@route("PATCH", "/admin/hooks/{id}", "adminEditHook", summary="Update a hook",
       body="EditHookOption", responses={200: "Hook", 400: "error", **WRITE}, **ADMIN_HOOKS)
def admin_edit_hook(req: ApiRequest) -> ApiResponse:
    return _edit(req, system_scope(req))


@route("DELETE", "/admin/hooks/{id}", "adminDeleteHook", summary="Delete a hook",
       responses={204: "empty", **ONE}, **ADMIN_HOOKS)
def admin_delete_hook(req: ApiRequest) -> ApiResponse:
    return _delete(req, system_scope(req))
