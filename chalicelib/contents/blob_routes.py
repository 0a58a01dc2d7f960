"""GetBlobs (Forgejo's ``repository`` tag): several blobs in one request, for the
repository's readers (``blobs``)."""
from __future__ import annotations

import base64

from chalicelib import repos
from chalicelib.contents import blobs
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, current_repo

SHAS = (Param("shas", "string", "a comma separated list of blob-sha (mind the overall "
                                "URL-length limit of ~2,083 chars)", required=True),)


@route("GET", "/repos/{owner}/{repo}/git/blobs", "GetBlobs",
       summary="Gets multiple blobs of a repository.", query=SHAS,
       responses={200: "GitBlobList", 400: "error", 404: "notFound"}, **IN_REPO)
def get_blobs(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    shas = blobs.wanted_shas(req.arg("shas"))
    api = repos.repo_api_url(view.owner.login, view.repo.name)
    return ApiResponse.json([
        {"content": base64.b64encode(found.content).decode() if found.content is not None
         else "", "encoding": "base64", "url": f"{api}/git/blobs/{found.sha}",
         "sha": found.sha, "size": found.size}
        for found in blobs.blobs(view.repo, shas)])
