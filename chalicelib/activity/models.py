"""The activity domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/activity/__init__.py``).

| item | pk | sk | index keys |
|---|---|---|---|
| feed copy | ``ACTE#<event id>`` | ``U#<feed's account>`` | gsi1: ``ACTU#<account>`` / ``<created>#<id>``; the owner's copy also gsi2: ``ACTR#<repo>`` / the same |
| team's copy | ``ACTE#<event id>`` | ``T#<team>`` | gsi1: ``ACTT#<team>`` / ``<created>#<id>`` |
| heatmap day | ``ACTH#<user>`` | ``D#<YYYY-MM-DD>`` | |

An event gives one activity, copied into the feeds that show it (Forgejo's ``action``
rows, one per ``user_id``): the actor's and the repository owner's (user or
organization); the owner's copy is also the repository's feed.  In an organization's
repository the organization's row is copied once more per team covering the repository
(Forgejo's team feed), so an event writes at most two copies plus the organization's
team count; a team's feed page is then one Query of its own partition.  A copy is keyed
by its event, so a redelivered event finds it and writes nothing.  A heatmap day holds the actor's contributions per 15-minute bucket of
the (UTC) day: ``qNN`` every one, ``pNN`` those in public repositories.
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.activity.states import BUCKETS_PER_DAY, all_field, public_field
from chalicelib.store.table import Item


class ActivityCopy(Item, discriminator="activity"):
    id = NumberAttribute()
    user_id = NumberAttribute()             # whose feed
    op_type = UnicodeAttribute()
    act_user_id = NumberAttribute(default=0)
    repo_id = NumberAttribute()
    # Where the repository was when it happened: a page reads the repositories, their
    # owners and the caller's access in one batch by these (a moved one by its id).
    owner_id = NumberAttribute(default=0)
    repo_owner = UnicodeAttribute(default="")
    repo_name = UnicodeAttribute(default="")
    ref_name = UnicodeAttribute(default="")
    content = UnicodeAttribute(default="")
    comment_id = NumberAttribute(default=0)
    comment = UnicodeAttribute(default="")  # the comment's snapshot (JSON), comments only
    is_pull = BooleanAttribute(default=False)
    is_private = BooleanAttribute(default=False)
    created = NumberAttribute()
    event_id = UnicodeAttribute(default="")


class HeatmapDay(Item, discriminator="heatmapday"):
    user_id = NumberAttribute(default=0)
    day = UnicodeAttribute(default="")
    last_event = UnicodeAttribute(default="")
    # q00 … q95 and p00 … p95: the day's buckets (absent: none).
    vars().update({name: NumberAttribute(null=True) for bucket in range(BUCKETS_PER_DAY)
                   for name in (all_field(bucket), public_field(bucket))})
