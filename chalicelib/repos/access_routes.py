"""Collaborators, stars, watches (subscriptions) and deploy keys of a repository.

Guards follow Forgejo's router: the collaborator, subscription and key groups need a
signed-in caller (reqToken); adding or removing collaborators and every key operation
need repository admin (reqAdmin).  ``current_repo`` answers 404 for repositories the
caller cannot see, before any of that.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.accounts import CreateKeyOption
from chalicelib.http import paging
from chalicelib.http.errors import NotFound
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import access, records
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.repos.permissions import Access
from chalicelib.repos.request import IN_REPO, PAGE, caller, current_repo, repo_list
from chalicelib.repos.views import RepoView

SIGNED_IN_REPO = dict(IN_REPO, signed_in=True)
# /user/starred/{owner}/{repo}: Forgejo's /user group wants the user scope, its
# /starred group the repository scope as well.
STARRED_REPO = dict(IN_REPO, tag="user", extra_scopes=("user",), signed_in=True)
USER_LIST = dict(tag="user", scope="user", signed_in=True, query=PAGE)


def _user_list(req: ApiRequest, users: list) -> ApiResponse:
    return paging.paged_json(req, users, lambda account: accounts.user_record(account, req.actor))


# Collaborators ----------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/collaborators", "repoListCollaborators",
       summary="List a repository's collaborators", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **SIGNED_IN_REPO)
def list_collaborators(req: ApiRequest) -> ApiResponse:
    return _user_list(req, access.collaborators(current_repo(req)))


@route("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}", "repoCheckCollaborator",
       summary="Check if a user is a collaborator of a repository",
       responses={204: "empty", 404: "notFound", 422: "validationError"}, **SIGNED_IN_REPO)
def check_collaborator(req: ApiRequest) -> ApiResponse:
    if not access.is_collaborator(current_repo(req), req.params["collaborator"]):
        raise NotFound()
    return ApiResponse.empty()


@route("PUT", "/repos/{owner}/{repo}/collaborators/{collaborator}", "repoAddCollaborator",
       summary="Add a collaborator to a repository", body="AddCollaboratorOption",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED_IN_REPO)
def add_collaborator(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    access.add_collaborator(req.actor, view, req.params["collaborator"],
                            req.option(AddCollaboratorOption, required=False))
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/collaborators/{collaborator}",
       "repoDeleteCollaborator", summary="Delete a collaborator from a repository",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED_IN_REPO)
def delete_collaborator(req: ApiRequest) -> ApiResponse:
    access.remove_collaborator(req.actor, current_repo(req), req.params["collaborator"])
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission",
       "repoGetRepoPermissions", summary="Get repository permissions for a user",
       responses={200: "RepoCollaboratorPermission", 403: "forbidden", 404: "notFound"},
       **SIGNED_IN_REPO)
def collaborator_permission(req: ApiRequest) -> ApiResponse:
    user, mode = access.permission_of(caller(req), current_repo(req),
                                      req.params["collaborator"])
    return ApiResponse.json(records.collaborator_permission(user, mode.label, req.actor))


# Stars ----------------------------------------------------------------------------------

@route("GET", "/user/starred/{owner}/{repo}", "userCurrentCheckStarring",
       summary="Whether the authenticated is starring the repo",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **STARRED_REPO)
def check_starring(req: ApiRequest) -> ApiResponse:
    if not access.follows(access.STARS, req.actor, current_repo(req)):
        raise NotFound()
    return ApiResponse.empty()


@route("PUT", "/user/starred/{owner}/{repo}", "userCurrentPutStar",
       summary="Star the given repo",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **STARRED_REPO)
def put_star(req: ApiRequest) -> ApiResponse:
    access.follow(access.STARS, req.actor, current_repo(req))
    return ApiResponse.empty()


@route("DELETE", "/user/starred/{owner}/{repo}", "userCurrentDeleteStar",
       summary="Unstar the given repo",
       responses={204: "empty", 401: "unauthorized", 403: "forbidden", 404: "notFound"},
       **STARRED_REPO)
def delete_star(req: ApiRequest) -> ApiResponse:
    access.unfollow(access.STARS, req.actor, current_repo(req))
    return ApiResponse.empty()


@route("GET", "/user/starred", "userCurrentListStarred",
       summary="The repos that the authenticated user has starred",
       responses={200: "RepositoryList", 401: "unauthorized", 403: "forbidden"},
       **dict(USER_LIST, scope="repository", extra_scopes=("user",)))
def list_my_starred(req: ApiRequest) -> ApiResponse:
    return repo_list(req, access.followed_by(access.STARS, caller(req), req.actor))


@route("GET", "/users/{username}/starred", "userListStarred",
       summary="The repos that the given user has starred",
       responses={200: "RepositoryList", 404: "notFound"}, **USER_LIST)
def list_user_starred(req: ApiRequest) -> ApiResponse:
    user = accounts.get_visible_user(req.actor, req.params["username"])
    return repo_list(req, access.followed_by(access.STARS, caller(req), user))


@route("GET", "/repos/{owner}/{repo}/stargazers", "repoListStargazers",
       summary="List a repo's stargazers", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **IN_REPO)
def list_stargazers(req: ApiRequest) -> ApiResponse:
    return _user_list(req, access.followers(access.STARS, current_repo(req)))


# Watches (subscriptions) -----------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/subscription", "userCurrentCheckSubscription",
       summary="Check if the current user is watching a repo",
       responses={200: "WatchInfo", 404: "notFound"}, **SIGNED_IN_REPO)
def check_subscription(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    if not access.follows(access.WATCHES, req.actor, view):
        raise NotFound()
    return ApiResponse.json(records.watch_info(view))


@route("PUT", "/repos/{owner}/{repo}/subscription", "userCurrentPutSubscription",
       summary="Watch a repo", responses={200: "WatchInfo", 404: "notFound"},
       **SIGNED_IN_REPO)
def put_subscription(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    access.follow(access.WATCHES, req.actor, view)
    return ApiResponse.json(records.watch_info(view))


@route("DELETE", "/repos/{owner}/{repo}/subscription", "userCurrentDeleteSubscription",
       summary="Unwatch a repo", responses={204: "empty", 404: "notFound"}, **SIGNED_IN_REPO)
def delete_subscription(req: ApiRequest) -> ApiResponse:
    access.unfollow(access.WATCHES, req.actor, current_repo(req))
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/subscribers", "repoListSubscribers",
       summary="List a repo's watchers", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **IN_REPO)
def list_subscribers(req: ApiRequest) -> ApiResponse:
    return _user_list(req, access.followers(access.WATCHES, current_repo(req)))


@route("GET", "/user/subscriptions", "userCurrentListSubscriptions",
       summary="List repositories watched by the authenticated user",
       responses={200: "RepositoryList", 401: "unauthorized", 403: "forbidden"}, **USER_LIST)
def list_my_subscriptions(req: ApiRequest) -> ApiResponse:
    return repo_list(req, access.followed_by(access.WATCHES, caller(req), req.actor))


@route("GET", "/users/{username}/subscriptions", "userListSubscriptions",
       summary="List the repositories watched by a user", tag="user", scope="user",
       query=PAGE, responses={200: "RepositoryList", 404: "notFound"})
def list_user_subscriptions(req: ApiRequest) -> ApiResponse:
    user = accounts.get_visible_user(req.actor, req.params["username"])
    return repo_list(req, access.followed_by(access.WATCHES, caller(req), user))


# Deploy keys ----------------------------------------------------------------------------

def _key_record(req: ApiRequest, key, view: RepoView) -> dict:
    """Site admins and the owner also see the repository, with the key's own access."""
    actor = req.actor
    if not (actor.is_admin or actor.id == view.owner.id):
        return records.deploy_key(key, view)
    mode = Access.READ if key.read_only else Access.WRITE
    repository = records.repository(RepoView(view.repo, view.owner, mode), actor)
    return records.deploy_key(key, view, repository)


