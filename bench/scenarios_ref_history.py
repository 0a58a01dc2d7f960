"""Scenarios for the ref history and its undo (a Nimbus extension): a repository's list
of ref moves (all, and filtered by ref and forced) and a restore of a deleted branch.

The bench runs no event worker: the set-up hands the waiting push events to the ref
history's consumer itself (unmeasured), as the worker would.
"""
from __future__ import annotations

from scene import Req, Scene, deliver_pending


def moved_repo(s: Scene) -> str:
    """alice's repository where branch ``side`` was created and deleted, recorded (once)."""
    def make() -> str:
        name = s.new_repo(auto_init=True)
        s.must("POST", f"/repos/alice/{name}/branches", "token", {"new_branch_name": "side"})
        s.must("DELETE", f"/repos/alice/{name}/branches/side", "token", expect=204)
        deliver_pending("ref_history")
        return name
    return s.once("ref_history_repo", make)


def deleted_branch(s: Scene) -> tuple[str, int]:
    """A repository of its own whose branch ``side`` was deleted: its name and the id of
    the deletion's entry."""
    name = s.new_repo(auto_init=True)
    s.must("POST", f"/repos/alice/{name}/branches", "token", {"new_branch_name": "side"})
    s.must("DELETE", f"/repos/alice/{name}/branches/side", "token", expect=204)
    deliver_pending("ref_history")
    found = s.must("GET", f"/repos/alice/{name}/activity/refs?ref=side", "token", expect=200)
    return name, next(e["id"] for e in found if e["action"] == "deleted")


def _restore(s: Scene) -> list:
    name, entry_id = deleted_branch(s)
    return [Req("POST", f"/repos/alice/{name}/activity/refs/{entry_id}/restore", "token",
                None, 200)]


def _list(s: Scene) -> list:
    path = f"/repos/alice/{moved_repo(s)}/activity/refs"
    return [Req("GET", path, "token"), Req("GET", f"{path}?ref=main&forced=false", "token"),
            Req("GET", f"{path}?forced=true", "token")]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {"repoListRefActivity": _list, "repoRestoreRef": _restore}


# (operationId, auth) -> most AWS calls allowed.
BUDGETS = {
    # The token, its account and the repository with the caller's access (the gateway's
    # batches), one Query of the history (the ref's or the forced moves' index when
    # filtered), one batch of the page's movers.
    ("repoListRefActivity", "token"): 4,
    # The gateway's batches, the entry by id (one read), the repository's refs and its
    # pack list (as every ref move through the API), and the move itself: one
    # transaction of the ref, its branch record, the repository and the events.
    ("repoRestoreRef", "token"): 6,
}
