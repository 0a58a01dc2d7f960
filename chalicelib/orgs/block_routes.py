"""An organization's blocks: block, unblock, list (Forgejo's ``organization`` tag and
scope; its owners only, as Forgejo's ``reqOrgOwnership``: 403 "Must be an organization
owner" for anyone else who can see the organization, 404 for who cannot).

The organization is the blocker: a user it blocks is refused on every repository it
owns, as by a user's own block.  The rules and the record are the accounts domain's
(``accounts.blocks``); these handlers only decide who may act for the organization.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.orgs import service
from chalicelib.orgs.request import ORG, current_org

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
OWNERS = dict(ORG, signed_in=True)
CHANGE_RESPONSES = {204: "empty", 404: "notFound", 422: "validationError"}


def _owned_org(req: ApiRequest):
    org = current_org(req)
    service.require_owner(org, req.actor)
    return org


@route("GET", "/orgs/{org}/list_blocked", "orgListBlockedUsers",
       summary="List the organization's blocked users", query=PAGE,
       responses={200: "BlockedUserList"}, **OWNERS)
def list_blocked(req: ApiRequest) -> ApiResponse:
    found = accounts.blocked_users(_owned_org(req))
    return paging.paged_json(req, found, accounts.blocked_user_record)


@route("PUT", "/orgs/{org}/block/{username}", "orgBlockUser",
       summary="Blocks a user from the organization", responses=CHANGE_RESPONSES, **OWNERS)
def block_user(req: ApiRequest) -> ApiResponse:
    accounts.block_user(req.actor, _owned_org(req), req.params["username"])
    return ApiResponse.empty()


@route("PUT", "/orgs/{org}/unblock/{username}", "orgUnblockUser",
       summary="Unblock a user from the organization", responses=CHANGE_RESPONSES, **OWNERS)
def unblock_user(req: ApiRequest) -> ApiResponse:
    accounts.unblock_user(req.actor, _owned_org(req), req.params["username"])
    return ApiResponse.empty()
