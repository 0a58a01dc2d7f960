"""Git LFS at Forgejo's paths, ``/{owner}/{repo}.git/info/lfs/…``, for the git-lfs
client: the batch API and verify (``[server] LFS_START_SERVER``; 404 when off).

Who may call is git over HTTP's rule (``repos.request.git_repo``): anonymous callers
may download from public repositories and are asked for credentials otherwise (401
with a Basic challenge, which git-lfs answers with git's credentials); signed-in
callers who cannot see the repository get 404; an upload (and verify) needs write
access and a token with ``write:repository``, a download ``read:repository``.  The
answers, errors included, are JSON in Git LFS's media type, whose ``message`` git-lfs
shows.
"""
from __future__ import annotations

import functools

from chalicelib.errors import ServiceError
from chalicelib.http import auth, router
from chalicelib.http.errors import ApiError, api_error_of
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.lfs import records, service
from chalicelib.lfs.options import LfsBatchOption, LfsVerifyOption
from chalicelib.repos import GitRefusal, RepoView, git_repo, repo_preload, repo_preload_more
from chalicelib.settings import get_settings


def _enabled() -> bool:
    return get_settings().server.LFS_START_SERVER


# As git's routes: the gateway checks read:repository for every call (a batch is a
# POST whether it uploads or downloads); an upload's write:repository is checked here.
LFS = dict(tag="lfs", raw=True, in_swagger=False, credentials=router.GIT,
           scope="repository", scope_level="read", preload=repo_preload,
           preload_more=repo_preload_more, available=_enabled,
           consumes=(records.MEDIA_TYPE,), produces=(records.MEDIA_TYPE,))


class LfsError(ApiError):
    """An error in Git LFS's media type (``{"message"}``), with its status."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message, plain=True,
                         headers={"Content-Type": records.MEDIA_TYPE, **(headers or {})})
        self.status = status


def lfs_errors(handler):
    """A handler whose domain errors answer in Git LFS's shape: git-lfs shows a
    ``message`` (Forgejo's API shape would put the reason in ``errors``, unseen)."""
    @functools.wraps(handler)
    def answered(req: ApiRequest) -> ApiResponse:
        try:
            return handler(req)
        except ServiceError as err:
            answer = api_error_of(err)
            raise LfsError(answer.status, err.message or answer.message) from None
    return answered


def _authorize(req: ApiRequest, *, write: bool) -> RepoView:
    try:
        return git_repo(req, write=write)
    except GitRefusal as refusal:
        # git-lfs reads LFS-Authenticate first (Forgejo sends both).
        asked = {"LFS-Authenticate": auth.REALM, "WWW-Authenticate": auth.REALM} \
            if refusal.challenge else None
        raise LfsError(refusal.status, refusal.message, asked) from None


def _answer(data: dict) -> ApiResponse:
    return ApiResponse.json(data, headers={"Content-Type": records.MEDIA_TYPE})


@route("POST", "/{owner}/{repo}/info/lfs/objects/batch", "lfsBatch",
       summary="Git LFS batch API: presigned S3 URLs to upload or download objects",
       responses={200: "LfsBatch", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                  409: "conflict", 413: "error", 422: "validationError"}, **LFS)
@lfs_errors
def lfs_batch(req: ApiRequest) -> ApiResponse:
    option = req.option(LfsBatchOption)
    view = _authorize(req, write=option.operation == "upload")
    answers = service.batch(view, option)
    return _answer(records.batch(view, answers, req.headers.get("authorization")))


@route("POST", "/{owner}/{repo}/info/lfs/verify", "lfsVerify",
       summary="Git LFS verify: record an uploaded object once S3 holds its exact bytes",
       responses={200: "LfsPointer", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **LFS)
@lfs_errors
def lfs_verify(req: ApiRequest) -> ApiResponse:
    option = req.option(LfsVerifyOption)
    view = _authorize(req, write=True)
    service.verify(view, option)
    return _answer({"oid": option.oid, "size": option.size})