def _int_query(req: ApiRequest, name: str) -> int:
    """Forgejo's FormInt64: junk reads as 0 (no filter)."""
    try:
        return int(req.arg(name) or 0)
    except ValueError:
        return 0


@route("GET", "/repos/{owner}/{repo}/keys", "repoListKeys", summary="List a repository's keys",
       query=(Param("key_id", "integer", "the key_id to search for"),
              Param("fingerprint", "string", "fingerprint of the key"), *PAGE),
       responses={200: "DeployKeyList", 404: "notFound"}, **SIGNED_IN_REPO)
def list_keys(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = access.deploy_keys(view, key_id=_int_query(req, "key_id"),
                               fingerprint=req.arg("fingerprint", "") or "")
    return paging.paged_json(req, found, lambda key: _key_record(req, key, view))


@route("POST", "/repos/{owner}/{repo}/keys", "repoCreateKey",
       summary="Add a key to a repository", body="CreateKeyOption",
       responses={201: "DeployKey", 404: "notFound", 422: "validationError"}, **SIGNED_IN_REPO)
def create_key(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    key = access.add_deploy_key(req.actor, view, req.option(CreateKeyOption))
    # Forgejo's creation answer carries no repository.
    return ApiResponse.json(records.deploy_key(key, view), status=201)


@route("GET", "/repos/{owner}/{repo}/keys/{id}", "repoGetKey",
       summary="Get a repository's key by id",
       responses={200: "DeployKey", 404: "notFound"}, **SIGNED_IN_REPO)
def get_key(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(_key_record(req, access.deploy_key(view, req.int_param("id")), view))


@route("DELETE", "/repos/{owner}/{repo}/keys/{id}", "repoDeleteKey",
       summary="Delete a key from a repository",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **SIGNED_IN_REPO)
def delete_key(req: ApiRequest) -> ApiResponse:
    access.delete_deploy_key(req.actor, current_repo(req), req.int_param("id"))
    return ApiResponse.empty()
