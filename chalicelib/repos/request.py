"""What every route and page under ``/repos/{owner}/{repo}`` reads from its request: the
caller, the repository (with the keys to preload it alongside the token), the Repository
record as this caller sees it, and the paging parameters."""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.http import paging, scopes
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param
from chalicelib.http.scopes import is_public_only
from chalicelib.repos import records
from chalicelib.repos import views as repo_views
from chalicelib.settings import get_settings

PAGE = (Param("page", "integer", "page number of results to return (1-based)"),
        Param("limit", "integer", "page size of results"))


REPO = dict(tag="repository", scope="repository")


def caller(req: ApiRequest) -> repo_views.Caller:
    principal = req.principal
    if principal is None:
        return repo_views.ANONYMOUS
    public_only = bool(principal.scopes and is_public_only(principal.scopes))
    return repo_views.Caller(principal.user, public_only)


def repo_preload(req: ApiRequest) -> list:
    return repo_views.preload_keys(req.params["owner"], req.params["repo"])


def repo_preload_more(req: ApiRequest, user_id: int | None) -> list:
    return repo_views.preload_more_keys(req.params["owner"], req.params["repo"], user_id)


# Every /repos/{owner}/{repo}/… route reads the repository together with the token.
IN_REPO = dict(REPO, preload=repo_preload, preload_more=repo_preload_more)


def current_repo(req: ApiRequest) -> repo_views.RepoView:
    return repo_views.find(caller(req), req.params["owner"], req.params["repo"])


def repo_record(req: ApiRequest, view: repo_views.RepoView) -> dict:
    parent = repo_views.parent_of(view, caller(req))
    parent_record = records.repository(parent, req.actor) if parent is not None else None
    return records.repository(view, req.actor, parent_record)


def repo_list(req: ApiRequest, views: list[repo_views.RepoView]) -> ApiResponse:
    return paging.paged_json(req, views, lambda v: repo_record(req, v))


class GitRefusal(Exception):
    """Why git over HTTP refuses a caller: the status, the words git shows, and whether
    to ask for credentials (a 401 with a Basic challenge, so git asks for them).  Smart
    HTTP answers it as plain text, Git LFS as its JSON: the same rule, two shapes."""

    def __init__(self, status: int, message: str, *, challenge: bool = False):
        super().__init__(message)
        self.status, self.message, self.challenge = status, message, challenge


def git_repo(req: ApiRequest, *, write: bool) -> repo_views.RepoView:
    """The repository of ``/{owner}/{repo}[.git]/…`` for git over HTTP (smart HTTP and
    LFS), or a :class:`GitRefusal`, as Forgejo decides: anonymous callers may read
    public repositories of public owners and are asked for credentials otherwise
    (without revealing whether the repository exists); signed-in callers who cannot see
    it get 404; writing needs write access, a ``write:repository`` token, and a
    repository that is neither a mirror nor archived."""
    settings = get_settings()
    if settings.repository.DISABLE_HTTP_GIT:
        raise GitRefusal(403, "Interacting with repositories by HTTP protocol is not allowed")
    who = caller(req)
    if who.user is None:
        if write or settings.service.REQUIRE_SIGNIN_VIEW:
            raise GitRefusal(401, "Unauthorized", challenge=True)
        try:
            return repo_views.find(who, req.params["owner"], req.params["repo"])
        except NotFoundError:
            raise GitRefusal(401, "Unauthorized", challenge=True) from None
    try:
        view = repo_views.find(who, req.params["owner"], req.params["repo"])
    except NotFoundError:
        raise GitRefusal(404, "Repository not found") from None
    token_scopes = req.principal.scopes
    level = "write" if write else "read"
    if token_scopes is not None and not scopes.allows(token_scopes, "repository", level):
        raise GitRefusal(403, f"token does not have the required scope: {level}:repository")
    if write:
        if not view.can_write:
            raise GitRefusal(403, "User permission denied: you may read but not push to "
                                  "this repository")
        if view.repo.mirror:
            raise GitRefusal(403, "mirror repository is read-only")
        if view.repo.archived:
            raise GitRefusal(403, "repository is archived: pushes are refused")
    return view
