"""A user's OAuth2 applications (Forgejo's ``user`` tag, routers/api/v1/user/app.go):
list, create, read, edit, delete.  The signed-in user's own only, with the ``user``
scope; another user's application answers 404 as one that does not exist."""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.oauth2 import applications, records
from chalicelib.oauth2.options import CreateOAuth2ApplicationOptions

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))
OWN = dict(tag="user", scope="user", signed_in=True)
ONE = dict(OWN, preload_more=lambda req, user_id: applications.preload_keys(
    user_id, req.params.get("id", "")))


def _app_id(req: ApiRequest) -> int:
    raw = req.params["id"]
    return int(raw) if raw.isdigit() else 0


@route("GET", "/user/applications/oauth2", "userGetOAuth2Applications",
       summary="List the authenticated user's oauth2 applications", query=PAGE,
       responses={200: "OAuth2ApplicationList", 401: "unauthorized", 403: "forbidden"}, **OWN)
def list_applications(req: ApiRequest) -> ApiResponse:
    return paging.paged_json(req, applications.list_apps(req.actor), records.oauth2_application)


@route("POST", "/user/applications/oauth2", "userCreateOAuth2Application",
       summary="Creates a new OAuth2 application", body="CreateOAuth2ApplicationOptions",
       responses={201: "OAuth2Application", 400: "error", 401: "unauthorized",
                  403: "forbidden"}, **OWN)
def create_application(req: ApiRequest) -> ApiResponse:
    app, secret = applications.create_app(req.actor, req.option(CreateOAuth2ApplicationOptions))
    return ApiResponse.json(records.oauth2_application(app, secret), status=201)


@route("GET", "/user/applications/oauth2/{id}", "userGetOAuth2Application",
       summary="Get an OAuth2 application",
       responses={200: "OAuth2Application", 401: "unauthorized", 403: "forbidden",
                  404: "notFound"}, **ONE)
def get_application(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(records.oauth2_application(
        applications.get_app(req.actor, _app_id(req))))


@route("PATCH", "/user/applications/oauth2/{id}", "userUpdateOAuth2Application",
       summary="Update an OAuth2 application, this includes regenerating the client secret",
       body="CreateOAuth2ApplicationOptions",
       responses={200: "OAuth2Application", 401: "unauthorized", 403: "forbidden",
                  404: "notFound"}, **ONE)
def edit_application(req: ApiRequest) -> ApiResponse:
    app, secret = applications.edit_app(req.actor, _app_id(req),
                                        req.option(CreateOAuth2ApplicationOptions))
    return ApiResponse.json(records.oauth2_application(app, secret))


@route("DELETE", "/user/applications/oauth2/{id}", "userDeleteOAuth2Application",
       summary="Delete an OAuth2 application",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"}, **ONE)
def delete_application(req: ApiRequest) -> ApiResponse:
    applications.delete_app(req.actor, _app_id(req))
    return ApiResponse.empty()
