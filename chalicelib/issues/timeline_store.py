"""Timeline events: what Forgejo records as typed comments on an issue when it changes
(``close``, ``reopen``, ``merge_pull``, ``label``, ``milestone``, ``assignees``,
``change_title``, ``added_deadline``/``modified_deadline``/``removed_deadline``,
``delete_branch``, ``add_dependency``/``remove_dependency``, ``pull_push``), kept as items
of their own beside the issue's comments.

| item | pk | sk | written with |
|---|---|---|---|
| timeline event | ``R#<repo>`` | ``COMMENT#<number, 10 digits>#<id, 15 digits>`` | ``attribute_not_exists``, in the transaction of the change it records |

**Written with the change, not by a consumer.**  Every change of an issue is already one
transaction, conditional on the issue's ``version`` (``service.mutate``, the create, the
merge): the event items are staged in it (``stage_changes``, from the difference between
the issue as read and as written, or ``stage_event``).  So an event exists exactly when
its change does: a lost race or a refused write leaves neither, and a retry stages a new
attempt from a fresh read, never a second copy.  A consumer would have to make each
event idempotent by a key of its own and would show the timeline late; the only changes
made from the events queue (a close by a commit or a merged pull request,
``references.py``; a head branch gone, ``pulls/sync.py``) go through the same staged
path, and their own conditions (the reference's ``resolved`` mark, the state already
reached) make a redelivery write nothing, events included.

**Keyed as comments are** (``COMMENT#<number>#<id>``, ids from the comment sequence,
``kind`` ``timelineevent``): one Query of that prefix through ``Item`` reads an issue's
comments and events together (``entries_of``); the comments API reads through
``Comment``, whose kind filter keeps events out.  Deleting the issue deletes them; an
issue written before events existed simply has none.
"""
from __future__ import annotations

import json
import time

from chalicelib import clock
from chalicelib.issues.models import Comment, IssueReference, TimelineEvent
from chalicelib.issues.store import Issue, dumps, ikeys
from chalicelib.store import ids, unit_of_work
from chalicelib.store.table import Item

LABEL = "timeline event"
CLOSE, REOPEN, MERGE_PULL, LABEL_TYPE, MILESTONE, ASSIGNEES, CHANGE_TITLE = (
    "close", "reopen", "merge_pull", "label", "milestone", "assignees", "change_title")
ADDED_DEADLINE, MODIFIED_DEADLINE, REMOVED_DEADLINE, DELETE_BRANCH = (
    "added_deadline", "modified_deadline", "removed_deadline", "delete_branch")
# Commits pushed to a pull request's head (``pulls/sync.py``); the body is Forgejo's JSON.
PULL_PUSH = "pull_push"
MAX_PUSHED_COMMITS = 100
# On both issues of a dependency edge, naming the other (``dependencies.py``).
ADD_DEPENDENCY, REMOVE_DEPENDENCY = "add_dependency", "remove_dependency"
DEPENDENCY_TYPES = frozenset((ADD_DEPENDENCY, REMOVE_DEPENDENCY))
# An edit touching more labels than this records the first ones (one transaction).
MAX_LABEL_EVENTS = 40


def key(repo_id: int, number: int, event_id: int) -> tuple[str, str]:
    return ikeys.comment(repo_id, number, event_id)


# Reads ------------------------------------------------------------------------------------------

def entries_of(repo_id: int, number: int) -> tuple[list[Comment], list[TimelineEvent]]:
    """The issue's comments and events, each oldest first: one consistent Query."""
    comments: list[Comment] = []
    found: list[TimelineEvent] = []
    for item in Item.query(ikeys.partition(repo_id),
                           Item.sk.startswith(ikeys.comment_prefix(number)),
                           consistent_read=True):
        if isinstance(item, Comment):
            comments.append(item)
        elif isinstance(item, TimelineEvent):
            found.append(item)
    order = lambda item: (int(item.created), int(item.id))  # noqa: E731
    return sorted(comments, key=order), sorted(found, key=order)


def is_reference(item: Item) -> bool:
    return isinstance(item, IssueReference)


def with_sources(repo_id: int, references: list[IssueReference]) -> list[tuple]:
    """``(reference, issue, comment)`` for each reference of this repository whose source
    still exists (a commit reference has none: ``(reference, None, None)``); the issues
    and comments they come from are read in one BatchGetItem."""
    keys = []
    for ref in references:
        if int(ref.ref_issue_number or 0):
            keys.append(ikeys.issue(repo_id, int(ref.ref_issue_number)))
        if int(ref.ref_comment_id or 0):
            keys.append(ikeys.comment(repo_id, int(ref.ref_issue_number),
                                      int(ref.ref_comment_id)))
    if keys:
        unit_of_work.prefetch(keys)
    found = []
    for ref in references:
        if not int(ref.ref_issue_number or 0):
            found.append((ref, None, None))
            continue
        issue = unit_of_work.get(Issue, ikeys.issue(repo_id, int(ref.ref_issue_number)))
        if issue is None or int(issue.id) != int(ref.ref_issue_id):
            continue
        comment = None
        if int(ref.ref_comment_id or 0):
            comment = unit_of_work.get(Comment, ikeys.comment(
                repo_id, int(ref.ref_issue_number), int(ref.ref_comment_id)))
            if comment is None:
                continue
        found.append((ref, issue, comment))
    return found


