"""Git smart HTTP (protocol v0) at ``/{owner}/{repo}[.git]/…``, for the git CLI.

Who may do what follows Forgejo: anonymous callers may pull public repositories of
public owners; everything else needs credentials (401 with a Basic challenge, so git
asks for them); signed-in callers who cannot see the repository get 404; pushing needs
write access and a token with ``write:repository``.  The rule is
``repos.request.git_repo``, which Git LFS (``chalicelib/lfs``) shares.  The answers
are ``http_answers``' (the wiki's git is served by the same code).
"""
from __future__ import annotations

from chalicelib.git_transport import http_answers
from chalicelib.git_transport.http_answers import GIT
from chalicelib.git_transport.service import GitTarget
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route

SERVICES = http_answers.SERVICES
# Tests set this to simulate a crash after the pack is stored and before refs move.
before_commit_hook = None


def _repository(req: ApiRequest, push: bool) -> GitTarget:
    """The repository's own git."""
    return GitTarget(http_answers.authorize(req, push=push))


@route("GET", "/{owner}/{repo}/info/refs", "gitInfoRefs", **GIT)
def info_refs(req: ApiRequest) -> ApiResponse:
    return http_answers.info_refs(req, _repository)


@route("POST", "/{owner}/{repo}/git-upload-pack", "gitUploadPack", **GIT)
def upload_pack(req: ApiRequest) -> ApiResponse:
    return http_answers.upload_pack(req, _repository)


@route("POST", "/{owner}/{repo}/git-receive-pack", "gitReceivePack", **GIT)
def receive_pack(req: ApiRequest) -> ApiResponse:
    return http_answers.receive_pack(req, _repository, before_commit_hook)
