"""Merging a pull request: every Forgejo style, scheduled merges, and updating a
pull request's head with its base.

A merge is checked against the refs as they are when it runs (never the stored
status), made in the object store (``gitops.pull_merge``; new objects go in one pack
before any ref moves) and written as ONE ref change (``pushes``): the base branch moves
by compare-and-swap from the tip the merge was computed on, in the same transaction as
the pull request's merged state, the tracker counters and the events.  A base that
moved meanwhile (a push, another merge) cancels the whole transaction; the merge is
then computed again on the new tip, so racing merges land one after the other and
none loses a commit.  A head that moved meanwhile is caught by the pull request's
version condition (the push consumer rewrites it) or by ``head_commit_id``.
"""
from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from chalicelib import clock, contents, issues, quota, repos
from chalicelib.accounts import account_snapshot
from chalicelib.contents import identity
from chalicelib.errors import (ArchivedRepository, ConditionFailed, ConflictError, InvalidInput,
                               NotAllowed, NotFoundError, PermissionDenied, RefProtected)
from chalicelib.gitstore.errors import RefsBusy, StaleRefs
from chalicelib.issues import Ctx
from chalicelib.pulls import checks as pull_checks
from chalicelib.pulls import gate as pull_gate
from chalicelib.pulls import service as pulls
from chalicelib.pulls import store
from chalicelib.pulls.options import MergePullRequestOption
from chalicelib.pulls.store import EMPTY, MERGEABLE, PullFields

if TYPE_CHECKING:
    from chalicelib.issues import Issue

# Merges into one base racing: each lost race means another merge landed.
ATTEMPTS = 24
MAX_BACKOFF = 0.25
COMMIT_ID_LENGTH = 40


def merge_pull(ctx: Ctx, number: int, option: MergePullRequestOption) -> int:
    """repoMergePullRequest; returns the status to answer (200 merged, 201 scheduled).
    The style is one of Forgejo's (the edge checked it); whether this repository
    allows it is checked here."""
    style = option.Do
    if ctx.repo.archived:
        raise ArchivedRepository("repository is archived")
    # Forgejo's quota middleware runs after binding, before the handler's own checks.
    quota.ensure_within_quota(int(ctx.repo.owner_id), "size:git:all")
    issue = pulls.get_pull(ctx, number)
    pull = store.fields_of(issue)
    if pull.merged:
        raise NotAllowed("")
    if not issue.is_open:
        raise NotFoundError("pull request is closed")
    if not ctx.can_write_for(issue):
        # Forgejo answers 405 here; a caller who may read but not write is refused with
        # 403, as every other write (docs/compatibility.md).
        raise PermissionDenied("User not allowed to merge PR")
    pull_gate.prefetch(ctx, pull.head_sha)
    rule = pull_gate.rule_for(ctx, pull.base_branch)
    if not pull_gate.may_merge(ctx, rule):
        raise NotAllowed("User not allowed to merge PR")
    if not repos.merge_style_allowed(ctx.repo, style):
        raise NotAllowed(f"{style} is not an allowed merge style for this repository")
    if style == "manually-merged":
        _record_manual_merge(ctx, issue, option.MergeCommitID or "")
        return 200
    expected_head = option.head_commit_id or ""
    if expected_head and expected_head != _current_head(ctx, pull):
        raise ConflictError("head out of date")
    if pull_checks.is_work_in_progress(issue.title):
        raise NotAllowed("Work in progress PRs cannot be merged")
    # What the merge needs, as a scheduled merge stores it (``schedule``, ``merge_now``).
    request = dict(style=style, title=option.MergeTitleField or "",
                   message=option.MergeMessageField or "",
                   delete_branch=_delete_branch(ctx, option), head=expected_head)
    if option.merge_when_checks_succeed:
        # Merged now when everything the rule asks for holds; else scheduled, and the
        # scheduled merge runs when a status or a review completes it (``pull_sync``).
        if pull_gate.checks_state(ctx, rule, _current_head(ctx, pull)) != "success":
            schedule(ctx, number, request)
            return 201
        try:
            merge_now(ctx, number, request)
        except pull_gate.MergeDisallowed:
            schedule(ctx, number, request)
            return 201
        return 200
    merge_now(ctx, number, dict(request, force=bool(option.force_merge)))
    return 200


