"""The request bodies of the reviews domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

``event`` is Forgejo's ReviewStateType, a free string there: an unknown or empty one
means a pending review (fj:routers/api/v1/repo/pull_review.go preparePullReviewType),
so it is not an enum here either."""
from __future__ import annotations

from chalicelib.http.options import UNSET, Int64, Option, UnsetType


class CreatePullReviewComment(Option):
    """One code comment of a review: a line of ``path`` on the new side
    (``new_position``) or on the old side (``old_position``)."""

    path: str | None | UnsetType = UNSET
    body: str | None | UnsetType = UNSET
    old_position: Int64 | None | UnsetType = UNSET
    new_position: Int64 | None | UnsetType = UNSET
    extra_lines_count: Int64 | None | UnsetType = UNSET


class CreatePullReviewCommentOptions(CreatePullReviewComment):
    """repoCreatePullReviewComment (Forgejo names the same fields twice)."""


class CreatePullReviewOptions(Option):
    """repoCreatePullReview."""

    body: str | None | UnsetType = UNSET
    commit_id: str | None | UnsetType = UNSET
    event: str | None | UnsetType = UNSET
    comments: list[CreatePullReviewComment] | None | UnsetType = UNSET


class SubmitPullReviewOptions(Option):
    """repoSubmitPullReview."""

    body: str | None | UnsetType = UNSET
    event: str | None | UnsetType = UNSET


class DismissPullReviewOptions(Option):
    """repoDismissPullReview."""

    message: str | None | UnsetType = UNSET
    priors: bool | None | UnsetType = UNSET


class PullReviewRequestOptions(Option):
    """repoCreatePullReviewRequests, repoDeletePullReviewRequests."""

    reviewers: list[str] | None | UnsetType = UNSET
    team_reviewers: list[str] | None | UnsetType = UNSET
