"""Reviewing a pull request in the browser: the review form under the conversation
(``POST /{owner}/{repo}/pulls/{index}/files/reviews/submit``: approve, request changes
or comment) and a comment on a line of the diff
(``POST /{owner}/{repo}/pulls/{index}/files/reviews/comments``), Forgejo's URLs.

Both call ``reviews.service`` with the API's option records (repoCreatePullReview,
repoSubmitPullReview, repoCreatePullReviewComment), so the rules are the API's: the
poster may not approve or request changes, a request for changes needs a body, a
pending review is its author's alone.  A line comment is a single COMMENT review, or
starts (or adds to) the caller's pending review, which the review form then submits
with its verdict.  A refusal the reviewer can fix is shown on the form with the
service's message and the API's status.

The sidebar's reviewers form (``POST /{owner}/{repo}/pulls/{index}/reviewers``) asks for
a review or withdraws a request with ``reviews.change_review_requests``, the service of
repoCreatePullReviewRequests and repoDeletePullReviewRequests: the same rules (who may
change the requests, who may be asked) and the same single transaction.  Someone who may
not change them gets the 403 page; a name that is nobody, or someone who may not be
asked, is shown beside the field on the conversation page again, nothing written.
"""
from __future__ import annotations

from chalicelib import errors, pulls, reviews
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.pulls import PullRenderer
from chalicelib.repos import caller, current_repo
from chalicelib.reviews import (CreatePullReviewComment, CreatePullReviewOptions,
                                PullReviewRequestOptions, SubmitPullReviewOptions)
from chalicelib.web import issue_fields, pull_view, review_view
from chalicelib.web.actions_forms import (fixable_status, issue_number, posted, repo_values,
                                          show_form)
from chalicelib.web.view import Web, page, path_url, redirect

EVENTS = dict(review_view.EVENTS)
MODES = ("single", "review")


def _pending_id(ctx, number: int, user) -> int | None:
    for review in reviews.list_reviews(ctx, number):
        if review.state == review_view.PENDING and review.reviewer_id == int(user.id):
            return review.id
    return None


def _refused(req: ApiRequest, web: Web, ctx, view, number: int, err: errors.ServiceError,
             **values) -> ApiResponse:
    """The review form again, with the service's message (``forms/review.html``)."""
    record = PullRenderer(req, ctx).pull(pulls.get_pull(ctx, number))
    return show_form(web, "forms/review.html", error=err, title=f"Review #{number}",
                     pull=record, **values,
                     **review_view.review_values(req, web, ctx, view, record),
                     **repo_values(req, view, "pulls"))


@page("POST", "/{owner}/{repo}/pulls/{index}/files/reviews/submit", "webPullReviewSubmit",
      in_repo=True, signed_in=True)
