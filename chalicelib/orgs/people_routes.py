"""Organizations as lists and people in them: every organization (everyone's and the
site admin's list), a user's teams, a search of an organization's teams and a user's
permissions in an organization."""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.orgs import listing, people
from chalicelib.orgs import people_records as records
from chalicelib.orgs import records as org_records
from chalicelib.orgs.request import ORG
from chalicelib.repos import PAGE, caller

# The organization a route names and the caller's membership there come with the token
# (its name claim first, then the organization and the memberships).
NAMED_ORG = dict(ORG, preload=lambda req: people.name_keys(req.params["org"]),
                 preload_more=lambda req, user_id: people.account_keys(
                     (req.params["org"],), req.params["org"], user_id))
# ... and the user it asks about too.
NAMED_USER_ORG = dict(
    ORG, preload=lambda req: people.name_keys(req.params["username"], req.params["org"]),
    preload_more=lambda req, user_id: people.account_keys(
        (req.params["username"], req.params["org"]), req.params["org"], user_id))


def _orgs_page(req: ApiRequest, found: list, total: int, page: paging.Page) -> ApiResponse:
    resp = ApiResponse.json([org_records.organization(org) for org in found])
    return paging.set_headers(resp, req, page, total)


@route("GET", "/orgs", "orgGetAll", summary="List all organizations", query=PAGE,
       responses={200: "OrganizationList"}, **ORG)
def list_orgs(req: ApiRequest) -> ApiResponse:
    page, who = paging.page_of(req), caller(req)
    found, total = listing.visible_orgs(who.user, page.offset, page.limit,
                                        public_only=who.public_only)
    return _orgs_page(req, found, total, page)


@route("GET", "/admin/orgs", "adminGetAllOrgs", summary="List all organizations", query=PAGE,
       tag="admin", scope="admin", site_admin=True,
       responses={200: "OrganizationList", 403: "forbidden"})
def admin_list_orgs(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    found, total = listing.all_orgs(req.actor, page.offset, page.limit)
    return _orgs_page(req, found, total, page)


@route("GET", "/user/teams", "userListTeams", summary="List all the teams a user belongs to",
       signed_in=True, query=PAGE, tag="user", scope="user",
       responses={200: "TeamList", 401: "unauthorized", 403: "forbidden"})
def list_user_teams(req: ApiRequest) -> ApiResponse:
    return paging.paged_json(req, people.teams_of(req.actor),
                             lambda pair: org_records.team(*pair))


@route("GET", "/orgs/{org}/teams/search", "teamSearch",
       summary="Search for teams within an organization", signed_in=True,
       query=(Param("q", "string", "keywords to search"),
              Param("include_desc", "boolean",
                    "include search within team description (defaults to true)"), *PAGE),
       responses={200: "TeamSearchResults", 404: "notFound"}, **NAMED_ORG)
def search_teams(req: ApiRequest) -> ApiResponse:
    org = people.visible_org(req.actor, req.params["org"])
    include_desc = (req.arg("include_desc") or "").strip()
    query = people.TeamQuery(keyword=(req.arg("q") or "").strip(),
                             include_desc=not include_desc or include_desc in GO_TRUE)
    found = people.search_teams(req.actor, org, query)
    page = paging.page_of(req)
    # Forgejo leaves the organization out (null) here; its description says a Team
    # always holds one, which is what clients are built from, so it is sent.
    resp = ApiResponse.json({"ok": True, "data": [org_records.team(team, org)
                                                  for team in page.slice(found)]})
    return paging.set_headers(resp, req, page, len(found))


# What Go's strconv.ParseBool reads as true (Forgejo's FormBool; anything else is false).
GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})


@route("GET", "/users/{username}/orgs/{org}/permissions", "orgGetUserPermissions",
       summary="Get user permissions in organization", signed_in=True,
       extra_scopes=("user",),
       responses={200: "OrganizationPermissions", 403: "forbidden", 404: "notFound"},
       **NAMED_USER_ORG)
def user_permissions(req: ApiRequest) -> ApiResponse:
    found = people.user_permissions(req.actor, req.params["username"], req.params["org"])
    return ApiResponse.json(records.organization_permissions(found))
