"""The pinned pull requests (repoListPinnedPullRequests): pinned through the issue pin
routes, by the same rules (``chalicelib.issues`` ``pins``), listed here as PullRequest
records in pin order.  Registered before the pull request routes: ``/pulls/pinned``
would read as a pull request number."""
from __future__ import annotations

from chalicelib import issues
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.pulls.request import PULL, PullRenderer, ctx_of


@route("GET", "/repos/{owner}/{repo}/pulls/pinned", "repoListPinnedPullRequests",
       summary="List a repo's pinned pull requests",
       responses={200: "PullRequestList", 404: "notFound"}, **PULL)
def pinned_pulls(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(PullRenderer(req, ctx).pulls(issues.pinned_issues(ctx, True)))
