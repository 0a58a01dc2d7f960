"""Scenarios for the rest of a repository's lifecycle (issue 39): transfer (at once to
alice's organization, pending to the site admin who accepts or rejects), generation
from a template, a mirror's conversion, the site admins' flags, and the git-hook and
unadopted-repository operations answered as a Forgejo with them disabled.

Each write gets a repository of its own, so it measures a change, not a repeat.
"""
from __future__ import annotations

from scenarios_avatars import uploaded
from scenarios_git import LOCAL_REMOTES, migrate_option
from scenarios_orgs import org
from scenarios_repos import HOOK
from scene import ADMIN, Req, Scene, settings_in_force


def pending_to_admin(s: Scene) -> str:
    """alice's new repository, waiting for the site admin to accept it."""
    name = s.new_repo()
    s.must("POST", f"/repos/alice/{name}/transfer", "token", {"new_owner": ADMIN[0]})
    return name


def new_mirror(s: Scene) -> str:
    with settings_in_force(LOCAL_REMOTES):
        return s.must("POST", "/repos/migrate", "token", migrate_option(s, mirror=True))["name"]


def flagged(s: Scene) -> str:
    """A repository of alice's with one flag."""
    name = s.new_repo()
    s.must("PUT", f"/repos/alice/{name}/flags/spam", "admin", expect=204)
    return name


def template(s: Scene) -> str:
    """alice's template: an initial commit (README), a webhook and an uploaded avatar,
    marked ``template``."""
    def make() -> str:
        name = s.new_repo(auto_init=True)
        s.must("PATCH", f"/repos/alice/{name}", "token", {"template": True}, expect=200)
        s.must("POST", f"/repos/alice/{name}/hooks", "token", HOOK, expect=201)
        uploaded(s, f"/repos/alice/{name}/avatar")
        return name
    return s.once("template", make)


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "repoTransfer": lambda s: [Req("POST", f"/repos/alice/{s.new_repo()}/transfer", "token",
                                       {"new_owner": org(s)}, 202)],
        "acceptRepoTransfer": lambda s: [Req(
            "POST", f"/repos/alice/{pending_to_admin(s)}/transfer/accept", "admin", None, 202)],
        "rejectRepoTransfer": lambda s: [Req(
            "POST", f"/repos/alice/{pending_to_admin(s)}/transfer/reject", "admin", None, 200)],
        "repoConvert": lambda s: [Req("POST", f"/repos/alice/{new_mirror(s)}/convert", "token")],
        "repoListFlags": lambda s: [Req("GET", f"/repos/alice/{flagged(s)}/flags", "admin")],
        "repoCheckFlag": lambda s: [Req("GET", f"/repos/alice/{flagged(s)}/flags/spam", "admin",
                                        expect=204)],
        "repoAddFlag": lambda s: [Req("PUT", f"/repos/alice/{s.new_repo()}/flags/spam", "admin",
                                      expect=204)],
        "repoDeleteFlag": lambda s: [Req("DELETE", f"/repos/alice/{flagged(s)}/flags/spam",
                                         "admin", expect=204)],
        "repoReplaceAllFlags": lambda s: [Req("PUT", f"/repos/alice/{flagged(s)}/flags", "admin",
                                              {"flags": ["a", "b"]}, 204)],
        "repoDeleteAllFlags": lambda s: [Req("DELETE", f"/repos/alice/{flagged(s)}/flags",
                                             "admin", expect=204)],
        "adminUnadoptedList": lambda s: [Req("GET", "/admin/unadopted", "admin")],
        "generateRepo": lambda s: [Req("POST", f"/repos/alice/{template(s)}/generate", "token",
                                       {"owner": "alice", "name": s.unique("generated"),
                                        "git_content": True, "webhooks": True,
                                        "avatar": True}, 201)],
    }


# (operationId, auth) -> most AWS calls allowed for that request.
BUDGETS = {
    # The preload, the new owner (name claim, account), its quota, whether it blocks the
    # doer, the name free under it, then one transaction (item moved, id link, both
    # owners' counters, team links, the redirect, the event), then the collaborations
    # the new owner might make redundant (a Query).
    ("repoTransfer", "token"): 8,
    # The preload, the pending transfer's doer and recipient (a batch), the recipient's
    # quota, the name free under it, one transaction, the collaborations (a Query).
    ("acceptRepoTransfer", "admin"): 5,
    # The preload (with the doer and recipient), one conditional update.
    ("rejectRepoTransfer", "admin"): 3,
    # The preload; one transaction (the item's mirror attributes, the schedule item, the
    # LFS objects owed, the event).
    ("repoConvert", "token"): 3,
    # Flags live on the repository item: the preload reads them; a change is one
    # conditional update of the set as read.
    ("repoListFlags", "admin"): 2,
    ("repoCheckFlag", "admin"): 2,
    ("repoAddFlag", "admin"): 3,
    ("repoDeleteFlag", "admin"): 3,
    ("repoReplaceAllFlags", "admin"): 3,
    ("repoDeleteAllFlags", "admin"): 3,
    # The admin's token and account only: nothing is ever unadopted.
    ("adminUnadoptedList", "admin"): 2,
    # With git content, webhooks and the avatar: the preload, the template's refs and
    # packs (Queries), its hooks (a Query), the creation (one transaction), HEAD, the new
    # commit's pack (S3 object and index) and its pack record, the branch's creation (one
    # transaction), the avatar's object copied (CopyObject), then the hook copies and the
    # avatar's digest (one transaction).
    ("generateRepo", "token"): 15,
}

# operationId -> why its success path cannot be reached: answered as a Forgejo with git
# hooks disabled and nothing unadopted answers (repo_admin/disabled_routes.py); their
# refusals are tested in tests/repo_admin/test_disabled_ops.py.
EXEMPT = {
    "repoListGitHooks": "git hooks are disabled: every caller gets 403",
    "repoGetGitHook": "git hooks are disabled: every caller gets 403",
    "repoEditGitHook": "git hooks are disabled: every caller gets 403",
    "repoDeleteGitHook": "git hooks are disabled: every caller gets 403",
    "adminAdoptRepository": "git data never exists without its record: always 404",
    "adminDeleteUnadoptedRepository": "git data never exists without its record: always 404",
}
