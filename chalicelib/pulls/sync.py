"""Keeping open pull requests in step with their branches, from the events queue.

A push to a branch (``RepositoryPushed``) re-examines every open pull request that
has the branch as its base, or as its head (in the same repository, or in a fork
towards its parent): ``refs/pull/<n>/head`` follows the head by compare-and-swap, the
mergeability, merge base and line counts are recomputed, and a moved head raises the
"synchronized" event and records who pushed which commits on the timeline
(``pull_push``).  A new commit status (and the re-examination) may complete a scheduled
merge (``merge_when_checks_succeed``).

Every step reads the refs as they are when it runs, so a redelivered or late event
changes nothing that is already up to date.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents, issues, repos
from chalicelib.accounts import account_from, account_snapshot
from chalicelib.errors import NotFoundError, ServiceError
from chalicelib.gitstore import refdb
from chalicelib.issues import Ctx
from chalicelib.pulls import merging as pull_merging
from chalicelib.pulls import service as pulls
from chalicelib.pulls import store
from chalicelib.repos import Access, Caller, RepoView
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.repos import Repo

log = logging.getLogger("nimbus.pulls")
HEADS = "refs/heads/"
MAX_PUSHED_COMMITS = 100     # a pull_push entry lists at most this many (the newest)


def _system_ctx(repo: Repo, user=None) -> Ctx | None:
    """The tracker as the service itself sees it (every pull request, any visibility);
    ``user`` is who events name (None: the system)."""
    owner = accounts.account_by_id(int(repo.owner_id))
    if owner is None:
        return None
    return Ctx(RepoView(repo, owner, Access.OWNER), Caller(user), Access.OWNER,
               pulls_access=Access.OWNER)


def affected(repo: Repo, branch: str) -> list[tuple[Repo, int]]:
    """(base repository, number) of the open pull requests a push to ``branch`` of
    ``repo`` concerns."""
    found = []
    for item in store.open_pulls(int(repo.id)):
        pull = store.fields_of(item)
        if pull.base_branch == branch or (pull.head_repo_id == int(repo.id)
                                          and pull.head_branch == branch):
            found.append((repo, int(item.number)))
    if repo.fork and repo.parent_id:
        parent = repos.repo_by_id(int(repo.parent_id))
        if parent is not None:
            for item in store.open_pulls(int(parent.id)):
                pull = store.fields_of(item)
                if pull.head_repo_id == int(repo.id) and pull.head_branch == branch:
                    found.append((parent, int(item.number)))
    return found


def on_push(repo_id: int, ref: str, actor_id: int | None, before: str = "",
            after: str = "") -> None:
    if not ref.startswith(HEADS):
        return
    repo = repos.repo_by_id(repo_id)
    if repo is None:
        return
    actor = accounts.account_by_id(actor_id) if actor_id else None
    if refdb.is_zero(before) or refdb.is_zero(after):
        mark_head(repo, ref[len(HEADS):], gone=refdb.is_zero(after), actor=actor)
    for base_repo, number in affected(repo, ref[len(HEADS):]):
        refresh(base_repo, number, actor)


def mark_head(repo: Repo, branch: str, *, gone: bool, actor=None) -> None:
    """A branch was deleted or (re)created: every pull request with it as head, open or
    closed, records whether it exists (what its ``head.ref`` names).  Only creations and
    deletions get here, so an ordinary push reads no closed pull requests."""
    bases = [repo]
    if repo.fork and repo.parent_id:
        parent = repos.repo_by_id(int(repo.parent_id))
        bases += [parent] if parent is not None else []

    def change(old, new, tracker) -> None:
        pull = store.fields_of(new)
        if _heads_at(pull, repo, branch, not gone):
            pull.head_gone = gone
            store.set_fields(new, pull)
            if gone:    # Forgejo's delete_branch entry, in the same transaction
                issues.stage_timeline_event(new, "delete_branch", account_snapshot(actor)
                                            if actor is not None else None, old_ref=branch)

    for base in bases:
        numbers = [int(item.number) for item in store.pulls(int(base.id), "oc")
                   if _heads_at(store.fields_of(item), repo, branch, not gone)]
        ctx = _system_ctx(base) if numbers else None
        for number in numbers if ctx is not None else ():
            issues.mutate_issue(ctx, number, change, lambda old, new: [])


def _heads_at(pull, repo: Repo, branch: str, gone: bool) -> bool:
    return (pull.head_repo_id == int(repo.id) and pull.head_branch == branch
            and pull.head_gone == gone)


def refresh(base_repo: Repo, number: int, actor=None) -> None:
    """Re-examine one pull request on the current tips; then a scheduled merge."""
    ctx = _system_ctx(base_repo, actor)
    if ctx is None:
        return
    issue = pulls.get_pull(ctx, number, consistent=True)
    pull = store.fields_of(issue)
    if pull.merged or not issue.is_open:
        return
    head_view = _head_view(ctx, pull)
    head_sha = pulls.branch_tip(head_view, pull.head_branch) if head_view else None
    base_sha = pulls.branch_tip(ctx.view, pull.base_branch)
    if head_sha is None or base_sha is None:
        return      # a deleted branch: Forgejo keeps the pull request as it was
    if (head_sha, base_sha) != (pull.head_sha, pull.base_sha):
        _rewrite(ctx, number, head_sha, base_sha, actor)
    try_scheduled_merge(base_repo, number)


def _head_view(ctx: Ctx, pull) -> RepoView | None:
    if pull.head_repo_id == ctx.repo_id:
        return ctx.view
    repo = repos.repo_by_id(pull.head_repo_id)
    if repo is None:
        return None
    owner = accounts.account_by_id(int(repo.owner_id))
    return RepoView(repo, owner, Access.OWNER) if owner is not None else None


def _rewrite(ctx: Ctx, number: int, head_sha: str, base_sha: str, actor=None) -> None:
    """Store the pull request examined on the new tips.  A moved head also moves
    ``refs/pull/<n>/head`` and records Forgejo's ``pull_push`` entry (who pushed which
    commits) in the same transaction, conditional on the version read: a redelivered
    or late push finds the head already there and records nothing."""
    git = contents.open_git(ctx.repo)
    walked: dict[tuple[str, str], tuple[list[str], bool]] = {}   # kept across retries

    def change(old, new, tracker) -> None:
        pull = store.fields_of(new)
        old_head = pull.head_sha
        moved = old_head != head_sha
        pulls.examined(ctx, pull, base_sha, head_sha)
        store.set_fields(new, pull)
        if moved:
            pulls.stage_head_ref(git, number, head_sha, unit_of_work.current())
            new.updated = clock.seconds()
            if old_head:
                if (old_head, head_sha) not in walked:
                    walked[old_head, head_sha] = _pushed(git.object_store, old_head,
                                                         head_sha, base_sha)
                commit_ids, force = walked[old_head, head_sha]
                if commit_ids:
                    issues.stage_pull_push(new, account_snapshot(actor) if actor else None,
                                           commit_ids, force=force)

    def raised(old, new):
        if store.fields_of(old).head_sha != store.fields_of(new).head_sha:
            return [issues.issue_event(ctx, new, "synchronized")]
        return []

    issues.mutate_issue(ctx, number, change, raised)
    git.refs.refresh()


def _pushed(object_store, old_head: str, new_head: str,
            base_sha: str) -> tuple[list[str], bool]:
    """What Forgejo's ``pull_push`` body lists (fj:services/pull/pull.go
    CreatePushPullComment): the commits the new head adds over the old one that the base
    branch does not have, oldest first (the newest ``MAX_PUSHED_COMMITS``), or, when the old
    head is not in the new one's history (a force push), the old and the new head."""
    from dulwich.walk import Walker

    from chalicelib.gitops.merge import is_ancestor

    try:
        if not is_ancestor(object_store, old_head, new_head):
            return [old_head, new_head], True
    except (KeyError, ServiceError):
        return [old_head, new_head], True     # the old head's commit is gone
    found = []
    for entry in Walker(object_store, include=[new_head.encode()],
                        exclude=[old_head.encode(), base_sha.encode()]):
        found.append(entry.commit.id.decode())
        if len(found) >= MAX_PUSHED_COMMITS:
            break
    return found[::-1], False


