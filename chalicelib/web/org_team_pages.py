"""An organization's teams in the browser, at Forgejo's URLs: the list
(``/org/{org}/teams``), a team with its members and repositories
(``/org/{org}/teams/{team}``, by the team's name), and for owners the forms that create,
edit and delete teams and add or remove their members and repositories.

Each form calls the service of the API operation named beside it (``orgs.create_team``:
orgCreateTeam, ``edit_team``: orgEditTeam, ``delete_team``: orgDeleteTeam,
``add_team_member``/``remove_team_member``: orgAddTeamMember/orgRemoveTeamMember,
``add_team_repo``/``remove_team_repo``: orgAddTeamRepository/orgRemoveTeamRepository),
so the rules (the Owners team keeps its name and powers and its last member) and the
owner check are the API's.  Teams are shown to the organization's members, as the API
shows them (``orgs.org_teams``); to everyone else they are the 404 page.
"""
from __future__ import annotations

from chalicelib import accounts, errors, orgs, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.actions_forms import checked, fixable_status, posted, show_form
from chalicelib.web.org_pages import (OrgView, edge_option, org_values, org_view, owner_view,
                                      refusal, require_owner)
from chalicelib.web.view import Web, page, pager, path_url, redirect, render

TEAMS = "org/teams.html"
TEAM = "org/team.html"
TEAM_FORM = "org/team_form.html"
PERMISSIONS = ("read", "write", "admin")
# A team page shows this many repositories; the API lists the rest (orgListTeamRepos).
MAX_REPOS = 100
TEAM_FIELDS = {"name": "team_name", "description": "description",
               "permission": "permission", "units": "units"}


def _teams(req: ApiRequest, view: OrgView) -> list:
    """orgListTeams' service: members only; the 404 page for everyone else."""
    if not view.is_member:
        raise errors.NotFoundError("page does not exist")
    return orgs.org_teams(req.actor, view.org)


def _team(req: ApiRequest, view: OrgView):
    """The team the path names (teams have URL-safe names, unique in lower case)."""
    wanted = req.params["team"].lower()
    found = next((t for t in _teams(req, view) if t.lower_name == wanted), None)
    if found is None:
        raise errors.NotFoundError(f"team does not exist [name: {req.params['team']}]")
    return found


def team_url(view: OrgView, team, *more: str) -> str:
    return path_url("org", view.org.login, "teams", team.name, *more)


