"""Quota of the signed-in user and of organizations (Forgejo's ``/user/quota…`` and
``/orgs/{org}/quota…``; seed §4.4), and the records every quota route sends.

With ``[quota] ENABLED`` off these routes do not exist (404 before authentication), as
in Forgejo.  ``orgGetQuota`` costs three AWS calls: the token with the organization's
name claim, then the caller, the organization, the caller's membership and the
organization's usage item, then one Query of the rules and groups.  Organization routes
need an owner of the organization (403 for anyone else; 404 when the caller may not see
it or it does not exist).  Packages and artifacts are not hosted here: their lists are
always empty.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.quota import service as quota
from chalicelib.quota.records import attachment_record, info_record
from chalicelib.repos import PAGE

# Records -------------------------------------------------------------------------------------

# Routes ----------------------------------------------------------------------------------------

SUBJECT = (Param("subject", "string", "subject of the quota", required=True),)
QUOTA = dict(signed_in=True, available=quota.enabled)
USER = dict(QUOTA, tag="user", scope="user",
            preload_more=lambda req, user_id: quota.usage_keys(user_id))
ORG = dict(QUOTA, tag="organization", scope="organization",
           preload=lambda req: quota.name_keys(req.params["org"]),
           preload_more=lambda req, user_id: quota.account_keys(req.params["org"], user_id))
USER_ANSWERS = {401: "unauthorized", 403: "forbidden"}
ORG_ANSWERS = {403: "forbidden", 404: "notFound"}


def _org_id(req: ApiRequest) -> int:
    return int(quota.org_for_quota(req.actor, req.params["org"]).id)


def _info(owner_id: int) -> ApiResponse:
    return ApiResponse.json(info_record(quota.info(owner_id), names=False))


def _check(req: ApiRequest, owner_id: int) -> ApiResponse:
    return ApiResponse.json(quota.check(owner_id, req.arg("subject") or ""))


def _attachments(req: ApiRequest, owner_id: int) -> ApiResponse:
    return paging.paged_json(req, quota.attachments_of(owner_id), attachment_record)


def _nothing(req: ApiRequest) -> ApiResponse:
    """Packages and artifacts: none are hosted here."""
    return paging.paged_json(req, [], dict)


@route("GET", "/user/quota", "userGetQuota", summary="Get quota information for the "
       "authenticated user", responses={200: "QuotaInfo", **USER_ANSWERS}, **USER)
def user_get_quota(req: ApiRequest) -> ApiResponse:
    return _info(int(req.actor.id))


@route("GET", "/user/quota/check", "userCheckQuota", summary="Check if the authenticated "
       "user is over quota for a given subject", query=SUBJECT,
       responses={200: "boolean", **USER_ANSWERS, 422: "validationError"}, **USER)
def user_check_quota(req: ApiRequest) -> ApiResponse:
    return _check(req, int(req.actor.id))


@route("GET", "/user/quota/attachments", "userListQuotaAttachments",
       summary="List the attachments affecting the authenticated user's quota", query=PAGE,
       responses={200: "QuotaUsedAttachmentList", **USER_ANSWERS}, **USER)
def user_quota_attachments(req: ApiRequest) -> ApiResponse:
    return _attachments(req, int(req.actor.id))


@route("GET", "/user/quota/packages", "userListQuotaPackages",
       summary="List the packages affecting the authenticated user's quota", query=PAGE,
       responses={200: "QuotaUsedPackageList", **USER_ANSWERS}, **USER)
def user_quota_packages(req: ApiRequest) -> ApiResponse:
    return _nothing(req)


@route("GET", "/user/quota/artifacts", "userListQuotaArtifacts",
       summary="List the artifacts affecting the authenticated user's quota", query=PAGE,
       responses={200: "QuotaUsedArtifactList", **USER_ANSWERS}, **USER)
def user_quota_artifacts(req: ApiRequest) -> ApiResponse:
    return _nothing(req)


@route("GET", "/orgs/{org}/quota", "orgGetQuota", summary="Get quota information for an "
       "organization", responses={200: "QuotaInfo", **ORG_ANSWERS}, **ORG)
def org_get_quota(req: ApiRequest) -> ApiResponse:
    return _info(_org_id(req))


@route("GET", "/orgs/{org}/quota/check", "orgCheckQuota", summary="Check if the "
       "organization is over quota for a given subject", query=SUBJECT,
       responses={200: "boolean", **ORG_ANSWERS, 422: "validationError"}, **ORG)
def org_check_quota(req: ApiRequest) -> ApiResponse:
    return _check(req, _org_id(req))


@route("GET", "/orgs/{org}/quota/attachments", "orgListQuotaAttachments",
       summary="List the attachments affecting the organization's quota", query=PAGE,
       responses={200: "QuotaUsedAttachmentList", **ORG_ANSWERS}, **ORG)
def org_quota_attachments(req: ApiRequest) -> ApiResponse:
    return _attachments(req, _org_id(req))


@route("GET", "/orgs/{org}/quota/packages", "orgListQuotaPackages",
       summary="List the packages affecting the organization's quota", query=PAGE,
       responses={200: "QuotaUsedPackageList", **ORG_ANSWERS}, **ORG)
def org_quota_packages(req: ApiRequest) -> ApiResponse:
    _org_id(req)
    return _nothing(req)


@route("GET", "/orgs/{org}/quota/artifacts", "orgListQuotaArtifacts",
       summary="List the artifacts affecting the organization's quota", query=PAGE,
       responses={200: "QuotaUsedArtifactList", **ORG_ANSWERS}, **ORG)
def org_quota_artifacts(req: ApiRequest) -> ApiResponse:
    _org_id(req)
    return _nothing(req)
