"""Reviews of a pull request: list, get, create, submit, delete, dismiss, and their code
comments (fj:routers/api/v1/repo/pull_review.go, services/pull/review.go,
models/issues/review.go).

Rules, as Forgejo's:
- whoever may read the pull request may review it (signed in); only reviews by those
  who may approve are ``official`` (the branch rule's approvals whitelist when it has
  one, else write access), and a new approval or rejection takes the flag from the
  reviewer's earlier reviews;
- the poster may not approve or request changes (422); REQUEST_CHANGES needs a body,
  COMMENT a body or a code comment; any other event keeps the review PENDING;
- a reviewer has at most one pending review per pull request: creating another
  extends it; only its author (or a site admin) sees it;
- a submitted approval or rejection by a requested reviewer ends their request (and
  their teams'): the pull request's copies move in the same transaction;
- approvals and rejections of a commit other than the head are ``stale``.

Every write is conditional on what was read (``reviews/store.py``): of two submits of
one pending review exactly one lands, the other answers 422 as a second submit would.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Callable, Iterable

from chalicelib import clock, events, issues, pulls
from chalicelib.accounts import account_snapshot
from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.issues import Ctx
from chalicelib.pulls import PullFields
from chalicelib.repos import Access, repo_access
from chalicelib.reviews import hunks, store
from chalicelib.reviews.options import (CreatePullReviewComment, CreatePullReviewOptions,
                                        DismissPullReviewOptions, SubmitPullReviewOptions)
from chalicelib.reviews.store import (APPROVED, COMMENT, PENDING, REQUEST_CHANGES, Review,
                                      ReviewComment)
from chalicelib.store import unit_of_work

DECIDING = (APPROVED, REQUEST_CHANGES)
CLOSED_PR = "can't submit review for a closed or merged PR"


# Reads ---------------------------------------------------------------------------------

def may_see(ctx: Ctx, review: Review) -> bool:
    """A pending review is its author's (and site admins') alone."""
    if review.state != PENDING:
        return True
    user = ctx.user
    return user is not None and (bool(user.is_admin) or int(user.id) == review.reviewer_id)


def list_reviews(ctx: Ctx, number: int) -> list[Review]:
    pulls.get_pull(ctx, number)
    return [r for r in store.reviews_of(ctx.repo_id, number) if may_see(ctx, r)]


def get_review(ctx: Ctx, number: int, review_id: int, *, consistent: bool = False) -> Review:
    pulls.get_pull(ctx, number)
    review = store.get_review(ctx.repo_id, number, review_id, consistent=consistent)
    if review is None or not may_see(ctx, review):
        raise NotFoundError(f"review does not exist [id: {review_id}]")
    return review


def review_comments(ctx: Ctx, number: int, review_id: int) -> list[ReviewComment]:
    get_review(ctx, number, review_id)
    return store.comments_of(ctx.repo_id, number, review_id)


def code_comments_of(ctx: Ctx, number: int, shown: list[Review]) -> list[ReviewComment]:
    """Every code comment of the reviews in ``shown`` (what ``list_reviews`` gave the
    caller), oldest first: one Query for the whole pull request (the web's diff shows
    them under their lines)."""
    visible = {r.id for r in shown if may_see(ctx, r)}
    if not visible:
        return []
    return [c for c in store.comments_of(ctx.repo_id, number) if c.review_id in visible]


def get_review_comment(ctx: Ctx, number: int, review_id: int, comment_id: int) -> ReviewComment:
    get_review(ctx, number, review_id)
    found = store.get_comment(ctx.repo_id, number, review_id, comment_id)
    if found is None:
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    return found


# Who may approve -------------------------------------------------------------------------

def protection_rule(repo_id: int, branch: str):
    from chalicelib import protection
    return protection.protection_of(repo_id).rule_for(branch)


def is_official(ctx: Ctx, user, base_branch: str) -> bool:
    """Forgejo's IsOfficialReviewer: the rule's approvers, or writers with no rule."""
    rule = protection_rule(ctx.repo_id, base_branch)
    if rule is not None:
        from chalicelib import protection
        return bool(rule.is_official_approver(protection.pusher_of(ctx.view, user)))
    return repo_access(user, ctx.repo, ctx.view.owner) >= Access.WRITE


# Events --------------------------------------------------------------------------------

def review_event(ctx: Ctx, issue, review: Review, action: str) -> events.Event:
    return events.PullReviewChanged(**ctx.event_fields(), issue_id=int(issue.id),
                                    number=int(issue.number), review_id=review.id,
                                    action=action, state=review.state,
                                    review=asdict(review), issue=events.snapshot(issue))


# Writing ---------------------------------------------------------------------------------

def commit(ctx: Ctx, number: int, stage: Callable[[], None],
           pull_change: Callable[[PullFields], bool] | None,
           raised: Callable[[object], list[events.Event]], *,
           changed: Iterable[Review] = (), removed: Iterable[int] = (),
           touched: Callable[[], tuple[list[Review], list[int]]] | None = None) -> None:
    """Stage the review writes; when they touch a verdict (``changed`` reviews as they
    will be, ``removed`` review ids; or ``touched()``, asked after ``pull_change`` ran,
    for writes decided there) or ``pull_change`` changes the pull request's fields, the
    pull request item goes with them, conditional on its version (retried on a lost
    race as every issue edit is), carrying each reviewer's standing verdict recomputed
    from the reviews as they will be (``PullFields.verdicts``: what the merge gate
    counts, with no read of the reviews).  ``raised(issue)``: the events, given the
    issue after."""
    changed, removed = list(changed), set(removed)
    if pull_change is None and touched is None and not changed and not removed:
        with unit_of_work.writing() as uow:
            issue = pulls.get_pull(ctx, number)
            stage()
            for event in raised(issue):
                uow.raise_event(event)
        return

    def change(old, new, tracker) -> None:
        pull = pulls.pull_fields_of(new)
        if pull_change is not None:
            pull_change(pull)
        more, gone = touched() if touched is not None else ([], [])
        if changed or removed or more or gone:
            after = {r.id: r for r in store.reviews_of(ctx.repo_id, number, consistent=True)
                     if r.id not in removed and r.id not in set(gone)}
            after.update((r.id, r) for r in [*changed, *more])
            pull.verdicts = pulls.standing(list(after.values()))
        pulls.set_pull_fields(new, pull)
        if new.pull != old.pull:
            new.updated = clock.seconds()
        stage()

    issues.mutate_issue(ctx, number, change, lambda old, new: raised(new))


def _unrequest(user) -> Callable[[PullFields], bool]:
    """Drop ``user`` (and teams they are in) from the pull request's requests."""
    from chalicelib import orgs

    def change(pull: PullFields) -> bool:
        before = (len(pull.requested_reviewers), len(pull.requested_teams))
        pull.requested_reviewers = [s for s in pull.requested_reviewers
                                    if int(s.get("id") or 0) != int(user.id)]
        pull.requested_teams = [t for t in pull.requested_teams
                                if not orgs.is_team_member(int(t.get("id") or 0), int(user.id))]
        return before != (len(pull.requested_reviewers), len(pull.requested_teams))
    return change


