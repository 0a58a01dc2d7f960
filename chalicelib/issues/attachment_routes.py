"""Attachments of issues and comments (Forgejo's ``issue`` tag): list, upload, get, edit,
delete; and, for files larger than a Lambda request, the presigned upload the release
attachments have (our extension: start, PUT the bytes to the URL, confirm).  Rules in
``attachments``; downloads go through ``/attachments/<uuid>`` (the releases' route
serves both kinds).

Every route reads the repository with the token, then the caller's access items with
the tracker and what the path names (the issue, or a comment's lookup item; a comment
itself and its issue come one BatchGetItem later).  The records live inside the issue
or comment, so a list or a get reads nothing more.  Uploads take
``multipart/form-data`` (field ``attachment``) or a raw body with ``?name=``.
"""
from __future__ import annotations

from chalicelib.http import uploads
from chalicelib.http.errors import BadRequest
from chalicelib.http.formats import rfc3339
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.http.uploads import EditAttachmentOptions
from chalicelib.issues import attachments, records
from chalicelib.issues.attachments import Where
from chalicelib.issues.request import ISSUE, ctx_of

SIGNED = dict(ISSUE, signed_in=True)
ISSUE_PATH = "/repos/{owner}/{repo}/issues/{index}/assets"
COMMENT_PATH = "/repos/{owner}/{repo}/issues/comments/{id}/assets"
ONE = "/{attachment_id}"
UPLOAD_QUERY = (Param("name", "string", "name of the attachment"),
                Param("updated_at", "string", "time of the attachment's creation. This is a "
                                              "timestamp in RFC 3339 format"),
                Param("attachment", "file", "attachment to upload", location="formData"))
PRESIGN_QUERY = (Param("name", "string", "name of the attachment", required=True),
                 Param("size", "integer", "size of the file in bytes", required=True))
READ_ANSWERS = {200: "Attachment", 404: "notFound"}
WRITE_ANSWERS = {201: "Attachment", 400: "error", 403: "forbidden", 404: "notFound",
                 413: "error", 422: "validationError", 423: "error"}
DELETE_ANSWERS = {204: "empty", 403: "forbidden", 404: "notFound", 423: "error"}
# What the issue's and the comment's variant of each route declare alike.
LISTING = dict(responses={200: "AttachmentList", 404: "notFound"}, **ISSUE)
READING = dict(responses=READ_ANSWERS, **ISSUE)
UPLOADING = dict(consumes=("multipart/form-data", "application/octet-stream"),
                 query=UPLOAD_QUERY, responses=WRITE_ANSWERS, **SIGNED)
PRESIGNING = dict(query=PRESIGN_QUERY, responses=WRITE_ANSWERS, **SIGNED)
CONFIRMING = dict(responses=WRITE_ANSWERS, **SIGNED)
EDITING = dict(body="EditAttachmentOptions", responses=WRITE_ANSWERS, **SIGNED)
DELETING = dict(responses=DELETE_ANSWERS, **SIGNED)
PENDING_NOTE = ("(Nimbus): answers the pending Attachment with upload_url, where to PUT "
                "the bytes, then confirm")


def _on_issue(req: ApiRequest):
    ctx = ctx_of(req)
    return ctx, attachments.on_issue(ctx, req.int_param("index"))


def _on_comment(req: ApiRequest):
    ctx = ctx_of(req)
    return ctx, attachments.on_comment(ctx, req.int_param("id"))


def _list(where: Where) -> ApiResponse:
    return ApiResponse.json([records.attachment(a) for a in attachments.list_attachments(where)])


def _create(req: ApiRequest, ctx, where: Where) -> ApiResponse:
    name, data, _external = uploads.upload_input(req)
    if data is None:
        raise BadRequest("'attachment' is required: the file to upload")
    found = attachments.upload(ctx, where, name=name, data=data,
                               updated_at=(req.arg("updated_at") or "").strip() or None)
    return ApiResponse.json(records.attachment(found), status=201)


def _start(req: ApiRequest, ctx, where: Where) -> ApiResponse:
    raw_size = (req.arg("size") or "").strip()
    if not raw_size.isdigit():
        raise BadRequest("Missing 'size' parameter: the number of bytes to upload")
    found = attachments.start_upload(ctx, where, name=(req.arg("name") or "").strip(),
                                     size=int(raw_size))
    return ApiResponse.json({**records.attachment(found.attachment), "upload_url": found.url,
                             "upload_method": "PUT",
                             "upload_expires_at": rfc3339(found.expires_at)},
                            status=201)


def _confirm(req: ApiRequest, ctx, where: Where) -> ApiResponse:
    found = attachments.confirm_upload(ctx, where, req.int_param("attachment_id"))
    return ApiResponse.json(records.attachment(found), status=201)


