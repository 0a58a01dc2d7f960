"""Scenarios for repositories: create, read, edit, delete, forks, branches and content,
collaborators, stars, watches, deploy keys and repository webhooks.

``alice/demo`` (auto-initialized by the scene) is the repository reads run against;
writes that change or delete something get a repository or record of their own.
"""
from __future__ import annotations

from scene import Req, Scene, after, ssh_key

DEMO = "/repos/alice/demo"
HOOK = {"type": "gitea", "config": {"url": "https://ci.example.com/hook",
                                    "content_type": "json"}, "events": ["push"]}


def collaborator(s: Scene) -> str:
    """A user with write access to alice/demo."""
    def add() -> str:
        name = s.new_user()
        s.must("PUT", f"{DEMO}/collaborators/{name}", "token", {"permission": "write"},
               expect=204)
        return name

    return s.once("collaborator", add)


def spare_collaborator(s: Scene) -> str:
    name = s.new_user()
    s.must("PUT", f"{DEMO}/collaborators/{name}", "token", {"permission": "read"}, expect=204)
    return name


def star(s: Scene) -> None:
    s.must("PUT", "/user/starred/alice/demo", "token", expect=204)


def unstar(s: Scene) -> None:
    """So that the measured star is a change, not a repeat."""
    s.must("DELETE", "/user/starred/alice/demo", "token", expect=204)


def watch(s: Scene) -> None:
    s.must("PUT", f"{DEMO}/subscription", "token", expect=200)


def unwatch(s: Scene) -> None:
    s.must("DELETE", f"{DEMO}/subscription", "token", expect=204)


def new_deploy_key(s: Scene) -> int:
    return s.must("POST", f"{DEMO}/keys", "token",
                  {"title": s.unique("deploy"), "key": ssh_key(), "read_only": True})["id"]


def any_deploy_key(s: Scene) -> int:
    return s.once("deploy_key", lambda: new_deploy_key(s))


def new_hook(s: Scene, base: str, auth: str = "token") -> int:
    return s.must("POST", f"{base}/hooks", auth, HOOK)["id"]


def any_hook(s: Scene) -> int:
    return s.once("repo_hook", lambda: new_hook(s, DEMO))


def fork_of_demo(s: Scene) -> str:
    """One fork of alice/demo, so the fork list has something to show."""
    return s.once("fork", lambda: s.must("POST", f"{DEMO}/forks", "admin",
                                         {"name": s.unique("fork")}, expect=202)["name"])


def demo_head(s: Scene) -> str:
    """The commit alice/demo's main branch points at."""
    return s.once("demo_head", lambda: s.must("GET", f"{DEMO}/branches/main", "token",
                                              expect=200)["commit"]["id"])


