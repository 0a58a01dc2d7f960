"""The signed-in user's own webhooks (``/user/hooks``; fj:routers/api/v1/user/hook.go).

A user hook receives the events of every repository the user owns, as an organization's
hooks receive its repositories' (``service.hooks_in_scope``).  Scope ``user``; the
records, validation texts and status codes are the repository and organization hooks'
(``webhooks/routes.py``); a hook id that is not the caller's is not found (404).
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import PAGE
from chalicelib.webhooks import hook_records
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.options import CreateHookOption, EditHookOption, hook_option

MINE = {401: "unauthorized", 403: "forbidden"}
ONE = {**MINE, 404: "notFound"}
WRITE = {**ONE, 422: "validationError"}


def own_hook_preload(req: ApiRequest, user_id: int | None) -> list:
    """The caller's hook the path names, read in one batch with the caller's account."""
    if user_id is None or "id" not in req.params:
        return []
    return hooks.hook_keys(hooks.Scope("user", int(user_id)), req.params["id"])


USER_HOOKS = dict(tag="user", scope="user", signed_in=True)
ONE_HOOK = dict(USER_HOOKS, preload_more=own_hook_preload)


def mine(req: ApiRequest) -> hooks.Scope:
    return hooks.user_scope(req.actor)


@route("GET", "/user/hooks", "userListHooks", summary="List the authenticated user's webhooks",
       query=PAGE, responses={200: "HookList", **MINE}, **USER_HOOKS)
def user_list_hooks(req: ApiRequest) -> ApiResponse:
    return paging.paged_json(req, hooks.list_hooks(mine(req)), hook_records.hook)


@route("POST", "/user/hooks", "userCreateHook", summary="Create a hook",
       body="CreateHookOption", responses={201: "Hook", 400: "error", **MINE,
                                           422: "validationError"}, **USER_HOOKS)
def user_create_hook(req: ApiRequest) -> ApiResponse:
    option = hook_option(CreateHookOption, req.json())
    hook = hooks.create_hook(req.actor, mine(req), option)
    return ApiResponse.json(hook_records.hook(hook), status=201)


@route("GET", "/user/hooks/{id}", "userGetHook", summary="Get a hook",
       responses={200: "Hook", **ONE}, **ONE_HOOK)
def user_get_hook(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(hook_records.hook(hooks.get_hook(mine(req), req.int_param("id"))))


@route("PATCH", "/user/hooks/{id}", "userEditHook", summary="Update a hook",
       body="EditHookOption", responses={200: "Hook", 400: "error", **WRITE}, **ONE_HOOK)
def user_edit_hook(req: ApiRequest) -> ApiResponse:
    hook_id = req.int_param("id")
    option = hook_option(EditHookOption, req.json(required=False))
    return ApiResponse.json(hook_records.hook(hooks.edit_hook(req.actor, mine(req), hook_id,
                                                              option)))


@route("DELETE", "/user/hooks/{id}", "userDeleteHook", summary="Delete a hook",
       responses={204: "empty", **ONE}, **ONE_HOOK)
def user_delete_hook(req: ApiRequest) -> ApiResponse:
    hooks.delete_hook(req.actor, mine(req), req.int_param("id"))
    return ApiResponse.empty()
