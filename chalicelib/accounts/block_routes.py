"""The signed-in user's blocks: block, unblock, list (Forgejo's ``user`` tag, the user
scope, a token needed: its ``/user`` group).

A block costs the token, the caller and the target's name (the name index, one Query),
one batch read of the follows between the two and one transaction; an unblock one
delete; the list one Query of the caller's partition.  Organizations share the rules
and the record (``orgs.block_routes``).
"""
from __future__ import annotations

from chalicelib.accounts import blocks
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
USER = dict(tag="user", scope="user", signed_in=True)
CHANGE_RESPONSES = {204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                    422: "validationError"}


def blocked_list(req: ApiRequest, blocker) -> ApiResponse:
    return paging.paged_json(req, blocks.blocked_users(blocker), blocks.blocked_user_record)


@route("GET", "/user/list_blocked", "userListBlockedUsers",
       summary="List the authenticated user's blocked users", query=PAGE,
       responses={200: "BlockedUserList", 401: "unauthorized", 403: "forbidden"}, **USER)
def list_blocked(req: ApiRequest) -> ApiResponse:
    return blocked_list(req, req.actor)


@route("PUT", "/user/block/{username}", "userBlockUser", summary="Blocks a user from the doer",
       responses=CHANGE_RESPONSES, **USER)
def block_user(req: ApiRequest) -> ApiResponse:
    blocks.block_user(req.actor, req.actor, req.params["username"])
    return ApiResponse.empty()


@route("PUT", "/user/unblock/{username}", "userUnblockUser",
       summary="Unblocks a user from the doer", responses=CHANGE_RESPONSES, **USER)
def unblock_user(req: ApiRequest) -> ApiResponse:
    blocks.unblock_user(req.actor, req.actor, req.params["username"])
    return ApiResponse.empty()
