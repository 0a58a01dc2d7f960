"""Scenarios for organizations: the organization, its members, teams, repositories and
webhooks.

alice owns one organization (``org()``) with a write team (``team()``) that has a member
and a repository; reads run against those, and writes that delete something get an
organization, team, member or repository of their own.
"""
from __future__ import annotations

from scene import Req, Scene, after
from scenarios_repos import HOOK, new_hook


def new_org(s: Scene) -> str:
    return s.must("POST", "/orgs", "token", {"username": s.unique("org")})["username"]


def org(s: Scene) -> str:
    return s.once("org", lambda: new_org(s))


def new_team(s: Scene) -> int:
    return s.must("POST", f"/orgs/{org(s)}/teams", "token",
                  {"name": s.unique("team"), "permission": "write"})["id"]


def new_team_member(s: Scene, team_id: int) -> str:
    name = s.new_user()
    s.must("PUT", f"/teams/{team_id}/members/{name}", "token", expect=204)
    return name


def new_org_repo(s: Scene) -> str:
    return s.must("POST", f"/orgs/{org(s)}/repos", "token", {"name": s.unique("repo")})["name"]


def new_team_repo(s: Scene, team_id: int) -> str:
    name = new_org_repo(s)
    s.must("PUT", f"/teams/{team_id}/repos/{org(s)}/{name}", "token", expect=204)
    return name


def team(s: Scene) -> dict:
    """The organization's write team, with one member and one repository."""
    def make() -> dict:
        team_id = new_team(s)
        return {"id": team_id, "member": new_team_member(s, team_id),
                "repo": new_team_repo(s, team_id)}

    return s.once("team", make)


def publicize(s: Scene) -> None:
    s.must("PUT", f"/orgs/{org(s)}/public_members/alice", "token", expect=204)


def conceal(s: Scene) -> None:
    """So that the measured publicize is a change, not a repeat."""
    s.must("DELETE", f"/orgs/{org(s)}/public_members/alice", "token", expect=204)


def any_org_hook(s: Scene) -> int:
    return s.once("org_hook", lambda: new_hook(s, f"/orgs/{org(s)}"))


def on_team(s: Scene, suffix: str = "") -> str:
    return f"/teams/{team(s)['id']}{suffix}"


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        # The organization -------------------------------------------------------
        "orgCreate": lambda s: [Req("POST", "/orgs", "token", {"username": s.unique("org")}, 201)],
        "adminCreateOrg": lambda s: [Req("POST", "/admin/users/alice/orgs", "admin",
                                         {"username": s.unique("org")}, 201)],
        "orgGet": lambda s: [Req("GET", f"/orgs/{org(s)}"), Req("GET", f"/orgs/{org(s)}", "token")],
        "orgEdit": lambda s: [Req("PATCH", f"/orgs/{org(s)}", "token",
                                  {"description": s.unique("described ")})],
        "orgDelete": lambda s: [Req("DELETE", f"/orgs/{new_org(s)}", "token", expect=204)],
        "orgListCurrentUserOrgs": lambda s: after(org(s), [Req("GET", "/user/orgs", "token")]),
        "orgListUserOrgs": lambda s: after(org(s), [Req("GET", "/users/alice/orgs", "token")]),
        # Its repositories -------------------------------------------------------
        "orgListRepos": lambda s: after(team(s), [Req("GET", f"/orgs/{org(s)}/repos", "token")]),
        "createOrgRepo": lambda s: [Req("POST", f"/orgs/{org(s)}/repos", "token",
                                        {"name": s.unique("repo")}, 201)],
        "createOrgRepoDeprecated": lambda s: [Req("POST", f"/org/{org(s)}/repos", "token",
                                                  {"name": s.unique("repo")}, 201)],
        # Members ----------------------------------------------------------------
        "orgListMembers": lambda s: after(team(s), [
            Req("GET", f"/orgs/{org(s)}/members", "token")]),
        "orgIsMember": lambda s: [Req("GET", f"/orgs/{org(s)}/members/{team(s)['member']}",
                                      "token", expect=204)],
        "orgDeleteMember": lambda s: [Req(
            "DELETE", f"/orgs/{org(s)}/members/{new_team_member(s, team(s)['id'])}", "token",
            expect=204)],
        "orgListPublicMembers": lambda s: after(publicize(s), [
            Req("GET", f"/orgs/{org(s)}/public_members")]),
        "orgIsPublicMember": lambda s: after(publicize(s), [
            Req("GET", f"/orgs/{org(s)}/public_members/alice", expect=204)]),
        "orgPublicizeMember": lambda s: after(conceal(s), [
            Req("PUT", f"/orgs/{org(s)}/public_members/alice", "token", expect=204)]),
        "orgConcealMember": lambda s: after(publicize(s), [
            Req("DELETE", f"/orgs/{org(s)}/public_members/alice", "token", expect=204)]),
        # Teams ------------------------------------------------------------------
        "orgListTeams": lambda s: after(team(s), [Req("GET", f"/orgs/{org(s)}/teams", "token")]),
        "orgCreateTeam": lambda s: [Req("POST", f"/orgs/{org(s)}/teams", "token",
                                        {"name": s.unique("team"), "permission": "read"}, 201)],
        "orgGetTeam": lambda s: [Req("GET", on_team(s), "token")],
        "orgEditTeam": lambda s: [Req("PATCH", on_team(s), "token",
                                      {"description": s.unique("described ")})],
        "orgDeleteTeam": lambda s: [Req("DELETE", f"/teams/{new_team(s)}", "token", expect=204)],
        "orgListTeamMembers": lambda s: [Req("GET", on_team(s, "/members"), "token")],
        "orgListTeamMember": lambda s: [Req("GET", on_team(s, f"/members/{team(s)['member']}"),
                                            "token")],
        "orgAddTeamMember": lambda s: [Req("PUT", on_team(s, f"/members/{s.new_user()}"), "token",
                                           expect=204)],
        "orgRemoveTeamMember": lambda s: [Req(
            "DELETE", on_team(s, f"/members/{new_team_member(s, team(s)['id'])}"), "token",
            expect=204)],
        "orgListTeamRepos": lambda s: [Req("GET", on_team(s, "/repos"), "token")],
        "orgListTeamRepo": lambda s: [Req("GET", on_team(s, f"/repos/{org(s)}/{team(s)['repo']}"),
                                          "token")],
        "orgAddTeamRepository": lambda s: [Req(
            "PUT", on_team(s, f"/repos/{org(s)}/{new_org_repo(s)}"), "token", expect=204)],
        "orgRemoveTeamRepository": lambda s: [Req(
            "DELETE", on_team(s, f"/repos/{org(s)}/{new_team_repo(s, team(s)['id'])}"), "token",
            expect=204)],
        # Webhooks ---------------------------------------------------------------
        "orgListHooks": lambda s: after(any_org_hook(s), [
            Req("GET", f"/orgs/{org(s)}/hooks", "token")]),
        "orgCreateHook": lambda s: [Req("POST", f"/orgs/{org(s)}/hooks", "token", HOOK, 201)],
        "orgGetHook": lambda s: [Req("GET", f"/orgs/{org(s)}/hooks/{any_org_hook(s)}", "token")],
        "orgEditHook": lambda s: [Req("PATCH", f"/orgs/{org(s)}/hooks/{any_org_hook(s)}", "token",
                                      {"active": True})],
        "orgDeleteHook": lambda s: [Req("DELETE",
                                        f"/orgs/{org(s)}/hooks/{new_hook(s, f'/orgs/{org(s)}')}",
                                        "token", expect=204)],
    }
