"""Site administration: users, their keys and their access tokens (organizations and
repositories land with their own areas)."""
from __future__ import annotations

from chalicelib.accounts import public_keys, tokens
from chalicelib.accounts import records as account_records
from chalicelib.accounts import routes as users
from chalicelib.accounts import service as accounts
from chalicelib.accounts.options import (CreateAccessTokenOption, CreateKeyOption,
                                        CreateUserOption, EditUserOption)
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

ADMIN = dict(tag="admin", scope="admin", site_admin=True)


@route("GET", "/admin/users", "adminSearchUsers", summary="Search users according filter conditions",
       query=(Param("source_id", "integer", "ID of the user's login source to search for"),
              Param("login_name", "string", "user's login name to search for"),
              Param("is_2fa_enabled", "boolean", "whether or not to filter users with the 2fa "
                                                 "enabled"),
              Param("q", "string", "keyword"), users.SORT, *users.PAGE),
       responses={200: "UserList", 403: "forbidden"}, **ADMIN)
def search_users(req: ApiRequest) -> ApiResponse:
    shown, page, total = users.users_page(req)
    return paging.set_headers(ApiResponse.json(shown), req, page, total)


@route("POST", "/admin/users", "adminCreateUser", summary="Create a user account",
       body="CreateUserOption",
       responses={201: "User", 400: "error", 403: "forbidden", 422: "validationError"}, **ADMIN)
def create_user(req: ApiRequest) -> ApiResponse:
    account = accounts.create_user(req.actor, req.option(CreateUserOption))
    return ApiResponse.json(account_records.user(account, req.actor), status=201)


@route("PATCH", "/admin/users/{username}", "adminEditUser", summary="Edit an existing user",
       body="EditUserOption",
       responses={200: "User", 400: "error", 403: "forbidden", 422: "validationError"}, **ADMIN)
def edit_user(req: ApiRequest) -> ApiResponse:
    account = accounts.edit_user(req.actor, req.params["username"],
                                 req.option(EditUserOption, required=False))
    return ApiResponse.json(account_records.user(account, req.actor))


@route("DELETE", "/admin/users/{username}", "adminDeleteUser", summary="Delete user account",
       query=(Param("purge", "boolean", "purge the user from the system completely"),),
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **ADMIN)
def delete_user(req: ApiRequest) -> ApiResponse:
    accounts.delete_user(req.actor, req.params["username"])
    return ApiResponse.empty()


@route("POST", "/admin/users/{username}/keys", "adminCreatePublicKey",
       summary="Add an SSH public key to user's account", body="CreateKeyOption",
       responses={201: "PublicKey", 403: "forbidden", 422: "validationError"}, **ADMIN)
def create_public_key(req: ApiRequest) -> ApiResponse:
    key, owner = public_keys.add_key(req.actor, req.params["username"],
                                     req.option(CreateKeyOption))
    return ApiResponse.json(account_records.public_key(key, owner, req.actor), status=201)


@route("DELETE", "/admin/users/{username}/keys/{id}", "adminDeleteUserPublicKey",
       summary="Remove a public key from user's account",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ADMIN)
def delete_public_key(req: ApiRequest) -> ApiResponse:
    public_keys.delete_key(req.actor, req.params["username"], req.int_param("id"))
    return ApiResponse.empty()


# Access tokens of any user.  The token service's reqSelfOrAdmin lets a site admin act on
# anyone, and the route already refused everyone else (reqSiteAdmin), so these share it
# with the user variants.  Unlike userCreateToken, no password login is needed: Forgejo's
# admin group takes any credential of a site admin with the admin scope, as
# adminCreatePublicKey does.
@route("GET", "/admin/users/{username}/tokens", "adminListUserAccessTokens",
       summary="List the specified user's access tokens", query=users.PAGE,
       responses={200: "AccessTokenList", 403: "forbidden", 404: "notFound"}, **ADMIN)
def list_tokens(req: ApiRequest) -> ApiResponse:
    found = tokens.list_tokens(req.actor, req.params["username"])
    return paging.paged_json(req, found, account_records.access_token)


@route("POST", "/admin/users/{username}/tokens", "adminCreateUserAccessToken",
       summary="Create an access token for the specified user",
       body="CreateAccessTokenOption",
       responses={201: "AccessToken", 400: "error", 403: "forbidden", 404: "notFound"},
       **ADMIN)
def create_token(req: ApiRequest) -> ApiResponse:
    token, secret = tokens.create_token(req.actor, req.params["username"],
                                       req.option(CreateAccessTokenOption))
    return ApiResponse.json(account_records.access_token(token, secret), status=201)


@route("DELETE", "/admin/users/{username}/tokens/{token}", "adminDeleteUserAccessToken",
       summary="Delete an access token for the specified user",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "error"}, **ADMIN)
def delete_token(req: ApiRequest) -> ApiResponse:
    tokens.delete_token(req.actor, req.params["username"], req.params["token"])
    return ApiResponse.empty()
