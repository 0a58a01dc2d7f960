"""Issue tracker scenarios for bench/aws_calls.py (imported there).

The scene gets a history first: HISTORY issues on alice/demo, every third one closed,
so list pages are measured deep inside a long history (cost must not grow with either).
"""
from __future__ import annotations

HISTORY = 150
REPO = "/repos/alice/demo"
_made: dict = {}


def history(s) -> dict:
    if _made:
        return _made
    for n in range(1, HISTORY + 1):
        s.must("POST", f"{REPO}/issues", "token", {"title": f"issue {n}", "body": "x" * 200})
        if n % 3 == 0:
            s.must("PATCH", f"{REPO}/issues/{n}", "token", {"state": "closed"}, expect=201)
    _made["label"] = new_label(s)
    _made["milestone"] = new_milestone(s)
    s.must("POST", f"{REPO}/issues/1/labels", "token", {"labels": [_made["label"]]}, expect=200)
    s.must("PATCH", f"{REPO}/issues/1", "token", {"milestone": _made["milestone"]}, expect=201)
    _made["comment"] = new_comment(s)
    return _made


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


def scenarios(Req) -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS; ``Req`` is its request type."""

    def h(s):
        return history(s)

    return {
        "issueGetRepoComments": lambda s: (h(s), [Req("GET", f"{REPO}/issues/comments?limit=10",
                                                      "token")])[1],
        "issueGetComment": lambda s: [Req("GET", f"{REPO}/issues/comments/{h(s)['comment']}",
                                          "token")],
        "issueEditComment": lambda s: [Req("PATCH", f"{REPO}/issues/comments/{new_comment(s)}",
                                           "token", {"body": "edited"})],
        "issueDeleteComment": lambda s: [Req("DELETE", f"{REPO}/issues/comments/{new_comment(s)}",
                                             "token", expect=204)],
        "issueCreateIssue": lambda s: (h(s), [Req("POST", f"{REPO}/issues", "token",
                                                  {"title": "new"}, 201)])[1],
        "issueEditIssue": lambda s: [Req("PATCH", f"{REPO}/issues/{new_issue(s)}", "token",
                                         {"state": "closed"}, 201)],
        "issueDelete": lambda s: [Req("DELETE", f"{REPO}/issues/{new_issue(s)}", "token",
                                      expect=204)],
        "issueGetComments": lambda s: (h(s), [Req("GET", f"{REPO}/issues/1/comments", "token")])[1],
        "issueCreateComment": lambda s: (h(s), [Req("POST", f"{REPO}/issues/1/comments", "token",
                                                    {"body": "hi"}, 201)])[1],
        "issueEditCommentDeprecated": lambda s: [Req(
            "PATCH", f"{REPO}/issues/1/comments/{new_comment(s)}", "token", {"body": "e"})],
        "issueDeleteCommentDeprecated": lambda s: [Req(
            "DELETE", f"{REPO}/issues/1/comments/{new_comment(s)}", "token", expect=204)],
        "issueGetLabels": lambda s: (h(s), [Req("GET", f"{REPO}/issues/1/labels", "token")])[1],
        "issueAddLabel": lambda s: [Req("POST", f"{REPO}/issues/2/labels", "token",
                                        {"labels": [h(s)["label"]]})],
        "issueReplaceLabels": lambda s: [Req("PUT", f"{REPO}/issues/2/labels", "token",
                                             {"labels": [h(s)["label"]]})],
        "issueClearLabels": lambda s: (h(s), [Req("DELETE", f"{REPO}/issues/2/labels", "token",
                                                  expect=204)])[1],
        "issueRemoveLabel": lambda s: [Req("DELETE", f"{REPO}/issues/1/labels/{h(s)['label']}",
                                           "token", expect=204)],
        "issueTrackedTimes": lambda s: (h(s), [Req("GET", f"{REPO}/issues/1/times", "token")])[1],
        "issueAddTime": lambda s: (h(s), [Req("POST", f"{REPO}/issues/1/times", "token",
                                              {"time": 90})])[1],
        "issueResetTime": lambda s: (h(s), [Req("DELETE", f"{REPO}/issues/1/times", "token",
                                                expect=204)])[1],
        "issueDeleteTime": lambda s: [Req("DELETE", f"{REPO}/issues/1/times/{new_time(s)}",
                                          "token", expect=204)],
        "issueListLabels": lambda s: (h(s), [Req("GET", f"{REPO}/labels", "token")])[1],
        "issueCreateLabel": lambda s: (h(s), [Req("POST", f"{REPO}/labels", "token",
                                                  {"name": "x", "color": "ffffff"}, 201)])[1],
        "issueGetLabel": lambda s: [Req("GET", f"{REPO}/labels/{h(s)['label']}", "token")],
        "issueEditLabel": lambda s: [Req("PATCH", f"{REPO}/labels/{new_label(s)}", "token",
                                         {"name": "renamed"})],
        "issueDeleteLabel": lambda s: [Req("DELETE", f"{REPO}/labels/{new_label(s)}", "token",
                                           expect=204)],
        "issueGetMilestonesList": lambda s: (h(s), [Req("GET", f"{REPO}/milestones?state=all",
                                                        "token")])[1],
        "issueCreateMilestone": lambda s: (h(s), [Req("POST", f"{REPO}/milestones", "token",
                                                      {"title": "new"}, 201)])[1],
        "issueGetMilestone": lambda s: [Req("GET", f"{REPO}/milestones/{h(s)['milestone']}",
                                            "token")],
        "issueEditMilestone": lambda s: [Req("PATCH", f"{REPO}/milestones/{new_milestone(s)}",
                                             "token", {"state": "closed"})],
        "issueDeleteMilestone": lambda s: [Req("DELETE", f"{REPO}/milestones/{new_milestone(s)}",
                                               "token", expect=204)],
    }