# Create and submit -------------------------------------------------------------------------

# Writes of a verdict racing changes of the reviewer's earlier reviews: each lost race
# means one of those changed (they change a bounded number of times).
EARLIER_ATTEMPTS = 5

def review_state(ctx: Ctx, issue, event: str, body: str, has_comments: bool) -> str:
    """Forgejo's preparePullReviewType: the state an event asks for, or 422."""
    poster = ctx.user is not None and int(issue.poster_id) == int(ctx.user.id)
    has_body = bool(body.strip())
    if event == APPROVED:
        if poster:
            raise InvalidInput("approve your own pull is not allowed")
        return APPROVED
    if event == REQUEST_CHANGES:
        if poster:
            raise InvalidInput("reject your own pull is not allowed")
        if not has_body:
            raise InvalidInput(f"review event {event} requires a body")
        return REQUEST_CHANGES
    if event == COMMENT:
        if not has_body and not has_comments:
            raise InvalidInput(f"review event {event} requires a body or a comment")
        return COMMENT
    return PENDING


def _code_comments(ctx: Ctx, issue, options: list[CreatePullReviewComment], review_id: int,
                   commit_id: str) -> list[ReviewComment]:
    """The code comments of a review, each on a file the pull request changes."""
    if not options:
        return []
    from chalicelib import contents, pulls

    changed, head = pulls.pull_files(ctx, issue)
    by_path = {f.path: f for f in changed}
    store_ = contents.open_git(ctx.repo).object_store
    made = []
    for option in options:
        path = (option.path or "").strip().lstrip("/")
        if path not in by_path:
            raise InvalidInput(f"[Comments.Path]: {path!r} is not changed by the pull request")
        old_line, new_line = int(option.old_position or 0), int(option.new_position or 0)
        line = -old_line if old_line > 0 else new_line
        if line == 0:
            raise InvalidInput("[Comments]: new_position or old_position is required")
        change = by_path[path]
        old = store_[change.old_id.encode()].as_raw_string() if change.old_id else b""
        new = store_[change.new_id.encode()].as_raw_string() if change.new_id else b""
        made.append(ReviewComment(
            id=store.new_comment_id(), number=int(issue.number), review_id=review_id,
            poster_id=int(ctx.user.id), poster=account_snapshot(ctx.user), body=option.body or "",
            path=path, line=line, commit_id=commit_id or head, original_commit_id=head,
            diff_hunk=hunks.hunk_for(path, old, new, line), created=clock.seconds(), updated=clock.seconds()))
    return made


