"""Whether the base branch's protection rule lets a pull request be merged now
(fj:services/pull/check.go CheckPullMergeable, services/pull/merge.go
CheckPullBranchProtections).

The gate runs inside every merge attempt, on the head and base commits that attempt
merges (never on stored flags): an approval counts for the head only if it was given on
that head when stale approvals are dismissed or ignored, so an approval racing a push to
the head can never let an unapproved commit through — the merge either merges exactly
the approved commit or is refused.  What it reads: the rule and the head's statuses, in
one batch (``prefetch``; nothing without rules); each reviewer's standing verdict comes
with the pull request item the merge reads anyway (the reviews domain keeps it there in
the same transaction as the reviews, ``standing``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.errors import NotAllowed

if TYPE_CHECKING:
    from dulwich.object_store import BaseObjectStore

    from chalicelib.issues import Ctx
    from chalicelib.protection import BranchRule

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
    from chalicelib import protection

    if not protection.has_rules(ctx.repo):
        return None
    return protection.protection_of(ctx.repo_id).rule_for(base_branch)


def may_merge(ctx: Ctx, rule: BranchRule | None) -> bool:
    """IsUserAllowedToMerge: a writer, or with a merge allow list, one on it."""
    if rule is None or not rule.enable_merge_whitelist:
        return True
    from chalicelib import protection

    return rule.can_merge(protection.pusher_of(ctx.view, ctx.user))


def prefetch(ctx: Ctx, head_sha: str) -> None:
    """What the gate reads, in ONE strongly consistent batch: the rules item and the
    head's statuses (none without rules).  The reviews need no read: the pull request
    carries each reviewer's standing verdict (``standing``)."""
    from chalicelib import protection, statuses
    from chalicelib.store import unit_of_work

    if protection.has_rules(ctx.repo):
        unit_of_work.prefetch([protection.protection_key(ctx.repo_id),
                               statuses.status_summary_key(ctx.repo_id, head_sha)],
                              consistent=True)


def checks_state(ctx: Ctx, rule: BranchRule | None, head_sha: str) -> str:
    """The state a scheduled merge waits for: the required contexts' when the rule asks
    for status checks, else every context's combined state (``""``: no statuses).
    Read from ``prefetch``'s batch when it ran for this head."""
    from chalicelib import statuses

    if rule is None or not rule.enable_status_check:
        return statuses.combined_state(ctx.repo_id, head_sha)
    latest = statuses.status_summary(ctx.repo_id, head_sha).latest.values()
    return rule.required_contexts_state({s.context: s.state for s in latest})


def _time_of(review) -> tuple:
    return (review.submitted_at or review.updated or 0, review.id)


def standing(reviews: list) -> list[dict]:
    """Each reviewer's (or requested team's) standing verdict, as the pull request keeps
    it for this gate (``PullFields.verdicts``): their latest approval, requested changes
    or open request; comments and pending reviews leave it as it was (Forgejo moves the
    ``official`` flag to a reviewer's newest review).  ``reviews``: the reviews domain's
    records, any order."""
    found: dict[tuple[str, int], object] = {}
    for review in sorted(reviews, key=_time_of):
        if review.state not in VERDICTS + (REQUEST_REVIEW,):
            continue
        who = ("team", int(review.team_id)) if review.team_id else ("user", int(review.reviewer_id))
        found[who] = review
    return [{"review_id": int(r.id), "reviewer_id": int(r.reviewer_id),
             "team_id": int(r.team_id or 0), "state": r.state, "commit_id": r.commit_id or "",
             "official": bool(r.official), "dismissed": bool(r.dismissed)}
            for r in found.values()]


def _counts_for(verdict: dict, rule: BranchRule, head_sha: str) -> bool:
    """Whether an approval counts: official, not dismissed, and (when stale approvals
    are dismissed or ignored) given on the head being merged."""
    if verdict.get("dismissed") or not verdict.get("official"):
        return False
    if rule.dismiss_stale_approvals or rule.ignore_stale_approvals:
        return verdict.get("commit_id") == head_sha
    return True


def _blocking(verdicts: list[dict], state: str) -> bool:
    return any(v.get("state") == state and v.get("official") and not v.get("dismissed")
               for v in verdicts)


def review_reason(rule: BranchRule, verdicts: list[dict], head_sha: str) -> str | None:
    approvals = sum(1 for v in verdicts
                    if v.get("state") == APPROVED and _counts_for(v, rule, head_sha))
    if approvals < int(rule.required_approvals or 0):
        return APPROVALS
    if rule.block_on_rejected_reviews and _blocking(verdicts, REQUEST_CHANGES):
        return REJECTED
    if rule.block_on_official_review_requests and _blocking(verdicts, REQUEST_REVIEW):
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


def branch_reason(ctx: Ctx, rule: BranchRule, *, verdicts: list[dict], head_sha: str,
                  base_sha: str, merge_base: str, store: BaseObjectStore) -> str | None:
    """CheckPullBranchProtections: the first reason the rule refuses, or None."""
    from chalicelib.gitops.merge import is_ancestor

    if rule.enable_status_check and checks_state(ctx, rule, head_sha) != "success":
        return STATUS_CHECKS
    reason = review_reason(rule, verdicts, head_sha)
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


def verdict(ctx: Ctx, pull, *, head_sha: str, base_sha: str, merge_base: str,
            store: BaseObjectStore, force: bool = False) -> Verdict:
    """``pull``: the PullFields as this merge attempt read them (its verdicts)."""
    prefetch(ctx, head_sha)
    rule = rule_for(ctx, pull.base_branch)
    if rule is None:
        return Verdict(None, None)
    reason = branch_reason(ctx, rule, verdicts=list(pull.verdicts), head_sha=head_sha,
                           base_sha=base_sha, merge_base=merge_base, store=store)
    if reason and force and may_override(ctx, rule):
        reason = None
    return Verdict(rule, reason)
