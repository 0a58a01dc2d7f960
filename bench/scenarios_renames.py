"""Scenarios for renames: the site admin renames a user, an owner renames an
organization; each renamed account owns one repository, which moves with it."""
from __future__ import annotations

from scenarios_orgs import new_org
from scene import Req, Scene


def user_with_repo(s: Scene) -> str:
    name = s.new_user()
    s.must("POST", f"/admin/users/{name}/repos", "admin", {"name": s.unique("repo")})
    return name


def org_with_repo(s: Scene) -> str:
    name = new_org(s)
    s.must("POST", f"/orgs/{name}/repos", "token", {"name": s.unique("repo")})
    return name


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "adminRenameUser": lambda s: [Req("POST", f"/admin/users/{user_with_repo(s)}/rename",
                                          "admin", {"new_username": s.unique("renamed")},
                                          expect=204)],
        "renameOrg": lambda s: [Req("POST", f"/orgs/{org_with_repo(s)}/rename", "token",
                                    {"new_name": s.unique("renamedorg")}, expect=204)],
    }


# The token and the caller (two batches); the account by name (one Query of the name
# index; an organization adds the caller's membership, one GetItem); the rename's
# transaction (account, claims, redirect, event); the owner's repositories (one Query of
# its index) and their move (one transaction per 30).  Constant in the instance's size;
# the moves grow with the renamed account's own repositories only.
BUDGETS = {
    ("adminRenameUser", "admin"): 6,
    ("renameOrg", "token"): 7,
}
