"""The answers of git smart HTTP (protocol v0/v1, v2 for fetches) to a request whose git
the caller may use: the repository's own (``routes.py``) or another git a repository
owns, its wiki (``chalicelib/wiki/transport_routes.py``), on one code path.

A route hands in ``target_for(req, push)``: it decides who may (``authorize``, the rule
``repos.git_repo`` with git's plain-text refusals) and names the git with
``GitTarget``.  Everything after that is the same for both: the content types, the
advertisement, a fetch's pack within the answer's budget (streamed on the streaming
path), a push's pack stored and its refs moved by compare-and-swap.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator

from chalicelib import repos, telemetry
from chalicelib.git_transport import service as git_transport
from chalicelib.git_transport.service import GitTarget
from chalicelib.http import auth, router
from chalicelib.http.errors import PlainTextError
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import GitRefusal, git_repo, repo_preload, repo_preload_more
from chalicelib.settings import get_settings

SERVICES = git_transport.SERVICES
NO_CACHE = {"Expires": "Fri, 01 Jan 1980 00:00:00 GMT", "Pragma": "no-cache",
            "Cache-Control": "no-cache, max-age=0, must-revalidate"}
# Room for the proxy result's JSON and headers around the body.
RESULT_OVERHEAD = 4096
# The gateway checks read:repository for every git request (a fetch is a POST, so the
# method does not tell the level); a push's write:repository is checked by ``authorize``.
GIT = {"tag": "git", "raw": True, "in_swagger": False, "credentials": router.GIT,
       "scope": "repository", "scope_level": "read", "preload": repo_preload,
       "preload_more": repo_preload_more}

TargetFor = Callable[[ApiRequest, bool], GitTarget]
# The request's telemetry line: git protocol bytes received (a push's pack, a fetch's
# wants and haves) and sent (the advertisement, a fetch's pack as it streams).
GIT_BYTES_IN, GIT_BYTES_OUT = "GitBytesIn", "GitBytesOut"


def plain(status: int, text: str, headers: dict | None = None) -> PlainTextError:
    """An error git shows as the server's words."""
    return PlainTextError(status, text, headers)


def authorize(req: ApiRequest, *, push: bool) -> repos.RepoView:
    """The repository of the request, as ``repos.git_repo`` decides, or git's refusal."""
    try:
        return git_repo(req, write=push)
    except GitRefusal as refusal:
        headers = {"WWW-Authenticate": auth.REALM} if refusal.challenge else None
        raise plain(refusal.status, refusal.message, headers) from None


def _service_response(body: bytes, service: str, kind: str) -> ApiResponse:
    telemetry.add(GIT_BYTES_OUT, len(body), telemetry.BYTES)
    return ApiResponse(status=200, body=body,
                       headers={"Content-Type": f"application/x-{service}-{kind}", **NO_CACHE})


def _check_request_type(req: ApiRequest, service: str) -> None:
    if req.content_type != f"application/x-{service}-request":
        raise plain(400, f"expected Content-Type application/x-{service}-request")


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


def info_refs(req: ApiRequest, target_for: TargetFor) -> ApiResponse:
    """``GET …/info/refs?service=…``."""
    service = req.arg("service")
    if service not in SERVICES:
        raise plain(403, "only the smart HTTP protocol is supported (git 1.6.6 or later)")
    target = target_for(req, service == "git-receive-pack")
    return _service_response(
        git_transport.advertise(target.view, service, req.headers.get("git-protocol"),
                                target=target),
        service, "advertisement")


def upload_pack(req: ApiRequest, target_for: TargetFor) -> ApiResponse:
    """``POST …/git-upload-pack``: a fetch."""
    _check_request_type(req, "git-upload-pack")
    target = target_for(req, False)
    telemetry.add(GIT_BYTES_IN, len(req.body), telemetry.BYTES)
    chunks = git_transport.upload_pack(target.view, req.body, req.headers.get("git-protocol"),
                                       target=target)
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
            chunk = _pkt(f"\x03this fetch passed {budget[0] / 1e6:.1f} MB of pack, the most "
                         f"{budget[1]} carries; fetch less at once (--depth, one branch) or "
                         "see docs/git-at-scale.md\n")
            telemetry.add(GIT_BYTES_OUT, len(chunk), telemetry.BYTES)
            yield chunk
            return
        # Counted chunk by chunk: a clone abandoned half-way counts what it was sent.
        telemetry.add(GIT_BYTES_OUT, len(chunk), telemetry.BYTES)
        yield chunk


def receive_pack(req: ApiRequest, target_for: TargetFor,
                 before_commit: Callable[[list], None] | None = None) -> ApiResponse:
    """``POST …/git-receive-pack``: a push; ``before_commit`` runs after the pack is
    stored and before the refs move (crash tests)."""
    _check_request_type(req, "git-receive-pack")
    target = target_for(req, True)
    telemetry.add(GIT_BYTES_IN, len(req.body), telemetry.BYTES)
    body = git_transport.receive_pack(target.view, req.body, actor=req.actor,
                                      before_commit=before_commit, target=target)
    return _service_response(body, "git-receive-pack", "result")
