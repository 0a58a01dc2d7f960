"""repoApplyDiffPatch (Forgejo's ``repository`` tag): a unified diff applied to a
branch as one commit, by the repository's writers (``patch_apply``)."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.contents import patch_apply
from chalicelib.contents import records as content_records
from chalicelib.contents.options import UpdateFileOptions
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, current_repo


@route("POST", "/repos/{owner}/{repo}/diffpatch", "repoApplyDiffPatch",
       summary="Apply diff patch to repository", body="UpdateFileOptions",
       responses={200: "FileResponse", 403: "forbidden", 404: "notFound", 409: "conflict",
                  413: "quotaExceeded", 422: "validationError", 423: "error"},
       signed_in=True, **IN_REPO)
def apply_diff_patch(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    written = patch_apply.apply_diff_patch(view, req.actor, req.option(UpdateFileOptions))
    return ApiResponse.json(content_records.file_response(
        written, repos.repo_html_url(view), repos.repo_api_url(view.owner.login, view.repo.name)))
