"""Git smart HTTP (protocol v0) at ``/{owner}/{repo}[.git]/…``, for the git CLI.

Who may do what follows Forgejo: anonymous callers may pull public repositories of
public owners; everything else needs credentials (401 with a Basic challenge, so git
asks for them); signed-in callers who cannot see the repository get 404; pushing needs
write access and a token with ``write:repository``.  The rule is
``repos.request.git_repo``, which Git LFS (``chalicelib/lfs``) shares.
"""
from __future__ import annotations

import itertools
import os
from typing import Iterator

from chalicelib import repos
from chalicelib.git_transport import service as git_transport
from chalicelib.http import auth, router
from chalicelib.http.errors import PlainTextError
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import GitRefusal, git_repo, repo_preload, repo_preload_more
from chalicelib.settings import get_settings

SERVICES = git_transport.SERVICES
NO_CACHE = {"Expires": "Fri, 01 Jan 1980 00:00:00 GMT", "Pragma": "no-cache",
            "Cache-Control": "no-cache, max-age=0, must-revalidate"}
# Room for the proxy result's JSON and headers around the body.
RESULT_OVERHEAD = 4096
# Tests set this to simulate a crash after the pack is stored and before refs move.
before_commit_hook = None
# The gateway checks read:repository for every git request (a fetch is a POST, so the
# method does not tell the level); a push's write:repository is checked here.
GIT = dict(tag="git", raw=True, in_swagger=False, credentials=router.GIT,
           scope="repository", scope_level="read", preload=repo_preload,
           preload_more=repo_preload_more)


def _plain(status: int, text: str, headers: dict | None = None) -> PlainTextError:
    return PlainTextError(status, text, headers)


def _authorize(req: ApiRequest, *, push: bool) -> repos.RepoView:
    try:
        return git_repo(req, write=push)
    except GitRefusal as refusal:
        headers = {"WWW-Authenticate": auth.REALM} if refusal.challenge else None
        raise _plain(refusal.status, refusal.message, headers) from None


def _service_response(body: bytes, service: str, kind: str) -> ApiResponse:
    return ApiResponse(status=200, body=body,
                       headers={"Content-Type": f"application/x-{service}-{kind}", **NO_CACHE})


def _check_request_type(req: ApiRequest, service: str) -> None:
    if req.content_type != f"application/x-{service}-request":
        raise _plain(400, f"expected Content-Type application/x-{service}-request")


def _pack_budget() -> tuple[int, str] | None:
    """Bytes of pack this answer may carry and the path's name; None when unbounded
    (the local runtime without ENFORCE_AWS_LIMITS)."""
    streamed = git_transport.STREAM_BUDGET.get()
    if streamed is not None:
        return streamed - RESULT_OVERHEAD, "a streamed Lambda response"
    server = get_settings().server
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") or server.ENFORCE_AWS_LIMITS:
        # base64 turns 3 bytes into 4
        return ((server.BUFFERED_RESPONSE_LIMIT - RESULT_OVERHEAD) * 3 // 4,
                "a buffered Lambda response")
    return None


def _pkt(line: str) -> bytes:
    data = line.encode()
    return f"{len(data) + 4:04x}".encode() + data


@route("GET", "/{owner}/{repo}/info/refs", "gitInfoRefs", **GIT)
def info_refs(req: ApiRequest) -> ApiResponse:
    service = req.arg("service")
    if service not in SERVICES:
        raise _plain(403, "only the smart HTTP protocol is supported (git 1.6.6 or later)")
    view = _authorize(req, push=service == "git-receive-pack")
    return _service_response(
        git_transport.advertise(view, service, req.headers.get("git-protocol")),
        service, "advertisement")


@route("POST", "/{owner}/{repo}/git-upload-pack", "gitUploadPack", **GIT)
def upload_pack(req: ApiRequest) -> ApiResponse:
    _check_request_type(req, "git-upload-pack")
    view = _authorize(req, push=False)
    chunks = git_transport.upload_pack(view, req.body, req.headers.get("git-protocol"))
    # Negotiation (and whatever it refuses) happens now, inside the request; the pack
    # is built as the answer is sent.
    first = next(chunks, b"")
    budget = _pack_budget()
    if git_transport.STREAM_BUDGET.get() is not None:
        response = _service_response(b"", "git-upload-pack", "result")
        response.stream = _within(itertools.chain([first], chunks), budget)
        return response
    body = first + b"".join(chunks)
    if budget is not None and len(body) > budget[0]:
        # git shows "remote error: …" for an ERR line: say why instead of a bare 502.
        body = _pkt(f"ERR {_too_big(len(body), budget)}\n")
    return _service_response(body, "git-upload-pack", "result")


def _too_big(size: int, budget: tuple[int, str]) -> str:
    return (f"this fetch needs {size / 1e6:.1f} MB but {budget[1]} carries at most "
            f"{budget[0] / 1e6:.1f} MB of pack; fetch less at once (--depth, one branch) or "
            "see docs/git-at-scale.md")


def _within(chunks: Iterator[bytes], budget: tuple[int, str] | None) -> Iterator[bytes]:
    """``chunks`` until they would pass the budget; then a side-band error (channel 3),
    which git shows as "remote error: …", instead of a cut-off pack."""
    sent = 0
    for chunk in chunks:
        sent += len(chunk)
        if budget is not None and sent > budget[0]:
            yield _pkt(f"\x03this fetch passed {budget[0] / 1e6:.1f} MB of pack, the most "
                       f"{budget[1]} carries; fetch less at once (--depth, one branch) or "
                       "see docs/git-at-scale.md\n")
            return
        yield chunk


@route("POST", "/{owner}/{repo}/git-receive-pack", "gitReceivePack", **GIT)
def receive_pack(req: ApiRequest) -> ApiResponse:
    _check_request_type(req, "git-receive-pack")
    view = _authorize(req, push=True)
    body = git_transport.receive_pack(view, req.body, actor=req.actor,
                                      before_commit=before_commit_hook)
    return _service_response(body, "git-receive-pack", "result")
