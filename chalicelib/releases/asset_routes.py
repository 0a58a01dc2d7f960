"""Release attachments (Forgejo's ``repository`` tag): list, upload, get, edit, delete;
the presigned upload for files larger than a Lambda request (our extension, README
"Release attachments"); and ``browser_download_url`` itself, ``GET /attachments/<uuid>``
outside /api/v1, as Forgejo serves it.

Routes that name an attachment read the repository with the token, then the caller's
access items with the release and the attachment items (second batch): getting one
costs those two calls.  Uploads take ``multipart/form-data`` (field ``attachment``, or
``external_url``), a raw body with ``?name=``, or ``external_url`` as a form or JSON field.
"""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.http import input_rules, uploads
from chalicelib.http.errors import BadRequest
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import DOWNLOAD, Param, route
from chalicelib.releases import assets as release_files
from chalicelib.releases import records as release_records
from chalicelib.releases import service as releases
from chalicelib.releases.options import EditAttachmentOptions
from chalicelib.releases.request import RELEASES, ctx_of
from chalicelib.repos import caller


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _preload_more(req: ApiRequest, user_id: int | None) -> list:
    return releases.preload_more_keys(
        req.params["owner"], req.params["repo"], user_id,
        release_id=_int_or_none(req.params.get("id")),
        asset_id=_int_or_none(req.params.get("attachment_id")))


ASSETS = dict(RELEASES, preload_more=_preload_more)
SIGNED = dict(ASSETS, signed_in=True)


def _asset_in(req: ApiRequest):
    return ctx_of(req), req.int_param("id"), req.int_param("attachment_id")


@route("GET", "/repos/{owner}/{repo}/releases/{id}/assets", "repoListReleaseAttachments",
       summary="List release's attachments",
       responses={200: "AttachmentList", 404: "notFound"}, **ASSETS)
def list_attachments(req: ApiRequest) -> ApiResponse:
    release_id = req.int_param("id")
    found = release_files.list_assets(ctx_of(req), release_id)
    return ApiResponse.json([release_records.attachment(a) for a in found])


@route("POST", "/repos/{owner}/{repo}/releases/{id}/assets", "repoCreateReleaseAttachment",
       summary="Create a release attachment",
       consumes=("multipart/form-data", "application/octet-stream"),
       query=(Param("name", "string", "name of the attachment"),
              Param("attachment", "file", "attachment to upload (this parameter is "
                                          "incompatible with `external_url`)",
                    location="formData"),
              Param("external_url", "string", "url to external asset (this parameter is "
                                              "incompatible with `attachment`)",
                    location="formData")),
       responses={201: "Attachment", 400: "error", 403: "forbidden", 404: "notFound",
                  413: "error", 422: "validationError", 423: "error"}, **SIGNED)
def create_attachment(req: ApiRequest) -> ApiResponse:
    release_id = req.int_param("id")
    name, data, external = uploads.upload_input(req)
    ctx = ctx_of(req)
    if data is not None and external:
        raise BadRequest("'attachment' and 'external_url' are mutually exclusive")
    if data is not None:
        asset = release_files.upload(ctx, release_id, name=name, data=data)
    elif external:
        asset = release_files.add_external(ctx, release_id, name=name, url=external)
    else:
        raise BadRequest("One of 'attachment' or 'external_url' is required")
    return ApiResponse.json(release_records.attachment(asset), status=201)


@route("POST", "/repos/{owner}/{repo}/releases/{id}/assets/upload",
       "repoCreateReleaseAttachmentUpload",
       summary="Start a presigned upload of a release attachment (Nimbus): answers the "
               "pending Attachment with upload_url, where to PUT the bytes, then confirm",
       query=(Param("name", "string", "name of the attachment", required=True),
              Param("size", "integer", "size of the file in bytes", required=True)),
       responses={201: "Attachment", 400: "error", 403: "forbidden", 404: "notFound",
                  413: "error", 422: "validationError", 423: "error"}, **SIGNED)
