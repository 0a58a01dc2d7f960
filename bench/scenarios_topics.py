"""Scenarios for repository topics, the topic search, a repository by id, and a
repository's teams.

alice's demo repository carries some topics (``demo_topics``) that the reads list and
search; each write gets a repository (or a topic) of its own, so it measures a change,
not a repeat.  The teams' scenarios use alice's organization and its write team
(``scenarios_orgs``).
"""
from __future__ import annotations

from scenarios_orgs import new_org_repo, new_team, new_team_repo, org, team
from scenarios_repos import DEMO
from scene import Req, Scene, after


def demo_topics(s: Scene) -> None:
    s.once("demo_topics", lambda: s.must("PUT", f"{DEMO}/topics", "token",
                                         {"topics": ["python", "web", "golang"]}, expect=204))


def repo_with_topic(s: Scene, topic: str) -> str:
    name = s.new_repo()
    s.must("PUT", f"/repos/alice/{name}/topics/{topic}", "token", expect=204)
    return name


def demo_id(s: Scene) -> int:
    return s.once("demo_id", lambda: s.must("GET", DEMO, "token", expect=200)["id"])


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "repoListTopics": lambda s: after(demo_topics(s), [
            Req("GET", f"{DEMO}/topics"), Req("GET", f"{DEMO}/topics", "token")]),
        "repoUpdateTopics": lambda s: [Req("PUT", f"/repos/alice/{repo_with_topic(s, 'old')}/topics",
                                           "token", {"topics": ["old", "new", "other"]}, 204)],
        "repoAddTopic": lambda s: [Req("PUT", f"/repos/alice/{s.new_repo()}/topics/added",
                                       "token", expect=204)],
        "repoDeleteTopic": lambda s: [Req(
            "DELETE", f"/repos/alice/{repo_with_topic(s, 'dropped')}/topics/dropped", "token",
            expect=204)],
        "topicSearch": lambda s: after(demo_topics(s), [
            Req("GET", "/topics/search?q=go"), Req("GET", "/topics/search?q=go", "token")]),
        "repoGetByID": lambda s: [Req("GET", f"/repositories/{demo_id(s)}"),
                                  Req("GET", f"/repositories/{demo_id(s)}", "token")],
        "repoListTeams": lambda s: [Req("GET", f"/repos/{org(s)}/{team(s)['repo']}/teams",
                                        "token")],
        "repoCheckTeam": lambda s: [Req(
            "GET", f"/repos/{org(s)}/{team(s)['repo']}/teams/{team_name(s, team(s)['id'])}",
            "token")],
        "repoAddTeam": lambda s: [Req(
            "PUT", f"/repos/{org(s)}/{new_org_repo(s)}/teams/{team_name(s, team(s)['id'])}",
            "token", expect=204)],
        "repoDeleteTeam": lambda s: [Req(
            "DELETE", f"/repos/{org(s)}/{repo_of_new_team(s)}", "token", expect=204)],
    }


def team_name(s: Scene, team_id: int) -> str:
    return s.must("GET", f"/teams/{team_id}", "token", expect=200)["name"]


def repo_of_new_team(s: Scene) -> str:
    """``<repo>/teams/<team>``: a new team given a new repository."""
    team_id = new_team(s)
    return f"{new_team_repo(s, team_id)}/teams/{team_name(s, team_id)}"


# A repository's topics ride on its item (the request's first batch); a change is one
# transaction (the repository's set, the link, the topic's count), a delete reads the
# topic's count first, a replace the changing topics in one batch.  The search reads
# the prefix page and, when the page is not full, one filtered page.  By id: the id
# link with the token, the repository, then what deciding access reads.  Teams: one
# Query of the organization's teams, filtered by DynamoDB (the team by name, or those
# covering the repository).
BUDGETS = {
    ("repoListTopics", "anon"): 2,
    ("repoListTopics", "token"): 2,
    ("repoUpdateTopics", "token"): 4,
    ("repoAddTopic", "token"): 3,
    ("repoDeleteTopic", "token"): 4,
    ("topicSearch", "anon"): 2,
    ("topicSearch", "token"): 4,
    ("repoGetByID", "anon"): 3,
    ("repoGetByID", "token"): 3,
    ("repoListTeams", "token"): 3,
    ("repoCheckTeam", "token"): 3,
    ("repoAddTeam", "token"): 4,
    ("repoDeleteTeam", "token"): 4,
}
