"""The audit log's two lists: the instance's for site admins, an organization's for its
owners (Nimbus extensions; docs/extensions.md "Audit log").

``/admin/audit_log`` is declared as the other ``/admin`` routes (site admins, ``admin``
scope); ``/orgs/{org}/audit_log`` as the organization's owner-only routes (``organization``
scope; Forgejo's ``reqOrgOwnership``): 403 "Must be an organization owner" to a member
or anyone else who can see the organization, 404 to who cannot, 401 anonymously.  A
page is one Query of one index partition (one GetItem more to resolve a ``repo`` or
``actor`` filter), after the gateway's reads of the caller (and the organization).
"""
from __future__ import annotations

from chalicelib import orgs, repos
from chalicelib.audit import records, service
from chalicelib.errors import PermissionDenied
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

FILTERS = (
    Param("actor", "string", "only the changes made by this user (login)"),
    Param("repo", "string", "only the changes to this repository (owner/name; within an "
                            "organization its name is enough)"),
    Param("action", "string", "only this action (repository.edited), or every action of a "
                              "kind (repository)"),
    Param("since", "string", "only changes at or after this time (RFC 3339 or Unix seconds)"),
    Param("until", "string", "only changes at or before this time (RFC 3339 or Unix seconds)"),
    Param("page", "integer", "page number of results to return (1-based)"),
    Param("limit", "integer", "page size of results"),
)
ADMIN = {"tag": "admin", "scope": "admin", "site_admin": True}
OWNERS = dict(orgs.ORG, signed_in=True)


def _query(req: ApiRequest) -> service.AuditQuery:
    return service.query_of(req.arg("actor"), req.arg("repo"), req.arg("action"),
                            req.arg("since"), req.arg("until"))


def _answer(req: ApiRequest, page: paging.Page, shown: list, total: int) -> ApiResponse:
    resp = ApiResponse.json([records.audit_entry(entry) for entry in shown])
    return paging.set_headers(resp, req, page, total)


@route("GET", "/admin/audit_log", "adminListAuditLog",
       summary="List the instance's audit log (a Nimbus extension)", query=FILTERS,
       responses={200: "AuditLogEntryList", 403: "forbidden", 422: "validationError"},
       **ADMIN)
def admin_list_audit_log(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    shown, total = service.instance_page(_query(req), offset=page.offset, limit=page.limit)
    return _answer(req, page, shown, total)


@route("GET", "/orgs/{org}/audit_log", "orgListAuditLog",
       summary="List an organization's audit log (a Nimbus extension)", query=FILTERS,
       responses={200: "AuditLogEntryList", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **OWNERS)
def org_list_audit_log(req: ApiRequest) -> ApiResponse:
    org = orgs.current_org(req)
    if not repos.is_org_owner(org, req.actor):
        raise PermissionDenied("Must be an organization owner")
    page = paging.page_of(req)
    shown, total = service.org_page(org, _query(req), offset=page.offset, limit=page.limit)
    return _answer(req, page, shown, total)
