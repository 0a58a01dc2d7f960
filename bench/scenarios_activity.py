"""Scenarios for activity feeds and the heatmap (chalicelib/activity).

The feeds hold what happened on alice/demo and in alice's organization: the bench runs
no event worker, so the set-up hands the waiting events to the activity consumer itself
(unmeasured), as the worker would.
"""
from __future__ import annotations

from scenarios_orgs import new_org_repo, on_team, org, team
from scenarios_pulls import DEMO
from scene import Req, Scene, after, deliver_pending

# Signed in with a token, the gateway reads the token and then the account (two
# batches) before any route runs.  Past that: a user's or an organization's feed page
# is the account by name (one Query of the name index; none for the caller's own), a
# Query of the feed's index partition, and one batch of the page's repositories, their
# owners, the caller's access to them, the actors and (an organization's) the caller's
# membership; a repository's feed has the repository and the caller's access from the
# gateway's batches, then the Query and the batch (none when the gateway's batches
# already hold all of it).  A team's feed has the team, its organization and the
# caller's membership from the gateway's batches (as every /teams/{id} route), then the
# Query of the team's own partition and the batch.  The heatmap: the user (none for the
# caller's own), one Query.
BUDGETS = {
    ("userListActivityFeeds", "token"): 5,      # another user's: their name is read
    ("userListActivityFeeds", "anon"): 3,
    ("orgListActivityFeeds", "token"): 5,
    ("orgListTeamActivityFeeds", "token"): 4,
    ("repoListActivityFeeds", "token"): 4,
    ("userGetHeatmapData", "token"): 3,
}


def activities(s: Scene) -> int:
    """An issue on alice/demo and a repository of alice's organization, recorded (once):
    the issue's number."""
    def make() -> int:
        number = s.must("POST", f"{DEMO}/issues", "token", {"title": "Feed me"})["number"]
        new_org_repo(s)
        deliver_pending("activity")
        return number
    return s.once("activities", make)


def public_feed(s: Scene) -> str:
    """A user whose feed holds only what anyone may see (a public repository made for
    them and an issue on it), recorded once: a feed page's cost without the look past
    hidden activities that alice's feed, full of every other scenario's work, needs."""
    def make() -> str:
        name = s.new_user()
        repo = s.must("POST", f"/admin/users/{name}/repos", "admin",
                      {"name": s.unique("feed")})["name"]
        s.must("POST", f"/repos/{name}/{repo}/issues", "token", {"title": "Public work"})
        deliver_pending("activity")
        return name
    return s.once("public_feed", make)


def team_activities(s: Scene) -> int:
    """An issue in the repository of alice's organization's write team, recorded (once,
    after the team has it, so the team's feed shows it): the team's id."""
    def make() -> int:
        made = team(s)
        s.must("POST", f"/repos/{org(s)}/{made['repo']}/issues", "token",
               {"title": "Team work"})
        deliver_pending("activity")
        return made["id"]
    return s.once("team_activities", make)


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "userListActivityFeeds": lambda s: [
            Req("GET", f"/users/{public_feed(s)}/activities/feeds", "token"),
            Req("GET", f"/users/{public_feed(s)}/activities/feeds", "anon")],
        "orgListActivityFeeds": lambda s: after(activities(s), [
            Req("GET", f"/orgs/{org(s)}/activities/feeds", "token")]),
        "orgListTeamActivityFeeds": lambda s: after(team_activities(s), [
            Req("GET", on_team(s, "/activities/feeds"), "token")]),
        "repoListActivityFeeds": lambda s: after(activities(s), [
            Req("GET", f"{DEMO}/activities/feeds", "token")]),
        "userGetHeatmapData": lambda s: after(activities(s), [
            Req("GET", "/users/alice/heatmap", "token")]),
    }