def _get(req: ApiRequest, where: Where) -> ApiResponse:
    return ApiResponse.json(records.attachment(
        attachments.get_attachment(where, req.int_param("attachment_id"))))


def _delete(req: ApiRequest, ctx, where: Where) -> ApiResponse:
    attachments.delete(ctx, where, req.int_param("attachment_id"))
    return ApiResponse.empty()


def _edit(req: ApiRequest, ctx, where: Where) -> ApiResponse:
    option = req.option(EditAttachmentOptions, required=False)
    found = attachments.edit(ctx, where, req.int_param("attachment_id"), option)
    return ApiResponse.json(records.attachment(found), status=201)


# An issue's attachments ---------------------------------------------------------------------

@route("GET", ISSUE_PATH, "issueListIssueAttachments", summary="List issue's attachments",
       **LISTING)
def list_issue_attachments(req: ApiRequest) -> ApiResponse:
    return _list(_on_issue(req)[1])


@route("POST", ISSUE_PATH, "issueCreateIssueAttachment", summary="Create an issue attachment",
       **UPLOADING)
def create_issue_attachment(req: ApiRequest) -> ApiResponse:
    return _create(req, *_on_issue(req))


@route("POST", ISSUE_PATH + "/upload", "issueCreateIssueAttachmentUpload",
       summary=f"Start a presigned upload of an issue attachment {PENDING_NOTE}", **PRESIGNING)
def start_issue_upload(req: ApiRequest) -> ApiResponse:
    return _start(req, *_on_issue(req))


@route("POST", ISSUE_PATH + ONE + "/confirm", "issueConfirmIssueAttachmentUpload",
       summary="Finish a presigned upload of an issue attachment (Nimbus)", **CONFIRMING)
def confirm_issue_upload(req: ApiRequest) -> ApiResponse:
    return _confirm(req, *_on_issue(req))


@route("GET", ISSUE_PATH + ONE, "issueGetIssueAttachment", summary="Get an issue attachment",
       **READING)
def get_issue_attachment(req: ApiRequest) -> ApiResponse:
    return _get(req, _on_issue(req)[1])


@route("PATCH", ISSUE_PATH + ONE, "issueEditIssueAttachment",
       summary="Edit an issue attachment", **EDITING)
def edit_issue_attachment(req: ApiRequest) -> ApiResponse:
    return _edit(req, *_on_issue(req))


@route("DELETE", ISSUE_PATH + ONE, "issueDeleteIssueAttachment",
       summary="Delete an issue attachment", **DELETING)
def delete_issue_attachment(req: ApiRequest) -> ApiResponse:
    return _delete(req, *_on_issue(req))


# A comment's attachments --------------------------------------------------------------------

@route("GET", COMMENT_PATH, "issueListIssueCommentAttachments",
       summary="List comment's attachments", **LISTING)
def list_comment_attachments(req: ApiRequest) -> ApiResponse:
    return _list(_on_comment(req)[1])


@route("POST", COMMENT_PATH, "issueCreateIssueCommentAttachment",
       summary="Create a comment attachment", **UPLOADING)
def create_comment_attachment(req: ApiRequest) -> ApiResponse:
    return _create(req, *_on_comment(req))


@route("POST", COMMENT_PATH + "/upload", "issueCreateIssueCommentAttachmentUpload",
       summary=f"Start a presigned upload of a comment attachment {PENDING_NOTE}",
       **PRESIGNING)
def start_comment_upload(req: ApiRequest) -> ApiResponse:
    return _start(req, *_on_comment(req))


@route("POST", COMMENT_PATH + ONE + "/confirm", "issueConfirmIssueCommentAttachmentUpload",
       summary="Finish a presigned upload of a comment attachment (Nimbus)", **CONFIRMING)
def confirm_comment_upload(req: ApiRequest) -> ApiResponse:
    return _confirm(req, *_on_comment(req))


@route("GET", COMMENT_PATH + ONE, "issueGetIssueCommentAttachment",
       summary="Get a comment attachment", **READING)
def get_comment_attachment(req: ApiRequest) -> ApiResponse:
    return _get(req, _on_comment(req)[1])


@route("PATCH", COMMENT_PATH + ONE, "issueEditIssueCommentAttachment",
       summary="Edit a comment attachment", **EDITING)
def edit_comment_attachment(req: ApiRequest) -> ApiResponse:
    return _edit(req, *_on_comment(req))


@route("DELETE", COMMENT_PATH + ONE, "issueDeleteIssueCommentAttachment",
       summary="Delete a comment attachment", **DELETING)
def delete_comment_attachment(req: ApiRequest) -> ApiResponse:
    return _delete(req, *_on_comment(req))