def _delete_branch(ctx: Ctx, option: MergePullRequestOption) -> bool:
    """As asked, else the repository's default (left out or null)."""
    if isinstance(option.delete_branch_after_merge, bool):
        return option.delete_branch_after_merge
    return bool(repos.merge_settings_of(ctx.repo)["default_delete_branch_after_merge"])


def _current_head(ctx: Ctx, pull: PullFields) -> str:
    head_repo = _head_view(ctx, pull)
    sha = pulls.branch_tip(head_repo, pull.head_branch) if head_repo else None
    if sha is None:
        raise NotAllowed("Please try again later: the head branch is gone")
    return sha


def _head_view(ctx: Ctx, pull: PullFields):
    if pull.head_repo_id == ctx.repo_id:
        return ctx.view
    from chalicelib import repos
    from chalicelib.repos import ANONYMOUS, view_of

    repo = repos.repo_by_id(pull.head_repo_id)
    return view_of(repo, ANONYMOUS) if repo is not None else None


def merge_now(ctx: Ctx, number: int, request: dict) -> None:
    """Compute the merge on the current tips and write it; again on a lost race."""
    for attempt in range(ATTEMPTS):
        try:
            _attempt(ctx, number, request)
            return
        except (StaleRefs, RefsBusy):
            pass
        except ConditionFailed as failed:
            if failed.label not in ("issue", "tracker"):
                raise
        time.sleep(random.uniform(0, min(MAX_BACKOFF, 0.01 * 2 ** attempt)))
    raise ConflictError("merge push out of date: the base kept moving; try again")


def _attempt(ctx: Ctx, number: int, request: dict) -> None:
    from chalicelib import signing
    from chalicelib.gitops import objects, pull_merge

    issue = pulls.get_pull(ctx, number, consistent=True)
    pull = store.fields_of(issue)
    if pull.merged:
        raise NotAllowed("")
    head_sha = _current_head(ctx, pull)
    if request["head"] and request["head"] != head_sha:
        raise ConflictError("head out of date")
    base_sha = pulls.branch_tip(ctx.view, pull.base_branch)
    if base_sha is None:
        raise NotAllowed("Please try again later: the base branch is gone")
    git = contents.open_git(ctx.repo)
    found = pull_checks.examine(git.object_store, base_sha, head_sha)
    if found.status not in (MERGEABLE, EMPTY):
        raise NotAllowed("Please try again later")
    # The base branch's rule, on exactly the commits this attempt merges.
    rule = _refuse_by_rule(ctx, issue, pull, found, git, force=bool(request.get("force")))
    sign = signing.commit_signer("MERGES", ctx.user)
    if rule is not None and rule.require_signed_commits and sign is None:
        raise NotAllowed(f"Protected branch {pull.base_branch} requires signed commits but "
                         "this merge would not be signed")
    doer = identity(ctx.user)
    title = request["title"] or pull_merge.default_message(
        request["style"], title=issue.title, index=int(issue.number),
        head_label=pull.head_branch, base_branch=pull.base_branch,
        fork_label=None if pull.head_repo_id == ctx.repo_id else pulls.head_repo_label(ctx, pull))
    message = title + (f"\n\n{request['message']}" if request["message"] else "")
    poster = _poster_identity(issue)
    from chalicelib.gitops.errors import NotFastForward
    try:
        with objects.staged(git.object_store) as staged:
            outcome = pull_merge.merge_pull(
                staged, style=request["style"], base=base_sha.encode(),
                head=head_sha.encode(), author=doer, committer=doer, message=message,
                sign=sign, squash_author=poster)
    except NotFastForward:
        raise NotAllowed("fast-forward-only is not possible: the head branch is not based "
                         "on the tip of the base branch") from None
    new_head = outcome.new_head.decode()
    merged = store.fields_of(issue)
    merged.merged, merged.merged_at = True, clock.seconds()
    merged.merged_by = account_snapshot(ctx.user)
    merged.merge_commit_sha = (outcome.merge_commit or outcome.new_head).decode()
    merged.head_sha, merged.base_sha, merged.auto_merge = head_sha, base_sha, None
    _write_merged(ctx, issue, merged, [(f"refs/heads/{pull.base_branch}", base_sha, new_head)],
                  git)
    if request["delete_branch"]:
        _delete_head_branch(ctx, merged)


