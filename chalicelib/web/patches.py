"""A pull request's and a commit's diff and patch at Forgejo's web addresses: the
``diff_url``/``patch_url`` of a PullRequest record (``/{owner}/{repo}/pulls/N.diff``,
``.patch``) and ``/{owner}/{repo}/commit/{sha}.diff``/``.patch``.

Tools fetch these (``cb pr checkout``, review bots), so they are downloads: the session,
or a token with ``read:repository``.  The bodies are the API's
(``repoDownloadPullDiffOrPatch``, ``repoDownloadCommitDiffOrPatch``).  Registered before
the pages, whose ``/pulls/{index}`` and ``/commit/{sha}`` would match ``4.diff`` first.
"""
from __future__ import annotations

from chalicelib import contents, pulls
from chalicelib.errors import NotFoundError
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller, current_repo
from chalicelib.web.view import Web, page

KINDS = ("diff", "patch")


def _text(body: bytes) -> ApiResponse:
    return ApiResponse(status=200, body=body,
                       headers={"Content-Type": "text/plain; charset=utf-8"})


@page("GET", "/{owner}/{repo}/pulls/{index}.{kind}", "webPullDiffOrPatch", in_repo=True,
      download=True)
def pull_diff_or_patch(req: ApiRequest, web: Web) -> ApiResponse:
    kind, index = req.params["kind"], req.params["index"]
    if kind not in KINDS or not index.isdigit():
        raise NotFoundError(f"no such page: {req.raw_path}")
    ctx = pulls.pull_context(caller(req), current_repo(req))
    return _text(pulls.pull_diff_or_patch(ctx, pulls.get_pull(ctx, int(index)), kind))


@page("GET", "/{owner}/{repo}/commit/{sha}.{kind}", "webCommitDiffOrPatch", in_repo=True,
      download=True)
def commit_diff_or_patch(req: ApiRequest, web: Web) -> ApiResponse:
    kind = req.params["kind"]
    if kind not in KINDS:
        raise NotFoundError(f"no such page: {req.raw_path}")
    view = current_repo(req)
    return _text(contents.commit_diff_or_patch(view.repo, req.params["sha"], kind))
