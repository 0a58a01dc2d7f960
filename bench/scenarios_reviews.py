"""Code review scenarios for bench/aws_calls.py (imported there): reviews, their code
comments, dismissals, review requests, who may review or be assigned, and an issue's
timeline on alice/demo.

Alice opens the pull requests (scenarios_pulls.new_pull), so she may comment but not
approve; root (the ``admin`` token) approves.  Everything a scenario reads, submits,
dismisses or deletes is made first, in set-up (not counted).
"""
from __future__ import annotations

from scenarios_pulls import DEMO, new_branch, new_pull
from scene import Req, after

# The branch scenarios_pulls.new_branch makes adds "<branch>.txt" with one line.
FILE_LINE = 1

# Listing a pull request's reviews: the repository with the token, then the caller's
# access, the tracker and the pull request in one batch, then one Query of the reviews
# (issue 27: "listing reviews <= 3 AWS calls").  One review by id: the same two batches
# and one GetItem of the review; its code comments one Query (or GetItem) more.
# Writes: the two batches, what the rules read (the reviewer's pending review, or the
# review by id), one transaction.
BUDGETS = {
    ("repoListPullReviews", "anon"): 3,
    ("repoListPullReviews", "token"): 3,
    ("repoGetPullReview", "anon"): 3,
    ("repoGetPullReview", "token"): 3,
    ("repoGetPullReviewComments", "anon"): 4,
    ("repoGetPullReviewComment", "anon"): 4,
    ("repoCreatePullReview", "token"): 4,
    ("repoSubmitPullReview", "token"): 4,
    ("repoDismissPullReview", "token"): 4,
    ("repoUnDismissPullReview", "token"): 4,
    # An issue's timeline: the two batches, one Query of the comments and one of the
    # reviews (never a read per comment or per review).
    ("issueGetCommentsAndTimeline", "anon"): 4,
    ("issueGetCommentsAndTimeline", "token"): 4,
}


def reviewed_pull(s) -> tuple[int, str]:
    """A pull request (made once) with its head branch's name."""
    def make() -> tuple[int, str]:
        head = new_branch(s)
        return new_pull(s, head), head
    return s.once("reviewed_pull", make)


def new_review(s, auth: str = "token", event: str = "COMMENT", comment: bool = True,
               number_head: tuple[int, str] | None = None) -> tuple[int, int]:
    """A review on the shared pull request (or ``number_head``'s); (number, review id)."""
    number, head = number_head or reviewed_pull(s)
    body: dict = {"event": event, "body": s.unique("review ")}
    if comment:
        body["comments"] = [{"path": f"{head}.txt", "body": s.unique("note "),
                             "new_position": FILE_LINE}]
    return number, s.must("POST", f"{DEMO}/pulls/{number}/reviews", auth, body, 200)["id"]


def some_reviews(s) -> tuple[int, int]:
    """A few submitted reviews with code comments (made once)."""
    return s.once("some_reviews", lambda: [new_review(s) for _ in range(3)][-1])


def review_comment(s) -> tuple[int, int, int]:
    number, review = some_reviews(s)
    found = s.must("GET", f"{DEMO}/pulls/{number}/reviews/{review}/comments", "token",
                   expect=200)
    return number, review, found[0]["id"]


def new_comment(s) -> tuple[int, int, int]:
    number, review = new_review(s)
    made = s.must("POST", f"{DEMO}/pulls/{number}/reviews/{review}/comments", "token",
                  {"path": f"{reviewed_pull(s)[1]}.txt", "body": "more",
                   "new_position": FILE_LINE}, 200)
    return number, review, made["id"]


def approval(s, dismissed: bool = False) -> tuple[int, int]:
    """Root's approval of a new pull request (dismissed by alice, the owner, if asked)."""
    head = new_branch(s)
    number, review = new_review(s, "admin", "APPROVED", comment=False,
                                number_head=(new_pull(s, head), head))
    if dismissed:
        s.must("POST", f"{DEMO}/pulls/{number}/reviews/{review}/dismissals", "token",
               {"message": "outdated"}, 200)
    return number, review