def events_of(repo_id: int, number: int) -> list[TimelineEvent]:
    """The issue's events (what deleting it deletes too)."""
    return entries_of(repo_id, number)[1]


# Staged writes ----------------------------------------------------------------------------------

def stage_event(issue: Issue, event_type: str, actor: dict | None, *,
                created: int | None = None, **fields) -> TimelineEvent:
    """Stage one event of ``issue`` in the current unit of work (``actor``: the account
    snapshot of who made the change)."""
    repo_id, number = int(issue.repo_id), int(issue.number)
    event_id = ids.next_id("comment")
    event = TimelineEvent(*key(repo_id, number, event_id), id=event_id, repo_id=repo_id,
                          issue_number=number, issue_id=int(issue.id), type=event_type,
                          poster_id=int((actor or {}).get("id") or 0),
                          poster=dumps(actor) if actor else "{}",
                          created=clock.seconds() if created is None else created, **fields)
    unit_of_work.current().put(event, label=LABEL, must_not_exist=True)
    return event


def stage_push(issue: Issue, actor: dict | None, commit_ids: list[str], *,
               force: bool) -> TimelineEvent:
    """Stage a ``pull_push`` event: ``actor`` pushed ``commit_ids`` (oldest first; the
    newest ``MAX_PUSHED_COMMITS`` are kept) to the pull request's head, or force-pushed
    it (Forgejo then records the old and the new head).  Staged in the transaction that
    moves the head, conditional on the issue's version, like every event here: a
    redelivered push finds the head already moved and stages nothing.  The body is
    Forgejo's PushActionContent as Go marshals it (no spaces)."""
    body = json.dumps({"is_force_push": bool(force),
                       "commit_ids": list(commit_ids)[-MAX_PUSHED_COMMITS:]},
                      separators=(",", ":"))
    return stage_event(issue, PULL_PUSH, actor, body=body)


def _day(seconds: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(int(seconds)))


def _assignees(issue: Issue | None) -> dict[int, dict]:
    if issue is None:
        return {}
    snapshots = json.loads(issue.assignees or "[]")
    return {int(a.get("id") or 0): a for a in snapshots}


def stage_changes(old: Issue | None, new: Issue, actor: dict | None, *,
                  commit_sha: str = "") -> int:
    """Stage the events that take the issue from ``old`` (None: just created) to ``new``,
    in Forgejo's order for one edit; ``commit_sha`` names the commit a close came from.
    Returns how many were staged."""
    staged: list[TimelineEvent] = []

    def add(event_type: str, **fields) -> None:
        staged.append(stage_event(new, event_type, actor, **fields))

    if old is not None and old.title != new.title:
        add(CHANGE_TITLE, old_title=old.title, new_title=new.title)
    was_open = True if old is None else old.is_open
    if was_open != new.is_open:
        add(REOPEN if new.is_open else CLOSE, commit_sha="" if new.is_open else commit_sha)
    before = [int(i) for i in (old.label_ids if old is not None else [])]
    after = [int(i) for i in new.label_ids]
    changed = [(i, True) for i in after if i not in before] + \
        [(i, False) for i in before if i not in after]
    for label_id, added in changed[:MAX_LABEL_EVENTS]:
        add(LABEL_TYPE, label_id=label_id, body="1" if added else "")
    old_milestone = int(old.milestone_id or 0) if old is not None else 0
    if old_milestone != int(new.milestone_id or 0):
        add(MILESTONE, milestone_id=int(new.milestone_id or 0), old_milestone_id=old_milestone)
    was, now = _assignees(old), _assignees(new)
    for account_id, account in now.items():
        if account_id not in was:
            add(ASSIGNEES, assignee=dumps(account))
    for account_id, account in was.items():
        if account_id not in now:
            add(ASSIGNEES, assignee=dumps(account), removed_assignee=True)
    old_due, new_due = int(old.due or 0) if old is not None else 0, int(new.due or 0)
    if old_due != new_due:
        if not old_due:
            add(ADDED_DEADLINE, body=_day(new_due))
        elif not new_due:
            add(REMOVED_DEADLINE, body=_day(old_due))
        elif _day(old_due) != _day(new_due):
            add(MODIFIED_DEADLINE, body=f"{_day(new_due)}|{_day(old_due)}")
    return len(staged)
