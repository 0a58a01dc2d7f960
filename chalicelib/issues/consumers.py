"""The internal consumer that follows issue references (``issues/references.py``):
commits of a push, issue and pull request texts, comments, and merged pull requests
that close what they name.  Registered as ``issue-references``; idempotent: each
reference is written only if absent, and each close or reopen is conditional on its
reference not having acted yet."""
from __future__ import annotations

from chalicelib import events as domain_events

EVENT_TYPES = (domain_events.RepositoryPushed, domain_events.IssueChanged,
               domain_events.IssueCommentChanged)
COMMENT_ACTIONS = ("created", "edited")


def wants_event(event: domain_events.Event) -> bool:
    """Checked before the event is claimed: a push of commits to a branch (not a tag,
    not a deletion, not a mirror's sync), a merge, a new or retitled text, a comment."""
    if isinstance(event, domain_events.RepositoryPushed):
        from chalicelib.gitstore import refdb

        return event.ref.startswith("refs/heads/") and bool(event.actor_id) \
            and not refdb.is_zero(event.after) and not event.repo.get("mirror")
    if isinstance(event, domain_events.IssueChanged):
        return event.action in ("merged", "opened") or (
            event.action == "edited" and any(name in ("title", "body")
                                             for name, _ in event.changes))
    return isinstance(event, domain_events.IssueCommentChanged) and \
        event.action in COMMENT_ACTIONS


def on_event(event: domain_events.Event) -> None:
    from chalicelib.issues import references as issue_references

    if isinstance(event, domain_events.RepositoryPushed):
        issue_references.on_push(event)
    elif isinstance(event, domain_events.IssueChanged):
        if event.action == "merged":
            issue_references.on_merged(event)
        elif event.action == "opened" or (
                event.action == "edited" and any(name in ("title", "body")
                                                 for name, _ in event.changes)):
            issue_references.on_text(event)
    elif isinstance(event, domain_events.IssueCommentChanged):
        if event.action in COMMENT_ACTIONS:
            issue_references.on_comment(event)
