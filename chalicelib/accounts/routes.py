"""Users as seen by users: the current user, profiles, tokens and public keys."""
from __future__ import annotations

from chalicelib.accounts import public_keys, tokens
from chalicelib.accounts import records as account_records
from chalicelib.accounts import search as user_search
from chalicelib.accounts import service as accounts
from chalicelib.accounts.options import CreateAccessTokenOption, CreateKeyOption
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
KEY_QUERY = (Param("fingerprint", "string", "fingerprint of the key"), *PAGE)
USER = dict(tag="user", scope="user")


def own_key_preload(req: ApiRequest, user_id: int | None) -> list:
    return public_keys.preload_keys(user_id, req.params["id"])


@route("GET", "/user", "userGetCurrent", summary="Get the authenticated user",
       signed_in=True, responses={200: "User", 401: "unauthorized", 403: "forbidden"}, **USER)
def get_current(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(account_records.user(req.actor, req.actor))


SORT = Param("sort", "string", "sort order of results: oldest, newest, alphabetically "
                               "(default), reversealphabetically, recentupdate, leastupdate")


def _number(req: ApiRequest, name: str) -> int:
    """Forgejo's ``FormInt64``: junk reads as 0."""
    try:
        return int(req.arg(name) or 0)
    except ValueError:
        return 0


def user_query(req: ApiRequest) -> user_search.UserQuery:
    """The filters of adminSearchUsers and userSearch, as Forgejo reads them (trimmed)."""
    two_factor = (req.arg("is_2fa_enabled") or "").strip().lower()
    return user_search.UserQuery(
        keyword=(req.arg("q") or "").strip(), uid=_number(req, "uid"),
        login_name=(req.arg("login_name") or "").strip(), source_id=_number(req, "source_id"),
        two_factor={"true": True, "false": False}.get(two_factor),
        sort=(req.arg("sort") or "").strip().lower())


def users_page(req: ApiRequest):
    """(the page of users the caller may see that match, the page, the bounded total)."""
    page = paging.page_of(req)
    found, total = user_search.search(req.actor, user_query(req), page.offset, page.limit)
    return [account_records.user(a, req.actor) for a in found], page, total


# Before userGet: routes match in order, and "search" would otherwise be a user name.
@route("GET", "/users/search", "userSearch", summary="Search for users",
       query=(Param("q", "string", "keyword"),
              Param("uid", "integer", "ID of the user to search for"), SORT, *PAGE),
       responses={200: "UserSearchResults"}, **USER)
def search_users(req: ApiRequest) -> ApiResponse:
    shown, page, total = users_page(req)
    return paging.set_headers(ApiResponse.json({"ok": True, "data": shown}), req, page, total)


@route("GET", "/users/{username}", "userGet", summary="Get a user",
       responses={200: "User", 404: "notFound"}, **USER)
def get_user(req: ApiRequest) -> ApiResponse:
    account = accounts.get_visible_user(req.actor, req.params["username"])
    return ApiResponse.json(account_records.user(account, req.actor))


@route("GET", "/users/{username}/tokens", "userGetTokens",
       summary="List the specified user's access tokens", signed_in=True, query=PAGE,
       responses={200: "AccessTokenList", 403: "forbidden", 404: "notFound"}, **USER)
def list_tokens(req: ApiRequest) -> ApiResponse:
    found = tokens.list_tokens(req.actor, req.params["username"])
    return paging.paged_json(req, found, account_records.access_token)


@route("POST", "/users/{username}/tokens", "userCreateToken",
       summary="Generate an access token for the specified user", basic_auth_only=True,
       body="CreateAccessTokenOption",
       responses={201: "AccessToken", 400: "error", 403: "forbidden", 404: "notFound"}, **USER)
def create_token(req: ApiRequest) -> ApiResponse:
    token, secret = tokens.create_token(req.actor, req.params["username"],
                                       req.option(CreateAccessTokenOption))
    return ApiResponse.json(account_records.access_token(token, secret), status=201)


@route("DELETE", "/users/{username}/tokens/{token}", "userDeleteAccessToken",
       summary="Delete an access token from the specified user's account",
       basic_auth_only=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "error"}, **USER)
def delete_token(req: ApiRequest) -> ApiResponse:
    tokens.delete_token(req.actor, req.params["username"], req.params["token"])
    return ApiResponse.empty()


def _keys_response(req: ApiRequest, owner) -> ApiResponse:
    found = public_keys.list_keys(owner)
    fingerprint = req.arg("fingerprint")
    if fingerprint:
        found = [k for k in found if k.fingerprint == fingerprint]
    return paging.paged_json(req, found, lambda k: account_records.public_key(k, owner, req.actor))


@route("GET", "/user/keys", "userCurrentListKeys",
       summary="List the authenticated user's public keys", signed_in=True, query=KEY_QUERY,
       responses={200: "PublicKeyList", 401: "unauthorized", 403: "forbidden"}, **USER)
def list_own_keys(req: ApiRequest) -> ApiResponse:
    return _keys_response(req, req.actor)


@route("GET", "/users/{username}/keys", "userListKeys",
       summary="List the given user's public keys", query=KEY_QUERY,
       responses={200: "PublicKeyList", 404: "notFound"}, **USER)
def list_user_keys(req: ApiRequest) -> ApiResponse:
    return _keys_response(req, accounts.get_visible_user(req.actor, req.params["username"]))


@route("POST", "/user/keys", "userCurrentPostKey", summary="Create a public key",
       signed_in=True, body="CreateKeyOption",
       responses={201: "PublicKey", 401: "unauthorized", 403: "forbidden",
                  422: "validationError"}, **USER)
def add_own_key(req: ApiRequest) -> ApiResponse:
    key, owner = public_keys.add_key(req.actor, req.actor.login, req.option(CreateKeyOption))
    return ApiResponse.json(account_records.public_key(key, owner, req.actor), status=201)


@route("GET", "/user/keys/{id}", "userCurrentGetKey", summary="Get a public key",
       signed_in=True, preload_more=own_key_preload,
       responses={200: "PublicKey", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def get_own_key(req: ApiRequest) -> ApiResponse:
    key = public_keys.get_key(req.actor, req.int_param("id"))
    return ApiResponse.json(account_records.public_key(key, req.actor, req.actor))


@route("DELETE", "/user/keys/{id}", "userCurrentDeleteKey", summary="Delete a public key",
       signed_in=True, preload_more=own_key_preload,
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def delete_own_key(req: ApiRequest) -> ApiResponse:
    public_keys.delete_key(req.actor, req.actor.login, req.int_param("id"))
    return ApiResponse.empty()
