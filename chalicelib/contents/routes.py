"""The contents API (Forgejo's ``repository`` tag): read a path at a ref, and create,
update or delete files, one commit per request (``contents/service.py``)."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.contents import records as content_records
from chalicelib.contents import service as contents
from chalicelib.contents.file_routes import REF
from chalicelib.contents.options import (ChangeFilesOptions, CreateFileOptions, DeleteFileOptions,
                                         UpdateFileOptions)
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, current_repo

SIGNED = dict(IN_REPO, signed_in=True)
WRITE_ERRORS = {403: "forbidden", 404: "notFound", 409: "conflict", 413: "quotaExceeded",
                422: "validationError"}


def _urls(view) -> tuple[str, str]:
    return (repos.repo_html_url(view),
            repos.repo_api_url(view.owner.login, view.repo.name))


def _read(req: ApiRequest, path: str) -> ApiResponse:
    view = current_repo(req)
    at, found = contents.get_contents(view, path, req.arg("ref"))
    html_repo, api_repo = _urls(view)
    if isinstance(found, list):
        return ApiResponse.json([content_records.contents(e, at, html_repo, api_repo)
                                 for e in found])
    return ApiResponse.json(content_records.contents(found, at, html_repo, api_repo))


@route("GET", "/repos/{owner}/{repo}/contents", "repoGetContentsList",
       summary="Gets the metadata of all the entries of the root dir", query=REF,
       responses={200: "ContentsResponseList", 404: "notFound"}, **IN_REPO)
def get_contents_list(req: ApiRequest) -> ApiResponse:
    return _read(req, "")


@route("GET", "/repos/{owner}/{repo}/contents/{filepath:path}", "repoGetContents",
       summary="Gets the metadata and contents (if a file) of an entry in a repository, or "
               "a list of entries if a dir", query=REF,
       responses={200: "ContentsResponse", 404: "notFound"}, **IN_REPO)
def get_contents(req: ApiRequest) -> ApiResponse:
    return _read(req, req.params["filepath"])


def _write_one(req: ApiRequest,
               body: type[CreateFileOptions | UpdateFileOptions | DeleteFileOptions],
               status: int) -> ApiResponse:
    view = current_repo(req)
    written = contents.change_one(view, req.actor, req.option(body), req.params["filepath"])
    return ApiResponse.json(content_records.file_response(written, *_urls(view)),
                            status=status)


@route("POST", "/repos/{owner}/{repo}/contents/{filepath:path}", "repoCreateFile",
       summary="Create a file in a repository", body="CreateFileOptions",
       responses={201: "FileResponse", **WRITE_ERRORS}, **SIGNED)
def create_file(req: ApiRequest) -> ApiResponse:
    return _write_one(req, CreateFileOptions, 201)


@route("PUT", "/repos/{owner}/{repo}/contents/{filepath:path}", "repoUpdateFile",
       summary="Update a file in a repository", body="UpdateFileOptions",
       responses={200: "FileResponse", **WRITE_ERRORS}, **SIGNED)
def update_file(req: ApiRequest) -> ApiResponse:
    return _write_one(req, UpdateFileOptions, 200)


@route("DELETE", "/repos/{owner}/{repo}/contents/{filepath:path}", "repoDeleteFile",
       summary="Delete a file in a repository", body="DeleteFileOptions",
       responses={200: "FileDeleteResponse", 400: "error", **WRITE_ERRORS}, **SIGNED)
def delete_file(req: ApiRequest) -> ApiResponse:
    return _write_one(req, DeleteFileOptions, 200)


@route("POST", "/repos/{owner}/{repo}/contents", "repoChangeFiles",
       summary="Modify multiple files in a repository", body="ChangeFilesOptions",
       responses={201: "FilesResponse", **WRITE_ERRORS}, **SIGNED)
def change_files(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    written = contents.change_files(view, req.actor, req.option(ChangeFilesOptions))
    return ApiResponse.json(content_records.files_response(written, *_urls(view)), status=201)

