"""References to an issue from elsewhere: a commit, another issue or pull request, a
comment.  Forgejo keeps them as typed comments on the referenced issue; here they are
items of their own beside the issue's comments, written by the ``issue-references``
consumer, so the comments API (plain comments only, as Forgejo's) never sees them and
a timeline can show them.

| item | pk | sk | written with |
|---|---|---|---|
| reference | ``R#<repo>`` | ``XREF#<number, 10 digits>#<source>`` | ``attribute_not_exists``; ``resolved`` set once, conditional on its absence, in the transaction that closes or reopens the issue |

``<source>`` is ``commit:<sha>`` (one reference per commit and issue, as Forgejo's
``CreateRefComment`` checks), ``issue:<repo id>:<issue id>`` (an issue or pull request's
title and body) or ``comment:<repo id>:<comment id>``.  ``comment_type`` is Forgejo's
name for the comment it would have written: ``issue_ref`` (3), ``commit_ref`` (4),
``comment_ref`` (5), ``pull_ref`` (6); ``id`` comes from the comment sequence so a
timeline can list references among comments.  ``ref_action`` is what the text asked
for (``none``, ``closes``, ``reopens``); ``resolved`` what this reference did to the
issue, which is what makes a close happen once however often its event is handled.
Deleting the issue deletes its references; deleting the repository, its partition.
Labels in ``ConditionFailed``: "reference".
"""
from __future__ import annotations

from chalicelib.errors import ConditionFailed
from chalicelib.issues.models import IssueReference
from chalicelib.issues.store import NUMBER_DIGITS, Issue, ikeys
from chalicelib.store import ids, unit_of_work

LABEL = "reference"


def key(repo_id: int, number: int, source: str) -> tuple[str, str]:
    return ikeys.partition(repo_id), f"{_prefix(number)}{source}"


def _prefix(number: int) -> str:
    return f"XREF#{number:0{NUMBER_DIGITS}d}#"


def commit_source(sha: str) -> str:
    return f"commit:{sha}"


def issue_source(repo_id: int, issue_id: int) -> str:
    return f"issue:{int(repo_id)}:{int(issue_id)}"


def comment_source(repo_id: int, comment_id: int) -> str:
    return f"comment:{int(repo_id)}:{int(comment_id)}"


def references_of(repo_id: int, number: int) -> list[IssueReference]:
    """Every reference to the issue, oldest first (one consistent Query)."""
    found = IssueReference.query(ikeys.partition(repo_id),
                                 IssueReference.sk.startswith(_prefix(number)),
                                 consistent_read=True)
    return sorted(found, key=lambda item: (int(item.created), int(item.id)))


def get(repo_id: int, number: int, source: str) -> IssueReference | None:
    return unit_of_work.get(IssueReference, key(repo_id, number, source), consistent=True)


def new_reference(issue: Issue, source: str, created: int, **fields) -> IssueReference:
    repo_id, number = int(issue.repo_id), int(issue.number)
    return IssueReference(*key(repo_id, number, source), id=ids.next_id("comment"),
                          repo_id=repo_id, issue_number=number, issue_id=int(issue.id),
                          created=created, **fields)


def add(reference: IssueReference) -> bool:
    """Write the reference unless one from the same source is there; False if it was."""
    try:
        with unit_of_work.writing() as uow:
            uow.put(reference, label=LABEL, must_not_exist=True)
    except ConditionFailed as failed:
        if failed.label == LABEL:
            return False
        raise
    return True


def stage_resolve(repo_id: int, number: int, source: str, action: str, at: int) -> None:
    """Record that the reference closed or reopened its issue, in the transaction that
    does it; a reference already resolved fails that transaction (label "reference")."""
    unit_of_work.current().update(
        IssueReference(*key(repo_id, number, source)),
        [IssueReference.resolved.set(action), IssueReference.resolved_at.set(at)],
        label=LABEL,
        condition=IssueReference.pk.exists() & IssueReference.resolved.does_not_exist())
