"""Scenarios for organizations as lists and the people in them (every organization, a
user's teams, team search, a user's permissions in an organization) and a user's own
settings.

alice owns the organizations domain's organization (``scenarios_orgs.org``), whose write
team has a member; the lists read the organization index, never every account.
"""
from __future__ import annotations

from scenarios_orgs import org, team
from scene import USER, Req, Scene, after

ME = USER[0]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "orgGetAll": lambda s: after(org(s), [Req("GET", "/orgs"), Req("GET", "/orgs", "token")]),
        "adminGetAllOrgs": lambda s: after(org(s), [Req("GET", "/admin/orgs", "admin")]),
        "userListTeams": lambda s: after(team(s), [Req("GET", "/user/teams", "token")]),
        "teamSearch": lambda s: after(team(s), [
            Req("GET", f"/orgs/{org(s)}/teams/search?q=own", "token")]),
        "orgGetUserPermissions": lambda s: after(team(s), [
            Req("GET", f"/users/{team(s)['member']}/orgs/{org(s)}/permissions", "token"),
            Req("GET", f"/users/{ME}/orgs/{org(s)}/permissions", "token")]),
        "getUserSettings": lambda s: [Req("GET", "/user/settings", "token")],
        "updateUserSettings": lambda s: [Req("PATCH", "/user/settings", "token",
                                             {"description": s.unique("about ")})],
    }


# (operationId, auth) -> most AWS calls allowed.
BUDGETS = {
    # One Query of the organization index for the page and its bounded look-ahead,
    # after the caller's token and account.
    ("orgGetAll", "anon"): 1,
    ("orgGetAll", "token"): 3,
    ("adminGetAllOrgs", "admin"): 3,
    # The token with the organization's (and the user's) name claims, then the accounts
    # and the memberships; a member's teams in one more batch (none for an owner, who
    # is read from the grants alone).
    ("teamSearch", "token"): 3,
    ("orgGetUserPermissions", "token"): 3,
    # The token and the account, one Query of the user's member-of items, one batch of
    # the organizations with the memberships (their team grants), one of the teams.
    ("userListTeams", "token"): 5,
    # The token and the account; a change is one conditional write with its event.
    ("getUserSettings", "token"): 2,
    ("updateUserSettings", "token"): 3,
}
