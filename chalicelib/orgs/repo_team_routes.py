"""A repository's teams (Forgejo's ``repository`` tag): list, check, add, remove.

Guards follow Forgejo's router: every route needs a signed-in caller who can see the
repository (404 otherwise, from ``current_repo``); adding and removing need a
repository admin (403), then the rules of ``repo_teams``.  The list is not paged, as
Forgejo's (``TeamListWithoutPagination``).
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.orgs import records as org_records
from chalicelib.orgs import repo_teams
from chalicelib.repos import IN_REPO, current_repo

SIGNED_IN_REPO = dict(IN_REPO, signed_in=True)
CHANGE_ANSWERS = {204: "empty", 403: "forbidden", 404: "notFound", 405: "error",
                  422: "validationError"}


@route("GET", "/repos/{owner}/{repo}/teams", "repoListTeams",
       summary="List a repository's teams",
       responses={200: "TeamList", 404: "notFound", 405: "error"}, **SIGNED_IN_REPO)
def list_repo_teams(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json([org_records.team(team, view.owner)
                             for team in repo_teams.repo_teams(view)])


@route("GET", "/repos/{owner}/{repo}/teams/{team}", "repoCheckTeam",
       summary="Check if a team is assigned to a repository",
       responses={200: "Team", 404: "notFound", 405: "error"}, **SIGNED_IN_REPO)
def check_repo_team(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(org_records.team(repo_teams.repo_team(view, req.params["team"]),
                                             view.owner))


@route("PUT", "/repos/{owner}/{repo}/teams/{team}", "repoAddTeam",
       summary="Add a team to a repository", responses=CHANGE_ANSWERS, **SIGNED_IN_REPO)
def add_repo_team(req: ApiRequest) -> ApiResponse:
    repo_teams.change_repo_team(req.actor, current_repo(req), req.params["team"], add=True)
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/teams/{team}", "repoDeleteTeam",
       summary="Delete a team from a repository", responses=CHANGE_ANSWERS, **SIGNED_IN_REPO)
def delete_repo_team(req: ApiRequest) -> ApiResponse:
    repo_teams.change_repo_team(req.actor, current_repo(req), req.params["team"], add=False)
    return ApiResponse.empty()
