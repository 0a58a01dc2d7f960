"""Quota administration (site admins; Forgejo's ``/admin/quota/…`` and
``/admin/users/{username}/quota…``).  Absent (404) while ``[quota] ENABLED`` is off.

Admin views name groups and rules; ``{username}`` may name an organization too (both
are accounts in Forgejo).  ``adminRemoveRuleFromQuotaGroup`` answers 204 as Forgejo
does (its description says 201).
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.quota import admin as quota_admin
from chalicelib.quota import service as quota
from chalicelib.quota.options import (CreateQuotaGroupOptions, CreateQuotaRuleOptions,
                                      EditQuotaRuleOptions, SetUserQuotaGroupsOptions)
from chalicelib.quota.records import group_record, info_record, rule_record

ADMIN = dict(tag="admin", scope="admin", site_admin=True, available=quota.enabled)
NAMED = dict(ADMIN, preload=lambda req: quota.name_keys(req.params["username"]),
             preload_more=lambda req, user_id: quota.account_keys(req.params["username"], None))
DENIED = {400: "error", 403: "forbidden"}
MISSING = {**DENIED, 404: "notFound"}


def _rule(found) -> ApiResponse:
    return ApiResponse.json(rule_record(found, names=True))


def _group(found, status: int = 200) -> ApiResponse:
    return ApiResponse.json(group_record(found, names=True), status=status)


@route("GET", "/admin/quota/rules", "adminListQuotaRules", summary="List the available "
       "quota rules", responses={200: "QuotaRuleInfoList", 403: "forbidden"}, **ADMIN)
def list_rules(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json([rule_record(r, names=True) for r in quota_admin.list_rules()])


@route("POST", "/admin/quota/rules", "adminCreateQuotaRule", summary="Create a new quota "
       "rule", body="CreateQuotaRuleOptions",
       responses={201: "QuotaRuleInfo", **DENIED, 409: "error", 422: "validationError"},
       **ADMIN)
def create_rule(req: ApiRequest) -> ApiResponse:
    created = quota_admin.create_rule(req.option(CreateQuotaRuleOptions))
    return ApiResponse.json(rule_record(created, names=True), status=201)


@route("GET", "/admin/quota/rules/{quotarule}", "adminGetQuotaRule", summary="Get "
       "information about a quota rule", responses={200: "QuotaRuleInfo", **MISSING}, **ADMIN)
def get_rule(req: ApiRequest) -> ApiResponse:
    return _rule(quota_admin.get_rule(req.params["quotarule"]))


@route("PATCH", "/admin/quota/rules/{quotarule}", "adminEditQuotaRule", summary="Change "
       "an existing quota rule", body="EditQuotaRuleOptions",
       responses={200: "QuotaRuleInfo", **MISSING, 422: "validationError"}, **ADMIN)
def edit_rule(req: ApiRequest) -> ApiResponse:
    return _rule(quota_admin.edit_rule(req.params["quotarule"],
                                       req.option(EditQuotaRuleOptions, required=False)))


@route("DELETE", "/admin/quota/rules/{quotarule}", "adminDeleteQuotaRule", summary="Deletes "
       "a quota rule", responses={204: "empty", **MISSING}, **ADMIN)
def delete_rule(req: ApiRequest) -> ApiResponse:
    quota_admin.delete_rule(req.params["quotarule"])
    return ApiResponse.empty()


@route("GET", "/admin/quota/groups", "adminListQuotaGroups", summary="List the available "
       "quota groups", responses={200: "QuotaGroupList", 403: "forbidden"}, **ADMIN)
def list_groups(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json([group_record(g, names=True) for g in quota_admin.list_groups()])


@route("POST", "/admin/quota/groups", "adminCreateQuotaGroup", summary="Create a new quota "
       "group", body="CreateQuotaGroupOptions",
       responses={201: "QuotaGroup", **DENIED, 409: "error", 422: "validationError"}, **ADMIN)
def create_group(req: ApiRequest) -> ApiResponse:
    return _group(quota_admin.create_group(req.option(CreateQuotaGroupOptions)), status=201)


@route("GET", "/admin/quota/groups/{quotagroup}", "adminGetQuotaGroup", summary="Get "
       "information about the quota group", responses={200: "QuotaGroup", **MISSING}, **ADMIN)
def get_group(req: ApiRequest) -> ApiResponse:
    return _group(quota_admin.get_group(req.params["quotagroup"]))


@route("DELETE", "/admin/quota/groups/{quotagroup}", "adminDeleteQuotaGroup", summary="Delete "
       "a quota group", responses={204: "empty", **MISSING}, **ADMIN)
def delete_group(req: ApiRequest) -> ApiResponse:
    quota_admin.delete_group(req.params["quotagroup"])
    return ApiResponse.empty()


@route("PUT", "/admin/quota/groups/{quotagroup}/rules/{quotarule}", "adminAddRuleToQuotaGroup",
       summary="Adds a rule to a quota group",
       responses={204: "empty", **MISSING, 409: "error", 422: "validationError"}, **ADMIN)
def add_rule(req: ApiRequest) -> ApiResponse:
    quota_admin.add_rule(req.params["quotagroup"], req.params["quotarule"])
    return ApiResponse.empty()


@route("DELETE", "/admin/quota/groups/{quotagroup}/rules/{quotarule}",
       "adminRemoveRuleFromQuotaGroup", summary="Removes a rule from a quota group",
       responses={204: "empty", **MISSING}, **ADMIN)
def remove_rule(req: ApiRequest) -> ApiResponse:
    quota_admin.remove_rule(req.params["quotagroup"], req.params["quotarule"])
    return ApiResponse.empty()


@route("GET", "/admin/quota/groups/{quotagroup}/users", "adminListUsersInQuotaGroup",
       summary="List users in a quota group", responses={200: "UserList", **MISSING}, **ADMIN)
def list_members(req: ApiRequest) -> ApiResponse:
    found = quota_admin.group_members(req.params["quotagroup"])
    return paging.paged_json(req, found, lambda a: accounts.user_record(a, req.actor))


def _account(req: ApiRequest):
    return quota.account_for_admin(req.params["username"])


@route("PUT", "/admin/quota/groups/{quotagroup}/users/{username}", "adminAddUserToQuotaGroup",
       summary="Add a user to a quota group",
       responses={204: "empty", **MISSING, 409: "error", 422: "validationError"}, **NAMED)
def add_member(req: ApiRequest) -> ApiResponse:
    quota_admin.add_member(req.params["quotagroup"], _account(req))
    return ApiResponse.empty()


@route("DELETE", "/admin/quota/groups/{quotagroup}/users/{username}",
       "adminRemoveUserFromQuotaGroup", summary="Remove a user from a quota group",
       responses={204: "empty", **MISSING}, **NAMED)
def remove_member(req: ApiRequest) -> ApiResponse:
    quota_admin.remove_member(req.params["quotagroup"], _account(req))
    return ApiResponse.empty()


@route("GET", "/admin/users/{username}/quota", "adminGetUserQuota", summary="Get the user's "
       "quota info", responses={200: "QuotaInfo", **MISSING, 422: "validationError"}, **NAMED)
def get_user_quota(req: ApiRequest) -> ApiResponse:
    found = quota.info(int(_account(req).id))
    return ApiResponse.json(info_record(found, names=True))


@route("POST", "/admin/users/{username}/quota/groups", "adminSetUserQuotaGroups",
       summary="Set the user's quota groups to a given list.", body="SetUserQuotaGroupsOptions",
       responses={204: "empty", **MISSING, 422: "validationError"}, **NAMED)
def set_user_groups(req: ApiRequest) -> ApiResponse:
    quota_admin.set_groups(_account(req), req.option(SetUserQuotaGroupsOptions))
    return ApiResponse.empty()