def _pending_of(ctx: Ctx, number: int) -> Review | None:
    for review in store.reviews_of(ctx.repo_id, number, consistent=True):
        if review.state == PENDING and review.reviewer_id == int(ctx.user.id):
            return review
    return None


def _decide(ctx: Ctx, issue, review: Review, state: str, body: str, commit_id: str) -> None:
    """Fill in a review being submitted (or kept pending) as ``state``."""
    pull = pulls.pull_fields_of(issue)
    if state in DECIDING and (issue.state != "open" or pull.merged):
        raise InvalidInput(CLOSED_PR)
    review.state, review.body, review.commit_id = state, body, commit_id or pull.head_sha
    review.official = state in DECIDING and is_official(ctx, ctx.user, pull.base_branch)
    review.stale = state in DECIDING and review.commit_id != pull.head_sha
    review.updated = clock.seconds()
    if state != PENDING:
        review.submitted_at = review.updated


def _unofficial(ctx: Ctx, number: int, review: Review) -> list[Review]:
    """A new official verdict takes the flag from the reviewer's earlier reviews."""
    if not review.official:
        return []
    return [r for r in store.reviews_of(ctx.repo_id, number, consistent=True)
            if r.official and r.reviewer_id == review.reviewer_id and r.id != review.id]


def _stage_unofficial(ctx: Ctx, earlier: list[Review]) -> None:
    for old in earlier:
        copy = Review(**{**old.__dict__, "official": False})
        store.stage_replace(ctx.repo_id, copy, old.version, label=store.EARLIER)


def create_review(ctx: Ctx, number: int, option: CreatePullReviewOptions) -> Review:
    """repoCreatePullReview."""
    if ctx.user is None:
        raise PermissionDenied("sign in to review")
    issue = pulls.get_pull(ctx, number)
    body = option.body or ""
    wanted = list(option.comments or [])
    state = review_state(ctx, issue, option.event or "", body, bool(wanted))
    pending = _pending_of(ctx, number)
    if pending is None:
        review = Review(id=store.new_review_id(), number=number, reviewer_id=int(ctx.user.id),
                        reviewer=account_snapshot(ctx.user))
    else:
        review = Review(**pending.__dict__)
    _decide(ctx, issue, review, state, body, option.commit_id or "")
    comments = _code_comments(ctx, issue, wanted, review.id, review.commit_id)
    _write_verdict(ctx, number, review, pending, comments)
    return review


def submit_review(ctx: Ctx, number: int, review_id: int,
                  option: SubmitPullReviewOptions) -> Review:
    """repoSubmitPullReview: a pending review, once."""
    if ctx.user is None:
        raise PermissionDenied("sign in to review")
    current = get_review(ctx, number, review_id, consistent=True)
    if current.state != PENDING:
        raise InvalidInput("only a pending review can be submitted")
    issue = pulls.get_pull(ctx, number)
    body = option.body or ""
    state = review_state(ctx, issue, option.event or "", body, current.comments_count > 0)
    if state == PENDING:
        raise InvalidInput("review stay pending")
    review = Review(**current.__dict__)
    _decide(ctx, issue, review, state, body, "")
    try:
        _write_verdict(ctx, number, review, current, [])
    except ConditionFailed as failed:
        if failed.label != store.REVIEW:
            raise
        raise InvalidInput("only a pending review can be submitted") from None
    return review


def _write_verdict(ctx: Ctx, number: int, review: Review, pending: Review | None,
                   comments: list[ReviewComment]) -> None:
    """Write the review; the reviewer's earlier reviews lose the official flag in the
    same write.  One of those changed meanwhile (the stale marking of a push, a
    dismissal) is read again and the write retried: the verdict itself is not stale."""
    for attempt in range(EARLIER_ATTEMPTS):
        try:
            _write_verdict_once(ctx, number, review, pending, comments)
            return
        except ConditionFailed as failed:
            if failed.label != store.EARLIER or attempt == EARLIER_ATTEMPTS - 1:
                raise


def _write_verdict_once(ctx: Ctx, number: int, review: Review, pending: Review | None,
                        comments: list[ReviewComment]) -> None:
    earlier = _unofficial(ctx, number, review)
    submitted = review.state != PENDING
    created = pending is None
    read_version = pending.version if pending is not None else 0
    base_count = pending.comments_count if pending is not None else 0

    def stage() -> None:
        review.comments_count = base_count
        if created:
            store.stage_create(ctx.repo_id, review, comments)
        else:
            store.stage_replace(ctx.repo_id, review, read_version, only_if_state=PENDING,
                                comments=comments)
        _stage_unofficial(ctx, earlier)

    def raised(issue) -> list[events.Event]:
        return [review_event(ctx, issue, review, "submitted")] if submitted else []

    deciding = review.state in DECIDING
    change = _unrequest(ctx.user) if deciding else None
    commit(ctx, number, stage, change, raised,
           changed=[review, *earlier] if deciding else ())


