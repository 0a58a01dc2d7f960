"""Whether the base branch's protection rule lets a pull request be merged now
(fj:services/pull/check.go CheckPullMergeable, services/pull/merge.go
CheckPullBranchProtections).

The gate runs inside every merge attempt, on the head and base commits that attempt
merges (never on stored flags): an approval counts for the head only if it was given on
that head when stale approvals are dismissed or ignored, so an approval racing a push to
the head can never let an unapproved commit through — the merge either merges exactly
the approved commit or is refused.  What it reads: the rule (one item, ``protection``),
the reviews of the pull request (one Query, only when the rule asks for approvals or
blocks on reviews), the head's statuses (one item, only with required checks).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.errors import NotAllowed

if TYPE_CHECKING:
    from dulwich.object_store import BaseObjectStore

    from chalicelib.issues.context import Ctx
    from chalicelib.protection.rules import BranchRule

APPROVED, REQUEST_CHANGES, REQUEST_REVIEW = "APPROVED", "REQUEST_CHANGES", "REQUEST_REVIEW"
# Review states that are a reviewer's verdict (a pending review is not yet one; a comment
# review leaves an earlier verdict standing, as Forgejo counts official reviews).
VERDICTS = (APPROVED, REQUEST_CHANGES)

# Forgejo's reasons (ErrDisallowedToMerge), in the order it checks them.
STATUS_CHECKS = "Not all required status checks successful"
APPROVALS = "Does not have enough approvals"
REJECTED = "There are requested changes"
REQUESTS = "There are official review requests"
OUTDATED = "The head branch is behind the base branch"
PROTECTED_FILES = "Changed protected files"


class MergeDisallowed(NotAllowed):
    """The base branch's rule refuses the merge (405, Forgejo's ErrDisallowedToMerge)."""

    def __init__(self, reason: str):
        super().__init__(f"not allowed to merge [reason: {reason}]")
        self.reason = reason


@dataclass(frozen=True)
class Verdict:
    """The rule of the base branch (None: unprotected) and why it refuses the merge
    (None: it allows it)."""
    rule: BranchRule | None
    reason: str | None


def rule_for(ctx: Ctx, base_branch: str) -> BranchRule | None:
    """The base branch's rule; no read when the repository has no rules."""
    from chalicelib.protection import gate as protection_gate
    from chalicelib.protection import store as protection_store

    if not protection_gate.has_rules(ctx.repo):
        return None
    return protection_store.get(ctx.repo_id).rule_for(base_branch)


def may_merge(ctx: Ctx, rule: BranchRule | None) -> bool:
    """IsUserAllowedToMerge: a writer, or with a merge allow list, one on it."""
    if rule is None or not rule.enable_merge_whitelist:
        return True
    from chalicelib.protection import gate as protection_gate

    return rule.can_merge(protection_gate.pusher_of(ctx.view, ctx.user))


def checks_state(ctx: Ctx, rule: BranchRule | None, head_sha: str) -> str:
    """The state a scheduled merge waits for: the required contexts' when the rule asks
    for status checks, else every context's combined state (``""``: no statuses)."""
    from chalicelib.statuses import service as statuses
    from chalicelib.statuses import store as status_store

    if rule is None or not rule.enable_status_check:
        return statuses.combined_state(ctx.repo_id, head_sha)
    latest = status_store.get_summary(ctx.repo_id, head_sha, consistent=True).latest.values()
    return rule.required_contexts_state({s.context: s.state for s in latest})


def latest_verdicts(reviews: list) -> list:
    """Each reviewer's (or requested team's) standing review: their latest verdict or
    open request; comments and pending reviews leave it as it was."""
    standing: dict[tuple[str, int], object] = {}
    for review in sorted(reviews, key=lambda r: (r.submitted_at or r.updated or 0, r.id)):
        if review.state not in VERDICTS + (REQUEST_REVIEW,):
            continue
        who = ("team", int(review.team_id)) if review.team_id else ("user", int(review.reviewer_id))
        standing[who] = review
    return list(standing.values())


def _counts_for(review, rule: BranchRule, head_sha: str) -> bool:
    """Whether an approval counts: official, not dismissed, and (when stale approvals
    are dismissed or ignored) given on the head being merged."""
    if review.dismissed or not review.official:
        return False
    if rule.dismiss_stale_approvals or rule.ignore_stale_approvals:
        return review.commit_id == head_sha
    return True


def review_reason(ctx: Ctx, rule: BranchRule, number: int, head_sha: str) -> str | None:
    if not (rule.required_approvals or rule.block_on_rejected_reviews
            or rule.block_on_official_review_requests):
        return None
    from chalicelib.reviews import store as review_store

    standing = latest_verdicts(review_store.reviews_of(ctx.repo_id, number, consistent=True))
    approvals = sum(1 for r in standing
                    if r.state == APPROVED and _counts_for(r, rule, head_sha))
    if approvals < int(rule.required_approvals or 0):
        return APPROVALS
    if rule.block_on_rejected_reviews and any(
            r.state == REQUEST_CHANGES and r.official and not r.dismissed for r in standing):
        return REJECTED
    if rule.block_on_official_review_requests and any(
            r.state == REQUEST_REVIEW and r.official and not r.dismissed for r in standing):
        return REQUESTS
    return None


def _changed_paths(store: BaseObjectStore, merge_base: str, head_sha: str) -> list[str]:
    from chalicelib.gitops import diff

    stats = diff.diff_commits(store, merge_base or None, head_sha)
    paths = []
    for change in stats.files:
        paths.append(change.path)
        if change.previous_path:
            paths.append(change.previous_path)
    return paths


def branch_reason(ctx: Ctx, rule: BranchRule, *, number: int, head_sha: str, base_sha: str,
                  merge_base: str, store: BaseObjectStore) -> str | None:
    """CheckPullBranchProtections: the first reason the rule refuses, or None."""
    from chalicelib.gitops.merge import is_ancestor

    if rule.enable_status_check and checks_state(ctx, rule, head_sha) != "success":
        return STATUS_CHECKS
    reason = review_reason(ctx, rule, number, head_sha)
    if reason:
        return reason
    if rule.block_on_outdated_branch and not is_ancestor(store, base_sha, head_sha):
        return OUTDATED
    if rule.protected_file_patterns and rule.protected_files(
            _changed_paths(store, merge_base, head_sha)):
        return PROTECTED_FILES
    return None


def may_override(ctx: Ctx, rule: BranchRule) -> bool:
    """``force_merge``: an instance admin always; a repository admin unless the rule
    applies to admins (Forgejo's adminSkipProtectionCheck)."""
    user = ctx.user
    if user is None:
        return False
    if user.is_admin:
        return True
    return ctx.view.is_admin and not rule.apply_to_admins


def verdict(ctx: Ctx, *, number: int, base_branch: str, head_sha: str, base_sha: str,
            merge_base: str, store: BaseObjectStore, force: bool = False) -> Verdict:
    rule = rule_for(ctx, base_branch)
    if rule is None:
        return Verdict(None, None)
    reason = branch_reason(ctx, rule, number=number, head_sha=head_sha, base_sha=base_sha,
                           merge_base=merge_base, store=store)
    if reason and force and may_override(ctx, rule):
        reason = None
    return Verdict(rule, reason)
