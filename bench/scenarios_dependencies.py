"""Scenarios for issue dependencies and blocks (alice/demo's tracker, issue_calls).

Each change names two fresh issues (a second add of the same edge would measure the
refusal); a removal, and a list, first add edges, unmeasured.
"""
from __future__ import annotations

from issue_calls import REPO, new_issue
from scene import Req

from chalicelib.store import ids

OWNER, NAME = REPO.split("/")[2:4]


def meta(number: int) -> dict:
    return {"owner": OWNER, "repo": NAME, "index": number}


def depending(s, count: int = 1) -> tuple[int, list[int]]:
    """A new issue depending on ``count`` new issues: its number and theirs."""
    blocked = new_issue(s)
    blockers = [new_issue(s) for _ in range(count)]
    for number in blockers:
        s.must("POST", f"{REPO}/issues/{blocked}/dependencies", "token", meta(number))
    return blocked, blockers


def ids_in_hand(s) -> None:
    """Leave at least the two timeline event ids a change takes in this process's block
    of comment ids (blocks are ``ids.BLOCK`` ids ending at a multiple of it), so the
    block's refill (one UpdateItem) never falls in the measured request."""
    while (-ids.next_id("comment")) % ids.BLOCK < 2:
        pass


def changed(s, method: str, path: str, body: dict) -> list[Req]:
    ids_in_hand(s)
    return [Req(method, path, "token", body, expect=201)]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "issueListIssueDependencies": lambda s: [
            Req("GET", f"{REPO}/issues/{depending(s, 3)[0]}/dependencies", "token"),
            Req("GET", f"{REPO}/issues/{depending(s, 3)[0]}/dependencies?page=1&limit=2")],
        "issueListBlocks": lambda s: [
            Req("GET", f"{REPO}/issues/{depending(s)[1][0]}/blocks", "token"),
            Req("GET", f"{REPO}/issues/{depending(s)[1][0]}/blocks")],
        "issueCreateIssueDependencies": lambda s: changed(
            s, "POST", f"{REPO}/issues/{new_issue(s)}/dependencies", meta(new_issue(s))),
        "issueCreateIssueBlocking": lambda s: changed(
            s, "POST", f"{REPO}/issues/{new_issue(s)}/blocks", meta(new_issue(s))),
        "issueRemoveIssueDependencies": removal(of_dependencies=True),
        "issueRemoveIssueBlocking": removal(of_dependencies=False),
    }


def removal(*, of_dependencies: bool):
    """A removal from either side of an edge made first, unmeasured."""
    def scenario(s) -> list[Req]:
        blocked, (blocker,) = depending(s)
        path, other, tail = (blocked, blocker, "dependencies") if of_dependencies \
            else (blocker, blocked, "blocks")
        return changed(s, "DELETE", f"{REPO}/issues/{path}/{tail}", meta(other))
    return scenario


# The gateway's two preload batches (the token and the repository; the caller's access
# items with the tracker, the owner's block of the caller and the path's issue), then:
# a list, one Query of the issue's edges and one BatchGetItem of the issues they name
# (all in demo: no other repository read); a change, the named issue (one GetItem; the
# path's issue was preloaded), then an add reads the edge and its reverse (one
# BatchGetItem) and a removal the edge (one GetItem), then one transaction (both edge
# items; for an add the reverse check and both issues' existence; both timeline events).
# Issues of other repositories add their repository, owner and access reads.
BUDGETS = {
    ("issueListIssueDependencies", "token"): 4,
    ("issueListIssueDependencies", "anon"): 4,
    ("issueListBlocks", "token"): 4,
    ("issueListBlocks", "anon"): 4,
    ("issueCreateIssueDependencies", "token"): 5,
    ("issueCreateIssueBlocking", "token"): 5,
    ("issueRemoveIssueDependencies", "token"): 5,
    ("issueRemoveIssueBlocking", "token"): 5,
}
