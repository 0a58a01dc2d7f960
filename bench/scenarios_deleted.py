"""Scenarios for deleted repositories kept restorable (a Nimbus extension): the list of an
owner's (the owner, ``?owner=``) and of every owner's (a site admin), and a restore.
Each restore gets a repository of its own, deleted while the scene is set up."""
from __future__ import annotations

from scene import Req, Scene


def deleted_repo(s: Scene) -> int:
    """A repository of alice's, deleted (kept restorable: the default retention)."""
    name = s.new_repo()
    repo_id = s.must("GET", f"/repos/alice/{name}", "token", expect=200)["id"]
    s.must("DELETE", f"/repos/alice/{name}", "token", expect=204)
    return repo_id


def some_deleted(s: Scene) -> None:
    s.once("some_deleted", lambda: [deleted_repo(s) for _ in range(3)])


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "repoListDeleted": lambda s: (some_deleted(s), [
            Req("GET", "/repos/deleted?owner=alice", "token"),
            Req("GET", "/repos/deleted?limit=10", "admin")])[1],
        "repoRestoreDeleted": lambda s: [Req("POST", f"/repos/deleted/{deleted_repo(s)}/restore",
                                             "token", {}, 201)],
    }


# (operationId, auth) -> most AWS calls allowed.
BUDGETS = {
    # The token and its account (two batched reads), the owner by name (a Query of the
    # login index), one Query of the owner's deleted records (gsi1); a site admin's
    # list: the token and account, one Query (gsi2).
    ("repoListDeleted", "token"): 4,
    ("repoListDeleted", "admin"): 3,
    # The token and account (two batched reads; the owner is the caller, read already),
    # the record, the push mirrors (one Query), and one transaction (record out,
    # repository, id link and owner's count in, the redirect dropped, the event).  An
    # organization's owner restoring costs the organization and the membership more.
    ("repoRestoreDeleted", "token"): 5,
}
