"""E-mail addresses (Forgejo's ``user`` and ``admin`` tags): the signed-in user's list,
add and delete, and the site admin's lists and deletion.

A user's list is the caller's token and account and one Query of the account's
partition; an add is those and one transaction (no read: the claims decide); the site
admin's list of every address is one Query of the address index and one batched read
of the page's accounts.
"""
from __future__ import annotations

from chalicelib.accounts import emails
from chalicelib.accounts import records as account_records
from chalicelib.accounts.options import CreateEmailOption, DeleteEmailOption
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
USER = dict(tag="user", scope="user", signed_in=True)
ADMIN = dict(tag="admin", scope="admin", site_admin=True)


def _listed(found, status: int = 200) -> ApiResponse:
    return ApiResponse.json([account_records.email(a) for a in found], status=status)


@route("GET", "/user/emails", "userListEmails",
       summary="List all email addresses of the current user",
       responses={200: "EmailList", 401: "unauthorized", 403: "forbidden"}, **USER)
def list_emails(req: ApiRequest) -> ApiResponse:
    return _listed(emails.own_addresses(req.actor))


@route("POST", "/user/emails", "userAddEmail",
       summary="Add an email addresses to the current user's account",
       body="CreateEmailOption",
       responses={201: "EmailList", 401: "unauthorized", 403: "forbidden",
                  422: "validationError"}, **USER)
def add_emails(req: ApiRequest) -> ApiResponse:
    added = emails.add_addresses(req.actor, req.option(CreateEmailOption).emails or None)
    return _listed(added, status=201)


@route("DELETE", "/user/emails", "userDeleteEmail",
       summary="Delete email addresses from the current user's account",
       body="DeleteEmailOption",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def delete_emails(req: ApiRequest) -> ApiResponse:
    option = req.option(DeleteEmailOption, required=False)
    emails.delete_own_addresses(req.actor, option.emails or None)
    return ApiResponse.empty()


def _every(req: ApiRequest, keyword: str) -> ApiResponse:
    page = paging.page_of(req)
    found, total = emails.every_address(req.actor, keyword, page.offset, page.limit)
    return paging.set_headers(_listed(found), req, page, total)


@route("GET", "/admin/emails", "adminGetAllEmails", summary="List all users' email addresses",
       query=PAGE, responses={200: "EmailList", 403: "forbidden"}, **ADMIN)
def all_emails(req: ApiRequest) -> ApiResponse:
    return _every(req, "")


@route("GET", "/admin/emails/search", "adminSearchEmails",
       summary="Search users' email addresses",
       query=(Param("q", "string", "keyword"), *PAGE),
       responses={200: "EmailList", 403: "forbidden"}, **ADMIN)
def search_emails(req: ApiRequest) -> ApiResponse:
    return _every(req, req.arg("q") or "")


@route("GET", "/admin/users/{username}/emails", "adminListUserEmails",
       summary="List all email addresses for a user",
       responses={200: "EmailList", 403: "forbidden", 404: "notFound"}, **ADMIN)
def user_emails(req: ApiRequest) -> ApiResponse:
    return _listed(emails.user_addresses(req.actor, req.params["username"]))


@route("DELETE", "/admin/users/{username}/emails", "adminDeleteUserEmails",
       summary="Delete email addresses from a user's account", body="DeleteEmailOption",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **ADMIN)
def delete_user_emails(req: ApiRequest) -> ApiResponse:
    option = req.option(DeleteEmailOption, required=False)
    emails.delete_user_addresses(req.actor, req.params["username"], option.emails or None)
    return ApiResponse.empty()
