"""Code review (Forgejo's ``repository`` tag): a pull request's reviews, their code
comments, dismissals, review requests, and who may review or be assigned.

Each route reads the repository with the token, then the caller's access, the tracker
and the pull request (the issue item) in the second batch, as the pull request routes
do; a review list is one Query more.  Token scope: ``repository``.  Registered before
the pull request routes: ``/pulls/{base}/{head:path}`` would take these paths.

Opening a pull request is here too: its ``reviewers`` and ``team_reviewers`` are review
requests, written in the transaction that opens it.

An issue's timeline (Forgejo's ``issue`` tag and scope) is here, not with the issues,
because it shows the reviews too (``timeline.py``).
"""
from __future__ import annotations

from chalicelib import accounts, issues
from chalicelib.accounts import account_from
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.issues import fresh_accounts, parse_time
from chalicelib.pulls import PULL, CreatePullRequestOption, PullRenderer, pull_ctx_of
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo, repo_preload
from chalicelib.reviews import records as review_records
from chalicelib.reviews import requests as review_requests
from chalicelib.reviews import service as reviews
from chalicelib.reviews import timeline as reviews_timeline
from chalicelib.reviews.options import (CreatePullReviewCommentOptions, CreatePullReviewOptions,
                                        DismissPullReviewOptions, PullReviewRequestOptions,
                                        SubmitPullReviewOptions)

SIGNED = dict(PULL, signed_in=True)
REVIEW = "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}"


@route("POST", "/repos/{owner}/{repo}/pulls", "repoCreatePullRequest",
       summary="Create a pull request", body="CreatePullRequestOption",
       responses={201: "PullRequest", 404: "notFound", 409: "conflict",
                  422: "validationError", 423: "error"}, **SIGNED)