# Delete ------------------------------------------------------------------------------------

def delete_review(ctx: Ctx, number: int, review_id: int) -> None:
    """repoDeletePullReview: the reviewer or a site admin."""
    if ctx.user is None:
        raise NotFoundError("review does not exist")
    review = get_review(ctx, number, review_id, consistent=True)
    if not ctx.user.is_admin and int(ctx.user.id) != review.reviewer_id:
        raise PermissionDenied("only admin and user itself can delete a review")
    comments = store.comments_of(ctx.repo_id, number, review_id, consistent=True)

    def stage() -> None:
        store.stage_delete(ctx.repo_id, review, comments)

    def raised(issue) -> list[events.Event]:
        return [review_event(ctx, issue, review, "deleted")] if review.state != PENDING else []

    try:
        commit(ctx, number, stage, None, raised,
               removed=[review.id] if review.state in DECIDING else ())
    except ConditionFailed as failed:
        if failed.label != store.REVIEW:
            raise
        from chalicelib.errors import ConflictError
        raise ConflictError("the review changed while it was being deleted; try again") \
            from None


# Code comments --------------------------------------------------------------------------------

def create_review_comment(ctx: Ctx, number: int, review_id: int,
                          option: CreatePullReviewComment) -> ReviewComment:
    """repoCreatePullReviewComment: a code comment added to a review."""
    if ctx.user is None:
        raise PermissionDenied("sign in to comment")
    review = get_review(ctx, number, review_id, consistent=True)
    issue = pulls.get_pull(ctx, number)
    made = _code_comments(ctx, issue, [option], review.id, review.commit_id)
    copy = Review(**review.__dict__)
    copy.updated = clock.seconds()
    with unit_of_work.writing():
        store.stage_replace(ctx.repo_id, copy, review.version, comments=made)
    return made[0]


def delete_review_comment(ctx: Ctx, number: int, review_id: int, comment_id: int) -> None:
    """repoDeletePullReviewComment: the poster or a writer."""
    comment = get_review_comment(ctx, number, review_id, comment_id)
    if ctx.user is None or (int(ctx.user.id) != comment.poster_id and
                            not ctx.can_write_for(pulls.get_pull(ctx, number))):
        raise PermissionDenied("user should have a permission to write to a repo")
    review = get_review(ctx, number, review_id, consistent=True)
    with unit_of_work.writing():
        store.stage_delete_comment(ctx.repo_id, review, comment)


# Dismiss -----------------------------------------------------------------------------------

def dismiss(ctx: Ctx, number: int, review_id: int, option: DismissPullReviewOptions | None,
            dismissed: bool) -> Review:
    """repoDismissPullReview / repoUnDismissPullReview: repository admins; approvals
    and rejections only; ``priors`` dismisses the reviewer's earlier ones too."""
    if not ctx.is_admin:
        raise PermissionDenied("Must be repo admin")
    review = get_review(ctx, number, review_id, consistent=True)
    if review.state not in DECIDING:
        raise PermissionDenied("not need to dismiss this review because it's type is not "
                               "Approve or change request")
    issue = pulls.get_pull(ctx, number)
    if dismissed and issue.state != "open":
        raise PermissionDenied("can't dismiss a review on a closed PR")
    targets = [review]
    if dismissed and option is not None and option.priors:
        targets += [r for r in store.reviews_of(ctx.repo_id, number, consistent=True)
                    if r.reviewer_id == review.reviewer_id and r.id != review.id
                    and r.state in DECIDING and not r.dismissed
                    and (r.submitted_at, r.id) < (review.submitted_at, review.id)]
    changed = []
    for target in targets:
        copy = Review(**target.__dict__)
        copy.dismissed, copy.updated = dismissed, clock.seconds()
        changed.append((copy, target.version))
    def stage() -> None:
        for copy, version in changed:
            store.stage_replace(ctx.repo_id, copy, version)

    def raised(after) -> list[events.Event]:
        return [review_event(ctx, after, changed[0][0],
                             "dismissed" if dismissed else "undismissed")]

    flags = {copy.id: copy.dismissed for copy, _ in changed}

    def mark(pull: PullFields) -> bool:
        # The standing verdicts change in place: which review stands does not.
        for entry in pull.verdicts:
            if int(entry.get("review_id") or 0) in flags:
                entry["dismissed"] = flags[int(entry["review_id"])]
        return True

    commit(ctx, number, stage, mark, raised)
    return changed[0][0]
