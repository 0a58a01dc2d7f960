"""Avatars (Forgejo's ``user``, ``organization`` and ``repository`` tags): upload and
delete a user's, an organization's or a repository's picture; and the pictures
themselves, ``GET /avatars/<key>`` outside /api/v1, where every ``avatar_url`` points
(``links``).

The API routes read what their area reads (the caller; the organization by name; the
repository with the caller's access), then store the picture (one PutObject), write
the item (one conditional write) and remove the picture it replaces (one
DeleteObject).  A picture's URL is public, as Forgejo's ``/avatars/<hash>``: the route
reads no credential (a browser's ``<img>`` sends none), costs nothing for an identicon
and one GetObject for an upload, and answers ``Cache-Control: immutable`` because the
URL changes with the picture.
"""
from __future__ import annotations

from chalicelib.avatars import service
from chalicelib.avatars.options import UpdateRepoAvatarOption, UpdateUserAvatarOption
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import TOKEN, route
from chalicelib.orgs import ORG, current_org
from chalicelib.repos import IN_REPO, current_repo

USER = dict(tag="user", scope="user", signed_in=True)
# Refusals of an upload (service.decoded, images.normalized): not base64, too many
# bytes, not a picture.
UPLOAD_ERRORS = {400: "error", 413: "error", 422: "validationError"}
# A year: whatever a URL answers never changes (its key carries the content hash).
CACHE_CONTROL = "public, max-age=31536000, immutable"


@route("POST", "/user/avatar", "userUpdateAvatar", summary="Update avatar of the current user",
       body="UpdateUserAvatarOption",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", **UPLOAD_ERRORS},
       **USER)
def update_user_avatar(req: ApiRequest) -> ApiResponse:
    service.update_account_avatar(req.actor, req.option(UpdateUserAvatarOption))
    return ApiResponse.empty()


@route("DELETE", "/user/avatar", "userDeleteAvatar",
       summary="Delete avatar of the current user. It will be replaced by a default one",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden"}, **USER)
def delete_user_avatar(req: ApiRequest) -> ApiResponse:
    service.delete_account_avatar(req.actor)
    return ApiResponse.empty()


@route("POST", "/orgs/{org}/avatar", "orgUpdateAvatar", summary="Update an organization's avatar",
       signed_in=True, body="UpdateUserAvatarOption",
       responses={204: "empty", 403: "forbidden", 404: "notFound", **UPLOAD_ERRORS}, **ORG)
def update_org_avatar(req: ApiRequest) -> ApiResponse:
    service.update_org_avatar(req.actor, current_org(req), req.option(UpdateUserAvatarOption))
    return ApiResponse.empty()


@route("DELETE", "/orgs/{org}/avatar", "orgDeleteAvatar",
       summary="Delete an organization's avatar. It will be replaced by a default one",
       signed_in=True, responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ORG)
def delete_org_avatar(req: ApiRequest) -> ApiResponse:
    service.delete_org_avatar(req.actor, current_org(req))
    return ApiResponse.empty()


@route("POST", "/repos/{owner}/{repo}/avatar", "repoUpdateAvatar",
       summary="Update a repository's avatar", signed_in=True, body="UpdateRepoAvatarOption",
       responses={204: "empty", 403: "forbidden", 404: "notFound", **UPLOAD_ERRORS},
       **IN_REPO)
def update_repo_avatar(req: ApiRequest) -> ApiResponse:
    service.update_repo_avatar(current_repo(req), req.option(UpdateRepoAvatarOption))
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/avatar", "repoDeleteAvatar",
       summary="Delete a repository's avatar", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **IN_REPO)
def delete_repo_avatar(req: ApiRequest) -> ApiResponse:
    service.delete_repo_avatar(current_repo(req))
    return ApiResponse.empty()


@route("GET", "/avatars/{key}", "getAvatar", tag="miscellaneous", raw=True, in_swagger=False,
       credentials=TOKEN, scope=None, produces=("image/png",),
       responses={200: "empty", 404: "notFound"})
def get_avatar(req: ApiRequest) -> ApiResponse:
    return ApiResponse(status=200, body=service.served(req.params["key"]), headers={
        "Content-Type": "image/png", "Cache-Control": CACHE_CONTROL})
