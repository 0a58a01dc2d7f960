"""Tracker records brought in by a project migration (``chalicelib.migrations``): labels,
milestones, issues and pull requests with the numbers, dates, states and bodies the
source had, their comments and reactions.

The migration calls these inside its own units of work, beside the write that moves its
cursor, so a step that resumes after a crash neither misses nor repeats a record:

- labels and milestones are added by name (title) to the tracker item, skipping those
  already there;
- an issue is put under its number (``must_not_exist``), with the tracker's counters
  and its milestone's in the same transaction; its ``num_comments`` is the count it
  will have, so the comments that follow never touch it (its ``updated`` stays the
  source's);
- comments and reactions carry no natural key here (ids are this instance's): the
  migration's cursor counts them in the same transaction, so a re-run starts after
  the last one written.

Authors: a person the migration matched to a local user is the poster; otherwise the
migrating user is, with ``original_author``/``original_author_id`` (Forgejo's rule).
No events are raised: a migration notifies nobody and feeds no activity, as Forgejo's.
The repository's open counters are not moved here: the repository record is written
last, with totals read from the tracker (``open_totals``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from chalicelib.accounts import account_snapshot
from chalicelib.errors import ConditionFailed
from chalicelib.issues import store, tracker_store
from chalicelib.issues.models import Comment, CommentRef, IssueTracker, Reaction
from chalicelib.issues.reaction_store import target_prefix
from chalicelib.issues.store import Issue, Tracker, ikeys
from chalicelib.issues.tracker_store import LABELS, MILESTONES, TrackerChange
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account


@dataclass(frozen=True)
class Author:
    """Who a record is by: ``account`` (a matched local user, else the migrating user)
    and, when unmatched, the source's login and id."""
    account: Account
    original_login: str = ""
    original_id: int = 0

    def fields(self) -> dict:
        values = {"poster_id": int(self.account.id),
                  "poster": store.dumps(account_snapshot(self.account))}
        if self.original_login:
            values.update(original_author=self.original_login,
                          original_author_id=int(self.original_id))
        return values


@dataclass(frozen=True)
class ImportedReaction:
    author: Author
    content: str
    created: int = 0


@dataclass(frozen=True)
class ImportedComment:
    author: Author
    body: str
    created: int
    updated: int
    reactions: tuple[ImportedReaction, ...] = ()


@dataclass(frozen=True)
class ImportedIssue:
    number: int
    title: str
    author: Author
    body: str
    state: str
    created: int
    updated: int
    closed: int = 0
    locked: bool = False
    labels: tuple[str, ...] = ()
    milestone: str = ""
    ref: str = ""
    num_comments: int = 0
    is_pull: bool = False
    pull: str = ""               # a pull request's fields (JSON, ``pulls.imports``)
    assignees: tuple = ()        # accounts: local users the migration found assignable


# The tracker -------------------------------------------------------------------------------

def ensure_tracker(repo_id: int) -> Tracker:
    """The tracker item, created empty if missing (then every import updates it)."""
    try:
        with unit_of_work.writing() as uow:
            uow.put(IssueTracker(*ikeys.tracker(repo_id), next_number=0, counts={},
                                 labels={}, milestones={}, num_comments=0),
                    label="tracker", must_not_exist=True)
    except ConditionFailed:
        pass        # there already (a resumed step)
    return store.get_tracker(repo_id, consistent=True)


def stage_labels(repo_id: int, tracker: Tracker, labels: Iterable[dict]) -> int:
    """Add the labels whose names the tracker lacks (``name``, ``color`` rrggbb,
    ``description``, ``exclusive``); how many."""
    have = {str(entry.get("name", "")) for entry in tracker.repo_labels.values()}
    change = TrackerChange()
    for label in labels:
        if label["name"] in have:
            continue
        have.add(label["name"])
        change.set_entry(LABELS, tracker_store.new_entry_id(LABELS), {
            "name": label["name"], "color": "#" + str(label.get("color", "")).lstrip("#").lower(),
            "description": label.get("description", ""),
            "exclusive": bool(label.get("exclusive")), "archived": False})
    tracker_store.stage(repo_id, change)
    return len(change.new_entries)


def stage_milestones(repo_id: int, tracker: Tracker, milestones: Iterable[dict]) -> int:
    """Add the milestones whose titles the tracker lacks, with the source's dates; how
    many.  Their open/closed counters grow as their issues arrive."""
    have = {str(entry.get("title", "")) for entry in tracker.milestones.values()}
    change = TrackerChange()
    for milestone in milestones:
        if milestone["title"] in have:
            continue
        have.add(milestone["title"])
        closed = milestone.get("state") == "closed"
        change.set_entry(MILESTONES, tracker_store.new_entry_id(MILESTONES), {
            "title": milestone["title"], "description": milestone.get("description", ""),
            "state": "closed" if closed else "open", "due": int(milestone.get("due", 0)),
            "created": int(milestone.get("created", 0)),
            "updated": int(milestone.get("updated", 0)),
            "closed_at": int(milestone.get("closed", 0)) if closed else 0, "o": 0, "c": 0})
    tracker_store.stage(repo_id, change)
    return len(change.new_entries)