@page("GET", "/org/{org}/teams", "webOrgTeams")
def teams(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    found = [orgs.team_record(t, view.org) for t in _teams(req, view)]
    return render(web, TEAMS, title=f"{view.org.login}: teams", teams=found,
                  **org_values(view, "teams"))


# --- creating and editing teams ------------------------------------------------------------

def _form_values(form: dict, req: ApiRequest) -> dict:
    return {"team_name": form.get("team_name", "").strip(),
            "description": form.get("description", ""),
            "permission": form.get("permission", "read"),
            "units": [u for u in req.form().get("units", []) if u],
            "includes_all_repositories": checked(form, "includes_all_repositories"),
            "can_create_org_repo": checked(form, "can_create_org_repo")}


def _record_values(record: dict) -> dict:
    return {"team_name": record["name"], "description": record["description"],
            "permission": record["permission"], "units": record["units"],
            "includes_all_repositories": record["includes_all_repositories"],
            "can_create_org_repo": record["can_create_org_repo"]}


def _body(values: dict, *, owners: bool = False) -> dict:
    """The API's body from the form; the Owners team's form edits its description only
    (its name and powers are fixed)."""
    if owners:
        return {"description": values["description"]}
    return {"name": values["team_name"], "description": values["description"],
            "permission": values["permission"], "units": values["units"],
            "includes_all_repositories": values["includes_all_repositories"],
            "can_create_org_repo": values["can_create_org_repo"]}


def _show_form(web: Web, view: OrgView, values: dict, *, team=None, error=None) -> ApiResponse:
    title = f"Edit team {team.name}" if team is not None else "New team"
    return show_form(web, TEAM_FORM, error=error, fields=TEAM_FIELDS, title=title,
                     values=values, team=team, permissions=PERMISSIONS, units=repos.UNITS,
                     action=(team_url(view, team, "edit") if team is not None
                             else path_url("org", view.org.login, "teams", "new")),
                     **org_values(view, "teams"))


@page("GET", "/org/{org}/teams/new", "webOrgTeamNewForm", signed_in=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = owner_view(req)
    return _show_form(web, view, {"team_name": "", "description": "", "permission": "read",
                                  "units": list(repos.UNITS),
                                  "includes_all_repositories": False,
                                  "can_create_org_repo": False})


@page("POST", "/org/{org}/teams/new", "webOrgTeamNew", signed_in=True)
def new(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    require_owner(view)
    values = _form_values(posted(req), req)
    try:
        team = orgs.create_team(req.actor, view.org,
                                edge_option(orgs.CreateTeamOption, _body(values)))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _show_form(web, view, values, error=_name_taken(err, values))
    return redirect(team_url(view, team))


def _name_taken(err: errors.ServiceError, values: dict) -> errors.ServiceError:
    """"team already exists [org: 1, name: x]" names no field; it is about the name."""
    if "already exists" in (getattr(err, "message", "") or str(err)):
        return errors.InvalidInput(f"[Name]: the organization has a team called "
                                   f"{values['team_name']}")
    return err


@page("GET", "/org/{org}/teams/{team}/edit", "webOrgTeamEditForm", signed_in=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = owner_view(req)
    team = _team(req, view)
    return _show_form(web, view, _record_values(orgs.team_record(team, view.org)), team=team)


@page("POST", "/org/{org}/teams/{team}/edit", "webOrgTeamEdit", signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    team = _team(req, view)
    require_owner(view)
    values = _form_values(posted(req), req)
    owners = team.permission == "owner"
    try:
        option = edge_option(orgs.EditTeamOption, _body(values, owners=owners))
        team = orgs.edit_team(req.actor, team, view.org, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _show_form(web, view, values, team=team, error=_name_taken(err, values))
    return redirect(team_url(view, team))


@page("POST", "/org/{org}/teams/{team}/delete", "webOrgTeamDelete", signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    team = _team(req, view)
    try:
        orgs.delete_team(req.actor, team, view.org)
    except errors.ServiceError as err:
        status, message = refusal(err)
        return _team_page(req, web, view, team, status=status, error=message)
    return redirect(path_url("org", view.org.login, "teams"))


# --- a team, its members and repositories ------------------------------------------------

def _team_page(req: ApiRequest, web: Web, view: OrgView, team, *, status: int = 200,
               error: str = "", field_errors: dict | None = None,
               typed: dict | None = None, tab: str = "members") -> ApiResponse:
    """The team with a page of its members (one Query of the member links, one batch
    of the shown accounts), or with its repositories the caller may see (as Forgejo,
    on a page of their own: listing them is one Query of the links and one batch of
    the records with the caller's access to each)."""
    values: dict = {}
    if tab == "members":
        page_ = paging.page_of(req)
        links = orgs.list_team_members(int(team.id))
        shown = orgs.member_accounts(links[page_.offset:page_.offset + page_.limit])
        values.update(members=[accounts.user_record(a, req.actor) for a in shown],
                      member_total=len(links), pager=pager(req, len(links)))
    else:
        found = repos.order_repos(orgs.team_repositories(caller(req), team, view.org), "name")
        values.update(team_repos=[repos.repository_record(v, req.actor)
                                  for v in found[:MAX_REPOS]], repo_total=len(found))
    return render(web, TEAM, status=status, title=f"{view.org.login}: {team.name}",
                  team=orgs.team_record(team, view.org), team_base=team_url(view, team),
                  team_tab=tab, error=error, field_errors=field_errors, typed=typed or {},
                  form_csrf=web.csrf if view.is_owner else "", **values,
                  **org_values(view, "teams"))


@page("GET", "/org/{org}/teams/{team}", "webOrgTeam")
def team_page(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    return _team_page(req, web, view, _team(req, view))


@page("GET", "/org/{org}/teams/{team}/repositories", "webOrgTeamRepos")
def team_repos_page(req: ApiRequest, web: Web) -> ApiResponse:
    view = org_view(req)
    return _team_page(req, web, view, _team(req, view), tab="repositories")


def _user_named(view: OrgView, name: str):
    try:
        user = accounts.get_user(name) if name else None
    except errors.NotFoundError:
        user = None
    if user is None:
        raise errors.InvalidInput(f"No user called {name!r}." if name else "Type a user's name.")
    return user


def _repo_named(view: OrgView, name: str):
    """A repository of the organization (the services take only those)."""
    try:
        repo = orgs.find_org_repo(view.org, view.org.login, name) if name else None
    except errors.NotFoundError:
        repo = None
    if repo is None:
        raise errors.InvalidInput(f"{view.org.login} has no repository called {name!r}."
                                  if name else "Type a repository's name.")
    return repo


def _team_change(req: ApiRequest, web: Web, *, tab: str, fields: tuple[str, str],
                 find, services: tuple) -> ApiResponse:
    """The path's ``add`` or ``remove`` of what the form names in ``fields`` (the add
    form's field, the remove button's), found by ``find(view, name)``, through the API's
    (add, remove) ``services``.  A refused add is shown beside its field with the name
    kept; a refused remove (a button beside the entry) above the list."""
    view = org_view(req)
    team = _team(req, view)
    require_owner(view)
    action = req.params["action"]
    if action not in ("add", "remove"):
        raise errors.NotFoundError(f"no such action: {action}")
    removing = action == "remove"
    field = fields[removing]
    name = posted(req).get(field, "").strip()
    try:
        services[removing](req.actor, team, find(view, name))
    except errors.ServiceError as err:
        status, message = refusal(err)
        if removing:
            return _team_page(req, web, view, team, status=status, error=message, tab=tab)
        return _team_page(req, web, view, team, status=status, tab=tab,
                          field_errors={field: message}, typed={field: name})
    return redirect(team_url(view, team, *(() if tab == "members" else (tab,))))


@page("POST", "/org/{org}/teams/{team}/action/{action}", "webOrgTeamMember", signed_in=True)
def member_action(req: ApiRequest, web: Web) -> ApiResponse:
    """``add`` (field ``uname``) or ``remove`` (field ``user``) a member."""
    return _team_change(req, web, tab="members", fields=("uname", "user"), find=_user_named,
                        services=(orgs.add_team_member, orgs.remove_team_member))


@page("POST", "/org/{org}/teams/{team}/action/repo/{action}", "webOrgTeamRepo",
      signed_in=True)
def repo_action(req: ApiRequest, web: Web) -> ApiResponse:
    """``add`` or ``remove`` a repository of the organization (field ``repo_name``)."""
    return _team_change(req, web, tab="repositories", fields=("repo_name", "repo_name"),
                        find=_repo_named, services=(orgs.add_team_repo, orgs.remove_team_repo))
