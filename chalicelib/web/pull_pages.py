"""A pull request's pages, at Forgejo's URLs, each under the same heading and tabs
(``pull_view``):

- ``/{owner}/{repo}/pulls/{index}``: the conversation (description, timeline, reviews,
  comments, the head's statuses, mergeability and the merge form, the sidebar);
- ``/{owner}/{repo}/pulls/{index}/commits``: the commits it brings;
- ``/{owner}/{repo}/pulls/{index}/files``: the diff with the code comments under their
  lines; ``?path=&line=`` (signed: ``< 0`` a removed line) opens the comment form under
  that line.

``/{owner}/{repo}/issues/{index}`` of a pull request shows the conversation too
(``issue_pages``).  The forms post to ``actions_reviews`` and ``actions_pulls``.
"""
from __future__ import annotations

import re

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import current_repo
from chalicelib.web import pull_view
from chalicelib.web.conversation_view import number_of, tracker_page
from chalicelib.web.view import Web, render


def conversation_page(req: ApiRequest, web: Web, view, number: int) -> ApiResponse:
    return render(web, "pull.html", **pull_view.conversation_values(req, web, view, number))


@tracker_page("/{owner}/{repo}/pulls/{index}", "webRepoPull")
def pull_one(req: ApiRequest, web: Web) -> ApiResponse:
    return conversation_page(req, web, current_repo(req), number_of(req))


@tracker_page("/{owner}/{repo}/pulls/{index}/commits", "webRepoPullCommits")
def pull_commits(req: ApiRequest, web: Web) -> ApiResponse:
    return render(web, "pull_commits.html",
                  **pull_view.commits_values(req, web, current_repo(req), number_of(req)))


@tracker_page("/{owner}/{repo}/pulls/{index}/files", "webRepoPullFiles")
def pull_files(req: ApiRequest, web: Web) -> ApiResponse:
    line = req.arg("line") or ""
    chosen = (req.arg("path") or "", int(line) if re.fullmatch(r"-?\d{1,9}", line) else 0)
    return render(web, "pull_files.html",
                  **pull_view.files_values(req, web, current_repo(req), number_of(req), chosen))