def submit(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    number = issue_number(req, "pull request")
    form = posted(req)
    body, event = form.get("content", ""), form.get("event", "")
    ctx = pulls.pull_context(caller(req), view)
    pulls.get_pull(ctx, number)     # 404 before anything else, as the API
    try:
        if event not in EVENTS:
            raise errors.InvalidInput(f"[Event]: must be one of {', '.join(EVENTS)}")
        pending = _pending_id(ctx, number, web.user)
        if pending is None:
            reviews.create_review(ctx, number, CreatePullReviewOptions(body=body, event=event))
        else:
            reviews.submit_review(ctx, number, pending,
                                  SubmitPullReviewOptions(body=body, event=event))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _refused(req, web, ctx, view, number, err, review_body=body)
    return redirect(path_url(view.owner.login, view.repo.name, "pulls", str(number)) +
                    "#reviews")


@page("POST", "/{owner}/{repo}/pulls/{index}/files/reviews/comments", "webPullReviewComment",
      in_repo=True, signed_in=True)
def line_comment(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    number = issue_number(req, "pull request")
    form = posted(req)
    path, body, mode = form.get("path", ""), form.get("content", ""), form.get("mode", "")
    raw_line = form.get("line", "").strip()
    ctx = pulls.pull_context(caller(req), view)
    pulls.get_pull(ctx, number)
    try:
        if mode not in MODES:
            raise errors.InvalidInput(f"[Mode]: must be one of {', '.join(MODES)}")
        if not raw_line.lstrip("-").isdigit() or int(raw_line) == 0:
            raise errors.InvalidInput("[Line]: must be a line of the diff")
        if not body.strip():
            raise errors.InvalidInput("[Body]: Required")
        line = int(raw_line)
        comment = CreatePullReviewComment(
            path=path, body=body, new_position=line if line > 0 else 0,
            old_position=-line if line < 0 else 0)
        pending = _pending_id(ctx, number, web.user)
        if pending is not None:
            reviews.create_review_comment(ctx, number, pending, comment)
        else:
            reviews.create_review(ctx, number, CreatePullReviewOptions(
                body="", event="COMMENT" if mode == "single" else "", comments=[comment]))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _refused(req, web, ctx, view, number, err, line_path=path, line_value=raw_line,
                        line_body=body)
    return redirect(review_view.files_url(view, number) + "#files")


# The reviewers form's fields: the API's names; a message naming one goes beside it.
REVIEWER_FIELDS = {"reviewers": "reviewers", "teamreviewers": "team_reviewers",
                   "action": "reviewers"}
REQUEST_ACTIONS = ("add", "remove")


def _named_field(err: errors.ServiceError) -> errors.ServiceError:
    """A reviewer or team who does not exist is a 404 from the service (the API's
    answer); on the form it is a value to correct beside its field."""
    message = getattr(err, "message", "") or str(err)
    if isinstance(err, errors.NotFoundError):
        if message.startswith("User '"):
            return errors.InvalidInput(f"[Reviewers]: {message}")
        if message.startswith("Team '"):
            return errors.InvalidInput(f"[TeamReviewers]: {message}")
    err = issue_fields.with_field(err)
    message = getattr(err, "message", "") or str(err)
    if isinstance(err, errors.InvalidInput) and not message.startswith("["):
        # The rules' other refusals ("Doer can't remove reviewer") are about the names
        # typed: beside the field too, not above the review panel.
        return errors.InvalidInput(f"[Reviewers]: {message}")
    return err


@page("POST", "/{owner}/{repo}/pulls/{index}/reviewers", "webPullReviewRequest",
      in_repo=True, signed_in=True)
def request_reviewers(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    number = issue_number(req, "pull request")
    form = posted(req)
    action = form.get("action", "add")
    typed = {"reviewers": form.get("reviewers", ""),
             "team_reviewers": form.get("team_reviewers", "")}
    option = PullReviewRequestOptions(reviewers=issue_fields.many(req, "reviewers"),
                                      team_reviewers=issue_fields.many(req, "team_reviewers"))
    ctx = pulls.pull_context(caller(req), view)
    item = pulls.get_pull(ctx, number)      # 404 before anything else, as the API
    # Whoever was asked may withdraw their own request, as the API lets them.
    withdrawing_own = action == "remove" and not option.team_reviewers and \
        [name.lower() for name in option.reviewers] == [web.user.lower_name]
    if not reviews.can_change_review_requests(ctx, item) and not withdrawing_own:
        raise errors.PermissionDenied("you may not change this pull request's reviewers")
    try:
        if action not in REQUEST_ACTIONS:
            raise errors.InvalidInput(f"[Action]: must be one of {', '.join(REQUEST_ACTIONS)}")
        if action == "add" and not option.reviewers and not option.team_reviewers:
            raise errors.InvalidInput("[Reviewers]: name someone to ask for a review")
        reviews.change_review_requests(ctx, number, option, action == "add")
    except errors.ServiceError as err:
        shown = _named_field(err)
        if fixable_status(shown) is None:
            raise
        values = pull_view.conversation_values(req, web, view, number)
        values.pop("form_csrf", None)       # show_form hands out the form's token
        return show_form(web, "pull.html", error=shown, fields=REVIEWER_FIELDS,
                         **{**values, "reviewer_form": typed})
    return redirect(path_url(view.owner.login, view.repo.name, "pulls", str(number)))
