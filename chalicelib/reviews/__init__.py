"""Code review: a pull request's reviews, their code comments, dismissals and review
requests, and who may review or be assigned in a repository.

Operations (``routes.py``): repoCreatePullRequest, repoListPullReviews,
repoCreatePullReview, repoGetPullReview, repoSubmitPullReview, repoDeletePullReview,
repoGetPullReviewComments, repoCreatePullReviewComment, repoGetPullReviewComment,
repoDeletePullReviewComment, repoDismissPullReview, repoUnDismissPullReview,
repoCreatePullReviewRequests, repoDeletePullReviewRequests, repoGetReviewers,
repoGetAssignees, issueGetCommentsAndTimeline.

| module | what it holds |
|---|---|
| ``consumers`` | Stale reviews, and a deleted pull request's reviews purged, from the events queue (registered as … |
| ``hunks`` | The diff hunk a code comment shows: the lines of the file's diff up to the commented line, as Forgejo … |
| ``import_store`` | Reviews brought in by a project migration (``chalicelib.migrations``): a pull request's submitted reviews … |
| ``models`` | The reviews domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the reviews domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``records`` | PullReview and PullReviewComment records (fj:services/convert/pull_review.go), and the TimelineComment of … |
| ``requests`` | Review requests, and who may be asked (fj:services/issue/assignee.go IsValidReviewRequest, … |
| ``routes`` | Code review (Forgejo's ``repository`` tag): a pull request's reviews, their code comments, dismissals, … |
| ``service`` | Reviews of a pull request: list, get, create, submit, delete, dismiss, and their code comments … |
| ``store`` | Reviews of pull requests in the table: one item per review, one per code comment. |
| ``timeline`` | An issue's timeline (issueGetCommentsAndTimeline; fj:routers/api/v1/repo/issue_comment.go … |

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
    "wants_event":              "consumers",
    "ImportedReview":           "import_store",
    "ImportedReviewComment":    "import_store",
    "imported_review_ids":      "import_store.new_ids",
    "imported_verdicts":        "import_store.verdicts",
    "stage_imported_review":    "import_store.stage_review",
    "stage_imported_review_comments": "import_store.stage_comments",
    "CreatePullReviewComment":  "options",
    "CreatePullReviewOptions":  "options",
    "PullReviewRequestOptions": "options",
    "SubmitPullReviewOptions":  "options",
    "pull_review_record":       "records.pull_review",
    "review_comment_record":    "records.review_comment",
    "code_comments_of":         "service",
    "create_review":            "service",
    "create_review_comment":    "service",
    "list_reviews":             "service",
    "submit_review":            "service",
    "can_change_review_requests": "requests.can_change_requests",
    "change_review_requests":   "requests.change_requests",
    "opening_requests":         "requests",
    "open_pull":                "requests",
    "repo_assignees":           "requests.assignees",
    "repo_reviewers":           "requests.reviewers",
})
