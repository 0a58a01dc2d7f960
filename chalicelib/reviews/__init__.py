"""Code review: a pull request's reviews, their code comments, dismissals and review
requests, and who may review or be assigned in a repository.

Operations (``routes.py``): repoListPullReviews, repoCreatePullReview, repoGetPullReview,
repoSubmitPullReview, repoDeletePullReview, repoGetPullReviewComments,
repoCreatePullReviewComment, repoGetPullReviewComment, repoDeletePullReviewComment,
repoDismissPullReview, repoUnDismissPullReview, repoCreatePullReviewRequests,
repoDeletePullReviewRequests, repoGetReviewers, repoGetAssignees, and an issue's
timeline, issueGetCommentsAndTimeline (its comments with its reviews' entries).

| module | what it holds |
|---|---|
| ``consumers`` | Stale reviews when a pull request's head moves (approvals dismissed by the rule), outdated code comments; a deleted pull request's reviews purged. |
| ``hunks`` | The diff hunk a code comment shows (pure). |
| ``options`` | The request bodies (CreatePullReviewOptions, SubmitPullReviewOptions, …). |
| ``records`` | PullReview, PullReviewComment and TimelineComment records (fj:services/convert/pull_review.go, issue_comment.go). |
| ``requests`` | Review requests (users and teams), repoGetReviewers, repoGetAssignees. |
| ``routes`` | The thin handlers, registered before the pull request routes. |
| ``service`` | Reviews: create, submit, delete, dismiss, code comments; who is official. |
| ``timeline`` | An issue's timeline: its comments and, for a pull request, its reviews, requests and dismissals, oldest first. |
| ``store`` | Review and code comment items in the repository's partition; ``reviews_of``. |

Registered by ``chalicelib/areas.py``; the consumer by ``chalicelib/jobs/consumers.py``.
The pull request keeps copies of its review requests and of each reviewer's standing
verdict (``pulls/store.py`` ``PullFields``, written with the reviews by ``service.commit``):
the merge gate (``pulls/gate.py``) reads those and imports nothing from here.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":              "consumers",
    "on_event":                 "consumers",
    "CreatePullReviewComment":  "options",
    "CreatePullReviewOptions":  "options",
    "SubmitPullReviewOptions":  "options",
    "pull_review_record":       "records.pull_review",
    "review_comment_record":    "records.review_comment",
    "code_comments_of":         "service",
    "create_review":            "service",
    "create_review_comment":    "service",
    "list_reviews":             "service",
    "submit_review":            "service",
})
