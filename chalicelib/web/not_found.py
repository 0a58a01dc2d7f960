"""Any other address below a repository (``/{owner}/{repo}/settings``,
``/{owner}/{repo}/pulls/4/files`` …) answers the HTML 404 page, as every page does,
rather than the API's JSON 404: a person followed a link.

Registered after every other page (first match wins).  It reads nothing, so whether
the repository exists or is private is not revealed either.
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.view import Web, page, render


@page("GET", "/{owner}/{repo}/{rest:path}", "webRepoPageNotFound")
def repo_page_not_found(req: ApiRequest, web: Web) -> ApiResponse:
    return render(web, "error.html", status=404, code=404, title="404",
                  message="The page you are looking for does not exist.")
