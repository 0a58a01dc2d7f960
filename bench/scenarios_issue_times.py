"""Scenarios for stopwatches, deadlines, pins and tracked-time lists (alice/demo's
tracker, issue_calls' history).

A stopwatch is started on a fresh issue each time (a stop or a cancel starts it first,
unmeasured); a pin pins a fresh issue after unpinning what earlier scenarios pinned,
so the limit never answers instead; the lists read alice/demo's times, a few of them
added first.
"""
from __future__ import annotations

from issue_calls import REPO, history, new_issue, new_time
from scenarios_pulls import new_pull
from scene import Req, after


def running_stopwatch(s) -> int:
    number = new_issue(s)
    s.must("POST", f"{REPO}/issues/{number}/stopwatch/start", "token", expect=201)
    return number


def some_times(s) -> None:
    def make() -> bool:
        history(s)
        for _ in range(3):
            new_time(s)
        return True
    s.once("issue_times", make)


def free_pins(s) -> None:
    """Unpin every pinned issue and pull request of demo (unmeasured)."""
    for kind in ("issues", "pulls"):
        for item in s.must("GET", f"{REPO}/{kind}/pinned", "token", expect=200):
            s.must("DELETE", f"{REPO}/issues/{item['number']}/pin", "token", expect=204)


def fresh_pin_target(s) -> int:
    free_pins(s)
    return new_issue(s)


def pinned_issue(s) -> int:
    number = fresh_pin_target(s)
    s.must("POST", f"{REPO}/issues/{number}/pin", "token", expect=204)
    return number


def pinned_pull(s) -> int:
    number = new_pull(s)
    s.must("POST", f"{REPO}/issues/{number}/pin", "token", expect=204)
    return number


def two_pinned(s) -> int:
    """Two pinned issues; the second one's number."""
    pinned_issue(s)
    number = new_issue(s)
    s.must("POST", f"{REPO}/issues/{number}/pin", "token", expect=204)
    return number


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "issueStartStopWatch": lambda s: [
            Req("POST", f"{REPO}/issues/{new_issue(s)}/stopwatch/start", "token", expect=201)],
        "issueStopStopWatch": lambda s: after(some_times(s), [  # an id block in hand
            Req("POST", f"{REPO}/issues/{running_stopwatch(s)}/stopwatch/stop", "token",
                expect=201)]),
        "issueDeleteStopWatch": lambda s: [
            Req("DELETE", f"{REPO}/issues/{running_stopwatch(s)}/stopwatch/delete", "token",
                expect=204)],
        "userGetStopWatches": lambda s: after(running_stopwatch(s), [
            Req("GET", "/user/stopwatches", "token")]),
        "issueEditIssueDeadline": lambda s: [
            Req("POST", f"{REPO}/issues/{new_issue(s)}/deadline", "token",
                {"due_date": "2031-05-06T07:08:09Z"}, expect=201)],
        "pinIssue": lambda s: [
            Req("POST", f"{REPO}/issues/{fresh_pin_target(s)}/pin", "token", expect=204)],
        "unpinIssue": lambda s: [
            Req("DELETE", f"{REPO}/issues/{pinned_issue(s)}/pin", "token", expect=204)],
        "moveIssuePin": lambda s: [
            Req("PATCH", f"{REPO}/issues/{two_pinned(s)}/pin/1", "token", expect=204)],
        "repoListPinnedIssues": lambda s: after(two_pinned(s), [
            Req("GET", f"{REPO}/issues/pinned", "token"),
            Req("GET", f"{REPO}/issues/pinned")]),
        "repoListPinnedPullRequests": lambda s: after(pinned_pull(s), [
            Req("GET", f"{REPO}/pulls/pinned", "token"),
            Req("GET", f"{REPO}/pulls/pinned")]),
        "repoNewPinAllowed": lambda s: after(two_pinned(s), [
            Req("GET", f"{REPO}/new_pin_allowed", "token"),
            Req("GET", f"{REPO}/new_pin_allowed")]),
        "repoTrackedTimes": lambda s: after(some_times(s), [
            Req("GET", f"{REPO}/times?limit=10", "token")]),
        "userTrackedTimes": lambda s: after(some_times(s), [
            Req("GET", f"{REPO}/times/alice", "token")]),
        "userCurrentTrackedTimes": lambda s: after(some_times(s), [
            Req("GET", "/user/times?limit=10", "token")]),
    }


# The gateway's two preload batches for a route below a repository (the token and the
# repository; the caller's access items with the tracker, the owner's block and the
# issue — a stopwatch route adds the caller's stopwatch on the issue to that batch).
# Then: a start or a cancel, one write; a stop, one transaction (the stopwatch's
# delete, the time, the outbox); a deadline, the issue edit's one transaction.  A pin
# change reads the other pinned items (one BatchGetItem; none when the path's issue,
# already read, is the only one) and writes the tracker once; the
# pinned lists read their items in one batch (the pull requests' also their branch
# tips); new_pin_allowed reads both kinds' items in one batch.  The caller's stopwatches:
# token and account, one Query, the issues in one batch, the repositories by id (two
# batches; the id links come with the issues).  The time lists: one Query, the page's
# issues in one batch; the caller's own also read, per repository, its id link (with
# the issues), its record, its owner and its tracker.
BUDGETS = {
    ("issueStartStopWatch", "token"): 3,
    ("issueStopStopWatch", "token"): 3,
    ("issueDeleteStopWatch", "token"): 3,
    ("userGetStopWatches", "token"): 5,
    ("issueEditIssueDeadline", "token"): 3,
    ("pinIssue", "token"): 3,
    ("unpinIssue", "token"): 3,
    ("moveIssuePin", "token"): 4,
    ("repoListPinnedIssues", "token"): 3,
    ("repoListPinnedIssues", "anon"): 3,
    ("repoListPinnedPullRequests", "token"): 4,
    ("repoListPinnedPullRequests", "anon"): 4,
    ("repoNewPinAllowed", "token"): 3,
    ("repoNewPinAllowed", "anon"): 3,
    ("repoTrackedTimes", "token"): 4,
    ("userTrackedTimes", "token"): 4,
    ("userCurrentTrackedTimes", "token"): 6,
}