def demo_statuses(s: Scene) -> str:
    """Statuses of 12 contexts on alice/demo's head (the combined status reads one item
    at any number of contexts); the head's id."""
    def post() -> str:
        sha = demo_head(s)
        for i in range(12):
            s.must("POST", f"{DEMO}/statuses/{sha}", "token",
                   {"state": ("success", "pending", "failure")[i % 3], "context": f"ci/{i}",
                    "target_url": f"https://ci.example.com/{i}"}, expect=200)
        return sha

    return s.once("demo_statuses", post)


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        # Repositories -----------------------------------------------------------
        "createCurrentUserRepo": lambda s: [Req("POST", "/user/repos", "token",
                                                {"name": s.unique("repo")}, 201)],
        "adminCreateRepo": lambda s: [Req("POST", "/admin/users/alice/repos", "admin",
                                          {"name": s.unique("repo")}, 201)],
        "repoGet": lambda s: [Req("GET", DEMO), Req("GET", DEMO, "token")],
        # A rename (by the site admin, so it is measured apart): alice's new repository.
        "repoEdit": lambda s: [Req("PATCH", DEMO, "token",
                                   {"description": s.unique("described ")}),
                               Req("PATCH", f"/repos/alice/{s.new_repo()}", "admin",
                                   {"name": s.unique("renamed")})],
        "repoDelete": lambda s: [Req("DELETE", f"/repos/alice/{s.new_repo()}", "token",
                                     expect=204)],
        "repoSearch": lambda s: after(index_alices_repos(), [
            Req("GET", "/repos/search?q=demo"), Req("GET", "/repos/search?q=demo", "token")]),
        "userCurrentListRepos": lambda s: [Req("GET", "/user/repos", "token")],
        "userListRepos": lambda s: [Req("GET", "/users/alice/repos")],
        "listForks": lambda s: after(fork_of_demo(s), [Req("GET", f"{DEMO}/forks")]),
        "createFork": lambda s: [Req("POST", f"{DEMO}/forks", "admin",
                                     {"name": s.unique("fork")}, 202)],
        # Branches and content ---------------------------------------------------
        "repoListBranches": lambda s: [Req("GET", f"{DEMO}/branches")],
        "repoGetBranch": lambda s: [Req("GET", f"{DEMO}/branches/main")],
        "repoGetRawFile": lambda s: [Req("GET", f"{DEMO}/raw/README.md")],
        "repoGetArchive": lambda s: [Req("GET", f"{DEMO}/archive/main.zip")],
        # Commit statuses ----------------------------------------------------------
        "repoCreateStatus": lambda s: [Req("POST", f"{DEMO}/statuses/{demo_head(s)}", "token",
                                           {"state": "success", "context": "bench"}, 200)],
        "repoListStatuses": lambda s: [Req("GET", f"{DEMO}/statuses/{demo_statuses(s)}"),
                                       Req("GET", f"{DEMO}/statuses/{demo_statuses(s)}",
                                           "token")],
        "repoGetCombinedStatusByRef": lambda s: after(demo_statuses(s), [
            Req("GET", f"{DEMO}/commits/main/statuses"),
            Req("GET", f"{DEMO}/commits/main/statuses", "token")]),
        "repoGetCombinedStatusByRefModern": lambda s: [
            Req("GET", f"{DEMO}/commits/main/status"),
            Req("GET", f"{DEMO}/commits/{demo_statuses(s)}/status", "token")],
        # Collaborators ----------------------------------------------------------
        "repoListCollaborators": lambda s: after(collaborator(s), [
            Req("GET", f"{DEMO}/collaborators", "token")]),
        "repoCheckCollaborator": lambda s: [Req("GET", f"{DEMO}/collaborators/{collaborator(s)}",
                                                "token", expect=204)],
        "repoAddCollaborator": lambda s: [Req("PUT", f"{DEMO}/collaborators/{s.new_user()}",
                                              "token", {"permission": "write"}, 204)],
        "repoDeleteCollaborator": lambda s: [Req(
            "DELETE", f"{DEMO}/collaborators/{spare_collaborator(s)}", "token", expect=204)],
        "repoGetRepoPermissions": lambda s: [Req(
            "GET", f"{DEMO}/collaborators/{collaborator(s)}/permission", "token")],
        # Stars ------------------------------------------------------------------
        "userCurrentCheckStarring": lambda s: after(star(s), [
            Req("GET", "/user/starred/alice/demo", "token", expect=204)]),
        "userCurrentPutStar": lambda s: after(unstar(s), [
            Req("PUT", "/user/starred/alice/demo", "token", expect=204)]),
        "userCurrentDeleteStar": lambda s: after(star(s), [
            Req("DELETE", "/user/starred/alice/demo", "token", expect=204)]),
        "userCurrentListStarred": lambda s: after(star(s), [Req("GET", "/user/starred", "token")]),
        "userListStarred": lambda s: after(star(s), [Req("GET", "/users/alice/starred", "token")]),
        "repoListStargazers": lambda s: after(star(s), [Req("GET", f"{DEMO}/stargazers")]),
        # Watches ----------------------------------------------------------------
        "userCurrentCheckSubscription": lambda s: after(watch(s), [
            Req("GET", f"{DEMO}/subscription", "token")]),
        "userCurrentPutSubscription": lambda s: after(unwatch(s), [
            Req("PUT", f"{DEMO}/subscription", "token")]),
        "userCurrentDeleteSubscription": lambda s: after(watch(s), [
            Req("DELETE", f"{DEMO}/subscription", "token", expect=204)]),
        "repoListSubscribers": lambda s: after(watch(s), [Req("GET", f"{DEMO}/subscribers")]),
        "userCurrentListSubscriptions": lambda s: after(watch(s), [
            Req("GET", "/user/subscriptions", "token")]),
        # Deploy keys ------------------------------------------------------------
        "repoListKeys": lambda s: after(any_deploy_key(s), [Req("GET", f"{DEMO}/keys", "token")]),
        "repoCreateKey": lambda s: [Req("POST", f"{DEMO}/keys", "token",
                                        {"title": s.unique("deploy"), "key": ssh_key()}, 201)],
        "repoGetKey": lambda s: [Req("GET", f"{DEMO}/keys/{any_deploy_key(s)}", "token")],
        "repoDeleteKey": lambda s: [Req("DELETE", f"{DEMO}/keys/{new_deploy_key(s)}", "token",
                                        expect=204)],
        # Repository webhooks ----------------------------------------------------
        "repoListHooks": lambda s: after(any_hook(s), [Req("GET", f"{DEMO}/hooks", "token")]),
        "repoCreateHook": lambda s: [Req("POST", f"{DEMO}/hooks", "token", HOOK, 201)],
        "repoGetHook": lambda s: [Req("GET", f"{DEMO}/hooks/{any_hook(s)}", "token")],
        "repoEditHook": lambda s: [Req("PATCH", f"{DEMO}/hooks/{any_hook(s)}", "token",
                                       {"active": True})],
        "repoDeleteHook": lambda s: [Req("DELETE", f"{DEMO}/hooks/{new_hook(s, DEMO)}", "token",
                                         expect=204)],
    }


def index_alices_repos() -> None:
    """alice's repositories in the search index, as the search-index consumer leaves
    them (the scene runs no event pipeline): a search then reads a real page.  Makes
    nothing new, so no other scenario's counts move."""
    from chalicelib import accounts, repos, search

    owner = accounts.account_by_name("alice")
    for repo in repos.repos_owned_by(int(owner.id)):
        search.index_repo(int(repo.id))