def requested(s) -> tuple[int, str]:
    """A pull request with a review asked of a new user."""
    number = new_pull(s)
    user = s.new_user()
    s.must("POST", f"{DEMO}/pulls/{number}/requested_reviewers", "token",
           {"reviewers": [user]}, 201)
    return number, user


def busy_pull(s) -> int:
    """The reviewed pull request with comments and a review request too (made once)."""
    def make() -> int:
        number, _ = some_reviews(s)
        for _ in range(3):
            s.must("POST", f"{DEMO}/issues/{number}/comments", "token",
                   {"body": s.unique("comment ")}, 201)
        s.must("POST", f"{DEMO}/pulls/{number}/requested_reviewers", "token",
               {"reviewers": [s.new_user()]}, 201)
        return number
    return s.once("busy_pull", make)


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    def path(number: int, review: int | None = None, tail: str = "") -> str:
        base = f"{DEMO}/pulls/{number}/reviews"
        return (base if review is None else f"{base}/{review}") + tail

    return {
        "repoListPullReviews": lambda s: after(some_reviews(s), [
            Req("GET", path(some_reviews(s)[0])),
            Req("GET", path(some_reviews(s)[0]), "token")]),
        "repoCreatePullReview": lambda s: [
            Req("POST", path(reviewed_pull(s)[0]), "token",
                {"event": "COMMENT", "body": "measured"})],
        "repoGetPullReview": lambda s: [Req("GET", path(*some_reviews(s))),
                                        Req("GET", path(*some_reviews(s)), "token")],
        "repoSubmitPullReview": lambda s: [
            Req("POST", path(*new_review(s, event="", comment=True)), "token",
                {"event": "COMMENT", "body": "submitted"})],
        "repoDeletePullReview": lambda s: [
            Req("DELETE", path(*new_review(s)), "token", expect=204)],
        "repoGetPullReviewComments": lambda s: [
            Req("GET", path(*some_reviews(s), "/comments"))],
        "repoCreatePullReviewComment": lambda s: [
            Req("POST", path(*some_reviews(s), "/comments"), "token",
                {"path": f"{reviewed_pull(s)[1]}.txt", "body": "measured",
                 "new_position": FILE_LINE})],
        "repoGetPullReviewComment": lambda s: [
            Req("GET", _comment_path(path, *review_comment(s)))],
        "repoDeletePullReviewComment": lambda s: [
            Req("DELETE", _comment_path(path, *new_comment(s)), "token", expect=204)],
        "repoDismissPullReview": lambda s: [
            Req("POST", path(*approval(s), "/dismissals"), "token", {"message": "measured"})],
        "repoUnDismissPullReview": lambda s: [
            Req("POST", path(*approval(s, dismissed=True), "/undismissals"), "token")],
        "repoCreatePullReviewRequests": lambda s: [
            Req("POST", f"{DEMO}/pulls/{new_pull(s)}/requested_reviewers", "token",
                {"reviewers": [s.new_user()]}, 201)],
        "repoDeletePullReviewRequests": lambda s: [
            _unrequest(*requested(s))],
        "repoGetReviewers": lambda s: [Req("GET", f"{DEMO}/reviewers"),
                                       Req("GET", f"{DEMO}/reviewers", "token")],
        "repoGetAssignees": lambda s: [Req("GET", f"{DEMO}/assignees"),
                                       Req("GET", f"{DEMO}/assignees", "token")],
        "issueGetCommentsAndTimeline": lambda s: [
            Req("GET", f"{DEMO}/issues/{busy_pull(s)}/timeline"),
            Req("GET", f"{DEMO}/issues/{busy_pull(s)}/timeline", "token")],
    }


def _comment_path(path, number: int, review: int, comment: int) -> str:
    return path(number, review, f"/comments/{comment}")


def _unrequest(number: int, user: str) -> Req:
    return Req("DELETE", f"{DEMO}/pulls/{number}/requested_reviewers", "token",
               {"reviewers": [user]}, 204)