def start_upload(req: ApiRequest) -> ApiResponse:
    release_id = req.int_param("id")
    raw_size = (req.arg("size") or "").strip()
    if not raw_size.isdigit():
        raise BadRequest("Missing 'size' parameter: the number of bytes to upload")
    found = release_files.start_upload(ctx_of(req), release_id,
                                       name=(req.arg("name") or "").strip(), size=int(raw_size))
    return ApiResponse.json(release_records.upload(found), status=201)


@route("POST", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}/confirm",
       "repoConfirmReleaseAttachmentUpload",
       summary="Finish a presigned upload of a release attachment (Nimbus)",
       responses={201: "Attachment", 403: "forbidden", 404: "notFound", 413: "error",
                  422: "validationError", 423: "error"}, **SIGNED)
def confirm_upload(req: ApiRequest) -> ApiResponse:
    ctx, release_id, asset_id = _asset_in(req)
    asset = release_files.confirm_upload(ctx, release_id, asset_id)
    return ApiResponse.json(release_records.attachment(asset), status=201)


@route("GET", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}",
       "repoGetReleaseAttachment", summary="Get a release attachment",
       responses={200: "Attachment", 404: "notFound"}, **ASSETS)
def get_attachment(req: ApiRequest) -> ApiResponse:
    ctx, release_id, asset_id = _asset_in(req)
    return ApiResponse.json(release_records.attachment(
        release_files.get_asset(ctx, release_id, asset_id)))


@route("PATCH", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}",
       "repoEditReleaseAttachment", summary="Edit a release attachment",
       body="EditAttachmentOptions",
       responses={201: "Attachment", 400: "error", 403: "forbidden", 404: "notFound",
                  413: "error", 422: "validationError", 423: "error"}, **SIGNED)
def edit_attachment(req: ApiRequest) -> ApiResponse:
    option = req.option(EditAttachmentOptions, required=False)
    ctx, release_id, asset_id = _asset_in(req)
    asset = release_files.edit_asset(ctx, release_id, asset_id, option)
    return ApiResponse.json(release_records.attachment(asset), status=201)


@route("DELETE", "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}",
       "repoDeleteReleaseAttachment", summary="Delete a release attachment",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 423: "error"}, **SIGNED)
def delete_attachment(req: ApiRequest) -> ApiResponse:
    ctx, release_id, asset_id = _asset_in(req)
    release_files.delete_asset(ctx, release_id, asset_id)
    return ApiResponse.empty()


# browser_download_url ---------------------------------------------------------------------

def _download_preload(req: ApiRequest) -> list:
    return release_files.download_preload(req.params["uuid"])


def _download_preload_more(req: ApiRequest, user_id: int | None) -> list:
    return release_files.download_preload_more(req.params["uuid"], user_id)


@route("GET", "/attachments/{uuid}", "downloadAttachment", tag="repository",
       scope="repository", credentials=DOWNLOAD, raw=True, in_swagger=False,
       preload=_download_preload,
       preload_more=_download_preload_more,
       produces=("application/octet-stream",), responses={200: "empty", 302: "redirect",
                                                         404: "notFound"})
def download(req: ApiRequest) -> ApiResponse:
    """The bytes, or a 302 to S3 (files past a Lambda response) or to an external link.
    A HEAD is not counted as a download."""
    found = release_files.download(caller(req), req.params["uuid"], count=req.method != "HEAD")
    if found.url is not None:
        if not input_rules.is_valid_url(found.url):
            # A link stored before URLs were checked on input: never a Location.
            raise NotFoundError("the attachment's link is not an http(s) URL")
        return ApiResponse(status=302, headers={"Location": found.url})
    return ApiResponse(status=200, body=found.data, headers={
        "Content-Type": "application/octet-stream",
        "Content-Disposition": release_files.content_disposition(found.name)})
