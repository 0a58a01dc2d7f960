"""Issue tracker scenarios for bench/aws_calls.py (imported there).

The scene gets a history first: HISTORY issues on alice/demo, every third one closed,
so list pages are measured deep inside a long history (cost must not grow with either).
"""
from __future__ import annotations

from scene import Req, after

HISTORY = 150
REPO = "/repos/alice/demo"


def history(s) -> dict:
    """The history, built the first time a scenario asks: issue 1 has a label, a
    milestone and a comment; their ids are returned."""
    def make() -> dict:
        for n in range(1, HISTORY + 1):
            s.must("POST", f"{REPO}/issues", "token", {"title": f"issue {n}", "body": "x" * 200})
            if n % 3 == 0:
                s.must("PATCH", f"{REPO}/issues/{n}", "token", {"state": "closed"}, expect=201)
        made = {"label": new_label(s), "milestone": new_milestone(s)}
        s.must("POST", f"{REPO}/issues/1/labels", "token", {"labels": [made["label"]]},
               expect=200)
        s.must("PATCH", f"{REPO}/issues/1", "token", {"milestone": made["milestone"]},
               expect=201)
        made["comment"] = new_comment(s)
        return made

    return s.once("issue_history", make)


def new_issue(s) -> int:
    history(s)
    return s.must("POST", f"{REPO}/issues", "token", {"title": s.unique("issue ")})["number"]


def new_comment(s, number: int = 1) -> int:
    return s.must("POST", f"{REPO}/issues/{number}/comments", "token",
                  {"body": s.unique("comment ")})["id"]


def new_label(s) -> int:
    return s.must("POST", f"{REPO}/labels", "token",
                  {"name": s.unique("label"), "color": "#00aabb"})["id"]


def new_milestone(s) -> int:
    return s.must("POST", f"{REPO}/milestones", "token", {"title": s.unique("m")})["id"]


def new_time(s, number: int = 1) -> int:
    return s.must("POST", f"{REPO}/issues/{number}/times", "token", {"time": 60},
                  expect=200)["id"]


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    def tracker(s, requests: list[Req]) -> list[Req]:
        return after(history(s), requests)

    def label(s) -> int:
        return history(s)["label"]

    return {
        # Comments ---------------------------------------------------------------
        "issueGetRepoComments": lambda s: tracker(s, [
            Req("GET", f"{REPO}/issues/comments?limit=10", "token")]),
        "issueGetComment": lambda s: [
            Req("GET", f"{REPO}/issues/comments/{history(s)['comment']}", "token")],
        "issueEditComment": lambda s: [
            Req("PATCH", f"{REPO}/issues/comments/{new_comment(s)}", "token", {"body": "edited"})],
        "issueDeleteComment": lambda s: [
            Req("DELETE", f"{REPO}/issues/comments/{new_comment(s)}", "token", expect=204)],
        "issueGetComments": lambda s: tracker(s, [
            Req("GET", f"{REPO}/issues/1/comments", "token")]),
        "issueCreateComment": lambda s: tracker(s, [
            Req("POST", f"{REPO}/issues/1/comments", "token", {"body": "hi"}, 201)]),
        "issueEditCommentDeprecated": lambda s: [
            Req("PATCH", f"{REPO}/issues/1/comments/{new_comment(s)}", "token", {"body": "e"})],
        "issueDeleteCommentDeprecated": lambda s: [
            Req("DELETE", f"{REPO}/issues/1/comments/{new_comment(s)}", "token", expect=204)],
        # Issues -----------------------------------------------------------------
        "issueListIssues": lambda s: tracker(s, [
            Req("GET", f"{REPO}/issues?page=4&limit=20", "token"),
            Req("GET", f"{REPO}/issues?state=all&page=7&limit=10")]),
        "issueGetIssue": lambda s: tracker(s, [
            Req("GET", f"{REPO}/issues/140", "token"), Req("GET", f"{REPO}/issues/140")]),
        "issueCreateIssue": lambda s: tracker(s, [
            Req("POST", f"{REPO}/issues", "token", {"title": "new"}, 201)]),
        "issueEditIssue": lambda s: [
            Req("PATCH", f"{REPO}/issues/{new_issue(s)}", "token", {"state": "closed"}, 201)],
        "issueDelete": lambda s: [
            Req("DELETE", f"{REPO}/issues/{new_issue(s)}", "token", expect=204)],
        # Labels on issues -------------------------------------------------------
        "issueGetLabels": lambda s: tracker(s, [Req("GET", f"{REPO}/issues/1/labels", "token")]),
        "issueAddLabel": lambda s: [
            Req("POST", f"{REPO}/issues/2/labels", "token", {"labels": [label(s)]})],
        "issueReplaceLabels": lambda s: [
            Req("PUT", f"{REPO}/issues/2/labels", "token", {"labels": [label(s)]})],
        "issueClearLabels": lambda s: tracker(s, [
            Req("DELETE", f"{REPO}/issues/2/labels", "token", expect=204)]),
        "issueRemoveLabel": lambda s: [
            Req("DELETE", f"{REPO}/issues/1/labels/{label(s)}", "token", expect=204)],
        # Tracked times ----------------------------------------------------------
        "issueTrackedTimes": lambda s: tracker(s, [Req("GET", f"{REPO}/issues/1/times", "token")]),
        "issueAddTime": lambda s: tracker(s, [
            Req("POST", f"{REPO}/issues/1/times", "token", {"time": 90})]),
        "issueResetTime": lambda s: tracker(s, [
            Req("DELETE", f"{REPO}/issues/1/times", "token", expect=204)]),
        "issueDeleteTime": lambda s: [
            Req("DELETE", f"{REPO}/issues/1/times/{new_time(s)}", "token", expect=204)],
        # Labels and milestones of the repository --------------------------------
        "issueListLabels": lambda s: tracker(s, [Req("GET", f"{REPO}/labels", "token")]),
        "issueCreateLabel": lambda s: tracker(s, [
            Req("POST", f"{REPO}/labels", "token", {"name": "x", "color": "ffffff"}, 201)]),
        "issueGetLabel": lambda s: [Req("GET", f"{REPO}/labels/{label(s)}", "token")],
        "issueEditLabel": lambda s: [
            Req("PATCH", f"{REPO}/labels/{new_label(s)}", "token", {"name": "renamed"})],
        "issueDeleteLabel": lambda s: [
            Req("DELETE", f"{REPO}/labels/{new_label(s)}", "token", expect=204)],
        "issueGetMilestonesList": lambda s: tracker(s, [
            Req("GET", f"{REPO}/milestones?state=all", "token")]),
        "issueCreateMilestone": lambda s: tracker(s, [
            Req("POST", f"{REPO}/milestones", "token", {"title": "new"}, 201)]),
        "issueGetMilestone": lambda s: [
            Req("GET", f"{REPO}/milestones/{history(s)['milestone']}", "token")],
        "issueEditMilestone": lambda s: [
            Req("PATCH", f"{REPO}/milestones/{new_milestone(s)}", "token", {"state": "closed"})],
        "issueDeleteMilestone": lambda s: [
            Req("DELETE", f"{REPO}/milestones/{new_milestone(s)}", "token", expect=204)],
    }
