"""The notifications domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/notifications/__init__.py``).

| item | pk | sk | index keys |
|---|---|---|---|
| thread | ``NTF#<thread id>`` | ``THREAD`` | gsi1: ``NTFU#<user>#<box>`` / ``<updated>#<id>``; gsi2: ``NTFR#<user>#<repo>#<box>`` / the same |
| subject link | ``NTFS#<source>#<subject id>`` | ``U#<user>`` | |
| subscription | ``NTFW#<issue id>`` | ``U#<user>`` | |

A thread is one person's notification about one subject (an issue, a pull request, a
release): new activity on the subject updates it (unread again) rather than adding
another, as Forgejo does.  Its ``box`` is ``active`` while unread or pinned and
``read`` once read, so the default list (unread and pinned) and the ``new`` count read
one index partition, however many read threads a person has.  The subject link finds
the thread of (subject, person) when an event comes, and lists everyone holding a
thread on a subject (their subject fields follow title and state changes).  A
subscription is Forgejo's IssueWatch: watching (``watching``) or explicitly not, and
whether it was made by taking part (``auto``) or by asking.
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.notifications.states import UNREAD
from chalicelib.store.table import Item


class Thread(Item, discriminator="notification"):
    id = NumberAttribute()
    user_id = NumberAttribute()
    repo_id = NumberAttribute()
    # Where the repository was when last notified: a page reads the repositories and
    # their owners in one batch by these (a renamed one is found by its id instead).
    owner_id = NumberAttribute(default=0)
    repo_owner = UnicodeAttribute(default="")
    repo_name = UnicodeAttribute(default="")
    source = UnicodeAttribute()                 # ISSUE | PULL | COMMIT | REPOSITORY | RELEASE
    subject_id = NumberAttribute(default=0)     # issue id or release id
    number = NumberAttribute(default=0)         # the issue's number
    commit = UnicodeAttribute(default="")       # a commit subject's sha
    status = UnicodeAttribute(default=UNREAD)
    updated = NumberAttribute()
    updated_by = NumberAttribute(default=0)
    reason = UnicodeAttribute(default="")       # why the person was notified (last time)
    title = UnicodeAttribute(default="")
    state = UnicodeAttribute(default="")        # open | closed | merged ("" for releases)
    latest_comment_id = NumberAttribute(default=0)
    release_tag = UnicodeAttribute(default="")
    # The event that last notified: a redelivered event finds it and changes nothing.
    last_event = UnicodeAttribute(default="")


class SubjectLink(Item, discriminator="notificationsubject"):
    thread_id = NumberAttribute()
    user_id = NumberAttribute()


class Subscription(Item, discriminator="issuewatch"):
    issue_id = NumberAttribute()
    repo_id = NumberAttribute(default=0)
    user_id = NumberAttribute()
    watching = BooleanAttribute(default=True)
    auto = BooleanAttribute(default=False)      # made by taking part, not by asking
    created = NumberAttribute(default=0)
