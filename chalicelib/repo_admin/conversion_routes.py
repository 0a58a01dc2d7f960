"""A pull mirror converted to a normal repository (Forgejo's ``repository`` tag): 200
with the repository as it is now.  The rules are ``conversions``'."""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import conversions
from chalicelib.repos import IN_REPO, caller, current_repo, repo_record


@route("POST", "/repos/{owner}/{repo}/convert", "repoConvert",
       summary="Convert a mirror repo to a normal repo.", signed_in=True,
       responses={200: "Repository", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **IN_REPO)
def repo_convert(req: ApiRequest) -> ApiResponse:
    view = conversions.convert(caller(req), current_repo(req))
    return ApiResponse.json(repo_record(req, view))