def on_status(repo_id: int, sha: str) -> None:
    """A commit status was posted: merge what was waiting for the checks of ``sha``."""
    repo = repos.repo_by_id(repo_id)
    if repo is None:
        return
    for item in store.open_pulls(repo_id):
        pull = store.fields_of(item)
        if pull.auto_merge and pull.head_sha == sha:
            try_scheduled_merge(repo, int(item.number))


def on_review(repo_id: int, number: int) -> None:
    """A review changed: a merge scheduled on this pull request may be complete now."""
    repo = repos.repo_by_id(repo_id)
    if repo is not None:
        try_scheduled_merge(repo, int(number))


def try_scheduled_merge(base_repo: Repo, number: int) -> None:
    """Merge a pull request scheduled with ``merge_when_checks_succeed`` once its head's
    checks pass (the base rule's required contexts, else every context), as the user who
    scheduled it; the merge itself applies the rest of the rule (approvals), so a merge
    still waiting for a review stays scheduled until the review's event comes here."""
    ctx = _system_ctx(base_repo)
    if ctx is None:
        return
    try:
        issue = pulls.get_pull(ctx, number, consistent=True)
    except NotFoundError:
        return      # deleted since the event (or not a pull request): nothing waits
    pull = store.fields_of(issue)
    if not pull.auto_merge or pull.merged or not issue.is_open:
        return
    from chalicelib.pulls import gate as pull_gate

    pull_gate.prefetch(ctx, pull.head_sha)
    rule = pull_gate.rule_for(ctx, pull.base_branch)
    if pull_gate.checks_state(ctx, rule, pull.head_sha) != "success":
        return
    doer = account_from(pull.auto_merge.get("doer") or {})
    fresh = accounts.account_by_id(int(doer.id)) if doer.id else None
    if fresh is None:
        return
    ctx = _system_ctx(base_repo, fresh)
    request = {k: pull.auto_merge.get(k) for k in ("style", "title", "message",
                                                     "delete_branch", "head")}
    request["head"] = pull.head_sha     # what the checks passed on
    try:
        pull_merging.merge_now(ctx, number, request)
    except ServiceError as exc:
        # Not mergeable (yet): the scheduled merge stays for the next push or status.
        log.info("scheduled merge of %s#%s not done: %s", base_repo.id, number, exc)
