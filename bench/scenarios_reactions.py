"""Scenarios for reactions to issues and comments (alice/demo's tracker, issue_calls).

A new reaction reacts with a content alice has not used there yet (a fresh issue or
comment each time); a removal first reacts, unmeasured.
"""
from __future__ import annotations

from issue_calls import REPO, history, new_comment, new_issue
from scene import Req, after


def reacted_issue(s) -> int:
    number = new_issue(s)
    s.must("POST", f"{REPO}/issues/{number}/reactions", "token", {"content": "heart"})
    return number


def reacted_comment(s) -> int:
    comment = new_comment(s)
    s.must("POST", f"{REPO}/issues/comments/{comment}/reactions", "token", {"content": "heart"})
    return comment


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "issueGetIssueReactions": lambda s: after(history(s), [
            Req("GET", f"{REPO}/issues/{reacted_issue(s)}/reactions", "token"),
            Req("GET", f"{REPO}/issues/{reacted_issue(s)}/reactions?page=1&limit=10")]),
        "issuePostIssueReaction": lambda s: [
            Req("POST", f"{REPO}/issues/{new_issue(s)}/reactions", "token", {"content": "+1"},
                expect=201)],
        "issueDeleteIssueReaction": lambda s: [
            Req("DELETE", f"{REPO}/issues/{reacted_issue(s)}/reactions", "token",
                {"content": "heart"})],
        "issueGetCommentReactions": lambda s: [
            Req("GET", f"{REPO}/issues/comments/{reacted_comment(s)}/reactions", "token"),
            Req("GET", f"{REPO}/issues/comments/{reacted_comment(s)}/reactions")],
        "issuePostCommentReaction": lambda s: after(history(s), [
            Req("POST", f"{REPO}/issues/comments/{new_comment(s)}/reactions", "token",
                {"content": "+1"}, expect=201)]),
        "issueDeleteCommentReaction": lambda s: [
            Req("DELETE", f"{REPO}/issues/comments/{reacted_comment(s)}/reactions", "token",
                {"content": "heart"})],
    }


# The gateway's two preload batches (the token and the repository; the caller's access
# items with the tracker, the owner's block of the caller and the issue or the
# comment's lookup item), then: a list, one Query (a comment's first reads the comment
# and its issue in one batch); a reaction, one transaction (the reaction if absent, its
# target's existence); a removal, one DeleteItem.  alice owns demo and posted its
# issues, so no poster's block is read beyond the preloaded owner's; a comment's
# reaction may read the comment's issue's poster's block too (one batch more) when the
# issue is someone else's, as issue_calls' history leaves some.
BUDGETS = {
    ("issueGetIssueReactions", "token"): 3,
    ("issueGetIssueReactions", "anon"): 3,
    ("issuePostIssueReaction", "token"): 3,
    ("issueDeleteIssueReaction", "token"): 3,
    ("issueGetCommentReactions", "token"): 4,
    ("issueGetCommentReactions", "anon"): 4,
    ("issuePostCommentReaction", "token"): 5,
    ("issueDeleteCommentReaction", "token"): 4,
}
