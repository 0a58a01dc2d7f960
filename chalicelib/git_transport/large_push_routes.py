"""Pushes too big for one request (docs/git-at-scale.md): a presigned upload of a
``git bundle``, then applying it as a push.  Nimbus's own routes, not Forgejo's: they
stay out of the swagger document.  Write access and a ``write:repository`` token are
required; callers who cannot see the repository get 404.

``applyLargePush`` is served by the streaming function in AWS (its integration allows
15 minutes, where the buffered one allows 29 s): see chalicelib/streaming/handler.py.
"""
from __future__ import annotations

from chalicelib.git_transport import large_push
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, caller, current_repo

WRITE = dict(IN_REPO, signed_in=True, in_swagger=False)


@route("POST", "/repos/{owner}/{repo}/large-pushes", "createLargePush",
       summary="Get a presigned URL to upload a git bundle for a large push",
       responses={201: "LargePushUpload", 403: "forbidden", 404: "notFound",
                  413: "quotaExceeded", 422: "validationError"}, **WRITE)
def create_large_push(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(large_push.start(caller(req), view, req.json()), status=201)


@route("POST", "/repos/{owner}/{repo}/large-pushes/{upload}/apply", "applyLargePush",
       summary="Apply an uploaded git bundle as a push",
       responses={200: "LargePushResult", 400: "error", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **WRITE)
def apply_large_push(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(large_push.apply(caller(req), view, req.params["upload"],
                                             req.json()))
