"""The issues domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/issues/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, ListAttribute, MapAttribute, NumberAttribute,
                                 UnicodeAttribute)

from chalicelib.store.table import Item


class IssueReference(Item, discriminator="issueref"):
    id = NumberAttribute()
    repo_id = NumberAttribute()             # the referenced issue's repository
    issue_number = NumberAttribute()
    issue_id = NumberAttribute()
    comment_type = UnicodeAttribute()       # issue_ref | commit_ref | comment_ref | pull_ref
    poster_id = NumberAttribute(default=0)  # who made the reference (pusher, author)
    poster = UnicodeAttribute(default="{}")
    ref_repo_id = NumberAttribute()         # where the reference was made
    ref_issue_id = NumberAttribute(default=0)
    ref_issue_number = NumberAttribute(default=0)
    ref_comment_id = NumberAttribute(default=0)
    ref_is_pull = BooleanAttribute(default=False)
    ref_action = UnicodeAttribute(default="none")
    commit_sha = UnicodeAttribute(default="")
    content = UnicodeAttribute(default="")  # commit_ref: the commit message's first line
    created = NumberAttribute()
    resolved = UnicodeAttribute(null=True)  # closes | reopens, once it did
    resolved_at = NumberAttribute(null=True)


class IssueTracker(Item, discriminator="issuetracker"):
    next_number = NumberAttribute(default=0)
    counts = MapAttribute(default=dict)
    labels = MapAttribute(default=dict)
    milestones = MapAttribute(default=dict)
    num_comments = NumberAttribute(default=0)
    # Pinned issue and pull request numbers in pin order (``pins.py``): a pin, unpin or
    # move rewrites one list conditional on ``pin_version`` (the limit holds under races).
    pinned_issues = ListAttribute(of=NumberAttribute, default=list)
    pinned_pulls = ListAttribute(of=NumberAttribute, default=list)
    pin_version = NumberAttribute(default=0)


class Issue(Item, discriminator="issue"):
    id = NumberAttribute()
    repo_id = NumberAttribute()
    number = NumberAttribute()
    is_pull = BooleanAttribute(default=False)
    title = UnicodeAttribute(default="")
    body = UnicodeAttribute(default="")
    state = UnicodeAttribute(default="open")         # open | closed
    poster_id = NumberAttribute(default=0)
    poster = UnicodeAttribute(default="{}")          # JSON snapshot of the account
    assignee_ids = ListAttribute(of=NumberAttribute, default=list)
    assignees = UnicodeAttribute(default="[]")       # JSON snapshots, same order
    label_ids = ListAttribute(of=NumberAttribute, default=list)
    milestone_id = NumberAttribute(default=0)
    due = NumberAttribute(default=0)
    ref = UnicodeAttribute(default="")
    is_locked = BooleanAttribute(default=False)
    num_comments = NumberAttribute(default=0)
    created = NumberAttribute()
    updated = NumberAttribute()
    closed_at = NumberAttribute(default=0)
    # A pull request's own fields (pulls/store.py), JSON; "" on an issue.
    pull = UnicodeAttribute(default="")
    version = NumberAttribute(default=1)
    # The issue's own attachments by id (``attachment_store.py``); absent until the first.
    attachments = MapAttribute(null=True)
    # A migrated issue whose author matched no local user (``import_store.py``): the source's
    # login and id; the poster is then the migrating user, as in Forgejo.
    original_author = UnicodeAttribute(null=True)
    original_author_id = NumberAttribute(null=True)

    @property
    def is_open(self) -> bool:
        return self.state == "open"


class Comment(Item, discriminator="comment"):
    id = NumberAttribute()
    repo_id = NumberAttribute()
    issue_number = NumberAttribute()
    issue_id = NumberAttribute()
    poster_id = NumberAttribute()
    poster = UnicodeAttribute(default="{}")
    body = UnicodeAttribute(default="")
    created = NumberAttribute()
    updated = NumberAttribute()
    # The comment's attachments by id (``attachment_store.py``); absent until the first.
    attachments = MapAttribute(null=True)
    # A migrated comment's author who matched no local user (``import_store.py``).
    original_author = UnicodeAttribute(null=True)
    original_author_id = NumberAttribute(null=True)


class IssueAttachmentLink(Item, discriminator="issueattachmentlink"):
    """Finds an issue's or comment's attachment from its uuid (``/attachments/<uuid>``);
    ``expires`` (the table's TTL) while it is a presigned upload not yet confirmed."""
    repo_id = NumberAttribute()
    issue_number = NumberAttribute()
    comment_id = NumberAttribute(default=0)       # 0: the issue's own attachment
    attachment_id = NumberAttribute()
    expires = NumberAttribute(null=True)


class TimelineEvent(Item, discriminator="timelineevent"):
    """A change of an issue as Forgejo's typed comments record it (timeline_store.py)."""
    id = NumberAttribute()
    repo_id = NumberAttribute()
    issue_number = NumberAttribute()
    issue_id = NumberAttribute()
    type = UnicodeAttribute()               # Forgejo's comment type: close, label, ...
    poster_id = NumberAttribute(default=0)
    poster = UnicodeAttribute(default="{}")
    body = UnicodeAttribute(default="")
    label_id = NumberAttribute(default=0)
    milestone_id = NumberAttribute(default=0)
    old_milestone_id = NumberAttribute(default=0)
    assignee = UnicodeAttribute(default="")  # JSON snapshot of the (un)assigned account
    removed_assignee = BooleanAttribute(default=False)
    old_title = UnicodeAttribute(default="")
    new_title = UnicodeAttribute(default="")
    old_ref = UnicodeAttribute(default="")
    commit_sha = UnicodeAttribute(default="")
    # add_dependency / remove_dependency: the other issue of the edge (dependency_store).
    dependent_repo_id = NumberAttribute(default=0)
    dependent_number = NumberAttribute(default=0)
    dependent_issue_id = NumberAttribute(default=0)
    created = NumberAttribute()


class IssueDependency(Item, discriminator="issuedep"):
    """One side of a dependency edge under its issue's repository (dependency_store.py):
    ``DEP#`` under the blocked issue, ``BLK#`` under the blocker; ``other_*`` is the
    issue at the edge's other end."""
    repo_id = NumberAttribute()
    number = NumberAttribute()
    issue_id = NumberAttribute()
    other_repo_id = NumberAttribute()
    other_number = NumberAttribute()
    other_issue_id = NumberAttribute()
    poster_id = NumberAttribute(default=0)
    created = NumberAttribute()


class CommentRef(Item, discriminator="commentref"):
    """Finds a comment (keyed under its issue) from the comment id in the path."""
    issue_number = NumberAttribute()


class TrackedTime(Item, discriminator="trackedtime"):
    id = NumberAttribute()
    issue_number = NumberAttribute()
    issue_id = NumberAttribute()
    user_id = NumberAttribute()
    user_name = UnicodeAttribute(default="")
    time = NumberAttribute()
    created = NumberAttribute()
    # gsi1 (the repository's times) and gsi2 (the user's) by creation: ``time_lists.py``.


class StopWatch(Item, discriminator="stopwatch"):
    """A user's running stopwatch on an issue (``stopwatch_store.py``)."""
    user_id = NumberAttribute()
    repo_id = NumberAttribute()
    issue_number = NumberAttribute()
    issue_id = NumberAttribute()
    created = NumberAttribute()


class Reaction(Item, discriminator="reaction"):
    """One user's reaction (one content) to an issue or a comment (reaction_store.py)."""
    repo_id = NumberAttribute()
    issue_number = NumberAttribute()
    comment_id = NumberAttribute(default=0)  # 0: a reaction to the issue itself
    user_id = NumberAttribute()
    user = UnicodeAttribute(default="{}")   # JSON snapshot of the account
    content = UnicodeAttribute()
    created_ms = NumberAttribute()          # milliseconds: orders reactions of one second
    # A migrated reaction whose person matched no local user (``import_store.py``).
    original_author = UnicodeAttribute(null=True)


class OrgLabels(Item, discriminator="orglabels"):
    """Every label of one organization (``org_label_store.py``): JSON {id: definition},
    rewritten whole conditional on ``version``."""
    labels = UnicodeAttribute(default="{}")
    version = NumberAttribute(default=0)