def create_pull(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    item = review_requests.open_pull(ctx, req.option(CreatePullRequestOption))
    return ApiResponse.json(PullRenderer(req, ctx).pull(item), status=201)


def _render(req: ApiRequest, ctx, review) -> dict:
    reviewer = account_from(review.reviewer, fresh_accounts(ctx)) if review.reviewer_id \
        else None
    return review_records.pull_review(review, ctx.view, req.actor, reviewer=reviewer,
                                      owner=ctx.view.owner)


def _render_comment(req: ApiRequest, ctx, comment) -> dict:
    return review_records.review_comment(comment, ctx.view, req.actor,
                                         poster=account_from(comment.poster,
                                                             fresh_accounts(ctx)))


def _ids(req: ApiRequest) -> tuple[int, int]:
    return req.int_param("index"), req.int_param("id")


@route("GET", "/repos/{owner}/{repo}/pulls/{index}/reviews", "repoListPullReviews",
       summary="List all reviews for a pull request", query=PAGE,
       responses={200: "PullReviewList", 404: "notFound"}, **PULL)
def list_reviews(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    page = paging.page_of(req)
    found = reviews.list_reviews(ctx, req.int_param("index"))
    shown = found[page.offset:page.offset + page.limit]
    return paging.set_headers(ApiResponse.json([_render(req, ctx, r) for r in shown]), req,
                              page, len(found))


@route("POST", "/repos/{owner}/{repo}/pulls/{index}/reviews", "repoCreatePullReview",
       summary="Create a review to an pull request", body="CreatePullReviewOptions",
       responses={200: "PullReview", 404: "notFound", 422: "validationError"}, **SIGNED)
def create_review(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    review = reviews.create_review(ctx, req.int_param("index"),
                                   req.option(CreatePullReviewOptions))
    return ApiResponse.json(_render(req, ctx, review))


@route("GET", REVIEW, "repoGetPullReview", summary="Get a specific review for a pull request",
       responses={200: "PullReview", 404: "notFound"}, **PULL)
def get_review(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    return ApiResponse.json(_render(req, ctx, reviews.get_review(ctx, *_ids(req))))


@route("POST", REVIEW, "repoSubmitPullReview",
       summary="Submit a pending review to an pull request", body="SubmitPullReviewOptions",
       responses={200: "PullReview", 404: "notFound", 422: "validationError"}, **SIGNED)
def submit_review(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    review = reviews.submit_review(ctx, *_ids(req), req.option(SubmitPullReviewOptions))
    return ApiResponse.json(_render(req, ctx, review))


@route("DELETE", REVIEW, "repoDeletePullReview",
       summary="Delete a specific review from a pull request",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **SIGNED)
def delete_review(req: ApiRequest) -> ApiResponse:
    reviews.delete_review(pull_ctx_of(req), *_ids(req))
    return ApiResponse.empty()


@route("GET", REVIEW + "/comments", "repoGetPullReviewComments",
       summary="Get a specific review for a pull request",
       responses={200: "PullReviewCommentList", 404: "notFound"}, **PULL)
def review_comments(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    return ApiResponse.json([_render_comment(req, ctx, c)
                             for c in reviews.review_comments(ctx, *_ids(req))])


@route("POST", REVIEW + "/comments", "repoCreatePullReviewComment",
       summary="Add a new comment to a pull request review",
       body="CreatePullReviewCommentOptions",
       responses={200: "PullReviewComment", 404: "notFound", 422: "validationError"}, **SIGNED)
def create_review_comment(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    made = reviews.create_review_comment(ctx, *_ids(req),
                                         req.option(CreatePullReviewCommentOptions))
    return ApiResponse.json(_render_comment(req, ctx, made))


@route("GET", REVIEW + "/comments/{comment}", "repoGetPullReviewComment",
       summary="Get a pull review comment",
       responses={200: "PullReviewComment", 403: "forbidden", 404: "notFound"}, **PULL)
def get_review_comment(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    found = reviews.get_review_comment(ctx, *_ids(req), req.int_param("comment"))
    return ApiResponse.json(_render_comment(req, ctx, found))


@route("DELETE", REVIEW + "/comments/{comment}", "repoDeletePullReviewComment",
       summary="Delete a pull review comment",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **SIGNED)
def delete_review_comment(req: ApiRequest) -> ApiResponse:
    reviews.delete_review_comment(pull_ctx_of(req), *_ids(req), req.int_param("comment"))
    return ApiResponse.empty()


@route("POST", REVIEW + "/dismissals", "repoDismissPullReview",
       summary="Dismiss a review for a pull request", body="DismissPullReviewOptions",
       responses={200: "PullReview", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **SIGNED)
def dismiss_review(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    review = reviews.dismiss(ctx, *_ids(req), req.option(DismissPullReviewOptions), True)
    return ApiResponse.json(_render(req, ctx, review))


@route("POST", REVIEW + "/undismissals", "repoUnDismissPullReview",
       summary="Cancel to dismiss a review for a pull request",
       responses={200: "PullReview", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **SIGNED)
def undismiss_review(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    return ApiResponse.json(_render(req, ctx, reviews.dismiss(ctx, *_ids(req), None, False)))


@route("POST", "/repos/{owner}/{repo}/pulls/{index}/requested_reviewers",
       "repoCreatePullReviewRequests", summary="create review requests for a pull request",
       body="PullReviewRequestOptions",
       responses={201: "PullReviewList", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **SIGNED)
def create_requests(req: ApiRequest) -> ApiResponse:
    ctx = pull_ctx_of(req)
    made = review_requests.change_requests(ctx, req.int_param("index"),
                                           req.option(PullReviewRequestOptions), True)
    return ApiResponse.json([_render(req, ctx, r) for r in made], status=201)


@route("DELETE", "/repos/{owner}/{repo}/pulls/{index}/requested_reviewers",
       "repoDeletePullReviewRequests", summary="cancel review requests for a pull request",
       body="PullReviewRequestOptions",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def delete_requests(req: ApiRequest) -> ApiResponse:
    review_requests.change_requests(pull_ctx_of(req), req.int_param("index"),
                                    req.option(PullReviewRequestOptions), False)
    return ApiResponse.empty()


def _users(req: ApiRequest, found: list) -> ApiResponse:
    """Forgejo answers these lists whole (no paging)."""
    return ApiResponse.json([accounts.user_record(a, req.actor) for a in found])


@route("GET", "/repos/{owner}/{repo}/reviewers", "repoGetReviewers",
       summary="Return all users that can be requested to review in this repo",
       responses={200: "UserList", 404: "notFound"}, **dict(IN_REPO, preload=repo_preload))
def get_reviewers(req: ApiRequest) -> ApiResponse:
    from chalicelib import pulls

    ctx = pulls.pull_context(caller(req), current_repo(req))
    return _users(req, review_requests.reviewers(ctx))


@route("GET", "/repos/{owner}/{repo}/assignees", "repoGetAssignees",
       summary="Return all users that have write access and can be assigned to issues",
       responses={200: "UserList", 404: "notFound"}, **dict(IN_REPO, preload=repo_preload))
def get_assignees(req: ApiRequest) -> ApiResponse:
    return _users(req, review_requests.assignees(issues.issue_ctx_of(req)))


TIME_RANGE = (Param("since", "string", "if provided, only comments updated since the "
                                       "specified time are returned."),
              Param("before", "string", "if provided, only comments updated before the "
                                        "provided time are returned."))


@route("GET", "/repos/{owner}/{repo}/issues/{index}/timeline", "issueGetCommentsAndTimeline",
       summary="List all comments and events on an issue", query=(*TIME_RANGE, *PAGE),
       responses={200: "TimelineList", 404: "notFound", 422: "validationError"},
       **issues.ISSUE)
def issue_timeline(req: ApiRequest) -> ApiResponse:
    """The issue's comments, events, references and its reviews' entries: the issue
    routes' two batches, one Query of the comments with the events, one of the
    references (and one batch of the issues they come from, if any) and, for a pull
    request, one of its reviews."""
    ctx = issues.issue_ctx_of(req)
    page = paging.page_of(req)
    issue, found = reviews_timeline.timeline(ctx, req.int_param("index"),
                                             parse_time(req.arg("since"), "Since"),
                                             parse_time(req.arg("before"), "Before"))
    fresh = fresh_accounts(ctx)
    events = issues.TimelineRenderer(req, ctx)

    def render(entry) -> dict:
        if entry.found is not None:     # an event or a reference (issues/timeline_records)
            return events.record(entry.found, number=int(issue.number),
                                 is_pull=bool(issue.is_pull))
        stored = entry.poster
        user = account_from(stored, fresh) if stored and stored != "{}" else None
        return review_records.timeline_comment(entry, ctx.view, req.actor,
                                               is_pull=bool(issue.is_pull), user=user,
                                               owner=ctx.view.owner)

    shown = found[page.offset:page.offset + page.limit]
    return paging.set_headers(ApiResponse.json([render(e) for e in shown]), req, page,
                              len(found))