def _refuse_by_rule(ctx: Ctx, issue: Issue, pull: PullFields, found, git, *, force: bool):
    """The base branch's rule (None: unprotected); NotAllowed (405) with Forgejo's
    reason when it refuses this merge."""
    verdict = pull_gate.verdict(ctx, pull, head_sha=found.head_sha, base_sha=found.base_sha,
                                merge_base=found.merge_base, store=git.object_store,
                                force=force)
    if verdict.reason:
        raise pull_gate.MergeDisallowed(verdict.reason)
    return verdict.rule


def _poster_identity(issue: Issue):
    from chalicelib.accounts import account_from

    return identity(account_from(issue.poster))


def _write_merged(ctx: Ctx, issue: Issue, merged: PullFields, updates: list, git) -> None:
    """The ref change (if any) with the closed, merged pull request in one transaction."""
    new = issues.copy_issue(issue)
    store.set_fields(new, merged)
    new.state, new.closed_at, new.updated = "closed", clock.seconds(), clock.seconds()
    new.version = int(issue.version) + 1
    tracker = ctx.tracker(consistent=True)
    written: dict = {}

    def stage(uow) -> None:
        issues.stage_replace_issue(new, int(issue.version))
        issues.stage_timeline_event(new, "merge_pull", merged.merged_by or None)
        written["change"] = issues.stage_issue_counters(ctx, issue, new, tracker)
        # One event: webhooks send it as Forgejo does, "closed" with merged set.
        uow.raise_event(issues.issue_event(ctx, new, "merged"))

    if updates:
        # The merge gate applied the base branch's rule (``_refuse_by_rule``).
        change = contents.prepare_ref_changes(ctx.repo, git, updates, actor=ctx.user, guard=contents.Guard.MERGE)
        change.also(5, stage)
        contents.commit_ref_changes(change)
    else:
        from chalicelib.store import unit_of_work
        with unit_of_work.writing() as uow:
            stage(uow)
    ctx.wrote(tracker, written["change"])


def _record_manual_merge(ctx: Ctx, issue: Issue, commit_id: str) -> None:
    """manually-merged: the given commit must already be on the base branch."""
    from chalicelib.gitops.merge import is_ancestor

    pull = store.fields_of(issue)
    base_sha = pulls.branch_tip(ctx.view, pull.base_branch)
    git = contents.open_git(ctx.repo)
    if len(commit_id) != COMMIT_ID_LENGTH or base_sha is None:
        raise ConflictError("MergeCommitID must be the full id of a commit on the base branch")
    try:
        contained = is_ancestor(git.object_store, commit_id, base_sha)
    except (NotFoundError, InvalidInput):
        contained = False
    if not contained:
        raise ConflictError("MergeCommitID must be the full id of a commit on the base branch")
    pull.merged, pull.merged_at, pull.merged_by = True, clock.seconds(), account_snapshot(ctx.user)
    pull.merge_commit_sha, pull.status = commit_id, store.MANUALLY_MERGED
    try:
        _write_merged(ctx, issue, pull, [], git)
    except ConditionFailed:
        raise ConflictError("the pull request changed meanwhile; try again") from None


def _delete_head_branch(ctx: Ctx, pull: PullFields) -> None:
    """After a merge: delete the head branch if it is not the head repository's default
    branch and the doer may write there (Forgejo answers the merge 200 either way)."""
    head = _head_view(ctx, pull)
    if head is None or head.repo.default_branch == pull.head_branch:
        return
    from chalicelib.repos import view_of
    mine = view_of(head.repo, ctx.caller)
    if not mine.can_write:
        return
    git = contents.open_git(head.repo)
    try:
        contents.apply_ref_updates(head.repo, git, [(f"refs/heads/{pull.head_branch}",
                                                   pull.head_sha, None)], actor=ctx.user)
    except (StaleRefs, RefsBusy):
        pass  # the branch moved after the merge: it has new work, keep it
    except RefProtected:
        pass  # a protected head branch stays, as Forgejo keeps it


