"""Deleted repositories kept restorable (a Nimbus extension, ``repository`` tag):
``GET /repos/deleted`` lists an owner's (``?owner=``; the owner's admins and site
admins) or everyone's (site admins), ``POST /repos/deleted/{id}/restore`` brings one
back (201 with the Repository).  The rules are ``deletion``'s; ``docs/extensions.md``
documents both.  Registered before the repository's own routes (``areas.py``):
``/repos/deleted`` would otherwise read as an owner's path."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repo_admin import deletion
from chalicelib.repo_admin.deleted_records import deleted_repository
from chalicelib.repo_admin.lifecycle_options import RestoreDeletedRepoOption
from chalicelib.repos import PAGE, REPO, caller

SIGNED_IN = dict(REPO, signed_in=True)


@route("GET", "/repos/deleted", "repoListDeleted",
       summary="List deleted repositories that can still be restored",
       query=(Param("owner", "string", "the owner whose deleted repositories to list "
                                       "(site admins may leave it out: every owner's)"),
              *PAGE),
       responses={200: "DeletedRepositoryList", 401: "unauthorized", 403: "forbidden",
                  404: "notFound"}, **SIGNED_IN)
def list_deleted(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    shown, total = deletion.list_deleted(caller(req), (req.arg("owner") or "").strip() or None,
                                         offset=page.offset, limit=page.limit)
    return paging.set_headers(ApiResponse.json([deleted_repository(item) for item in shown]),
                              req, page, total)


@route("POST", "/repos/deleted/{id}/restore", "repoRestoreDeleted",
       summary="Restore a deleted repository", body="RestoreDeletedRepoOption",
       responses={201: "Repository", 401: "unauthorized", 403: "forbidden",
                  404: "notFound", 409: "conflict", 422: "validationError"}, **SIGNED_IN)
def restore_deleted(req: ApiRequest) -> ApiResponse:
    try:
        repo_id = int(req.params["id"])
    except ValueError:
        raise NotFoundError(f"{deletion.NOT_DELETED} [id: {req.params['id']}]") from None
    option = req.option(RestoreDeletedRepoOption, required=False)
    name = option.name if isinstance(option.name, str) else None
    view = deletion.restore(caller(req), repo_id, name)
    return ApiResponse.json(repos.repository_record(view, req.actor), status=201)
