"""A repository by its id (``repoGetByID``): the record as the caller may see it, 404
otherwise (missing or invisible alike, as Forgejo answers both).

The gateway's two batches carry what it reads: the id link with the credential, then
the repository (one read: its key is in the link) and what deciding the caller's access
reads, together.
"""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import views
from chalicelib.repos.request import REPO, caller, repo_record


def _repo_id(req: ApiRequest) -> int | None:
    try:
        return int(req.params["id"])
    except ValueError:
        return None     # the handler answers it


def _preload(req: ApiRequest) -> list:
    repo_id = _repo_id(req)
    return views.preload_id_keys(repo_id) if repo_id is not None else []


def _preload_more(req: ApiRequest, user_id: int | None) -> list:
    repo_id = _repo_id(req)
    return views.preload_more_id_keys(repo_id, user_id) if repo_id is not None else []


@route("GET", "/repositories/{id}", "repoGetByID", summary="Get a repository by id",
       responses={200: "Repository", 404: "notFound"},
       **dict(REPO, preload=_preload, preload_more=_preload_more))
def repo_get_by_id(req: ApiRequest) -> ApiResponse:
    repo_id = _repo_id(req)
    # Forgejo reads a junk id as 0, a repository that does not exist.
    view = views.find_by_id(caller(req), repo_id) if repo_id is not None else None
    if view is None:
        raise NotFoundError(f"repository does not exist [id: {repo_id}]")
    return ApiResponse.json(repo_record(req, view))
