"""Stale reviews, and a deleted pull request's reviews purged, from the events queue (registered as ``review-stale``): when a pull
request's head moves ("synchronized"), its approvals and rejections of another commit
become ``stale`` and, when the base branch's rule says ``dismiss_stale_approvals``,
its approvals are dismissed (fj:services/pull/review.go, DismissApprovalReviews).
Code comments on a line the new head changed (or on a file it removed) become outdated,
as Forgejo invalidates them (InvalidateCodeComments): their ``position`` shows 0.

Idempotent: it reads the head as it is when it runs and writes only what differs, each
review conditional on the version read (a review changed meanwhile is left for the
next run; the merge gate compares commit ids itself, so the lag is safe).
"""
from __future__ import annotations

import logging

from chalicelib import events as domain_events
from chalicelib.errors import ConditionFailed

log = logging.getLogger("nimbus.reviews")
EVENT_TYPES = (domain_events.IssueChanged,)
DECIDING = ("APPROVED", "REQUEST_CHANGES")


ACTIONS = ("synchronized", "deleted")


def wants_event(event: domain_events.Event) -> bool:
    """Checked before the event is claimed: only a pull request's new head or deletion."""
    return isinstance(event, domain_events.IssueChanged) and event.is_pull \
        and event.action in ACTIONS


def on_event(event: domain_events.Event) -> None:
    if not wants_event(event):
        return
    assert isinstance(event, domain_events.IssueChanged)
    if event.action == "synchronized":
        mark_stale(event.repo_id, event.number)
    else:
        purge(event.repo_id, event.number)


def purge(repo_id: int, number: int) -> int:
    """A deleted pull request's reviews and code comments go after it (the issues
    domain, below this one, deletes the issue with its comments; a repository's
    deletion removes its whole partition, reviews with it).  Idempotent: a pull
    request still there (never: numbers are not reused) keeps its reviews."""
    from chalicelib import issues
    from chalicelib.reviews import store
    from chalicelib.store import unit_of_work

    if issues.issue_item(repo_id, number, consistent=True) is not None:
        return 0
    with unit_of_work.writing():
        return store.stage_purge(repo_id, number)


def mark_stale(repo_id: int, number: int) -> int:
    """Mark what the pull request's current head makes stale; returns reviews changed."""
    from chalicelib import issues, pulls
    from chalicelib.reviews import service, store
    from chalicelib.store import unit_of_work

    issue = issues.issue_item(repo_id, number, consistent=True)
    if issue is None or not issue.is_pull:
        return 0
    pull = pulls.pull_fields_of(issue)
    head = pull.head_sha
    rule = service.protection_rule(repo_id, pull.base_branch)
    dismiss = bool(rule is not None and getattr(rule, "dismiss_stale_approvals", False))
    changed = 0
    for review in store.reviews_of(repo_id, number, consistent=True):
        if review.state not in DECIDING or review.commit_id == head:
            continue
        stale = True
        dismissed = review.dismissed or (dismiss and review.state == "APPROVED")
        if (review.stale, review.dismissed) == (stale, dismissed):
            continue
        copy = store.Review(**{**review.__dict__, "stale": stale, "dismissed": dismissed})
        try:
            with unit_of_work.writing():
                store.stage_replace(repo_id, copy, review.version)
        except ConditionFailed:
            log.info("review %s changed while marking it stale", review.id)
            continue
        changed += 1
    _outdate_comments(repo_id, number, head)
    return changed


def _outdate_comments(repo_id: int, number: int, head: str) -> None:
    """New-side comments whose line differs at ``head`` (or whose file is gone)."""
    from chalicelib import contents, repos
    from chalicelib.reviews import hunks, store
    from chalicelib.store import unit_of_work

    comments = [c for c in store.comments_of(repo_id, number)
                if not c.invalidated and c.line > 0 and c.commit_id != head]
    if not comments or not head:
        return
    repo = repos.repo_by_id(repo_id)
    if repo is None:
        return
    object_store = contents.open_git(repo).object_store
    for comment in comments:
        before = _blob(object_store, comment.commit_id, comment.path)
        after = _blob(object_store, head, comment.path)
        if after is not None and before is not None and \
                hunks.line_text(before, comment.line) == hunks.line_text(after, comment.line):
            continue
        with unit_of_work.writing():
            store.stage_invalidate(repo_id, comment)


def _blob(object_store, commit_id: str, path: str) -> bytes | None:
    from dulwich.object_store import tree_lookup_path

    try:
        tree = object_store[commit_id.encode()].tree
        _, sha = tree_lookup_path(object_store.__getitem__, tree, path.encode())
        return object_store[sha].as_raw_string()
    except (KeyError, ValueError, AttributeError):
        return None
