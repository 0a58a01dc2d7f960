"""A repository's language statistics (Forgejo's ``repoGetLanguages``, ``repository``
tag): bytes per language on the default branch, served from the figures the events
worker caches after each push (services/languages); ``{}`` until the first
computation.  Token scope: ``repository``.

The 200 answer is Forgejo's ``LanguageStatistics`` (an object of language -> int64),
which is a response with no definition: the swagger description lists the 404 only.
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.languages import service as languages
from chalicelib.repos import IN_REPO, current_repo


@route("GET", "/repos/{owner}/{repo}/languages", "repoGetLanguages",
       summary="Get languages and number of bytes of code written",
       responses={404: "notFound"}, **IN_REPO)
def get_languages(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(languages.cached(current_repo(req)))
