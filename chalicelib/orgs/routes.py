"""Organizations: the organization itself, its members, teams and repositories."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.orgs import records as org_records
from chalicelib.orgs import service as orgs
from chalicelib.orgs import teams
from chalicelib.orgs.options import (CreateOrgOption, CreateTeamOption, EditOrgOption,
                                     EditTeamOption, RenameOrgOption)
from chalicelib.orgs.request import ORG, current_org
from chalicelib.repos import PAGE, caller, repo_list, repo_record

if TYPE_CHECKING:
    from chalicelib.accounts import Account


def _team_id(req: ApiRequest) -> int | None:
    try:
        return int(req.params["id"])
    except ValueError:
        return None  # the handler answers it (after authentication)


def team_preload(req: ApiRequest) -> list:
    team_id = _team_id(req)
    return teams.preload_keys(team_id) if team_id is not None else []


def team_preload_more(req: ApiRequest, user_id: int | None) -> list:
    team_id = _team_id(req)
    return teams.preload_more_keys(team_id, user_id) if team_id is not None else []


def team_repo_preload(req: ApiRequest) -> list:
    return team_preload(req) + repos.repo_preload_keys(req.params["org"], req.params["repo"])


# /teams/{id} routes read the team, its organization and the caller's membership in the
# gateway's two batches.
TEAM = dict(ORG, preload=team_preload, preload_more=team_preload_more)
TEAM_REPO = dict(TEAM, preload=team_repo_preload)


def _users(req: ApiRequest, found: list[Account]) -> ApiResponse:
    return paging.paged_json(req, found, lambda a: accounts.user_record(a, req.actor))


def _orgs(req: ApiRequest, found: list[Account]) -> ApiResponse:
    return paging.paged_json(req, found, org_records.organization)


@route("POST", "/orgs", "orgCreate", summary="Create an organization", signed_in=True,
       body="CreateOrgOption",
       responses={201: "Organization", 403: "forbidden", 422: "validationError"}, **ORG)
def org_create(req: ApiRequest) -> ApiResponse:
    org = orgs.create_org(req.actor, req.actor, req.option(CreateOrgOption))
    return ApiResponse.json(org_records.organization(org), status=201)


@route("POST", "/admin/users/{username}/orgs", "adminCreateOrg",
       summary="Create an organization", body="CreateOrgOption", tag="admin", scope="admin",
       site_admin=True, responses={201: "Organization", 403: "forbidden", 422: "validationError"})
def admin_create_org(req: ApiRequest) -> ApiResponse:
    owner = accounts.get_user(req.params["username"])
    org = orgs.create_org(req.actor, owner, req.option(CreateOrgOption))
    return ApiResponse.json(org_records.organization(org), status=201)


@route("GET", "/orgs/{org}", "orgGet", summary="Get an organization",
       responses={200: "Organization", 404: "notFound"}, **ORG)
def org_get(req: ApiRequest) -> ApiResponse:
    return ApiResponse.json(org_records.organization(current_org(req)))


@route("PATCH", "/orgs/{org}", "orgEdit", summary="Edit an organization", signed_in=True,
       body="EditOrgOption",
       responses={200: "Organization", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **ORG)
def org_edit(req: ApiRequest) -> ApiResponse:
    org = orgs.edit_org(req.actor, current_org(req), req.option(EditOrgOption, required=False))
    return ApiResponse.json(org_records.organization(org))


@route("DELETE", "/orgs/{org}", "orgDelete", summary="Delete an organization", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ORG)
def org_delete(req: ApiRequest) -> ApiResponse:
    orgs.delete_org(req.actor, current_org(req))
    return ApiResponse.empty()


@route("POST", "/orgs/{org}/rename", "renameOrg", summary="Rename an organization",
       signed_in=True, body="RenameOrgOption",
       responses={204: "empty", 403: "forbidden", 422: "validationError"}, **ORG)
def org_rename(req: ApiRequest) -> ApiResponse:
    orgs.rename_org(req.actor, current_org(req), req.option(RenameOrgOption).new_name or "")
    return ApiResponse.empty()


@route("GET", "/user/orgs", "orgListCurrentUserOrgs",
       summary="List the current user's organizations", signed_in=True, query=PAGE,
       extra_scopes=("user",), responses={200: "OrganizationList"}, **ORG)
def current_user_orgs(req: ApiRequest) -> ApiResponse:
    return _orgs(req, orgs.orgs_of(req.actor, req.actor))


@route("GET", "/users/{username}/orgs", "orgListUserOrgs",
       summary="List a user's organizations", query=PAGE, extra_scopes=("user",),
       responses={200: "OrganizationList", 404: "notFound"}, **ORG)
def user_orgs(req: ApiRequest) -> ApiResponse:
    user = accounts.get_visible_user(req.actor, req.params["username"])
    return _orgs(req, orgs.orgs_of(req.actor, user))


@route("GET", "/orgs/{org}/repos", "orgListRepos", summary="List an organization's repos",
       query=PAGE, responses={200: "RepositoryList", 404: "notFound"}, **ORG)
def org_repos(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    return repo_list(req, repos.order_repos(repos.visible_repos_of(caller(req), org), "name"))


# --- members -------------------------------------------------------------------------

@route("GET", "/orgs/{org}/members", "orgListMembers",
       summary="List an organization's members", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **ORG)
def list_members(req: ApiRequest) -> ApiResponse:
    return _users(req, orgs.visible_members(req.actor, current_org(req)))


def _member_check(req: ApiRequest, *, public_only: bool) -> ApiResponse:
    org = current_org(req)
    orgs.check_member(req.actor, org, accounts.get_user(req.params["username"]),
                      public_only=public_only)
    return ApiResponse.empty()


@route("GET", "/orgs/{org}/members/{username}", "orgIsMember",
       summary="Check if a user is a member of an organization",
       responses={204: "empty", 404: "notFound"}, **ORG)
def is_member(req: ApiRequest) -> ApiResponse:
    # Non-members learn only about public memberships (Forgejo redirects them to
    # public_members; answering that question directly gives clients the same result).
    return _member_check(req, public_only=False)


@route("DELETE", "/orgs/{org}/members/{username}", "orgDeleteMember",
       summary="Remove a member from an organization", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ORG)
def delete_member(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    orgs.remove_member(req.actor, org, accounts.get_user(req.params["username"]))
    return ApiResponse.empty()


@route("GET", "/orgs/{org}/public_members", "orgListPublicMembers",
       summary="List an organization's public members", query=PAGE,
       responses={200: "UserList", 404: "notFound"}, **ORG)
def list_public_members(req: ApiRequest) -> ApiResponse:
    return _users(req, orgs.public_members(current_org(req)))


@route("GET", "/orgs/{org}/public_members/{username}", "orgIsPublicMember",
       summary="Check if a user is a public member of an organization",
       responses={204: "empty", 404: "notFound"}, **ORG)
def is_public_member(req: ApiRequest) -> ApiResponse:
    return _member_check(req, public_only=True)


@route("PUT", "/orgs/{org}/public_members/{username}", "orgPublicizeMember",
       summary="Publicize a user's membership", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ORG)
def publicize_member(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    orgs.set_public(req.actor, org, accounts.get_user(req.params["username"]), True)
    return ApiResponse.empty()


@route("DELETE", "/orgs/{org}/public_members/{username}", "orgConcealMember",
       summary="Conceal a user's membership", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **ORG)
def conceal_member(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    orgs.set_public(req.actor, org, accounts.get_user(req.params["username"]), False)
    return ApiResponse.empty()


# --- teams ---------------------------------------------------------------------------

@route("GET", "/orgs/{org}/teams", "orgListTeams", summary="List an organization's teams",
       signed_in=True, query=PAGE, responses={200: "TeamList", 404: "notFound"}, **ORG)
def list_teams(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    return paging.paged_json(req, teams.list_teams(req.actor, org),
                             lambda t: org_records.team(t, org))


@route("POST", "/orgs/{org}/teams", "orgCreateTeam", summary="Create a team", signed_in=True,
       body="CreateTeamOption",
       responses={201: "Team", 403: "forbidden", 404: "notFound", 422: "validationError"}, **ORG)
def create_team(req: ApiRequest) -> ApiResponse:
    org = current_org(req)
    team = teams.create_team(req.actor, org, req.option(CreateTeamOption))
    return ApiResponse.json(org_records.team(team, org), status=201)


@route("GET", "/teams/{id}", "orgGetTeam", summary="Get a team", signed_in=True,
       responses={200: "Team", 404: "notFound"}, **TEAM)
def get_team(req: ApiRequest) -> ApiResponse:
    team, org = teams.find_team(req.actor, req.int_param("id"))
    return ApiResponse.json(org_records.team(team, org))


@route("PATCH", "/teams/{id}", "orgEditTeam", summary="Edit a team", signed_in=True,
       body="EditTeamOption",
       responses={200: "Team", 403: "forbidden", 404: "notFound", 422: "validationError"}, **TEAM)
def edit_team(req: ApiRequest) -> ApiResponse:
    team, org = teams.find_team(req.actor, req.int_param("id"))
    team = teams.edit_team(req.actor, team, org, req.option(EditTeamOption, required=False))
    return ApiResponse.json(org_records.team(team, org))


@route("DELETE", "/teams/{id}", "orgDeleteTeam", summary="Delete a team", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **TEAM)
def delete_team(req: ApiRequest) -> ApiResponse:
    team, org = teams.find_team(req.actor, req.int_param("id"))
    teams.delete_team(req.actor, team, org)
    return ApiResponse.empty()


@route("GET", "/teams/{id}/members", "orgListTeamMembers", summary="List a team's members",
       signed_in=True, query=PAGE, responses={200: "UserList", 404: "notFound"}, **TEAM)
def list_team_members(req: ApiRequest) -> ApiResponse:
    team, _ = teams.find_team(req.actor, req.int_param("id"))
    return _users(req, teams.team_members(team))


@route("GET", "/teams/{id}/members/{username}", "orgListTeamMember",
       summary="Get a particular member of a team", signed_in=True,
       responses={200: "User", 404: "notFound"}, **TEAM)
def get_team_member(req: ApiRequest) -> ApiResponse:
    team, _ = teams.find_team(req.actor, req.int_param("id"))
    user = teams.get_team_member(team, accounts.get_user(req.params["username"]))
    return ApiResponse.json(accounts.user_record(user, req.actor))


@route("PUT", "/teams/{id}/members/{username}", "orgAddTeamMember",
       summary="Add a team member", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **TEAM)
def add_team_member(req: ApiRequest) -> ApiResponse:
    team, _ = teams.find_team(req.actor, req.int_param("id"))
    teams.add_team_member(req.actor, team, accounts.get_user(req.params["username"]))
    return ApiResponse.empty()


@route("DELETE", "/teams/{id}/members/{username}", "orgRemoveTeamMember",
       summary="Remove a team member", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **TEAM)
def remove_team_member(req: ApiRequest) -> ApiResponse:
    team, _ = teams.find_team(req.actor, req.int_param("id"))
    teams.remove_team_member(req.actor, team, accounts.get_user(req.params["username"]))
    return ApiResponse.empty()


def _team_repo(req: ApiRequest):
    team, org = teams.find_team(req.actor, req.int_param("id"))
    return team, org, teams.find_org_repo(org, req.params["org"], req.params["repo"])


@route("GET", "/teams/{id}/repos", "orgListTeamRepos", summary="List a team's repos",
       signed_in=True, query=PAGE, responses={200: "RepositoryList", 404: "notFound"}, **TEAM)
def list_team_repos(req: ApiRequest) -> ApiResponse:
    team, org = teams.find_team(req.actor, req.int_param("id"))
    return repo_list(req, repos.order_repos(teams.team_repositories(caller(req), team, org), "name"))


@route("GET", "/teams/{id}/repos/{org}/{repo}", "orgListTeamRepo",
       summary="List a particular repo of team", signed_in=True,
       responses={200: "Repository", 404: "notFound"}, **TEAM_REPO)
def get_team_repo(req: ApiRequest) -> ApiResponse:
    team, org, repo = _team_repo(req)
    return ApiResponse.json(repo_record(req, teams.team_repository(caller(req), team, org, repo)))


@route("PUT", "/teams/{id}/repos/{org}/{repo}", "orgAddTeamRepository",
       summary="Add a repository to a team", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **TEAM_REPO)
def add_team_repo(req: ApiRequest) -> ApiResponse:
    team, _, repo = _team_repo(req)
    teams.add_team_repo(req.actor, team, repo)
    return ApiResponse.empty()


@route("DELETE", "/teams/{id}/repos/{org}/{repo}", "orgRemoveTeamRepository",
       summary="Remove a repository from a team", signed_in=True,
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **TEAM_REPO)
def remove_team_repo(req: ApiRequest) -> ApiResponse:
    team, _, repo = _team_repo(req)
    teams.remove_team_repo(req.actor, team, repo)
    return ApiResponse.empty()