def stage_next_number(repo_id: int, highest: int) -> None:
    """The next issue or pull request created gets ``highest + 1`` (and never a number
    the migration brought)."""
    unit_of_work.current().update(IssueTracker(*ikeys.tracker(repo_id)),
                                  [IssueTracker.next_number.set(int(highest))],
                                  label="tracker", condition=IssueTracker.pk.exists())


def open_totals(repo_id: int) -> tuple[int, int]:
    """(open issues, open pull requests) as the tracker counts them now."""
    tracker = store.get_tracker(repo_id, consistent=True)
    return tracker.total("o", "i"), tracker.total("o", "p")


# Issues, comments, reactions ---------------------------------------------------------------

def existing(repo_id: int, number: int) -> Issue | None:
    return store.get_issue(repo_id, number, consistent=True)


def stage_issue(repo_id: int, tracker: Tracker, imported: ImportedIssue) -> Issue:
    """Put the issue (or pull request) under its own number, with the tracker's
    counters; labels and the milestone by name (one the tracker lacks is left out)."""
    by_name = {str(e.get("name")): i for i, e in tracker.repo_labels.items()}
    by_title = {str(e.get("title")): i for i, e in tracker.milestones.items()}
    closed = imported.state == "closed"
    issue = store.new_issue(
        repo_id, int(imported.number), store.new_issue_id(), title=imported.title,
        body=imported.body, state="closed" if closed else "open",
        label_ids=sorted({by_name[n] for n in imported.labels if n in by_name}),
        milestone_id=by_title.get(imported.milestone, 0), ref=imported.ref,
        is_locked=bool(imported.locked), num_comments=int(imported.num_comments),
        created=int(imported.created), updated=int(imported.updated or imported.created),
        closed_at=int(imported.closed or imported.updated) if closed else 0,
        is_pull=bool(imported.is_pull), pull=imported.pull,
        assignee_ids=[int(a.id) for a in imported.assignees],
        assignees=store.dumps([account_snapshot(a) for a in imported.assignees]),
        **imported.author.fields())
    store.stage_create_issue(issue)
    tracker_store.stage(repo_id, TrackerChange.for_issue(None, issue, tracker))
    return issue


def stage_comments(issue: Issue, comments: Iterable[ImportedComment]) -> list[Comment]:
    """Put the comments (with their id lookups and reactions) under the issue (the
    tracker counted them with the issue, whose ``num_comments`` they already are)."""
    repo_id, number = int(issue.repo_id), int(issue.number)
    uow = unit_of_work.current()
    written = []
    for imported in comments:
        comment_id = ids.next_id("comment")
        comment = Comment(*ikeys.comment(repo_id, number, comment_id), id=comment_id,
                          repo_id=repo_id, issue_number=number, issue_id=int(issue.id),
                          body=imported.body, created=int(imported.created),
                          updated=int(imported.updated or imported.created),
                          gsi1pk=ikeys.repo_comments(repo_id),
                          gsi1sk=ikeys.repo_comment_order(int(imported.created), comment_id),
                          **imported.author.fields())
        uow.put(comment, label="comment", must_not_exist=True)
        uow.put(CommentRef(*ikeys.comment_ref(repo_id, comment_id), issue_number=number),
                label="comment")
        stage_reactions(repo_id, number, comment_id, imported.reactions)
        written.append(comment)
    return written


def stage_reactions(repo_id: int, number: int, comment_id: int,
                    reactions: Iterable[ImportedReaction]) -> int:
    """The reactions to an issue (``comment_id`` 0) or a comment.  A matched person's is
    keyed as any of theirs (one per content); an unmatched one's by the source login, so
    two people's stay two."""
    uow = unit_of_work.current()
    seen: set[str] = set()
    for n, imported in enumerate(reactions):
        who = f"o{imported.author.original_login}" if imported.author.original_login \
            else str(int(imported.author.account.id))
        sk = f"{target_prefix(number, comment_id)}{who}#{imported.content}"
        if sk in seen:
            continue
        seen.add(sk)
        reaction = Reaction(ikeys.partition(repo_id), sk, repo_id=repo_id, issue_number=number,
                            comment_id=comment_id, user_id=int(imported.author.account.id),
                            user=store.dumps(account_snapshot(imported.author.account)),
                            content=imported.content,
                            created_ms=int(imported.created) * 1000 + n)
        if imported.author.original_login:
            reaction.original_author = imported.author.original_login
        uow.put(reaction, label="reaction")
    return len(seen)


def numbers_after(repo_id: int, after: int, limit: int) -> list[int]:
    """The numbers of the repository's issues and pull requests above ``after``, lowest
    first, at most ``limit``: one Query (the search index takes a migrated tracker a
    page at a time)."""
    found = Issue.query(ikeys.partition(repo_id),
                        Issue.sk.between(ikeys.issue(repo_id, int(after) + 1)[1],
                                         ikeys.ISSUE_PREFIX + "~"),
                        limit=int(limit), consistent_read=True)
    return [int(i.number) for i in found if isinstance(i, Issue)]


def items_of_comments(comments: Iterable[ImportedComment]) -> int:
    """How many items ``stage_comments`` writes for these (transaction budgets)."""
    return sum(2 + len(c.reactions) for c in comments)
