"""Users' GPG keys (``/user/gpg_keys``, ``/users/{username}/gpg_keys``)."""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.signing.options import CreateGPGKeyOption
from chalicelib.signing.records import gpg_key_record

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
USER = dict(tag="user", scope="user")


def own_key_preload(req: ApiRequest, user_id: int | None) -> list:
    from chalicelib.signing import gpg_keys

    return gpg_keys.preload_keys(user_id, req.params["id"])


@route("GET", "/user/gpg_keys", "userCurrentListGPGKeys",
       summary="List the authenticated user's GPG keys", signed_in=True, query=PAGE,
       responses={200: "GPGKeyList", 401: "unauthorized", 403: "forbidden"}, **USER)
def list_own(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_keys

    return paging.paged_json(req, gpg_keys.list_keys(req.actor), gpg_key_record)


@route("POST", "/user/gpg_keys", "userCurrentPostGPGKey",
       summary="Add a GPG public key to current user's account", signed_in=True,
       body="CreateGPGKeyOption",
       responses={201: "GPGKey", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **USER)
def create(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_keys

    option = req.option(CreateGPGKeyOption)
    return ApiResponse.json(gpg_key_record(gpg_keys.add_key(req.actor, option)), status=201)


@route("GET", "/user/gpg_keys/{id}", "userCurrentGetGPGKey", summary="Get a GPG key",
       signed_in=True, preload_more=own_key_preload,
       responses={200: "GPGKey", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def get_own(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_keys

    return ApiResponse.json(gpg_key_record(gpg_keys.get_key(req.actor, req.int_param("id"))))


@route("DELETE", "/user/gpg_keys/{id}", "userCurrentDeleteGPGKey",
       summary="Remove a GPG public key from current user's account", signed_in=True,
       preload_more=own_key_preload,
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **USER)
def delete_own(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_keys

    gpg_keys.delete_key(req.actor, req.int_param("id"))
    return ApiResponse.empty()


@route("GET", "/users/{username}/gpg_keys", "userListGPGKeys",
       summary="List the given user's GPG keys", query=PAGE,
       responses={200: "GPGKeyList", 404: "notFound"}, **USER)
def list_for_user(req: ApiRequest) -> ApiResponse:
    from chalicelib.signing import gpg_keys

    found, _ = gpg_keys.list_for(req.actor, req.params["username"])
    return paging.paged_json(req, found, gpg_key_record)
