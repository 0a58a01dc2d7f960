"""A repository's content: branches, raw and media files, .editorconfig, archives."""
from __future__ import annotations

from email.utils import formatdate
from urllib.parse import quote

from chalicelib import protection, releases
from chalicelib.contents import archives, branch_records, branches
from chalicelib.contents import files as repo_files
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo


def _branch_preload_more(req: ApiRequest, user_id: int | None) -> list:
    """The access items and the repository's protection rules, in one batch: a Branch
    record shows what the rule protecting it lets the caller do."""
    return protection.protection_preload_more_keys(req.params["owner"], req.params["repo"], user_id)


BRANCH_READ = dict(IN_REPO, preload_more=_branch_preload_more)
REF = (Param("ref", "string", "The name of the commit/branch/tag. Default the repository's "
                              "default branch"),)


@route("GET", "/repos/{owner}/{repo}/branches", "repoListBranches",
       summary="List a repository's branches", query=PAGE,
       responses={200: "BranchList"}, **BRANCH_READ)
def list_branches(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = branches.list_branches(view)
    page = paging.page_of(req)
    shown = page.slice(found)
    usernames = branches.usernames_for(shown)
    from chalicelib import signing
    signing.prefetch_signers(shown)  # signers' keys for the whole page in batched reads
    guard = protection.branch_guard(view, caller(req))
    resp = ApiResponse.json([branch_records.branch(b, view, usernames=usernames, guard=guard)
                             for b in shown])
    return paging.set_headers(resp, req, page, len(found))


@route("GET", "/repos/{owner}/{repo}/branches/{branch:path}", "repoGetBranch",
       summary="Retrieve a specific branch from a repository, including its effective "
               "branch protection", responses={200: "Branch", 404: "notFound"}, **BRANCH_READ)
def get_branch(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    info = branches.get_branch(view, req.params["branch"])
    return ApiResponse.json(branch_records.branch(
        info, view, usernames=branches.usernames_for([info]),
        guard=protection.branch_guard(view, caller(req))))


@route("GET", "/repos/{owner}/{repo}/raw/{filepath:path}", "repoGetRawFile",
       summary="Get a file from a repository", query=REF, produces=("application/octet-stream",),
       responses={200: "empty", 404: "notFound"}, **IN_REPO)
def get_raw_file(req: ApiRequest) -> ApiResponse:
    # A Git LFS file's pointer, as Forgejo's /raw answers it: /media has the object.
    view = current_repo(req)
    raw = repo_files.raw_file(view.repo, req.params["filepath"], req.arg("ref"))
    return ApiResponse(status=200, body=raw.content, headers=repo_files.download_headers(raw))


@route("GET", "/repos/{owner}/{repo}/media/{filepath:path}", "repoGetRawFileOrLFS",
       summary="Get a file or it's LFS object from a repository", query=REF,
       produces=("application/octet-stream",),
       responses={200: "empty", 404: "notFound"}, **IN_REPO)
def get_raw_file_or_lfs(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return media_answer(repo_files.media_file(view.repo, req.params["filepath"],
                                              req.arg("ref")))


def media_answer(file: repo_files.RawFile, disposition: str = "inline") -> ApiResponse:
    """A media file: its bytes, or the redirect to its LFS object in S3."""
    if file.url is not None:
        return ApiResponse(status=302, headers={"Location": file.url,
                                                "Cache-Control": "private, no-store"})
    return ApiResponse(status=200, body=file.content,
                       headers=repo_files.download_headers(file, disposition))


@route("GET", "/repos/{owner}/{repo}/editorconfig/{filepath:path}", "repoGetEditorConfig",
       summary="Get the EditorConfig definitions of a file in a repository", query=REF,
       responses={200: "empty", 404: "notFound"}, **IN_REPO)
def get_editorconfig(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(repo_files.editorconfig(view.repo, req.params["filepath"],
                                                    req.arg("ref")))


@route("GET", "/repos/{owner}/{repo}/archive/{archive:path}", "repoGetArchive",
       summary="Get an archive of a repository",
       produces=("application/octet-stream", "application/zip", "application/gzip"),
       responses={200: "empty", 404: "notFound"}, **IN_REPO)
def get_archive(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = archives.get_archive(view.repo, req.params["archive"])
    if req.method == "GET":
        # A release's tag counts its archive downloads (Release.archive_download_count).
        releases.count_archive_download(view.repo, req.params["archive"])
    disposition = (f'attachment; filename="{found.filename}"; '
                   f"filename*=UTF-8''{quote(found.filename)}")
    if found.url:
        return ApiResponse(status=302, headers={"Location": found.url})
    return ApiResponse(status=200, body=found.data, headers={
        "Content-Type": found.content_type, "Content-Disposition": disposition,
        "Last-Modified": formatdate(found.created, usegmt=True),
        "Cache-Control": "private, max-age=300",
    })