# Updating the head with the base -------------------------------------------------------------

def update_head(ctx: Ctx, number: int, style: str) -> None:
    """repoUpdatePullRequest: bring the base's new commits into the head branch, by a
    merge commit (``merge``) or by rebasing the head's commits (``rebase``).  The head
    branch moves by compare-and-swap like a push, and its push event re-examines the
    pull request."""
    from chalicelib.gitops import objects, pull_merge
    from chalicelib.gitops.merge import is_ancestor
    from chalicelib.repos import view_of

    style = style or "merge"
    if style not in ("merge", "rebase"):
        raise InvalidInput("[style]: must be merge or rebase")
    issue = pulls.get_pull(ctx, number)
    pull = store.fields_of(issue)
    if pull.merged or not issue.is_open:
        raise InvalidInput("the pull request is closed or merged")
    if style == "rebase" and not repos.merge_settings_of(ctx.repo)["allow_rebase_update"]:
        raise NotAllowed("rebase is not an allowed update style for this repository")
    head = _head_view(ctx, pull)
    if head is None:
        raise NotFoundError("the head repository is gone")
    quota.ensure_within_quota(int(ctx.repo.owner_id), "size:git:all")
    may_push = view_of(head.repo, ctx.caller).can_write or (
        pull.allow_maintainer_edit and ctx.can_write_for(issue))
    if not may_push:
        raise PermissionDenied("user may not update the head branch")
    head_sha = _current_head(ctx, pull)
    base_sha = pulls.branch_tip(ctx.view, pull.base_branch)
    git = contents.open_git(ctx.repo)
    if base_sha is None or is_ancestor(git.object_store, base_sha, head_sha):
        return      # nothing new on the base
    doer = identity(ctx.user)
    # The head shares the base's pool: its store writes the pack, so the head's ref
    # change charges it (quota_charges).
    head_git = contents.open_git(head.repo)
    with objects.staged(head_git.object_store) as staged:
        if style == "merge":
            outcome = pull_merge.merge_pull(
                staged, style="merge", base=head_sha.encode(), head=base_sha.encode(),
                author=doer, committer=doer,
                message=f"Merge branch '{pull.base_branch}' into {pull.head_branch}")
        else:
            outcome = pull_merge.merge_pull(staged, style="rebase", base=base_sha.encode(),
                                            head=head_sha.encode(), author=doer,
                                            committer=doer, message="")
    contents.apply_ref_updates(head.repo, head_git, [(f"refs/heads/{pull.head_branch}", head_sha,
                                                   outcome.new_head.decode())], actor=ctx.user)


# Scheduled merges ------------------------------------------------------------------------------

def schedule(ctx: Ctx, number: int, request: dict) -> None:
    def change(old, new, tracker) -> None:
        pull = store.fields_of(new)
        if pull.auto_merge:
            raise ConflictError("pull request is already scheduled to auto merge when checks "
                                "succeed")
        pull.auto_merge = dict(request, doer=account_snapshot(ctx.user))
        store.set_fields(new, pull)

    issues.mutate_issue(ctx, number, change, lambda old, new: [])


def cancel_scheduled(ctx: Ctx, number: int) -> None:
    """repoCancelScheduledAutoMerge (204; 404 when none is scheduled)."""
    issue = pulls.get_pull(ctx, number)
    pull = store.fields_of(issue)
    if not pull.auto_merge:
        raise NotFoundError("no scheduled auto merge for this pull request")
    doer = pull.auto_merge.get("doer") or {}
    if not (ctx.can_write_for(issue) or (ctx.user is not None
                                         and int(doer.get("id", 0)) == int(ctx.user.id))):
        raise NotAllowed("User not allowed to cancel the scheduled merge")

    def change(old, new, tracker) -> None:
        fields = store.fields_of(new)
        fields.auto_merge = None
        store.set_fields(new, fields)

    issues.mutate_issue(ctx, number, change, lambda old, new: [])
